"""scikit-learn estimators for methods from ICLR 2026 learning-theory papers.

Every public estimator is re-exported here. Importing the package never imports
torch: the torch-backed estimators load it inside ``fit``.
"""

from .covariance import ReplicableCovariance
from .linear_model import ReplicableLinearRegressor

__version__ = "0.1.0.dev0"

__all__ = ["ReplicableCovariance", "ReplicableLinearRegressor", "__version__"]
