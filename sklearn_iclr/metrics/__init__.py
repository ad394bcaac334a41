"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._gaussianity import gaussianity_report, norm_coefficient_of_variation
from ._overlap import overlap

__all__ = ["gaussianity_report", "norm_coefficient_of_variation", "overlap"]
