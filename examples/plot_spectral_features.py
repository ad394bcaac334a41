"""
=====================================================
Spectral filtering: long-memory features and control
=====================================================

The top eigenvectors of a fixed Hankel matrix are filters whose span holds the
impulse responses ``a^u`` of every decay rate ``a`` in ``[0, 1]``. Hazan,
Singh and Zhang (2017) use them as features to predict a linear dynamical
system without learning it; Brahmbhatt, Buzaglo, Druchyna and Hazan (ICLR
2026) use the filters of ``H_ij = r^(i+j-1) / (i+j-1)``, ``r = 1 -
stability_margin``, to control
one: :class:`~sklearn_iclr.dynamical.OnlineSpectralController` feeds the
filtered past disturbances back through a learned linear map.

Left: the first filters of both matrices. Middle: a
:class:`~sklearn_iclr.dynamical.SpectralFilterFeatures` + ``Ridge`` pipeline
predicts a marginally stable system (spectral radius 0.99) observed through
noise, where ``Ridge`` on as many raw input lags cannot see far enough back.
Right: the running mean cost of LQR, GPC (memory 50) and the spectral
controller (15 filters) under sinusoidal disturbances.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import Ridge
from sklearn.pipeline import make_pipeline

from sklearn_iclr.datasets import make_lds
from sklearn_iclr.dynamical import (
    GPCController,
    LQRController,
    OnlineSpectralController,
    SpectralFilterFeatures,
    spectral_filters,
)

# %%
# The filters
# -----------
_, prediction_filters = spectral_filters(200, 4)
_, control_filters = spectral_filters(200, 4, kind="control", stability_margin=0.02)

# %%
# Prediction: spectral features against raw lags
# ----------------------------------------------
n_steps = 6000
lds = make_lds(
    n_steps, 1, input_dim=1, spectral_radius=0.99, noise=0.0, observation_noise=1.0,
    random_state=0,
)  # fmt: skip
U, y = lds.inputs, lds.outputs[:, 0]
half = n_steps // 2
pipe = make_pipeline(SpectralFilterFeatures(n_filters=16, window=512), Ridge(1e-3))
pipe.fit(U[:half], y[:half])
spectral = pipe.predict(U)[half:]  # causal: the test rows see their full past
lags = np.hstack([np.vstack([np.zeros((j, 1)), U[: n_steps - j]]) for j in range(17)])
raw = Ridge(1e-3).fit(lags[:half], y[:half]).predict(lags[half:])
truth = lds.states[half:, 0]
for name, pred in (("spectral", spectral), ("raw lags", raw)):
    print(f"{name:>9}: test MSE {np.mean((pred - y[half:]) ** 2):.3f}")
print(f"   oracle: test MSE {np.mean((truth - y[half:]) ** 2):.3f} (noise-free state)")

# %%
# Control under sinusoidal disturbances
# -------------------------------------
system = make_lds(
    3000,
    10,
    input_dim=1,
    spectral_radius=0.95,
    disturbance="sinusoidal",
    random_state=2,
)
controllers = {
    "LQR": LQRController(system.A, system.B),
    "GPC (m=50, 500 weights)": GPCController(system.A, system.B, random_state=0),
    "spectral (h=15, 150 weights)": OnlineSpectralController(
        system.A, system.B, random_state=0
    ),
}
curves = {}
for name, controller in controllers.items():
    costs = controller.run(system.disturbances).costs
    curves[name] = np.cumsum(costs) / np.arange(1, len(costs) + 1)
    print(f"{name}: mean cost of the last 100 steps {costs[-100:].mean():.2f}")

# %%
# Plot
# ----
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4))
for j in range(4):
    left.plot(prediction_filters[:, j], color=f"C{j}", label=f"prediction {j}")
    left.plot(
        control_filters[:, j], color=f"C{j}", linestyle="--", label=f"control {j}"
    )
left.set(xlabel="lag u", ylabel="phi_j(u)", title="Filters (window 200)")
left.legend(fontsize=7, ncol=2)

shown = slice(0, 400)
middle.plot(y[half:][shown], ".", color="0.7", markersize=3, label="observed y")
middle.plot(truth[shown], "k", label="noise-free state")
middle.plot(spectral[shown], "C0", label="spectral + Ridge")
middle.plot(raw[shown], "C3", label="17 raw lags + Ridge")
middle.set(xlabel="test step", title="Prediction, spectral radius 0.99")
middle.legend(fontsize=7)

for name, curve in curves.items():
    right.plot(curve, label=name)
right.set(xlabel="step", ylabel="running mean cost", title="Control, sinusoidal w")
right.legend(fontsize=7)
fig.tight_layout()
plt.show()
