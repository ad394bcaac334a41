"""Linear dynamical systems: spectral-filter features and online controllers."""

from ._controllers import GPCController, LQRController, OnlineSpectralController
from ._hankel import hankel_matrix, spectral_filters
from ._spectral_features import SpectralFilterFeatures

__all__ = [
    "GPCController",
    "LQRController",
    "OnlineSpectralController",
    "SpectralFilterFeatures",
    "hankel_matrix",
    "spectral_filters",
]
