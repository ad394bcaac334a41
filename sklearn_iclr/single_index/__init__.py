"""Single-index models and tensor PCA via averaged Langevin dynamics."""

from ._averaged_langevin import AveragedLangevinRegressor
from ._information_exponent import (
    estimate_information_exponent,
    hermite_exponent_scores,
)

__all__ = [
    "AveragedLangevinRegressor",
    "estimate_information_exponent",
    "hermite_exponent_scores",
]
