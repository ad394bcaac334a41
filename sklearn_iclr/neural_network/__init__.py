"""Neural networks on tables: exact, second-order and small-initialisation training.

Two train with torch and need the ``[torch]`` extra (imported inside ``fit``):
``LevenbergMarquardtMLPRegressor`` and ``PatchConvAEDetector``. The others
are numpy/scipy, because their gradients are a few matrix products or their
training is combinatorial: ``EscapeDirection``, ``QuantizedReLUClassifier``
and ``SmallInitMLPRegressor``.
"""

from ._escape_direction import EscapeDirection
from ._levenberg_marquardt import LevenbergMarquardtMLPRegressor
from ._patch_conv_ae import PatchConvAEDetector
from ._quantized_relu import QuantizedReLUClassifier
from ._small_init_mlp import SmallInitMLPRegressor

__all__ = [
    "EscapeDirection",
    "LevenbergMarquardtMLPRegressor",
    "PatchConvAEDetector",
    "QuantizedReLUClassifier",
    "SmallInitMLPRegressor",
]
