"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

from ._replicable_ridge import ReplicableLinearRegressor

__all__ = ["ReplicableLinearRegressor"]
