"""Hypothesis strategies that draw valid inputs for sklearn_iclr estimators."""

from numbers import Integral, Real

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ..utils._compat import Interval, validate_params

__all__ = [
    "classification_data",
    "column_affine_maps",
    "correlated_gaussian_samples",
    "damped_least_squares",
    "feature_matrices",
    "grid_classification_data",
    "group_predictions",
    "orthogonal_matrices",
    "patch_data",
    "regression_data",
    "token_bag_data",
    "transition_data",
    "truncated_ising_data",
]


def _moderate_floats(bound):
    """Finite floats in ``[-bound, bound]`` whose magnitudes below 1e-6 are 0.

    Values like 1e-161 square to subnormal numbers, and sums of such squares
    carry no precision at all: no least-squares method is defined on them.
    """
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False).map(
        lambda v: v if abs(v) >= 1e-6 else 0.0
    )


@validate_params(
    {
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def classification_data(
    draw, *, min_samples=4, max_samples=40, max_features=4, n_classes=2, bound=1e3
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

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import classification_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(classification_data(n_classes=3))
    ... def check_classification_data(data):
    ...     X, y = data
    ...     assert X.shape[0] == y.shape[0] and np.isfinite(X).all()
    ...     assert set(np.unique(y)) == {0, 1, 2}
    >>> check_classification_data()
    """
    n = draw(st.integers(max(min_samples, n_classes), max_samples))
    d = draw(st.integers(1, max_features))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    X = draw(arrays(np.float64, (n, d), elements=elements))
    y = draw(arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    assume(len(np.unique(y)) == n_classes)
    return X, y


@validate_params(
    {
        "min_samples": [Interval(Integral, 2, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def regression_data(draw, *, min_samples=5, max_samples=60, max_features=5, bound=1e2):
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

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import regression_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(regression_data(max_features=3))
    ... def check_regression_data(data):
    ...     X, y = data
    ...     assert X.shape == (len(y), X.shape[1]) and 1 <= X.shape[1] <= 3
    ...     assert np.isfinite(y).all() and np.ptp(y) > 0
    >>> check_regression_data()
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    elements = _moderate_floats(bound)
    X = draw(arrays(np.float64, (n, d), elements=elements))
    y = draw(arrays(np.float64, n, elements=elements))
    assume(np.ptp(y) > 0)
    return X, y


@validate_params(
    {
        "min_samples": [Interval(Integral, 2, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def transition_data(
    draw, *, min_samples=20, max_samples=60, max_features=4, bound=10.0
):
    """Draw logged transitions ``(X, y, X_next)`` for linear policy evaluation.

    ``X`` has full column rank and ``X_next`` is a random mix of the rows of
    ``X`` (a plausible next-feature table), so LSTDQ is well posed for
    ``gamma`` below 1 in most draws; callers ``assume`` what they need.

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of transitions.
    max_features : int
        Largest number of features (at least one).
    bound : float, default=10.0
        Features and rewards lie in ``[-bound, bound]``.

    Returns
    -------
    X, y, X_next : ndarray
        Shapes (n_samples, n_features), (n_samples,), (n_samples, n_features).

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import transition_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(transition_data())
    ... def check_transition_data(data):
    ...     X, y, X_next = data
    ...     assert X.shape == X_next.shape and y.shape == (X.shape[0],)
    ...     assert np.isfinite(X).all() and np.isfinite(y).all()
    >>> check_transition_data()
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    elements = _moderate_floats(bound)
    X = draw(arrays(np.float64, (n, d), elements=elements))
    assume(np.linalg.cond(X.T @ X) < 1e6)
    y = draw(arrays(np.float64, n, elements=elements))
    successors = draw(arrays(np.int64, n, elements=st.integers(0, n - 1)))
    return X, y, X[successors]


@validate_params(
    {
        "max_vertices": [Interval(Integral, 2, None, closed="left")],
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "max_clauses": [Interval(Integral, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def truncated_ising_data(draw, *, max_vertices=9, max_samples=4, max_clauses=6):
    """Draw spins, a coupling and a CNF that every drawn configuration satisfies.

    The coupling is symmetric with a zero diagonal and random signed weights on
    a random edge set; clauses of 1 to 3 literals are drawn at random and only
    those satisfied by every row are kept, so the data are always valid input
    for :class:`~sklearn_iclr.graphical.PseudoLikelihoodIsing`.

    Parameters
    ----------
    max_vertices : int, default=9
        Largest number of spins (at least 3 are drawn).
    max_samples : int, default=4
        Largest number of configurations.
    max_clauses : int, default=6
        Number of clauses drawn before filtering.

    Returns
    -------
    X : ndarray of shape (n_samples, n_vertices)
        Spins in {-1.0, +1.0}.
    coupling : ndarray of shape (n_vertices, n_vertices)
    clauses : list of tuple of int
        DIMACS literals (variable ``v`` is column ``v - 1``).

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import truncated_ising_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(truncated_ising_data())
    ... def check_truncated_ising_data(data):
    ...     X, coupling, clauses = data
    ...     assert set(np.unique(X)) <= {-1.0, 1.0}
    ...     assert np.array_equal(coupling, coupling.T)
    ...     assert not np.diag(coupling).any()
    ...     for clause in clauses:  # every row satisfies every clause
    ...         signs = np.sign(clause)
    ...         assert (X[:, np.abs(clause) - 1] * signs > 0).any(axis=1).all()
    >>> check_truncated_ising_data()
    """
    n = draw(st.integers(3, max_vertices))
    s = draw(st.integers(1, max_samples))
    X = np.array(
        draw(arrays(np.int8, (s, n), elements=st.sampled_from([-1, 1]))), float
    )
    weights = draw(
        arrays(np.float64, (n, n), elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0]))
    )
    coupling = np.triu(weights, 1)
    coupling = coupling + coupling.T
    clauses = []
    for _ in range(draw(st.integers(0, max_clauses))):
        size = draw(st.integers(1, min(3, n)))
        variables = draw(st.permutations(range(1, n + 1)))[:size]
        signs = draw(st.lists(st.sampled_from([-1, 1]), min_size=size, max_size=size))
        clause = tuple(v * g for v, g in zip(variables, signs, strict=True))
        if all(any(row[abs(v) - 1] * np.sign(v) > 0 for v in clause) for row in X):
            clauses.append(clause)
    return X, coupling, clauses


@validate_params(
    {
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "max_log10_scale": [Interval(Real, 0, None, closed="neither")],
        "max_shift": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def column_affine_maps(draw, n_features, *, max_log10_scale=1.0, max_shift=1e2):
    """Draw a positive per-column scale and a shift, ``x -> scale * x + shift``.

    Parameters
    ----------
    n_features : int
        Number of columns.
    max_log10_scale : float, default=1.0
        Scales lie in ``[10^-m, 10^m]``.
    max_shift : float, default=1e2
        Shifts lie in ``[-max_shift, max_shift]``.

    Returns
    -------
    scale, shift : ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import column_affine_maps
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(column_affine_maps(n_features=3))
    ... def check_column_affine_maps(maps):
    ...     scale, shift = maps
    ...     assert scale.shape == shift.shape == (3,)
    ...     assert ((scale >= 0.1) & (scale <= 10.0)).all()
    >>> check_column_affine_maps()
    """
    exponents = st.floats(-max_log10_scale, max_log10_scale, allow_nan=False)
    shifts = st.floats(-max_shift, max_shift, allow_nan=False, allow_infinity=False)
    scale = 10.0 ** draw(arrays(np.float64, n_features, elements=exponents))
    shift = draw(arrays(np.float64, n_features, elements=shifts))
    return scale, shift


@validate_params(
    {
        "size": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def orthogonal_matrices(draw, size):
    """Draw a ``size x size`` orthogonal matrix (QR of a bounded random matrix).

    Householder QR returns an orthogonal ``Q`` for every matrix, singular ones
    included, so no draw is filtered out.

    Parameters
    ----------
    size : int
        Number of rows and columns.

    Returns
    -------
    Q : ndarray of shape (size, size)
        ``Q.T @ Q`` is the identity up to rounding.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import orthogonal_matrices
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(orthogonal_matrices(size=3))
    ... def check_orthogonal_matrices(Q):
    ...     np.testing.assert_allclose(Q.T @ Q, np.eye(3), atol=1e-10)
    >>> check_orthogonal_matrices()
    """
    elements = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
    A = draw(arrays(np.float64, (size, size), elements=elements))
    Q, R = np.linalg.qr(A)
    return Q * np.where(np.diag(R) < 0, -1.0, 1.0)


@validate_params(
    {
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "grid": [Interval(Integral, 2, None, closed="left")],
        "weighted": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def grid_classification_data(
    draw, *, min_samples=4, max_samples=12, max_features=3, grid=3, weighted=False
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

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import grid_classification_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(grid_classification_data(weighted=True))
    ... def check_grid_classification_data(data):
    ...     X, y, sample_weight = data
    ...     assert set(np.unique(X)) <= {0.0, 1.0, 2.0}
    ...     assert set(np.unique(y)) == {0, 1}
    ...     assert set(np.unique(sample_weight)) <= {1.0, 2.0, 3.0}
    >>> check_grid_classification_data()
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


@validate_params(
    {
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
        "max_groups": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def group_predictions(draw, *, max_samples=60, n_classes=2, max_groups=4):
    """Draw labels, predictions and group labels for group-accuracy metrics.

    Parameters
    ----------
    max_samples : int, default=60
        Largest number of samples (at least one).
    n_classes : int, default=2
        Labels and predictions are ``0 .. n_classes - 1``.
    max_groups : int, default=4
        Group labels are ``0 .. max_groups - 1`` (not all need to occur).

    Returns
    -------
    y_true, y_pred, groups : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import group_predictions
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(group_predictions(max_groups=3))
    ... def check_group_predictions(data):
    ...     y_true, y_pred, groups = data
    ...     assert y_true.shape == y_pred.shape == groups.shape
    ...     assert set(np.unique(groups)) <= {0, 1, 2}
    >>> check_group_predictions()
    """
    n = draw(st.integers(1, max_samples))
    labels = arrays(np.int64, n, elements=st.integers(0, n_classes - 1))
    groups = arrays(np.int64, n, elements=st.integers(0, max_groups - 1))
    return draw(labels), draw(labels), draw(groups)


@validate_params(
    {
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "max_patches": [Interval(Integral, 1, None, closed="left")],
        "max_patch_dim": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def patch_data(draw, *, max_samples=12, max_patches=5, max_patch_dim=4, bound=10.0):
    """Draw a bounded 3-D patch array ``(n_samples, n_patches, patch_dim)``.

    Parameters
    ----------
    max_samples : int, default=12
        Largest number of samples (at least 2).
    max_patches : int, default=5
        Largest number of patches per sample (at least 1).
    max_patch_dim : int, default=4
        Largest patch dimension (at least 1).
    bound : float, default=10.0
        Entries lie in ``[-bound, bound]``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_patches, patch_dim)
        Not identically zero.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import patch_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(patch_data(max_patches=3))
    ... def check_patch_data(X):
    ...     assert X.ndim == 3 and X.shape[0] >= 2 and X.shape[1] <= 3
    ...     assert np.isfinite(X).all() and np.abs(X).max() > 0
    >>> check_patch_data()
    """
    shape = (
        draw(st.integers(2, max_samples)),
        draw(st.integers(1, max_patches)),
        draw(st.integers(1, max_patch_dim)),
    )
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    X = draw(arrays(np.float64, shape, elements=elements))
    assume(np.abs(X).max() > 1e-3)
    return X


@validate_params(
    {
        "min_samples": [Interval(Integral, 2, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "max_tokens": [Interval(Integral, 1, None, closed="left")],
        "max_token_dim": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def token_bag_data(
    draw, *, min_samples=6, max_samples=30, max_tokens=5, max_token_dim=4, bound=10.0
):
    """Draw bags of tokens (a 3-D array) with binary labels of both classes.

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of bags.
    max_tokens : int
        Largest number of tokens per bag (at least one).
    max_token_dim : int
        Largest token dimension (at least one).
    bound : float, default=10.0
        Entries lie in ``[-bound, bound]``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_tokens, token_dim)
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}, each class at least twice.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import token_bag_data
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(token_bag_data())
    ... def check_token_bag_data(data):
    ...     X, y = data
    ...     assert X.ndim == 3 and X.shape[0] == len(y)
    ...     assert np.bincount(y, minlength=2).min() >= 2
    >>> check_token_bag_data()
    """
    n = draw(st.integers(min_samples, max_samples))
    n_tokens = draw(st.integers(1, max_tokens))
    token_dim = draw(st.integers(1, max_token_dim))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    X = draw(arrays(np.float64, (n, n_tokens, token_dim), elements=elements))
    y = draw(arrays(np.int64, n, elements=st.integers(0, 1)))
    assume(min(np.bincount(y, minlength=2)) >= 2)
    return X, y


@validate_params(
    {
        "max_rows": [Interval(Integral, 1, None, closed="left")],
        "max_columns": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def damped_least_squares(draw, *, max_rows=12, max_columns=12, bound=10.0):
    """Draw a damped linear least-squares problem ``min ||r + J d||^2 + mu ||d||^2``.

    Parameters
    ----------
    max_rows, max_columns : int
        Largest numbers of residuals and unknowns (either may be the larger,
        so both the primal and the dual solve are drawn).
    bound : float, default=10.0
        Entries of ``J`` and ``r`` lie in ``[-bound, bound]``.

    Returns
    -------
    J : ndarray of shape (n_rows, n_columns)
    r : ndarray of shape (n_rows,)
    damping : float
        ``mu`` in ``[1e-4, 10]``.

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import damped_least_squares
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(damped_least_squares())
    ... def check_damped_least_squares(problem):
    ...     J, r, damping = problem
    ...     assert J.shape[0] == r.shape[0] and 1e-4 <= damping <= 10.0
    ...     A = J.T @ J + damping * np.eye(J.shape[1])  # the damped system
    ...     assert np.isfinite(np.linalg.solve(A, -J.T @ r)).all()
    >>> check_damped_least_squares()
    """
    n = draw(st.integers(1, max_rows))
    p = draw(st.integers(1, max_columns))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    J = draw(arrays(np.float64, (n, p), elements=elements))
    r = draw(arrays(np.float64, n, elements=elements))
    damping = 10.0 ** draw(st.floats(-4.0, 1.0))
    return J, r, damping


@validate_params(
    {
        "min_samples": [Interval(Integral, 2, None, closed="left")],
        "max_samples": [Interval(Integral, 2, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def correlated_gaussian_samples(
    draw, *, min_samples=20, max_samples=80, max_features=4
):
    """Draw samples of a Gaussian with a drawn rotation, scales and mean.

    ``X = E @ diag(scale) @ Q + shift`` with ``E`` standard normal (from a
    drawn seed), ``Q`` orthogonal and scales in ``[0.1, 10]``, so the sample
    covariance is well conditioned (at least 5 rows per feature).

    Parameters
    ----------
    min_samples, max_samples : int
        Range of the number of rows (raised to ``5 * n_features`` if lower).
    max_features : int
        Largest number of columns (at least one).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import correlated_gaussian_samples
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(correlated_gaussian_samples())
    ... def check_correlated_gaussian_samples(X):
    ...     assert X.shape[0] >= 5 * X.shape[1] and np.isfinite(X).all()
    ...     covariance = np.atleast_2d(np.cov(X, rowvar=False))
    ...     assert np.linalg.matrix_rank(covariance) == X.shape[1]
    >>> check_correlated_gaussian_samples()
    """
    d = draw(st.integers(1, max_features))
    n = max(draw(st.integers(min_samples, max_samples)), 5 * d)
    seed = draw(st.integers(0, 2**32 - 1))
    Q = draw(orthogonal_matrices(d))
    exponents = st.floats(-1.0, 1.0, allow_nan=False)
    scale = 10.0 ** draw(arrays(np.float64, d, elements=exponents))
    shift = draw(arrays(np.float64, d, elements=st.floats(-100.0, 100.0)))
    noise = np.random.RandomState(seed).standard_normal((n, d))
    return noise @ (scale[:, None] * Q) + shift


@validate_params(
    {
        "min_samples": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [Interval(Integral, 1, None, closed="left")],
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "bound": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
@st.composite
def feature_matrices(draw, *, min_samples=1, max_samples=40, max_features=5, bound=1e2):
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

    Examples
    --------
    >>> import numpy as np
    >>> from hypothesis import given, settings
    >>> from sklearn_iclr.testing.strategies import feature_matrices
    >>> @settings(max_examples=5, deadline=None, derandomize=True, database=None)
    ... @given(feature_matrices(max_features=2))
    ... def check_feature_matrices(X):
    ...     assert X.ndim == 2 and 1 <= X.shape[1] <= 2
    ...     assert np.isfinite(X).all() and np.abs(X).max() <= 1e2
    >>> check_feature_matrices()
    """
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(1, max_features))
    elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    return draw(arrays(np.float64, (n, d), elements=elements))
