"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

__all__ = []
