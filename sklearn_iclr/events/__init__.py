"""Event-camera data: differentiable binning of events into frames, motion estimation."""

__all__ = []
