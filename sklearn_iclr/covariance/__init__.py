"""Covariance estimators: replicable covariance and Gaussian embedding models."""

from ._replicable_covariance import ReplicableCovariance

__all__ = ["ReplicableCovariance"]
