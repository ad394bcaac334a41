"""Metrics for the methods of sklearn_iclr (group robustness, overlap, ...)."""

from ._overlap import overlap
from ._spectral_bias import frequency_amplitudes

__all__ = ["frequency_amplitudes", "overlap"]
