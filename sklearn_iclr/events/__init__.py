"""Event-camera data: differentiable binning of events, motion estimation."""

__all__ = []
