"""
=====================================================
Replicable ridge regression: replicability versus n
=====================================================

Two analysts fit a linear model to two *independent* samples of the same size
from the same population. With :class:`~sklearn.linear_model.Ridge` their
coefficients are never bit-for-bit identical. With
:class:`~sklearn_iclr.ReplicableLinearRegressor` (Eaton et al., "Replicable
Reinforcement Learning with Linear Function Approximation", ICLR 2026) and a
shared ``random_state`` they are identical with probability at least
``1 - rho``: the ridge solution is rounded to a lattice (``E8`` blocks) whose
random shift both analysts share, and whose scale is chosen from ``rho`` and
the standard errors.

The price is accuracy: the lattice cells span many standard errors, so the
rounded model loses some held-out R^2, a loss that shrinks like ``1 / n``.
Below about ``n = (2 / (0.56 rho))^2`` (here 1300) the estimator warns that the
target is out of reach; where the rounded linear model would predict worse
than the rounded mean of ``y``, it falls back to that replicable constant
(``constant_fallback_``) and warns with the ``n`` a linear model needs, so the
loss is at most Ridge's own R^2. This example
measures both with :func:`~sklearn_iclr.metrics.replicability_rate` on
heavy-tailed synthetic data (Student-t features, heteroscedastic target).
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge

from sklearn_iclr import ReplicableLinearRegressor
from sklearn_iclr.datasets import make_heavy_tailed_regression
from sklearn_iclr.metrics import replicability_rate

warnings.filterwarnings("ignore", message="At this sample size")
rho, n_features, n_pairs = 0.1, 8, 30
sizes = [3000, 10000, 30000, 100000]
X_test, y_test = make_heavy_tailed_regression(20000, n_features, random_state=12345)

# %%
# Measure replicability (exact equality of ``coef_`` and ``intercept_``) and
# held-out R^2 for each sample size.
rates, lows, highs, ridge_rates, r2_loss = [], [], [], [], []
for n in sizes:

    def sampler(seed, n=n):
        return make_heavy_tailed_regression(n, n_features, random_state=seed)

    ours = ReplicableLinearRegressor(rho=rho)
    result = replicability_rate(ours, sampler, n_pairs=n_pairs, random_state=0)
    ridge_result = replicability_rate(Ridge(), sampler, n_pairs=n_pairs, random_state=0)
    rates.append(result.rate)
    lows.append(result.ci_low)
    highs.append(result.ci_high)
    ridge_rates.append(ridge_result.rate)
    losses = []
    for seed in range(3):
        X, y = sampler(100 + seed)
        r2_ridge = Ridge().fit(X, y).score(X_test, y_test)
        r2_ours = ours.set_params(random_state=seed).fit(X, y).score(X_test, y_test)
        losses.append(r2_ridge - r2_ours)
    r2_loss.append(np.mean(losses))
    print(f"n={n:>6}: identical {result.rate:.2f}, R^2 loss {r2_loss[-1]:.4f}")

# %%
# Plot both against the sample size.
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.fill_between(sizes, lows, highs, alpha=0.3, label="95% Wilson interval")
left.plot(sizes, rates, "o-", label="ReplicableLinearRegressor")
left.plot(sizes, ridge_rates, "s-", label="Ridge")
left.axhline(1 - rho, color="k", linestyle="--", label="target 1 - rho")
left.set(xscale="log", xlabel="n (samples per run)", ylabel="identical pairs")
left.set_title(f"Replicability, d={n_features}, rho={rho}")
left.legend(loc="center right")
right.plot(sizes, r2_loss, "o-")
right.set(xscale="log", yscale="log", xlabel="n (samples per run)")
right.set(ylabel="held-out R^2 of Ridge minus ours")
right.set_title("Cost of replicability")
fig.tight_layout()
plt.show()
