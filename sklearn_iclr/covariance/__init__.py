"""Covariance estimators: replicable covariance and Gaussian embedding models."""

__all__ = []
