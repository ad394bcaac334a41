"""
=====================================================================
The optimal escape direction of a deep ReLU network from the origin
=====================================================================

Bantzis, Simon and Jacot (ICLR 2026) show that a deep bias-free ReLU network
trained from a small initialisation leaves the saddle at the origin along an
*escape direction*: unit-norm layers ``W_l`` that maximise the speed
``s = Tr[Y^T Y_theta]``, the rate at which the loss starts to fall. Their
Theorem 3.1: the deep layers of the optimal direction are nearly rank 1.

:class:`~sklearn_iclr.EscapeDirection` searches that direction. On the paper's
Example 1 (eight points on the circle with alternating targets) the optimum
has a rank-2 first layer and speed 1/2, against ``sqrt(2) - 1`` for networks
whose layers all have rank 1. On a rank-2 ReLU teacher we plot the rank ratio
``sum_{i>=2} s_i^2 / sum_i s_i^2`` of every layer of the optimal direction as
the depth grows, next to the theorem's envelope ``l^(-1/2)``.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_iclr import EscapeDirection

angles = np.arange(8) * np.pi / 4
X1 = np.c_[np.cos(angles), np.sin(angles)]
Y1 = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
free = EscapeDirection(depth=3, width=20, random_state=0).fit(X1, Y1)
rank_1 = EscapeDirection(depth=3, width=4, max_rank=1, random_state=0).fit(X1, Y1)
print(f"Example 1: speed {free.speed_:.4f} (closed form 1/2)")
print(
    f"all layers rank 1: speed {rank_1.speed_:.4f} (closed form {np.sqrt(2) - 1:.4f})"
)

# %%
# The rank ratio of every layer, at depths 3 to 8
# -----------------------------------------------
# Two ReLU units of strengths 2 and 1, orthogonal in and out: 10 -> 3.
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 10))
inputs = np.linalg.qr(rng.standard_normal((10, 2)))[0]
outputs = np.linalg.qr(rng.standard_normal((3, 2)))[0]
Y = np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T

fig, ax = plt.subplots(figsize=(6, 3.5), constrained_layout=True)
for depth in (3, 5, 8):
    escape = EscapeDirection(depth=depth, width=20, n_restarts=4, random_state=0)
    escape.fit(X, Y)
    layers = np.arange(1, depth + 1)
    ax.semilogy(layers, np.maximum(escape.rank_ratio_, 1e-16), "o-", label=f"L={depth}")
    print(f"depth {depth}: speed {escape.speed_:.4g}")
ax.semilogy(np.arange(1, 9), np.arange(1, 9) ** -0.5, "k--", label="l^(-1/2)")
ax.set(xlabel="layer l", ylabel="rank ratio of W_l", title="optimal escape direction")
ax.legend()
plt.show()
