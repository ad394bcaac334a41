"""
=====================================================================
Factual recall with random embeddings: attention and capacity
=====================================================================

Vural, Bietti, Soltanolkotabi and Wu (ICLR 2026) study one attention head over
fixed random (non-orthogonal) token embeddings that must find the token marked
by a trigger in a length-``L`` sequence and output its "fact", a fixed
permutation of the vocabulary. Three gradient steps (the "early phase") already
learn where to look and what to answer; how many samples ``N`` that takes grows
with ``L`` and the vocabulary ``V`` and shrinks with the embedding dimension
``d``.

We fit :class:`~sklearn_iclr.RandomEmbeddingRecallClassifier` on
:func:`~sklearn_iclr.datasets.make_token_recall` data, show its attention on a
few held-out sequences (it concentrates on the position after the trigger),
then measure with :func:`~sklearn_iclr.attention.recall_capacity` the
smallest ``N`` reaching 90% held-out accuracy over a grid of ``d`` and ``L``.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_iclr import RandomEmbeddingRecallClassifier
from sklearn_iclr.attention import recall_capacity
from sklearn_iclr.datasets import make_token_recall

# %%
# Attention on the trigger
# ------------------------
# Token 0 is the trigger; the informative token is the one after it.
X, y = make_token_recall(3000, vocab_size=32, seq_len=12, random_state=0)
clf = RandomEmbeddingRecallClassifier(embedding_dim=32, random_state=0)
clf.fit(X[:2000], y[:2000])
print(f"held-out accuracy: {clf.score(X[2000:], y[2000:]):.3f}")

attention = clf.attention_weights(X[2000:2010])
marked = np.argmax(X[2000:2010] == 0, axis=1) + 1
fig, ax = plt.subplots(figsize=(7, 3.5))
image = ax.imshow(attention, cmap="viridis", vmin=0, vmax=1, aspect="auto")
ax.scatter(marked, np.arange(10), marker="x", color="red", label="marked token")
ax.set_xlabel("position")
ax.set_ylabel("held-out sequence")
ax.set_title("EOS attention after the three-step early phase")
ax.legend(loc="upper right", fontsize=8)
fig.colorbar(image, ax=ax, label="attention weight")
fig.tight_layout()

# %%
# Capacity surface
# ----------------
# The smallest number of training sequences reaching 90% held-out accuracy,
# found by bisection on a log scale, for V = 32.
dims, lengths = [16, 32, 64], [4, 8, 16]
res = recall_capacity(dims, lengths, [32], accuracy=0.9, n_repeats=2, rtol=0.4)
needed = np.full((len(lengths), len(dims)), np.nan)
for row in res["table"]:
    if row["reached"]:
        i, j = lengths.index(row["seq_len"]), dims.index(row["embedding_dim"])
        needed[i, j] = row["n_required"]

fig, ax = plt.subplots(figsize=(5, 4))
image = ax.imshow(np.log10(needed), cmap="magma_r", origin="lower")
ax.set_xticks(range(len(dims)), dims)
ax.set_yticks(range(len(lengths)), lengths)
ax.set_xlabel("embedding dimension d")
ax.set_ylabel("sequence length L")
for (i, j), value in np.ndenumerate(needed):
    text = "not reached" if np.isnan(value) else f"{value:.0f}"
    ax.text(j, i, text, ha="center", va="center", color="tab:blue")
ax.set_title("samples needed for 90% recall (V = 32)")
fig.colorbar(image, ax=ax, label="log10 N")
fig.tight_layout()

exponents = ", ".join(
    f"{k}: {v:+.2f} +- {res['exponents_stderr'][k]:.2f}"
    for k, v in res["exponents"].items()
)
print(f"log N fit (R^2 = {res['r2']:.2f}): {exponents}")
plt.show()
