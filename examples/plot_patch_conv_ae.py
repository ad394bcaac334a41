"""
=============================================================
Reconstructing normal and anomalous digits with patch kernels
=============================================================

Chen & Liu, "Two-Layer Convolutional Autoencoders Trained on Normal Data
Provably Detect Unseen Anomalies" (ICLR 2026), study an autoencoder whose
kernels ``w_j`` each reconstruct the one patch of a sample they respond to
most: ``x_hat_i = sum_j sigma(<w_j, x_i>) delta(i, j) w_j``. Trained by
gradient descent from a tiny initialisation on normal data only, the kernels
settle on the patterns of the normal patches, so patches made of other
patterns are reconstructed poorly.

We train :class:`~sklearn_iclr.neural_network.PatchConvAEDetector` on half
of the zeros of scikit-learn's digits, with every 8x8 image cut into four
4x4 patches, and show held-out zeros and other digits next to their
reconstructions. The anomaly score is the reconstruction error; the last
panel compares its distribution on the held-out zeros and on the other
digits.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics import roc_auc_score

from sklearn_iclr.neural_network import PatchConvAEDetector

# %%
# Train on normal data only: half of the zeros.
X, y = load_digits(return_X_y=True)
zeros = np.random.RandomState(0).permutation(np.flatnonzero(y == 0))
train, held_out = zeros[: len(zeros) // 2], zeros[len(zeros) // 2 :]
others = np.flatnonzero(y != 0)
detector = PatchConvAEDetector(patch_shape=(4, 4), random_state=0).fit(X[train])
print(f"{len(detector.kernels_)} kernels, final loss {detector.loss_curve_[-1]:.3f}")


def as_images(patches):
    """Put four 4x4 patches back into 8x8 images (inverse of the cut)."""
    blocks = patches.reshape(-1, 2, 2, 4, 4).transpose(0, 1, 3, 2, 4)
    return blocks.reshape(-1, 8, 8)


# %%
# Originals (top) and reconstructions (bottom) for four held-out zeros and
# four other digits, with each image's reconstruction error.
shown = np.r_[held_out[:4], others[[0, 1, 2, 3]]]
reconstructions = as_images(detector.reconstruct(X[shown]))
errors = -detector.score_samples(X[shown])
fig, axes = plt.subplots(2, len(shown), figsize=(12, 4.2))
for col, (index, image, error) in enumerate(
    zip(shown, reconstructions, errors, strict=True)
):
    axes[0, col].imshow(X[index].reshape(8, 8), cmap="gray_r")
    axes[0, col].set_title(f"digit {y[index]}", fontsize=9)
    axes[1, col].imshow(image, cmap="gray_r", vmin=0, vmax=16)
    axes[1, col].set_title(f"error {error:.0f}", fontsize=9)
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
axes[0, 0].set_ylabel("input")
axes[1, 0].set_ylabel("reconstruction")
fig.suptitle("Kernels trained on zeros reconstruct zeros, not other digits")
fig.tight_layout()

# %%
# The reconstruction error separates the held-out zeros from other digits.
normal_errors = -detector.score_samples(X[held_out])
other_errors = -detector.score_samples(X[others])
labels = np.r_[np.ones(len(held_out)), np.zeros(len(others))]
auroc = roc_auc_score(labels, -np.r_[normal_errors, other_errors])
fig, ax = plt.subplots(figsize=(6, 3.5))
bins = np.linspace(0, np.percentile(other_errors, 99), 40)
ax.hist(normal_errors, bins=bins, alpha=0.6, density=True, label="held-out zeros")
ax.hist(other_errors, bins=bins, alpha=0.6, density=True, label="digits 1-9")
ax.axvline(-detector.offset_, color="k", ls="--", label="5% contamination threshold")
ax.set_xlabel("reconstruction error")
ax.set_ylabel("density")
ax.set_title(f"AUROC {auroc:.3f}")
ax.legend()
fig.tight_layout()
plt.show()
