"""
==========================================================================
Recovering a hidden direction: averaged Langevin vs SGD and partial traces
==========================================================================

A Gaussian single-index model ``y = h_4(theta* . x)`` (``h_4`` the fourth
orthonormal Hermite polynomial, so the information exponent is ``k* = 4``)
hides a direction ``theta*`` in ``d = 32`` dimensions. We compare, on the same
data, for a growing number of samples ``n``:

- the average of many Langevin (batch-1 SGD) chains,
  :class:`~sklearn_iclr.AveragedLangevinRegressor` (Wei, Damian & Lee,
  ICLR 2026);
- the last iterate of the same chains;
- one-pass online SGD (Ben Arous, Gheissari & Jagannath, 2021);
- the one-shot partial-trace (spectral) estimator.

The overlap ``|<theta_hat, theta*>|`` is 1 for perfect recovery and about
``1 / sqrt(d) = 0.18`` for a random guess. Online SGD and the last iterate
stay near the equator for ``n`` well below ``d^3``, while the averaged
iterate recovers ``theta*`` from about ``d^2`` samples.
"""

import matplotlib.pyplot as plt
import numpy as np

from sklearn_iclr import AveragedLangevinRegressor
from sklearn_iclr.datasets import make_single_index
from sklearn_iclr.metrics import overlap

# The anchors are private: they exist to be compared against (docs/conventions.rst).
from sklearn_iclr.single_index._baselines import (
    online_sgd_direction,
    partial_trace_direction,
)

d, k = 32, 4
ratios = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16]
seeds = [0, 1]
methods = ["averaged Langevin", "last iterate", "online SGD", "partial trace"]
results = {m: np.zeros((len(ratios), len(seeds))) for m in methods}

for i, r in enumerate(ratios):
    for j, seed in enumerate(seeds):
        X, y, theta = make_single_index(
            int(r * d * d), d, information_exponent=k, random_state=seed
        )
        est = AveragedLangevinRegressor(information_exponent=k, random_state=10 + seed)
        est.fit(X, y)
        results["averaged Langevin"][i, j] = overlap(est.direction_, theta)
        results["last iterate"][i, j] = np.median(
            [overlap(row, theta) for row in est.last_iterates_]
        )
        online = online_sgd_direction(X, y, k, random_state=20 + seed)
        results["online SGD"][i, j] = overlap(online, theta)
        results["partial trace"][i, j] = overlap(
            partial_trace_direction(X, y, k), theta
        )

fig, ax = plt.subplots(figsize=(6, 4))
for method, marker in zip(methods, "osD^", strict=True):
    ax.plot(ratios, results[method].mean(axis=1), marker=marker, label=method)
ax.axhline(1 / np.sqrt(d), color="grey", linestyle=":", label="random guess")
ax.set_xscale("log", base=2)
ax.set_xlabel("n / d^2")
ax.set_ylabel("overlap with theta* (mean of 2 seeds)")
ax.set_title(f"k* = {k}, d = {d}")
ax.set_ylim(0, 1.02)
ax.legend(loc="center right")
fig.tight_layout()
plt.show()

# %%
# The averaged chains also give a regressor: the link is fitted by least
# squares in Hermite polynomials on the recovered index.
n_train = 10 * d * d
X, y, theta = make_single_index(
    n_train + 2000, d, information_exponent=k, noise=0.1, random_state=5
)
est = AveragedLangevinRegressor(information_exponent=k, random_state=0)
est.fit(X[:n_train], y[:n_train])
test_r2 = est.score(X[n_train:], y[n_train:])
print(f"overlap {overlap(est.direction_, theta):.3f}, test R^2 {test_r2:.3f}")
