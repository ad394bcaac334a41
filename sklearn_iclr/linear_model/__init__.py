"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

from ._ice import ICEClassifier

__all__ = ["ICEClassifier"]
