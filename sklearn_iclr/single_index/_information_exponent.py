"""Direction-free tests of the Hermite coefficients of a single-index link."""

from numbers import Real

import numpy as np
from sklearn.utils.validation import check_array, check_consistent_length

from ..utils import warn_user
from ..utils._compat import Interval, validate_params

MAX_EXPONENT = 4


def _scalar_z(values):
    """t-statistic of ``mean(values) != 0``."""
    sd = values.std()
    return 0.0 if sd == 0 else abs(values.mean()) * np.sqrt(len(values)) / sd


def _vector_z(rows):
    """z-statistic of ``|E[rows]|^2 > 0`` from the unbiased U-statistic.

    ``U = (|sum_i w_i|^2 - sum_i |w_i|^2) / (n (n - 1))`` estimates
    ``|E w|^2`` without the ``d / n`` noise floor; under ``E w = 0`` its
    standard deviation is ``sqrt(2 tr(S^2) / (n (n - 1)))`` with ``S`` the
    second moment of ``w``.
    """
    n = len(rows)
    total = rows.sum(axis=0)
    u_stat = (total @ total - np.einsum("ij,ij->", rows, rows)) / (n * (n - 1))
    second = rows.T @ rows / n
    sd = np.sqrt(2 * np.sum(second * second) / (n * (n - 1)))
    return 0.0 if sd == 0 else u_stat / sd


@validate_params(
    {"X": ["array-like"], "y": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def hermite_exponent_scores(X, y):
    """z-scores of the direction-free Hermite statistics of orders 1 to 4.

    For ``y = f(theta* . x) + noise`` with ``x ~ N(0, I_d)`` and Hermite
    coefficients ``c_k`` of ``f``, contracting ``E[y He_k(x)] = sqrt(k!) c_k
    theta*^(tensor k)`` over pairs of indices gives statistics that need no
    knowledge of ``theta*``:

    - ``k = 1``: ``E[y x] = c_1 theta*`` (squared norm, U-statistic);
    - ``k = 2``: ``E[y (|x|^2 - d)] = sqrt(2) c_2`` (scalar);
    - ``k = 3``: ``E[y (|x|^2 - d - 2) x] = sqrt(6) c_3 theta*`` (squared norm);
    - ``k = 4``: ``E[y (|x|^4 - (2d + 4)|x|^2 + d^2 + 2d)] = sqrt(24) c_4``.

    Even orders are detectable from about ``d^(k/2)`` samples, odd ones from
    about ``d^((k-1)/2)``, up to constants that are large for ``k = 4``: the
    products ``y * statistic`` are heavy-tailed (with ``y = h_4(z)`` and
    ``d = 32`` the order-4 z-score is only about 2 at ``n = 10 d^2``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs, assumed standardised (``N(0, I)`` in theory).
    y : array-like of shape (n_samples,)
        Target; it is centred here.

    Returns
    -------
    scores : ndarray of shape (4,)
        ``scores[k - 1]`` is the z-score of ``c_k != 0``; about ``N(0, 1)``
        (or its absolute value) when ``c_k = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> X = rng.standard_normal((4000, 8))
    >>> scores = hermite_exponent_scores(X, X[:, 0] ** 2 - 1)  # c_2 != 0 only
    >>> int(np.argmax(scores)) + 1
    2
    """
    X = check_array(X, dtype=np.float64, ensure_min_samples=2)
    y = check_array(y, dtype=np.float64, ensure_2d=False)
    check_consistent_length(X, y)
    d = X.shape[1]
    y = y - y.mean()
    sq = np.einsum("ij,ij->i", X, X)
    return np.array(
        [
            _vector_z(y[:, None] * X),
            _scalar_z(y * (sq - d)),
            _vector_z((y * (sq - d - 2))[:, None] * X),
            _scalar_z(y * (sq * sq - (2 * d + 4) * sq + d * d + 2 * d)),
        ]
    )


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "threshold": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def estimate_information_exponent(X, y, threshold=4.0):
    """Estimate the information exponent ``k*`` of a single-index model.

    ``k*`` is the first ``k`` with a non-zero Hermite coefficient of the link
    (Wei, Damian & Lee, ICLR 2026, after Ben Arous et al., 2021). The estimate
    is the smallest ``k <= 4`` whose direction-free statistic (see
    :func:`hermite_exponent_scores`) has a z-score above ``threshold``. When
    none does (no signal, too few samples, or ``k* > 4``), the order with the
    largest z-score is returned with a warning: pass the exponent explicitly
    in that case.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs, assumed standardised.
    y : array-like of shape (n_samples,)
        Target.
    threshold : float, default=4.0
        z-score a statistic must exceed (a one-sided Gaussian tail of 3e-5 per
        order, so spurious detections are rare across the four tests).

    Returns
    -------
    exponent : int
        In ``1, ..., 4``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_single_index
    >>> X, y, _ = make_single_index(5000, 8, information_exponent=3, random_state=0)
    >>> estimate_information_exponent(X, y)
    3
    """
    scores = hermite_exponent_scores(X, y)
    significant = np.flatnonzero(scores > threshold)
    if len(significant):
        return int(significant[0]) + 1
    best = int(np.argmax(scores)) + 1
    warn_user(
        f"No Hermite coefficient of order 1 to {MAX_EXPONENT} is significant "
        f"(z-scores {np.round(scores, 2).tolist()} are all below {threshold}); "
        f"using information_exponent={best}, the largest score. Pass "
        "information_exponent explicitly when you know it.",
        UserWarning,
    )
    return best
