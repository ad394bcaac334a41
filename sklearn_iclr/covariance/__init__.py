"""Covariance estimators: replicable covariance and Gaussian embedding models."""

from ._gaussian_embedding import GaussianEmbeddingModel

__all__ = ["GaussianEmbeddingModel"]
