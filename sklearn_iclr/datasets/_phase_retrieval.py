"""Phase retrieval with anisotropic Gaussian inputs of power-law spectrum."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "decay": [Interval(Real, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def power_law_spectrum(n_features, decay):
    """Eigenvalues ``lambda_i = i^(-a) / sum_j j^(-a)`` of a power-law covariance.

    The covariance of Braun, Loureiro, Minh & Imaizumi, "Fast Escape, Slow
    Convergence: Learning Dynamics of Phase Retrieval under Power-Law Data",
    ICLR 2026 (arXiv:2511.18661): ``Q = diag(lambda)`` with trace 1, decreasing
    eigenvalues, and ``decay = 0`` the isotropic ``Q = I / d``.

    Parameters
    ----------
    n_features : int
        Dimension ``d``.
    decay : float
        Exponent ``a >= 0`` (the paper's analysis takes ``a > 1``).

    Returns
    -------
    spectrum : ndarray of shape (n_features,)
        The eigenvalues, decreasing, summing to 1.

    Examples
    --------
    >>> power_law_spectrum(3, 1.0).round(4).tolist()
    [0.5455, 0.2727, 0.1818]
    """
    spectrum = np.arange(1, n_features + 1, dtype=np.float64) ** -float(decay)
    return spectrum / spectrum.sum()


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "decay": [Interval(Real, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_power_law_phase_retrieval(
    n_samples=1000, n_features=100, *, decay=2.0, noise=0.0, random_state=None
):
    """Phase-retrieval data ``y = <x, w*>^2 + noise`` with power-law covariance.

    The data model of Braun, Loureiro, Minh & Imaizumi, "Fast Escape, Slow
    Convergence: Learning Dynamics of Phase Retrieval under Power-Law Data",
    ICLR 2026 (arXiv:2511.18661)::

        x ~ N(0, Q),  Q = diag(lambda),  lambda_i = i^(-a) / sum_j j^(-a)
        w* = g / ||Q^(1/2) g||,  g ~ N(0, I_d)
        y = <x, w*>^2 + noise * N(0, 1)

    so that ``tr Q = 1`` and ``E[y] = w*^T Q w* = 1``. ``decay = 0`` gives
    isotropic inputs ``x ~ N(0, I / d)``. With ``noise > 0`` some intensities
    are negative; :class:`~sklearn_iclr.single_index.PhaseRetrievalRegressor`
    accepts them.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=100
        Dimension ``d``.
    decay : float, default=2.0
        Power-law exponent ``a`` of the spectrum (see :func:`power_law_spectrum`).
    noise : float, default=0.0
        Standard deviation of the additive Gaussian noise on ``y``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw (``w*`` first, then ``X``, then the noise).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The inputs; column ``i`` has variance ``lambda_i``.
    y : ndarray of shape (n_samples,)
        The intensities.
    coef : ndarray of shape (n_features,)
        The planted signal ``w*`` (``y`` does not depend on its sign).

    See Also
    --------
    power_law_spectrum : the eigenvalues ``lambda``.
    sklearn_iclr.single_index.PhaseRetrievalRegressor : recovers ``w*``.
    sklearn_iclr.single_index.phase_retrieval_dynamics : the population and
        online-SGD learning dynamics on this model.

    Examples
    --------
    >>> X, y, coef = make_power_law_phase_retrieval(50, 4, random_state=0)
    >>> X.shape, y.shape, bool((y >= 0).all())
    ((50, 4), (50,), True)
    """
    rng = check_random_state(random_state)
    spectrum = power_law_spectrum(n_features, decay)
    scale = np.sqrt(spectrum)
    g = rng.standard_normal(n_features)
    coef = g / np.linalg.norm(scale * g)
    X = rng.standard_normal((n_samples, n_features)) * scale
    y = (X @ coef) ** 2
    if noise > 0:
        y = y + noise * rng.standard_normal(n_samples)
    return X, y, coef
