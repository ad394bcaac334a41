"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD."""

from ._spurious_sgd import SpuriousRobustSGD

__all__ = ["SpuriousRobustSGD"]
