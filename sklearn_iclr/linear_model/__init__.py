"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

from ._ice import ICEClassifier
from ._spurious_sgd import SpuriousRobustSGD

__all__ = ["ICEClassifier", "SpuriousRobustSGD"]
