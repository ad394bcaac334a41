"""Single-index models: averaged Langevin dynamics, tensor PCA, phase retrieval."""

from ._averaged_langevin import AveragedLangevinRegressor
from ._information_exponent import (
    estimate_information_exponent,
    hermite_exponent_scores,
)
from ._phase_dynamics import escape_rate, phase_retrieval_dynamics, phase_three_decay
from ._phase_retrieval import PhaseRetrievalRegressor
from ._tensor_pca import tensor_pca_langevin

__all__ = [
    "AveragedLangevinRegressor",
    "PhaseRetrievalRegressor",
    "escape_rate",
    "estimate_information_exponent",
    "hermite_exponent_scores",
    "phase_retrieval_dynamics",
    "phase_three_decay",
    "tensor_pca_langevin",
]
