"""
=====================================================================
Neuron specialisation in the paper's contrastive model, with pruning
=====================================================================

Liao, Zhou, Zhang, Wang and Zhang, "Theoretical Analysis of Contrastive
Learning under Imbalanced Data: From Training Dynamics to a Pruning
Solution" (ICLR 2026), analyse one attention layer followed by neurons with
the bilateral ReLU, trained with InfoNCE (stop-gradient on the positive
view) on sparse-coding tokens whose dictionary features occur at
imbalanced rates. They predict that the neurons learn the majority
features first and the minority features later and weaker, and that
masking the smallest neurons in the forward pass (Algorithm 1) helps the
minority features.

We fit :class:`~sklearn_iclr.contrastive.BReLUAttentionEncoder` on
:func:`~sklearn_iclr.datasets.make_sparse_coding_pairs` (4 majority and 4
minority features, ``rho = eps_max / eps_min = 10``) with and without
pruning, and read the neurons with
:func:`~sklearn_iclr.contrastive.neuron_alignment`: the best ``|cos|``
between a kept neuron and each feature over training, and the final
``|cos|`` of every neuron with every feature. The benchmark
``benchmarks/bench_brelu_attention.py`` gives the same measures over 5 seeds.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_iclr.contrastive import BReLUAttentionEncoder, neuron_alignment
from sklearn_iclr.datasets import make_sparse_coding_pairs

X, X_pos, codes, M, rates = make_sparse_coding_pairs(
    1000, n_tokens=4, n_features=32, noise=0.2, imbalance=10.0, random_state=0
)
minority = rates < rates.max()
params = dict(
    n_neurons=32,
    brelu_bias=0.01,
    init_scale=0.1,
    learning_rate=0.5,
    max_epochs=20,
    random_state=0,
)

fig, axes = plt.subplots(2, 2, figsize=(10, 8), layout="constrained")
for column, prune_ratio in enumerate((0.0, 0.3)):
    encoder = BReLUAttentionEncoder(prune_ratio=prune_ratio, **params)
    encoder.fit(X, X_positive=X_pos)
    report = neuron_alignment(encoder, M)
    ax = axes[0, column]
    ax.plot(report.epochs, report.best_cosine[:, ~minority].mean(1), label="majority")
    ax.plot(report.epochs, report.best_cosine[:, minority].mean(1), label="minority")
    kept_noise = [
        np.sqrt(np.clip(1 - (c**2).sum(-1), 0, None))[k].mean()
        for c, k in zip(report.cosine, report.kept, strict=True)
    ]
    ax.plot(report.epochs, kept_noise, label="noise part of |w|")
    ax.set(xlabel="epoch", ylabel="best |cos| / noise fraction", ylim=(0, 1))
    ax.set_title(f"prune_ratio={prune_ratio}")
    ax.legend()
    final = np.abs(report.cosine[-1])[report.kept[-1]]
    order = np.lexsort((-final.max(1), final.argmax(1)))
    image = axes[1, column].imshow(
        final[order].T, aspect="auto", vmin=0, vmax=1, cmap="viridis"
    )
    axes[1, column].set(
        xlabel="kept neuron",
        ylabel="feature (0-3 majority, 4-7 minority)",
        title=(
            f"specialists: majority {report.n_specialists[-1][~minority].sum()}, "
            f"minority {report.n_specialists[-1][minority].sum()}"
        ),
    )
    print(
        f"prune_ratio={prune_ratio}: specialists per feature "
        f"{report.n_specialists[-1].tolist()}, mixed {report.n_mixed[-1].tolist()}"
    )
fig.colorbar(image, ax=axes[1], label="|cos(w_i, M_j)|")
plt.show()
