"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._replicability import ReplicabilityResult, replicability_rate, wilson_interval

__all__ = ["ReplicabilityResult", "replicability_rate", "wilson_interval"]
