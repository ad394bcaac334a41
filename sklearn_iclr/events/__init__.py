"""Event-camera data: differentiable binning of events, motion estimation."""

from ._binner import EventFrameBinner
from ._contrast import ContrastMaximizationMotion
from ._fbp import fbp_histogramdd

__all__ = ["ContrastMaximizationMotion", "EventFrameBinner", "fbp_histogramdd"]
