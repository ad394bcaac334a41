"""Covariance estimators: replicable covariance and Gaussian embedding models."""

from ._gaussian_embedding import GaussianEmbeddingModel
from ._replicable_covariance import ReplicableCovariance

__all__ = ["GaussianEmbeddingModel", "ReplicableCovariance"]
