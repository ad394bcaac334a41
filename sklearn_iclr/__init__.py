"""scikit-learn estimators for methods from ICLR 2026 learning-theory papers.

Every public estimator is re-exported here. Importing the package never imports
torch: the torch-backed estimators load it inside ``fit``.
"""

from .attention import RandomEmbeddingRecallClassifier, SparseTokenAttentionClassifier
from .contrastive import BReLUAttentionEncoder, InfoNCEEncoder
from .covariance import GaussianEmbeddingModel, ReplicableCovariance
from .dynamical import SpectralFilterFeatures
from .events import ContrastMaximizationMotion, EventFrameBinner
from .graphical import PseudoLikelihoodIsing
from .linear_model import ICEClassifier, ReplicableLinearRegressor, SpuriousRobustSGD
from .neural_network import (
    EscapeDirection,
    LevenbergMarquardtMLPRegressor,
    PatchConvAEDetector,
    QuantizedReLUClassifier,
    SmallInitMLPRegressor,
)
from .rl import LSTDQEvaluator
from .sequence import ChainOfThoughtClassifier
from .single_index import AveragedLangevinRegressor, PhaseRetrievalRegressor

__version__ = "0.1.0.dev0"

__all__ = [
    "AveragedLangevinRegressor",
    "BReLUAttentionEncoder",
    "ChainOfThoughtClassifier",
    "ContrastMaximizationMotion",
    "EscapeDirection",
    "EventFrameBinner",
    "GaussianEmbeddingModel",
    "ICEClassifier",
    "InfoNCEEncoder",
    "LSTDQEvaluator",
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "PhaseRetrievalRegressor",
    "PseudoLikelihoodIsing",
    "QuantizedReLUClassifier",
    "RandomEmbeddingRecallClassifier",
    "ReplicableCovariance",
    "ReplicableLinearRegressor",
    "SmallInitMLPRegressor",
    "SparseTokenAttentionClassifier",
    "SpectralFilterFeatures",
    "SpuriousRobustSGD",
    "__version__",
]
