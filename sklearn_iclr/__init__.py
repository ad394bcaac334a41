"""scikit-learn estimators for methods from ICLR 2026 learning-theory papers.

Every public estimator is re-exported here. Importing the package never imports
torch: the torch-backed estimators load it inside ``fit``.
"""

__version__ = "0.1.0.dev0"

from .linear_model import SpuriousRobustSGD

__all__ = ["SpuriousRobustSGD", "__version__"]
