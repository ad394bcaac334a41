"""Input validation shared by several sklearn_iclr estimators."""

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from ._compat import _check_sample_weight

BINARY_ONLY_MESSAGE = "Only binary classification is supported."


def check_binary_target(y):
    """Validate a binary classification target and encode it as -1/+1.

    Parameters
    ----------
    y : ndarray of shape (n_samples,)
        Target labels, any two distinct values.

    Returns
    -------
    classes : ndarray of shape (2,)
        The sorted labels; ``classes[1]`` is encoded as +1.
    y_signed : ndarray of shape (n_samples,)
        The target as float64 in {-1, +1}.

    Raises
    ------
    ValueError
        If ``y`` is not a classification target, has one class, or more than two.

    Examples
    --------
    >>> import numpy as np
    >>> classes, y = check_binary_target(np.array(["b", "a", "b"]))
    >>> classes.tolist(), y.tolist()
    (['a', 'b'], [1.0, -1.0, 1.0])
    """
    check_classification_targets(y)
    classes, encoded = np.unique(y, return_inverse=True)
    if len(classes) > 2:
        raise ValueError(BINARY_ONLY_MESSAGE)
    if len(classes) < 2:
        raise ValueError(
            "Classifier can't train when only one class is present: got only "
            f"{classes[0]!r}. Provide samples of both classes."
        )
    return classes, np.where(encoded == 1, 1.0, -1.0)


def check_nonnegative_sample_weight(sample_weight, X):
    """Validate sample weights: finite, non-negative, not all zero.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        ``None`` means unit weights.
    X : ndarray of shape (n_samples, n_features)
        The validated data the weights belong to.

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,)
        The weights as float64.

    Examples
    --------
    >>> import numpy as np
    >>> check_nonnegative_sample_weight(None, np.zeros((3, 2))).tolist()
    [1.0, 1.0, 1.0]
    """
    sw = _check_sample_weight(sample_weight, X, dtype=np.float64)
    if not np.all(np.isfinite(sw)):
        raise ValueError(
            "sample_weight contains NaN or infinity; give every sample a finite "
            "weight >= 0."
        )
    if np.any(sw < 0):
        raise ValueError(
            "Negative values in sample_weight are not allowed; give every sample "
            "a weight >= 0."
        )
    if not np.any(sw > 0):
        raise ValueError(
            "sample_weight must not be all zero; give at least one sample a "
            "positive weight."
        )
    return sw


def check_not_constant(y, name="y"):
    """Raise a ValueError when a target has no variation.

    Parameters
    ----------
    y : ndarray
        The target.
    name : str, default="y"
        Its name in the message.

    Examples
    --------
    >>> import numpy as np
    >>> check_not_constant(np.array([0.0, 1.0]))
    """
    y = np.asarray(y)
    if y.size == 0 or np.ptp(y, axis=0).max() == 0:
        raise ValueError(
            f"{name} is constant; the estimator needs a target that varies."
        )


def rms_scale(A):
    """A positive scalar ``c`` with ``A / c`` of root-mean-square entry 1.

    Estimators that train with fixed step sizes divide their inputs by it, so
    that a fit is equivariant to the units of ``X``. Computed without squaring
    the raw entries, so that entries near 1e-300 or 1e300 neither underflow nor
    overflow; 1 for an all-zero or empty array.

    Parameters
    ----------
    A : ndarray
        Finite values.

    Returns
    -------
    scale : float

    Examples
    --------
    >>> import numpy as np
    >>> round(rms_scale(np.array([[3e-300, -4e-300]])) / 1e-300, 6)
    3.535534
    """
    peak = np.max(np.abs(A)) if A.size else 0.0
    if peak == 0.0 or not np.isfinite(peak):
        return 1.0
    return float(peak * np.sqrt(np.mean((A / peak) ** 2)))
