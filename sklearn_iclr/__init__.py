"""scikit-learn estimators for methods from ICLR 2026 learning-theory papers.

Every public estimator is re-exported here. Importing the package never imports
torch: the torch-backed estimators load it inside ``fit``.
"""

from .covariance import GaussianEmbeddingModel, ReplicableCovariance
from .graphical import PseudoLikelihoodIsing
from .linear_model import ICEClassifier, ReplicableLinearRegressor, SpuriousRobustSGD
from .neural_network import (
    InfoNCEEncoder,
    LevenbergMarquardtMLPRegressor,
    PatchConvAEDetector,
    QuantizedReLUClassifier,
    SparseTokenAttentionClassifier,
)
from .rl import LSTDQEvaluator
from .single_index import AveragedLangevinRegressor

__version__ = "0.1.0.dev0"

__all__ = [
    "AveragedLangevinRegressor",
    "GaussianEmbeddingModel",
    "ICEClassifier",
    "InfoNCEEncoder",
    "LSTDQEvaluator",
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "PseudoLikelihoodIsing",
    "ReplicableCovariance",
    "ReplicableLinearRegressor",
    "SparseTokenAttentionClassifier",
    "SpuriousRobustSGD",
    "__version__",
    "QuantizedReLUClassifier",
]
