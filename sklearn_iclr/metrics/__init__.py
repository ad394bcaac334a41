"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._overlap import overlap

__all__ = ["overlap"]
