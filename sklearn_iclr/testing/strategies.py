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
def grid_classification_data(
    draw, min_samples=4, max_samples=12, max_features=3, grid=3, weighted=False
):
    """Draw binary data on a small integer grid: ties, duplicates, collinearity.

    Points on ``{0, .., grid - 1}^d`` put many of them on one line or plane
    and repeat some feature vectors (possibly with both labels), the
    degenerate inputs an exact 0-1 loss method must handle.

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of rows.
    max_features : int
        Largest number of columns (at least one).
    grid : int, default=3
        Values per coordinate.
    weighted : bool, default=False
        Also draw integer sample weights in {1, 2, 3}.

    Returns
    -------
    X, y : ndarray
        Float features and labels in {0, 1} (both present).
    sample_weight : ndarray or None
        Only when ``weighted``: returned as a third element.
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    X = draw(arrays(np.int64, (n, d), elements=st.integers(0, grid - 1)))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    assume(len(np.unique(y)) == 2)
    if not weighted:
        return X.astype(np.float64), y
    weight = draw(arrays(np.int64, n, elements=st.integers(1, 3)))
    return X.astype(np.float64), y, weight.astype(np.float64)
