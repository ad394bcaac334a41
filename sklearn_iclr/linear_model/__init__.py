"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

from ._ice import ICEClassifier
from ._replicable_ridge import ReplicableLinearRegressor
from ._spurious_sgd import SpuriousRobustSGD

__all__ = ["ICEClassifier", "ReplicableLinearRegressor", "SpuriousRobustSGD"]
