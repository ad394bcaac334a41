"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._gaussianity import gaussianity_report, norm_coefficient_of_variation
from ._group import group_accuracy_report, make_worst_group_scorer, worst_group_accuracy
from ._overlap import overlap
from ._replicability import ReplicabilityResult, replicability_rate, wilson_interval
from ._spectral_bias import frequency_amplitudes

__all__ = [
    "ReplicabilityResult",
    "frequency_amplitudes",
    "gaussianity_report",
    "group_accuracy_report",
    "make_worst_group_scorer",
    "norm_coefficient_of_variation",
    "overlap",
    "replicability_rate",
    "wilson_interval",
    "worst_group_accuracy",
]
