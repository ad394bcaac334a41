"""
=====================================================================
Saddle-to-saddle dynamics of a deep ReLU network from small weights
=====================================================================

Bantzis, Simon and Jacot (ICLR 2026) study a deep bias-free ReLU network
trained by gradient descent from a small initialisation. The loss first sits on
a plateau at the saddle at the origin while the weights turn towards an escape
direction, which is nearly rank 1 in the deep layers; the network then fits
what a rank-1 network can, stalls near that saddle, and later escapes again,
adding a second singular value to its layers.

We train :class:`~sklearn_iclr.SmallInitMLPRegressor` (depth 4, width 20) on a
rank-2 ReLU teacher ``y = 2 a_1 relu(b_1 . x) + a_2 relu(b_2 . x)`` and plot
the loss with the plateaus it detects (``plateaus_``), and the singular values
of every layer over time (the records of ``history_``).
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_iclr import SmallInitMLPRegressor

rng = np.random.default_rng(0)
X = rng.standard_normal((200, 10))
inputs = np.linalg.qr(rng.standard_normal((10, 2)))[0]
outputs = np.linalg.qr(rng.standard_normal((3, 2)))[0]
Y = np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T

reg = SmallInitMLPRegressor(
    hidden_layer_sizes=(20, 20, 20),
    init_scale=0.1,
    learning_rate=0.2,
    max_iter=10_000,
    record_every=20,
    random_state=0,
).fit(X, Y)

for i, plateau in enumerate(reg.plateaus_, start=1):
    print(
        f"plateau {i}: iterations {plateau['start_iteration']}-"
        f"{plateau['end_iteration']}, loss {plateau['loss']:.3g}, "
        f"effective ranks {plateau['effective_ranks'].tolist()}"
    )

# %%
# The loss and the plateaus
# -------------------------
# The first plateau is the origin (loss 1/2 on the scaled target), the second
# the saddle where one teacher unit is fitted.
fig, axes = plt.subplots(1, 5, figsize=(16, 3.2), constrained_layout=True)
axes[0].semilogy(reg.loss_curve_)
for i, plateau in enumerate(reg.plateaus_):
    axes[0].axvspan(
        plateau["start_iteration"],
        plateau["end_iteration"],
        color=f"C{i + 1}",
        alpha=0.2,
    )
axes[0].set(title="training loss, plateaus shaded", xlabel="iteration")

# %%
# Singular values of every layer over time
# ----------------------------------------
# After the first escape every layer but the first is rank 1; a second singular
# value grows in all the deep layers at the second escape.
iterations = [record["iter"] for record in reg.history_]
for layer in range(len(reg.coefs_)):
    values = np.array([record["singular_values"][layer] for record in reg.history_])
    ax = axes[layer + 1]
    ax.semilogy(iterations, values[:, :4])
    ax.set(title=f"layer {layer + 1}: top singular values", xlabel="iteration")
plt.show()
