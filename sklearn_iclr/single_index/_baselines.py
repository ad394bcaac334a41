"""Anchors of the single-index family, for tests and benchmarks only.

Online SGD and partial traces recover a single-index direction; they are what
:class:`AveragedLangevinRegressor` is compared with, not part of the public API
(docs/conventions.rst).

Both take ``X`` as given: the theory assumes ``x ~ N(0, I_d)``, so standardise
the columns first when they are not. The target is centred and scaled to unit
variance. The last-iterate baseline is ``AveragedLangevinRegressor.last_iterates_``
(the same chains as the average).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state, check_X_y

from ..utils._compat import Interval, StrOptions, validate_params
from ..utils.validation import check_not_constant
from ._hermite import hermite_derivative

PARTIAL_TRACE_ORDERS = (1, 2, 3, 4)
# Online SGD runs its last 20% of samples at a tenth of the learning rate: the
# heavy-tailed gradients y h_k'(z) x otherwise keep the final overlap of a
# successful run near 0.6-0.8 (measured, k = 3, d = 16).
REFINE_START, REFINE_FACTOR = 0.8, 0.1


def _check_single_index_data(X, y):
    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=True, ensure_min_samples=2)
    if X.shape[1] < 2:
        raise ValueError(
            "Direction recovery needs at least 2 features, got 1 feature(s)."
        )
    check_not_constant(y)
    return X, (y - y.mean()) / y.std()


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "information_exponent": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def online_sgd_direction(
    X, y, information_exponent, learning_rate="auto", random_state=None
):
    """One-pass online SGD on the sphere for a single-index model.

    The algorithm of Ben Arous, Gheissari & Jagannath (JMLR 2021), the baseline
    of Wei, Damian & Lee (ICLR 2026): from a uniform random start, every
    sample is used once, in random order::

        theta <- normalize(theta + lr * P_perp y h_k'(theta . x) x)

    (SGD on the correlation loss with the link ``h_k``, ``k`` the information
    exponent); the last 20% of the samples run at a tenth of ``lr`` to refine
    (the two phases of Damian et al., 2023). It needs about ``d^(k-1)``
    samples for ``k >= 3``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs, assumed ``N(0, I)``.
    y : array-like of shape (n_samples,)
        Target; centred and scaled to unit variance here.
    information_exponent : int
        ``k``, the Hermite order of the loss.
    learning_rate : float or "auto", default="auto"
        ``"auto"`` uses ``min(0.5 d^(-k/2), 0.1 / d)``: ``d^(-k/2)`` is the
        largest order of step for which the drift beats the noise at the
        equator (``alpha ~ d^(-1/2)``), and ``0.1 / d`` keeps the final noise
        floor ``1 - alpha^2 ~ lr d`` small.
    random_state : int, RandomState instance or None, default=None
        Seeds the start and the order of the samples.

    Returns
    -------
    direction : ndarray of shape (n_features,)
        The final unit vector.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_single_index
    >>> from sklearn_iclr.metrics import overlap
    >>> X, y, theta = make_single_index(3000, 8, information_exponent=1, random_state=0)
    >>> overlap(online_sgd_direction(X, y, 1, random_state=1), theta) > 0.95
    True
    """
    X, y = _check_single_index_data(X, y)
    n_samples, n_features = X.shape
    rng = check_random_state(random_state)
    lr = learning_rate
    if lr == "auto":
        lr = min(0.5 * n_features ** (-information_exponent / 2), 0.1 / n_features)
    theta = rng.standard_normal(n_features)
    theta /= np.linalg.norm(theta)
    refine_from = int(REFINE_START * n_samples)
    for t, i in enumerate(rng.permutation(n_samples)):
        x = X[i]
        rate = lr if t < refine_from else lr * REFINE_FACTOR
        step = rate * y[i] * hermite_derivative(theta @ x, information_exponent) * x
        step -= (step @ theta) * theta
        theta += step
        theta /= np.linalg.norm(theta)
    return theta


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "information_exponent": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def partial_trace_direction(X, y, information_exponent):
    """One-shot partial-trace (spectral) estimate of a single-index direction.

    ``E[y He_k(x)] = sqrt(k!) c_k theta*^(tensor k)``; contracting pairs of
    indices of the Hermite tensor leaves a vector (odd ``k``) or a matrix
    (even ``k``) proportional to ``theta*`` or ``theta* theta*^T``:

    - ``k = 1``: ``v = mean(y x)``;
    - ``k = 2``: top eigenvector of ``mean(y (x x^T - I))``;
    - ``k = 3``: ``v = mean(y (|x|^2 - d - 2) x)``;
    - ``k = 4``: top eigenvector of
      ``mean(y [(|x|^2 - d - 4) x x^T - (|x|^2 - d - 2) I])``.

    This is what the averaged Langevin iterate converges to at high
    temperature (Wei, Damian & Lee, ICLR 2026); it needs about
    ``d^ceil(k/2)`` samples. "Top" means largest absolute eigenvalue (the spike
    has the sign of the Hermite coefficient).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs, assumed ``N(0, I)``.
    y : array-like of shape (n_samples,)
        Target; centred and scaled to unit variance here.
    information_exponent : int
        ``k``, 1 to 4.

    Returns
    -------
    direction : ndarray of shape (n_features,)
        A unit vector (sign arbitrary for even ``k``).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_single_index
    >>> from sklearn_iclr.metrics import overlap
    >>> X, y, theta = make_single_index(5000, 8, information_exponent=4, random_state=0)
    >>> overlap(partial_trace_direction(X, y, 4), theta) > 0.9
    True
    """
    if information_exponent not in PARTIAL_TRACE_ORDERS:
        raise ValueError(
            "partial_trace_direction implements information_exponent 1 to 4, got "
            f"{information_exponent}; use AveragedLangevinRegressor for higher orders."
        )
    X, y = _check_single_index_data(X, y)
    n_samples, d = X.shape
    sq = np.einsum("ij,ij->i", X, X)
    if information_exponent % 2 == 1:
        weights = y if information_exponent == 1 else y * (sq - d - 2)
        vector = weights @ X / n_samples
        return vector / np.linalg.norm(vector)
    if information_exponent == 2:
        weights, diagonal = y, y.mean()
    else:
        weights, diagonal = y * (sq - d - 4), np.mean(y * (sq - d - 2))
    matrix = (X * weights[:, None]).T @ X / n_samples - diagonal * np.eye(d)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    return eigvecs[:, np.argmax(np.abs(eigvals))]
