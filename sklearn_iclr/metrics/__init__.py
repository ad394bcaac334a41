"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._group import (
    group_accuracy_report,
    make_worst_group_scorer,
    worst_group_accuracy,
)
from ._overlap import overlap

__all__ = [
    "group_accuracy_report",
    "make_worst_group_scorer",
    "overlap",
    "worst_group_accuracy",
]
