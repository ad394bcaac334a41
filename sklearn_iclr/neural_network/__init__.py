"""Neural-network estimators: attention, MLPs, autoencoders, contrastive encoders.

Three train with torch and need the ``[torch]`` extra (imported inside
``fit``): ``InfoNCEEncoder``, ``LevenbergMarquardtMLPRegressor`` and
``PatchConvAEDetector``. The others are numpy/scipy, because their gradients
are a few matrix products or their training is combinatorial:
``EscapeDirection``, ``QuantizedReLUClassifier``,
``RandomEmbeddingRecallClassifier``, ``SmallInitMLPRegressor`` and
``SparseTokenAttentionClassifier``.
"""

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
    mean_pool_tokens,
)

__all__ = [
    "EscapeDirection",
    "InfoNCEEncoder",
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "SmallInitMLPRegressor",
    "SparseTokenAttentionClassifier",
    "as_token_array",
    "flatten_tokens",
    "mean_pool_tokens",
    "RandomEmbeddingRecallClassifier",
    "recall_capacity",
]

from ._quantized_relu import QuantizedReLUClassifier  # noqa: E402

__all__ += ["QuantizedReLUClassifier"]

from ._brelu_attention import BReLUAttentionEncoder, neuron_alignment  # noqa: E402

__all__ += ["BReLUAttentionEncoder", "neuron_alignment"]
