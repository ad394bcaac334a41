"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._levenberg_marquardt import LevenbergMarquardtMLPRegressor

__all__ = ["LevenbergMarquardtMLPRegressor"]
