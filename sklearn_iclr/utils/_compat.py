"""Where sklearn_iclr meets APIs that change between the versions it supports.

Private scikit-learn and skorch names, and public ones whose signature changed
within the declared version floors, are imported or wrapped here only, so that a
new release breaks this one file. ``tests/test_conventions.py`` checks that no
other module imports them directly.
"""

import inspect
import re

from scipy import stats
from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    StrOptions,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
    validate_parameter_constraints,
    validate_params,
)
from sklearn.utils.validation import (
    _check_feature_names,
    _check_n_features,
    _check_sample_weight,
)

__all__ = [
    "DeviceOptions",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "StrOptions",
    "_check_feature_names",
    "_check_n_features",
    "_check_sample_weight",
    "_fit_context",
    "anderson_normal_statistic",
    "generate_invalid_param_val",
    "generate_valid_param",
    "make_constraint",
    "set_training_mode",
    "validate_parameter_constraints",
    "validate_params",
]

# scipy 1.17 added ``method`` to ``anderson`` and warns without it; the
# statistic itself does not depend on it.
_ANDERSON_TAKES_METHOD = "method" in inspect.signature(stats.anderson).parameters


def anderson_normal_statistic(sample):
    """The Anderson-Darling statistic of ``sample`` against a fitted normal.

    Parameters
    ----------
    sample : ndarray of shape (n_samples,)

    Returns
    -------
    statistic : numpy.float64

    Examples
    --------
    >>> import numpy as np
    >>> float(round(anderson_normal_statistic(np.linspace(-1, 1, 50)), 2))
    0.53
    """
    if _ANDERSON_TAKES_METHOD:
        return stats.anderson(sample, dist="norm", method="interpolate").statistic
    return stats.anderson(sample, dist="norm").statistic


class DeviceOptions(StrOptions):
    """The constraint of a ``device`` parameter: a torch device string.

    ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"`` (a GPU index) or ``"mps"``;
    any other value, a typo such as ``"gpu"`` included, fails parameter
    validation before ``fit`` starts. It subclasses scikit-learn's private
    ``StrOptions`` so that its message reads like the other constraints'.

    Examples
    --------
    >>> device = DeviceOptions()
    >>> device.is_satisfied_by("cuda:1"), device.is_satisfied_by("gpu")
    (True, False)
    """

    def __init__(self):
        super().__init__({"auto", "cpu", "cuda", "mps"})

    def is_satisfied_by(self, val):
        return super().is_satisfied_by(val) or (
            isinstance(val, str) and re.fullmatch(r"cuda:\d+", val) is not None
        )

    def __str__(self):
        return "a torch device: 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'"


def set_training_mode(net, training=True):
    """Put a skorch net's module in training (or evaluation) mode.

    skorch's ``NeuralNet._set_training`` is private; a subclass that overrides
    ``train_step_single`` must call it first, as skorch's own does.

    Parameters
    ----------
    net : skorch.NeuralNet
    training : bool, default=True
    """
    net._set_training(training)
