"""
=====================================================================
Spectral bias: frequency-wise training error of Levenberg-Marquardt
=====================================================================

Gradient-based training of a neural network learns the low frequencies of a
target first (spectral bias): in the eigenbasis of the neural tangent kernel
each error component decays at a rate proportional to its eigenvalue, and the
high frequencies have small eigenvalues. Jiang, Voronin, Cyr and Southworth
(ICLR 2026) show that preconditioning by the Gauss-Newton matrix changes the
rate to ``lambda / (mu + lambda)`` (Levenberg-Marquardt) or to a constant
(Gauss-Newton), so that all frequencies are learnt together.

We fit their target

.. math:: u(x) = \\frac{1}{3} \\sum_{k=1}^{3} k \\sin((2k + 1)\\pi x - k)

on 256 points with a width-80 tanh network, once with
:class:`~sklearn_iclr.LevenbergMarquardtMLPRegressor` and once with full-batch
Adam on the same network and initial weights (``switch_after=0``), and follow
the amplitude of the training residual at the three frequencies ``3 pi``,
``5 pi`` and ``7 pi`` (``monitor_frequencies``, computed with
:func:`~sklearn_iclr.metrics.frequency_amplitudes`).
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from sklearn_iclr import LevenbergMarquardtMLPRegressor
from sklearn_iclr.datasets import make_multifrequency_sine

X, y, frequencies = make_multifrequency_sine(256)
settings = {
    "Levenberg-Marquardt": {"max_iter": 200},
    "Adam, lr = 1e-2": {
        "max_iter": 2000,
        "switch_after": 0,
        "learning_rate_after_switch": 1e-2,
    },
}
fits = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for name, params in settings.items():
        fits[name] = LevenbergMarquardtMLPRegressor(
            tol=0, monitor_frequencies=frequencies, random_state=0, **params
        ).fit(X, y)

# %%
# Relative amplitude of each frequency of the residual against the iteration.
# LM brings all three below 1e-2 of their initial size at about the same
# iteration; Adam reduces the lowest frequency first and the highest last.

fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
for ax, (name, est) in zip(axes[:2], fits.items(), strict=True):
    curve = est.frequency_error_curve_ / est.frequency_error_curve_[0]
    for k, label in enumerate(["3$\\pi$", "5$\\pi$", "7$\\pi$"]):
        ax.semilogy(curve[:, k], label=label)
    ax.axhline(1e-2, color="grey", lw=0.8, ls=":")
    ax.set(title=name, xlabel="iteration", ylabel="amplitude / initial")
    ax.legend()
    below = curve < 1e-2
    reached = [
        int(below[:, k].argmax()) if below[:, k].any() else None for k in range(3)
    ]
    print(f"{name}: first iteration below 1e-2 per frequency {reached}")

grid = np.linspace(-1, 1, 1000)[:, None]
axes[2].plot(X[:, 0], y, "k.", ms=2, label="training points")
for name, est in fits.items():
    axes[2].plot(grid[:, 0], est.predict(grid), label=name)
axes[2].set(title="fits", xlabel="x")
axes[2].legend(fontsize=8)
fig.tight_layout()
plt.show()
