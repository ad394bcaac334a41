"""Heavy-tailed random-design regression with a closed-form ridge oracle."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._compat import Interval, validate_params

_SCALES = ["array-like", None]


def _default_coef(n_features):
    """Fixed coefficients ``(-1)^j (1 + j mod 3) / sqrt(d)`` (data-independent)."""
    j = np.arange(n_features)
    return (-1.0) ** j * (1 + j % 3) / np.sqrt(n_features)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "df": [Interval(Real, 2, None, closed="neither")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "nonlinearity": [Real],
        "scales": _SCALES,
        "intercept": [Real],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_heavy_tailed_regression(
    n_samples=1000,
    n_features=8,
    *,
    df=10.0,
    noise=0.5,
    nonlinearity=0.5,
    scales=None,
    intercept=1.0,
    random_state=None,
):
    """Random-design regression with Student-t features and a misspecified target.

    The features are ``X_j = scales_j * T_j`` with ``T_j`` independent Student-t
    variables with ``df`` degrees of freedom, standardised to unit variance
    (heavy tails: kurtosis ``3 + 6 / (df - 4)`` for ``df > 4``). The target is
    ``y = intercept + X @ coef + nonlinearity * T_0 T_1 + noise * eps`` with
    standard normal ``eps`` and fixed coefficients
    ``coef_j = (-1)^j (1 + j mod 3) / (sqrt(d) * scales_j)``. The interaction
    (left out when ``n_features == 1``) has mean zero and is uncorrelated with
    every feature (independent, symmetric ``T``), so the best linear predictor
    is ``intercept + X @ coef`` but the residual is heteroscedastic and not
    Gaussian: the agnostic setting in which replicable ridge regression of
    Eaton et al., "Replicable Reinforcement Learning with Linear Function
    Approximation" (ICLR 2026) is analysed. Every draw has the same distribution
    (only ``random_state`` changes), which is what a replicability experiment
    needs; :func:`heavy_tailed_population_ridge` gives the population ridge
    solution in closed form.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=8
        Number of features.
    df : float, default=10.0
        Degrees of freedom of the features (greater than 2). The default has
        kurtosis 4 and finite eighth moments, which sandwich standard errors
        need to be stable (``df <= 8`` makes them vary between samples); the
        residual variance needs finite fourth moments (``df > 4``).
    noise : float, default=0.5
        Standard deviation of the Gaussian noise.
    nonlinearity : float, default=0.5
        Weight of the interaction ``T_0 T_1`` (its variance is
        ``nonlinearity^2``). With the defaults and ``n_features=8`` the best
        linear predictor explains about 90% of the variance of ``y``.
    scales : array-like of shape (n_features,), default=None
        Standard deviations of the features (ones by default).
    intercept : float, default=1.0
        Intercept of the best linear predictor.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features.
    y : ndarray of shape (n_samples,)
        Target.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_heavy_tailed_regression
    >>> X, y = make_heavy_tailed_regression(n_samples=5, n_features=3, random_state=0)
    >>> X.shape, y.shape
    ((5, 3), (5,))
    """
    rng = check_random_state(random_state)
    scales = np.ones(n_features) if scales is None else np.asarray(scales, float)
    T = rng.standard_t(df, size=(n_samples, n_features)) / np.sqrt(df / (df - 2))
    X = T * scales
    coef = _default_coef(n_features) / scales
    y = (
        intercept
        + X @ coef
        + nonlinearity * (T[:, 0] * T[:, 1] if n_features > 1 else 0.0)
        + noise * rng.standard_normal(n_samples)
    )
    return X, y


@validate_params(
    {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "scales": _SCALES,
        "intercept": [Real],
    },
    prefer_skip_nested_validation=True,
)
def heavy_tailed_population_ridge(
    alpha, n_samples, n_features=8, *, scales=None, intercept=1.0
):
    """Population ridge solution of :func:`make_heavy_tailed_regression`.

    Ridge with penalty ``alpha`` on ``n_samples`` rows minimises
    ``E[(y - b - w^T x)^2] + (alpha / n_samples) ||w||^2`` in the population.
    The features are centred with covariance ``diag(scales^2)`` and
    ``Cov(x, y) = diag(scales^2) coef``, so the minimiser is
    ``w_j = scales_j^2 coef_j / (scales_j^2 + alpha / n_samples)`` and ``b =
    intercept``, whatever ``df``, ``noise`` and ``nonlinearity`` are.

    Parameters
    ----------
    alpha : float
        Ridge penalty (scikit-learn's convention: sum of squares plus
        ``alpha * ||w||^2``).
    n_samples : int
        Sample size the penalty is paired with.
    n_features : int, default=8
        Number of features.
    scales : array-like of shape (n_features,), default=None
        Feature standard deviations, as given to the sampler.
    intercept : float, default=1.0
        Intercept, as given to the sampler.

    Returns
    -------
    coef : ndarray of shape (n_features,)
        Population ridge coefficients.
    intercept : float
        Population ridge intercept.

    Examples
    --------
    >>> coef, b = heavy_tailed_population_ridge(1.0, 1000, n_features=2)
    >>> coef.round(4).tolist(), b
    ([0.7064, -1.4128], 1.0)
    """
    scales = np.ones(n_features) if scales is None else np.asarray(scales, float)
    coef = _default_coef(n_features) / scales
    return scales**2 * coef / (scales**2 + alpha / n_samples), float(intercept)
