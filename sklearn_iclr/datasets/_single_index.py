"""Generators for Gaussian single-index models and spiked tensor PCA."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state

from ..single_index._hermite import hermite
from ..utils._compat import Interval, validate_params


def _unit_vector(rng, n_features):
    direction = rng.standard_normal(n_features)
    return direction / np.linalg.norm(direction)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "information_exponent": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_single_index(
    n_samples=1000,
    n_features=16,
    *,
    information_exponent=3,
    noise=0.0,
    random_state=None,
):
    """Gaussian single-index data with a Hermite link.

    ``x ~ N(0, I_d)``, ``theta*`` uniform on the unit sphere and
    ``y = h_k(theta* . x) + noise * N(0, 1)`` with ``h_k = He_k / sqrt(k!)`` the
    orthonormal Hermite polynomial of degree ``k = information_exponent``: the
    setting of Wei, Damian & Lee, "Improved high-dimensional estimation with
    Langevin dynamics and stochastic weight averaging", ICLR 2026.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=16
        Dimension ``d``.
    information_exponent : int, default=3
        Degree ``k`` of the Hermite link, which is then the information exponent.
    noise : float, default=0.0
        Standard deviation of the additive Gaussian label noise.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
    direction : ndarray of shape (n_features,)
        The planted unit vector ``theta*``.

    Examples
    --------
    >>> X, y, direction = make_single_index(100, 5, information_exponent=2,
    ...                                      random_state=0)
    >>> X.shape, y.shape, round(float(direction @ direction), 6)
    ((100, 5), (100,), 1.0)
    """
    rng = check_random_state(random_state)
    direction = _unit_vector(rng, n_features)
    X = rng.standard_normal((n_samples, n_features))
    y = hermite(X @ direction, information_exponent)
    y = y + noise * rng.standard_normal(n_samples)
    return X, y, direction


@validate_params(
    {
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "order": [Interval(Integral, 2, None, closed="left")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_tensor_pca(n_features=16, *, order=3, n_samples=100, random_state=None):
    """A spiked tensor ``T = theta*^(tensor k) + Z / sqrt(n)``.

    The average of ``n`` observations ``theta*^(tensor k) + Z_i`` with i.i.d.
    standard Gaussian noise tensors ``Z_i`` has the law of
    ``theta*^(tensor k) + Z / sqrt(n)``, so one tensor with signal-to-noise
    ratio ``sqrt(n)`` is drawn (the sample-size convention of Wei, Damian & Lee,
    ICLR 2026, and of Damian et al., 2023).

    Parameters
    ----------
    n_features : int, default=16
        Dimension ``d``.
    order : int, default=3
        Tensor order ``k`` (at least 2).
    n_samples : int, default=100
        Number of observations ``n`` averaged into the tensor.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    tensor : ndarray of shape (n_features,) * order
        The observed tensor (not symmetrised).
    direction : ndarray of shape (n_features,)
        The planted unit vector ``theta*``.

    Examples
    --------
    >>> T, direction = make_tensor_pca(4, order=3, n_samples=10, random_state=0)
    >>> T.shape
    (4, 4, 4)
    """
    rng = check_random_state(random_state)
    direction = _unit_vector(rng, n_features)
    spike = direction
    for _ in range(order - 1):
        spike = np.multiply.outer(spike, direction)
    noise = rng.standard_normal((n_features,) * order) / np.sqrt(n_samples)
    return spike + noise, direction
