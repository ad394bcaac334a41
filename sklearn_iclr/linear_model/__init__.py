"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

__all__ = []
