"""
=====================================================================
Phase retrieval on power-law data: fast escape, slow convergence
=====================================================================

Phase retrieval observes only intensities ``y = <x, w*>^2``. With Gaussian
inputs ``x ~ N(0, Q)`` whose covariance has a power-law spectrum
``lambda_i ~ i^-a``, Braun, Loureiro, Minh & Imaizumi (ICLR 2026) show that
gradient descent from a random start goes through three phases:

- **phase I**: the overlap ``u = w^T Q w*`` grows exponentially from about
  ``d^(-1/2)`` and escapes the equator at ``T1 = Theta(log d)``;
- **phase II**: ``s = w^T Q w`` crosses the saddle value ``1/3``
  (``T1'``), then ``u`` and ``s`` approach 1 (``T2``);
- **phase III**: the remaining error sits in the tail directions, learned one
  by one at rates ``16 lambda_i``, so the error drop grows like ``tau^(1/a)``.

We run :func:`~sklearn_iclr.single_index.phase_retrieval_dynamics` with
population gradient descent and with one-pass online SGD (noisy labels) from
the same start, mark the detected phase times, and then compare the
estimator :class:`~sklearn_iclr.single_index.PhaseRetrievalRegressor` on
samples with a generic neural network.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_iclr.datasets import make_power_law_phase_retrieval, power_law_spectrum
from sklearn_iclr.single_index import (
    PhaseRetrievalRegressor,
    phase_retrieval_dynamics,
    phase_three_decay,
)

# %%
# The three phases, population GD and online SGD
# ----------------------------------------------
d, a, lr = 500, 2.0, 1e-3
spectrum = power_law_spectrum(d, a)
_, _, w_star = make_power_law_phase_retrieval(1, d, decay=a, random_state=0)
rng = np.random.default_rng(0)
w0 = rng.standard_normal(d)
w0 /= np.linalg.norm(w0)

n_steps = 2_000_000  # time 2000
population = phase_retrieval_dynamics(spectrum, w_star, n_steps, lr, w0=w0)
online = phase_retrieval_dynamics(  # a quarter of the step, up to time 250
    spectrum,
    w_star,
    n_steps // 2,
    lr / 4,
    method="online_sgd",
    noise=0.05,
    w0=w0,
    random_state=0,
)

fig, axes = plt.subplots(1, 2, figsize=(11, 4))
ax = axes[0]
for run, style, label in (
    (population, "-", "population GD"),
    (online, ":", "online SGD"),
):
    t = run.time[1:]
    ax.plot(t, np.abs(run.u[1:]), "C0" + style, label=f"|u|, {label}")
    ax.plot(t, run.s[1:], "C1" + style, label=f"s, {label}")
    ax.plot(t, run.mse[1:] / run.mse[0], "C2" + style, label=f"MSE / MSE(0), {label}")
for name, color in (("T1", "C3"), ("T1_prime", "C4"), ("T2", "C5")):
    ax.axvline(population.phase_times[name], color=color, lw=1, label=name)
ax.axhline(1 / 3, color="grey", lw=0.5, ls="--")
ax.set_xscale("log")
ax.set_xlabel("time t = step * lr")
ax.set_title(f"Phases of GD, a = {a:g}, d = {d}")
ax.legend(fontsize=7, loc="center left")

# %%
# Phase III: the MSE drop after T2 against the paper's S_d
# --------------------------------------------------------
# After ``T2`` the error decays like ``MSE(T2) S_d(tau)`` with
# ``S_d(tau) = (1/d) sum_i exp(-16 lambda_i tau)``: in the middle regime
# ``1 - S_d`` grows like ``tau^(1/a)``.
t2 = population.phase_steps["T2"]
at_t2 = phase_retrieval_dynamics(spectrum, w_star, t2, lr, w0=w0).coef
after = phase_retrieval_dynamics(spectrum, w_star, 500_000, 0.05, w0=at_t2)
tau = after.time[1:]
ax = axes[1]
ax.loglog(tau, 1 - after.mse[1:] / after.mse[0], label="1 - MSE(T2+tau)/MSE(T2)")
ax.loglog(tau, 1 - phase_three_decay(spectrum, tau), "--", label="1 - S_d(tau)")
ax.loglog(tau, 0.02 * tau ** (1 / a), ":", color="k", label=f"tau^(1/{a:g})")
ax.set_xlabel("tau = t - T2")
ax.set_title("Phase III")
ax.legend(fontsize=8)
fig.tight_layout()

# %%
# The estimator on samples
# ------------------------
# ``PhaseRetrievalRegressor`` whitens the inputs and starts from the spectral
# estimate, so it does not pay for the slow phase III. A generic MLP on the
# same 1000 samples does not find the quadratic structure.
X, y, w_true = make_power_law_phase_retrieval(
    1000 + 5000, 100, decay=a, noise=0.1, random_state=1
)
X_train, y_train, X_test, y_test = X[:1000], y[:1000], X[1000:], y[1000:]
estimator = PhaseRetrievalRegressor().fit(X_train, y_train)
mlp = make_pipeline(
    StandardScaler(), MLPRegressor(max_iter=1000, early_stopping=True, random_state=0)
).fit(X_train, y_train)
# The relative error of ``coef_`` is dominated by the tail coordinates, whose
# small variance ``lambda_i`` makes them hard to estimate with noise; the
# predictions are at the noise level all the same.
error = min(np.linalg.norm(estimator.coef_ - s * w_true) for s in (1, -1))
print(f"relative error of coef_: {error / np.linalg.norm(w_true):.3f}")
print(f"test R^2, PhaseRetrievalRegressor: {estimator.score(X_test, y_test):.3f}")
print(f"test R^2, MLPRegressor:            {mlp.score(X_test, y_test):.3f}")
plt.show()
