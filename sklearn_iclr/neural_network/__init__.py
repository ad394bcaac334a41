"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._levenberg_marquardt import LevenbergMarquardtMLPRegressor
from ._patch_conv_ae import PatchConvAEDetector
from ._sparse_token_attention import (
    SparseTokenAttentionClassifier,
    as_token_array,
    flatten_tokens,
    make_flattened_logistic_regression,
    make_pooled_logistic_regression,
    mean_pool_tokens,
)

__all__ = [
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "SparseTokenAttentionClassifier",
    "as_token_array",
    "flatten_tokens",
    "make_flattened_logistic_regression",
    "make_pooled_logistic_regression",
    "mean_pool_tokens",
]
