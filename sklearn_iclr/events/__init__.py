"""Event-camera data: differentiable binning of events, motion estimation."""

from ._contrast_maximization import ContrastMaximizationMotion
from ._event_binner import EventFrameBinner
from ._fbp import fbp_histogramdd

__all__ = ["ContrastMaximizationMotion", "EventFrameBinner", "fbp_histogramdd"]
