"""Single-index models and tensor PCA via averaged Langevin dynamics."""

from ._averaged_langevin import AveragedLangevinRegressor
from ._baselines import online_sgd_direction, partial_trace_direction
from ._information_exponent import (
    estimate_information_exponent,
    hermite_exponent_scores,
)
from ._tensor_pca import tensor_pca_langevin

__all__ = [
    "AveragedLangevinRegressor",
    "estimate_information_exponent",
    "hermite_exponent_scores",
    "online_sgd_direction",
    "partial_trace_direction",
    "tensor_pca_langevin",
]
