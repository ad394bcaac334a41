"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._escape_direction import EscapeDirection
from ._infonce import InfoNCEEncoder
from ._levenberg_marquardt import LevenbergMarquardtMLPRegressor
from ._patch_conv_ae import PatchConvAEDetector
from ._random_embedding_recall import RandomEmbeddingRecallClassifier, recall_capacity
from ._small_init_mlp import SmallInitMLPRegressor
from ._sparse_token_attention import (
    SparseTokenAttentionClassifier,
    as_token_array,
    flatten_tokens,
    make_flattened_logistic_regression,
    make_pooled_logistic_regression,
    mean_pool_tokens,
)
from ._supervised_baseline import fit_supervised_encoder

__all__ = [
    "EscapeDirection",
    "InfoNCEEncoder",
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "SmallInitMLPRegressor",
    "SparseTokenAttentionClassifier",
    "as_token_array",
    "fit_supervised_encoder",
    "flatten_tokens",
    "make_flattened_logistic_regression",
    "make_pooled_logistic_regression",
    "mean_pool_tokens",
    "RandomEmbeddingRecallClassifier",
    "recall_capacity",
]

from ._quantized_relu import QuantizedReLUClassifier  # noqa: E402

__all__ += ["QuantizedReLUClassifier"]

from ._brelu_attention import BReLUAttentionEncoder, neuron_alignment  # noqa: E402

__all__ += ["BReLUAttentionEncoder", "neuron_alignment"]
