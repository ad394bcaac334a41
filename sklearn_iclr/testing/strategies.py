"""Hypothesis strategies that draw valid inputs for sklearn_iclr estimators."""

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays


@st.composite
def classification_data(
    draw, min_samples=4, max_samples=40, max_features=4, n_classes=2, bound=1e3
):
    """Draw a bounded, finite feature matrix with labels of every class.

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of rows.
    max_features : int
        Largest number of columns (at least one).
    n_classes : int, default=2
        Labels are ``0 .. n_classes - 1``; each appears at least once.
    bound : float, default=1e3
        Features lie in ``[-bound, bound]``.

    Returns
    -------
    X, y : ndarray
        ``X`` of shape (n_samples, n_features), ``y`` of shape (n_samples,).
    """
    n = draw(st.integers(max(min_samples, n_classes), max_samples))
    d = draw(st.integers(1, max_features))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    X = draw(arrays(np.float64, (n, d), elements=elements))
    y = draw(arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    assume(len(np.unique(y)) == n_classes)
    return X, y


@st.composite
def regression_data(draw, min_samples=5, max_samples=60, max_features=5, bound=1e2):
    """Draw a bounded, finite regression problem with a non-constant target.

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of rows.
    max_features : int
        Largest number of columns (at least one).
    bound : float, default=1e2
        Features and targets lie in ``[-bound, bound]``.

    Returns
    -------
    X, y : ndarray
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    X = draw(arrays(np.float64, (n, d), elements=elements))
    y = draw(arrays(np.float64, n, elements=elements))
    assume(np.ptp(y) > 0)
    return X, y


@st.composite
def feature_matrices(draw, min_samples=1, max_samples=40, max_features=5, bound=1e2):
    """Draw a bounded, finite feature matrix (unsupervised estimators).

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of rows.
    max_features : int
        Largest number of columns (at least one).
    bound : float, default=1e2
        Entries lie in ``[-bound, bound]``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    return draw(arrays(np.float64, (n, d), elements=elements))
