"""Replicable ridge regression: ridge, then rounding on shared random grids."""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._lattice import shifted_lattice
from ..utils._rounding import (
    EXPECTED_ABS_DIFF_PER_SE,
    LOG2_SPACING,
    RIDGE_DESIGN_SHARE,
    RIDGE_FLOOR_MAGNITUDE,
    RIDGE_RESERVE_PER_WIDTH,
    best_log2_spacing,
    lattice_width,
    log2_ratio_moments,
    log2_width_disagreement,
    magnitude_exponent,
    round_log2,
    round_to_grid,
    rounding_budget,
    shared_offsets,
)
from ..utils.validation import check_nonnegative_sample_weight

# Residuals are clipped at this many robust standard deviations in the
# variance that sets the lattice scale (measured at n = 4e4, d = 8: the log2
# of the scale moves between runs 1.3x / 1.4x / 2.3x less for Student-t(10) /
# t(5) features than without clipping, and 1.0x for Gaussian features).
_CLIP = 5.0
# The scaled basis switches to the standardized one when the features' log2
# standard deviations spread further from their mean than a shared uniform
# threshold between these (factors 2 to 8); the spread moves between runs by
# about _SPREAD_NOISE / sqrt(n) (1.6 / sqrt(n) for Gaussian features).
_SPREAD_LOW, _SPREAD_HIGH, _SPREAD_NOISE = 1.0, 3.0, 2.5
# Width, in log2 units, of the band of the shared threshold of the choice
# between the linear model and the constant: the linear model is kept when
# its predicted squared error is smaller by a factor 2^U, U uniform on
# [0, _CHOICE_BAND) (at most sqrt 2).
_CHOICE_BAND = 0.5
# E|Delta log2 sd(y)| * sqrt(n) between two runs, for the log2 grid of the
# width of the replicable constant: (2/sqrt(pi)) sqrt(kurtosis - 1) / (2 ln 2),
# 1.15 for Gaussian y, 0.86 for diabetes (kurtosis 2.1); 1.5 covers a
# kurtosis of 4.4. Measured on diabetes bootstrap halves (n = 221, 1000 pairs
# each): 1.15 / 1.5 / 2.0 give 0.964 / 0.978 / 0.977 identical at rho = 0.05
# and 5-fold R^2 (mean over 20 seeds) -3.4 / -3.3 / -17.8.
_CONSTANT_WIDTH_NOISE = 1.5
# Floor of relative thresholds (columns, widths of noise-free data).
_TINY = float(np.finfo(np.float64).tiny)
# Width, in units of the rounded feature scale, of the grid of the basis centre.
_CENTER_SPACING = 2.0
# The scaled basis rounds one global feature scale on a log2 grid of spacing 2
# (within a factor 2 of the geometric mean of the features' standard
# deviations). Its log2 moves between runs by E|Delta| ~ 1.6 / sqrt(n d) for
# Gaussian features (2.3 / sqrt(n d) for Student-t(5)); over the spacing 2 the
# reserve 1.5 / sqrt(n d) covers both.
_GLOBAL_SCALE_SPACING = 2.0
_GLOBAL_SCALE_RESERVE = 1.5
# Share of rho reserved per feature for the standardized basis, over sqrt(n):
# the delta-method cost of the scales (~1.23 / sqrt(n) per feature for Gaussian
# features) and of the centre (~0.56 / sqrt(n)), rounded up.
_BASIS_RESERVE_PER_FEATURE = 2.0


def _clipped_squares(values, sample_weight):
    """Squares of ``values`` clipped at ``_CLIP`` robust standard deviations.

    The robust standard deviation is the (weighted) median of ``|values|``
    over 0.6745, the normal quantile that makes it the standard deviation for
    Gaussian values.
    """
    magnitude = np.abs(values)
    # The lower median in both branches, so that integer weights give what
    # repeated rows give.
    if np.all(sample_weight == 1.0):
        k = (len(magnitude) + 1) // 2 - 1
        median = np.partition(magnitude, k)[k]
    else:
        order = np.argsort(magnitude)
        cumulative = np.cumsum(sample_weight[order])
        half = np.searchsorted(cumulative, 0.5 * cumulative[-1])
        median = magnitude[order[min(half, len(order) - 1)]]
    limit = _CLIP * median / 0.6745
    if limit <= 0:
        return values**2
    return np.minimum(magnitude, limit) ** 2


def _samples_needed(n_samples, rounding_loss, gain, budget_at, share=0.1):
    """Least n at which the rounding loss falls to ``share`` of ``gain``.

    The rounding loss scales like the squared lattice scale, ``se^2 / B^2``,
    so like ``1 / (n B(n)^2)`` with ``B(n)`` the rounding budget at ``n``.
    Returns ``inf`` when the linear model gains nothing over the constant.
    """
    if gain <= 0 or not np.isfinite(rounding_loss):
        return np.inf
    target = share * gain
    if rounding_loss <= target:
        return float(n_samples)
    budget_0 = budget_at(n_samples)

    def loss(n):
        return rounding_loss * (n_samples / n) * (budget_0 / budget_at(n)) ** 2

    low, high = float(n_samples), 2.0 * n_samples
    while loss(high) > target:
        low, high = high, 2.0 * high
        if high > 1e18:
            return np.inf
    for _ in range(40):
        middle = np.sqrt(low * high)
        low, high = (middle, high) if loss(middle) > target else (low, middle)
    return float(np.ceil(high))


def _weighted_abs_deviation(X, sw, offset, chunk=8192):
    """``sw @ |X - offset|`` by blocks of rows (no n x d temporary)."""
    total = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], chunk):
        rows = slice(start, start + chunk)
        total += sw[rows] @ np.abs(X[rows] - offset)
    return total


def _centred_ridge(X, y, sw, alpha, fit_intercept):
    """Weighted ridge on centred data (when fitting an intercept).

    Returns a dict with the weighted column ``mean``, the centre used
    ``x_mean`` (zero without intercept), the centred data ``Xc`` (a private
    copy when centred, ``X`` itself otherwise), the features' weighted central
    ``variance``, the regularised Gram matrix ``hessian`` and its inverse
    ``h_inv``, the ``coef`` and ``intercept``, and the ``residual``.
    """
    n_samples, n_features = sw.sum(), X.shape[1]
    mean = sw @ X / n_samples
    x_mean = mean if fit_intercept else np.zeros(n_features)
    y_mean = sw @ y / n_samples if fit_intercept else 0.0
    Xc = X - x_mean if fit_intercept else X
    Xw = Xc if np.all(sw == 1.0) else Xc * np.sqrt(sw)[:, None]
    hessian = Xw.T @ Xw
    # Weighted central variances of the features (from the Gram diagonal).
    variance = np.diag(hessian) / n_samples
    if not fit_intercept:
        variance = np.maximum(variance - mean**2, 0.0)
    hessian[np.diag_indices(n_features)] += alpha
    # numpy's LAPACK wrappers: scipy.linalg's validation dominates at small d.
    h_inv = np.linalg.inv(hessian)
    coef = np.linalg.solve(hessian, Xc.T @ (sw * (y - y_mean)))
    return {
        "mean": mean,
        "x_mean": x_mean,
        "Xc": Xc,
        "variance": variance,
        "hessian": hessian,
        "h_inv": h_inv,
        "coef": coef,
        "intercept": y_mean - x_mean @ coef,
        "residual": y - y_mean - Xc @ coef,
    }


def _sandwich_variances(Xc, residual_sq, sw, h_inv, scale, offset_0, *, hc1, overwrite):
    """Sandwich (HC1) variances of the scaled slopes and of the intercept.

    Sample i moves w by H^{-1} xc_i r_i and beta_0 = b + c^T w by
    r_i (1/n + v^T xc_i), v = H^{-1} (c - x_mean) (``offset_0 = c - x_mean``,
    None without intercept). With the meat M = sum_i w_i r_i^2 xc_i xc_i^T,
    m = sum_i w_i r_i^2 xc_i and s = sum_i w_i r_i^2, from one pass over the
    rows scaled in place (``Xc`` is overwritten when ``overwrite``):
    Var w = H^{-1} M H^{-1} and Var beta_0 = s / n^2 + 2 m.v / n + v^T M v.
    """
    n_samples = sw.sum()
    root = np.sqrt(sw * residual_sq)
    Xr = np.multiply(Xc, root[:, None], out=Xc if overwrite else None)
    meat = Xr.T @ Xr
    h_inv_meat = h_inv @ meat
    var_u = hc1 * scale**2 * np.einsum("ij,ji->i", h_inv_meat, h_inv)
    if offset_0 is None:
        return var_u, 0.0
    v = h_inv @ offset_0
    meat_1 = Xr.T @ root
    var_0 = hc1 * (
        (root @ root) / n_samples**2 + 2.0 * (meat_1 @ v) / n_samples + v @ meat @ v
    )
    return var_u, var_0


def _homoscedastic_standard_errors(
    hessian, alpha, h_inv, residual, sw, scale, offset_0, *, dof
):
    """Standard errors of the grid-width rule, and the clipped squared residuals.

    The width follows homoscedastic standard errors: one residual variance
    times the design's leverages, far more stable between runs than the
    sandwich (whose fourth moments of x r fluctuate). The residual variance is
    that of the residuals clipped at ``_CLIP`` robust standard deviations:
    with heavy tails (Student-t(5) features) the plain mean of r^2 moves
    between runs ~2.5x more, and its log2 rounding then differs between runs
    more often than the clipping's bias costs (Gaussian data: no change).
    ``offset_0`` is ``c - x_mean``, or None without intercept.
    """
    n_samples, n_features = sw.sum(), len(hessian)
    gram = hessian - alpha * np.eye(n_features)
    sandwich_x = h_inv @ gram @ h_inv
    # (Clipped: rounding makes a zero diagonal slightly negative.)
    leverage = np.maximum(np.diag(sandwich_x), 0.0)
    clipped_sq = _clipped_squares(residual, sw)
    width_var = (sw @ clipped_sq) / dof
    homo_se = np.sqrt(width_var * leverage) * scale
    if offset_0 is not None:
        lever_c = 1.0 / n_samples + max(offset_0 @ sandwich_x @ offset_0, 0.0)
        homo_se = np.append(homo_se, np.sqrt(width_var * lever_c))
    return homo_se, clipped_sq


def _choose_linear(constant_loss, linear_loss, offset, *, spread):
    """Whether both runs keep the linear model, and the cost of that choice.

    The log2 ratio of the predicted losses is compared with a shared uniform
    threshold in ``[0, _CHOICE_BAND)`` (the linear model must be predicted
    better by a factor ``2^U``); ``spread`` is how far the statistic moves
    between runs. Returns ``(use_linear, choice_cost)``.
    """
    statistic = np.log2(constant_loss / linear_loss)
    threshold = _CHOICE_BAND * offset
    choice_cost = 0.0
    if abs(statistic - threshold) < 4.0 * spread + 1e-12:
        choice_cost = min(1.0, spread / _CHOICE_BAND)
    return statistic > threshold, choice_cost


class ReplicableLinearRegressor(RegressorMixin, BaseEstimator):
    """Ridge regression whose output is replicable across independent samples.

    Implements R-Ridge-Regression of "Replicable Reinforcement Learning with
    Linear Function Approximation" (Eaton, Hussing, Kearns, Roth, Sengupta and
    Sorrell; ICLR 2026; arXiv:2509.08660). An algorithm with internal randomness
    ``r`` is ``rho``-replicable when two runs on independent samples of the same
    size from the same distribution, sharing ``r``, return *bit-for-bit
    identical* output with probability at least ``1 - rho``. Ridge has a unique
    population minimiser, so two runs land close to each other; rounding the
    solution to a grid with a random offset drawn from ``r`` then makes them
    identical unless a cell boundary falls between them, which happens with
    probability at most ``sum_j |Delta_j| / width`` (``Delta`` the difference of
    the unrounded solutions). The shared randomness is ``random_state``:
    replicability requires the same integer ``random_state`` in both runs.

    Parameters
    ----------
    alpha : float, default=1.0
        Ridge penalty on the coefficients, as in
        :class:`sklearn.linear_model.Ridge` (sum of squared residuals plus
        ``alpha * ||w||^2``). Must be positive: the unique minimiser is what makes
        two runs concentrate at the same point.
    grid_width : "auto" or float, default="auto"
        Scale ``t`` of the rounding lattice of the coefficients in the rounding
        basis and of the intercept (the cell width for ``rounding="cube"``).
        ``"auto"`` derives it from ``rho`` and the standard errors of the ridge
        solution (see Notes); a float uses that scale and leaves ``rho`` unused.
    rho : float, default=0.05
        Bound, in (0, 1), on the probability that two runs on independent
        samples with the same ``random_state`` disagree. ``grid_width="auto"``
        designs for an expected disagreement of ``0.75 rho``.
    basis : {"scaled", "raw", "standardized"}, default="scaled"
        Rounding basis. ``"scaled"`` rounds the slopes times one replicably
        rounded global feature scale, and the intercept (units-equivariant).
        ``"raw"`` rounds the coefficients and the intercept as
        they are. ``"standardized"`` rounds ``s_j w_j`` and the prediction at a
        centre ``c``, with the feature scales (mean absolute deviation, times
        ``sqrt(pi / 2)``) rounded on a ``log2`` grid of spacing 1 and the centre
        (the mean) rounded on a grid of two scale units, all with shared
        offsets.
    rounding : {"lattice", "cube"}, default="lattice"
        Quantizer of the rounded vector: ``"lattice"`` rounds it jointly to
        randomly shifted ``E8`` blocks and one ``Z`` or ``A_r*`` block (at
        equal expected disagreement, 0.43-0.51 of the squared error of
        ``"cube"`` from ``m = 8`` rounded entries on, 0.58-0.83 for
        ``m`` = 2..7, the same for ``m = 1``); ``"cube"`` rounds every entry
        to the midpoint of its cell, as in the paper.
    fit_intercept : bool, default=True
        Whether to fit an (unpenalised, rounded) intercept.
    random_state : int, RandomState instance or None, default=None
        The shared randomness: it draws every grid offset and the lattice
        shift. Two runs are
        replicable only with the same integer; ``None`` draws new grids per fit.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Rounded coefficients: identical across runs with probability about
        ``1 - rho``.
    intercept_ : float
        Rounded intercept (``0.0`` when ``fit_intercept=False``).
    coef_unrounded_ : ndarray of shape (n_features,)
        The ridge solution before rounding (equal to ``Ridge(alpha).coef_``).
    intercept_unrounded_ : float
        The ridge intercept before rounding.
    coef_stderr_ : ndarray of shape (n_features,)
        Sandwich (heteroscedasticity-robust) standard errors of
        ``coef_unrounded_``.
    basis_ : str
        The basis used: ``basis``, or ``"standardized"`` where ``"scaled"``
        switched to it for features in mixed units.
    basis_scale_ : ndarray of shape (n_features,)
        Rounded feature scales ``s`` of the rounding basis (ones for ``"raw"``,
        one repeated global scale for ``"scaled"``).
    basis_center_ : ndarray of shape (n_features,)
        Rounded centre ``c`` at which the intercept is rounded (zeros for
        ``"raw"`` or without intercept).
    grid_width_ : float
        Scale ``t`` of the lattice of ``s_j * coef_j`` (the cell width for
        ``rounding="cube"``); with the constant fallback, the width of the
        grid of the rounded mean.
    intercept_grid_width_ : float
        Scale of the lattice of the prediction at ``basis_center_``: equal to
        ``grid_width_`` (``0.0`` without intercept and without fallback).
    constant_fallback_ : bool
        Whether the fit fell back to the replicable constant model (``coef_``
        zero, ``intercept_`` the rounded mean of ``y``; without an intercept,
        the zero model), because the rounded linear model was predicted to be
        worse. Always False with a fixed ``grid_width``.
    disagreement_bound_ : float
        Predicted probability that a second run with the same ``random_state``
        on an independent sample differs: the basis, width and coefficient terms
        of the failure budget of the model returned, plus the chance that the
        two runs choose different models, estimated from this sample (the
        global scale of ``"scaled"`` counts its reserve).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.linear_model.Ridge : The unrounded estimator.
    sklearn_iclr.ReplicableCovariance : Replicable second-moment matrix.
    sklearn_iclr.metrics.replicability_rate : Measures replicability.

    Notes
    -----
    The fit is (1) the ridge solution ``w = (Xc^T Xc + alpha I)^{-1} Xc^T yc``
    of :class:`sklearn.linear_model.Ridge`; (2) a *replicable rounding basis*
    ``u_j = s_j w_j`` and ``beta_0 = b + c^T w`` (the prediction at a centre
    ``c``), whose scales ``s`` and centre ``c`` are themselves rounded on
    shared grids, so both runs use the same basis; (3) one lattice scale ``t``
    chosen from ``rho`` and the standard errors, rounded in ``log2`` scale on a
    shared grid; (4) closest-point rounding of the vector ``v = (u, beta_0)``
    (``m = d + 1`` entries) to a randomly shifted lattice,
    ``v -> t (Q(v / t - z) + z)``, with the shift ``z`` uniform modulo the
    lattice and drawn from ``random_state``; then back to ``coef_`` and
    ``intercept_``. The output depends on the data only through the lattice
    point, so two runs in one cell give identical bits.

    Rounding (``rounding``). ``"cube"`` is the paper's per-coordinate rounding
    (the lattice ``Z^m``): a cell boundary falls between the two runs with
    probability at most ``sum_j |Delta_j| / t``. ``"lattice"`` (default)
    rounds to the product of ``E8`` lattices and one ``Z`` or ``A_r*`` factor
    (:mod:`sklearn_iclr.utils._lattice`). For any lattice the chance that two
    points round apart is at most the expected number of Voronoi facets
    between them, ``sum_f A_f |<Delta, n_f>| / (2 V)`` (the cube's
    ``sum_j |Delta_j| / t``). For ``Delta`` with standard deviation ``se`` per
    coordinate it is ``kappa E|Delta_1| / V^(1/m)``, with ``kappa`` half the
    surface of the unit-volume cell, and the rounding adds a mean squared error
    of ``m G V^(2/m)``, ``G`` the normalized second moment. At a fixed
    disagreement the error is therefore proportional to ``m G kappa^2``: ``E8``
    (``G = 0.0717``, ``kappa = 4 sqrt 2``) has 0.43 of the cube's, and
    ``E8 x Z`` (``d = 8`` with an intercept) 0.48.

    Failure budget (``grid_width="auto"``). Two runs differ when their basis,
    their scale or their lattice cell differ. Each is a randomly shifted
    rounding whose cost is its expected crossing rate (``E|Delta| / spacing``
    for a scalar; ``E|Delta| = 2 se / sqrt(pi)`` for two independent runs with
    standard error ``se``). The rule designs for an expected disagreement of
    ``0.75 rho``; the rest is the margin for the approximations below and lets
    a replicability experiment with a few thousand pairs confirm ``1 - rho``.
    A reserve that depends only on ``n`` and ``d`` pays for the scale,
    ``2 / sqrt(n)``, and for the standardized basis, ``2 d / sqrt(n)``; the
    rounding gets the rest ``B`` (at least a quarter of the design, with a
    warning that ``n`` is too small for ``rho`` when the reserve is larger):
    ``t`` makes the expected crossing rate, with ``Delta ~ N(0, 2 diag(se^2))``,
    equal to ``B`` on average over the ``log2`` offset. The ``se`` of the rule
    are homoscedastic (the residual variance times the leverages of the
    design): they fluctuate between runs like ``sqrt(mean r^2)``
    (``E|Delta log2|`` about ``1.6 / sqrt(n)`` on heavy-tailed data), several
    times less than the sandwich standard errors, whose fluctuation would make
    the scale itself differ between runs. Under heteroscedastic noise they are
    smaller than the sandwich ones, and the disagreement can exceed the
    design (``benchmarks/README.md`` gives the figures).
    ``disagreement_bound_`` re-estimates every term from the sample, the
    rounding term with the sandwich standard errors, so it also sees what the
    homoscedastic rule misses. The scale needs finite fourth moments of the
    residual to be stable (with heavier tails pass a fixed ``grid_width``).

    The expected excess risk of the rounding, ``m G t^2`` in the rounding
    basis, is at a fixed expected disagreement ``P`` proportional to
    ``m G kappa^2 se^2 / P^2``: ``m^3 se^2 / P^2`` up to a constant for the
    cube and the lattice alike (the lattice's constant is about half), so
    ``rho``-replicable fits as accurate as ridge need ``n`` well above
    ``d^3 / rho^2``.

    Rounding basis (``basis``). One lattice scale serves every rounded entry,
    so the entries must share units. ``"scaled"`` (default) rounds the slopes
    times one global feature scale ``S`` (the geometric mean of the features'
    standard deviations, rounded on a shared ``log2`` grid of spacing 2) and
    the intercept: both in the units of ``y``, so multiplying ``X`` by a
    constant moves ``S`` and leaves the rounded predictions alone (up to the
    ``log2`` grid). It costs a reserve of ``1.5 / sqrt(n d)``. When the
    features' log2 standard deviations spread further from their mean than
    a shared uniform threshold between 1 and 3 (factors 2 to 8: mixed
    units), it switches to ``"standardized"`` (``basis_``). ``"raw"``
    rounds the coefficients and the intercept as they are (for features in
    the units of ``y``). ``"standardized"`` rounds ``s_j w_j`` with one scale
    per feature and the prediction at a rounded centre: it protects features
    in mixed units, at a reserve of ``2 d / sqrt(n)`` (each scale and centre
    costs about ``1 / sqrt(n)``), so it needs much larger ``n``.
    A data-dependent transformer in front of this estimator (for example a
    ``StandardScaler`` in a ``Pipeline``) is not rounded and breaks replicability;
    put only data-independent transformations in front of it.

    Never worse than a constant (``grid_width="auto"``). The rounding adds an
    expected squared error ``sum_j G_j t_j^2 E[x_j^2] / s_j^2 + G_0 t_0^2`` to
    the residual variance (the lattice's error is uniform on the cell, with
    uncorrelated coordinates); the replicable constant (the mean of ``y``
    rounded on its own shared grid, scale from the same rule with one entry)
    adds ``t^2 / 12`` to ``Var(y)``. Both runs must pick the same model, so the
    linear model is kept when its predicted loss is smaller by a factor
    ``2^U``, ``U`` uniform on ``[0, 1/2)`` from the shared randomness;
    otherwise the fit falls back to the constant (``constant_fallback_``), with
    a warning that gives both losses, the constant's expected ``R^2`` and the
    ``n`` at which the linear model's rounding error would fall to a tenth of
    what it explains (the error scales like ``1 / (n B(n)^2)``). Small samples
    with a small ``rho`` are out of reach for any replicable fit: even the
    constant's grid must be coarse there, and its expected ``R^2`` is then well
    below zero (the warning says how far).

    Magnitudes: data whose root mean square lies outside ``2^-64 .. 2^64`` are
    divided internally by an exact power of two (chosen on a shared grid of
    spacing 16 in ``log2``), the same ridge problem in other units, so
    squares and fourth moments stay finite.

    References
    ----------
    .. [1] E. Eaton, M. Hussing, M. Kearns, A. Roth, S. B. Sengupta and
       J. Sorrell, "Replicable Reinforcement Learning with Linear Function
       Approximation", ICLR 2026, arXiv:2509.08660.
    .. [2] R. Impagliazzo, R. Lei, T. Pitassi and J. Sorrell, "Reproducibility
       in Learning", STOC 2022, arXiv:2201.08430.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr import ReplicableLinearRegressor
    >>> def sample(seed, n=20000):
    ...     rng = np.random.default_rng(seed)
    ...     X = rng.normal(size=(n, 3))
    ...     return X, X @ [1.0, -2.0, 0.5] + rng.normal(size=n)
    >>> est = ReplicableLinearRegressor(rho=0.1, random_state=0)
    >>> coef_a = est.fit(*sample(1)).coef_
    >>> coef_b = est.fit(*sample(2)).coef_
    >>> bool(np.array_equal(coef_a, coef_b))
    True
    >>> np.round(coef_a, 1), est.grid_width_
    (array([ 0.8, -1.9,  0.4]), 0.4788305848986082)
    >>> bool(np.all(np.abs(coef_a - [1.0, -2.0, 0.5]) < est.grid_width_))
    True
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "grid_width": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "rho": [Interval(Real, 0, 1, closed="neither")],
        "basis": [StrOptions({"scaled", "standardized", "raw"})],
        "rounding": [StrOptions({"lattice", "cube"})],
        "fit_intercept": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        grid_width="auto",
        rho=0.05,
        basis="scaled",
        rounding="lattice",
        fit_intercept=True,
        random_state=None,
    ):
        self.alpha = alpha
        self.grid_width = grid_width
        self.rho = rho
        self.basis = basis
        self.rounding = rounding
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit ridge regression and round it on the shared grids.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (finite).
        y : array-like of shape (n_samples,)
            Target values (finite).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights: weight 2 counts a row twice.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
        sw = check_nonnegative_sample_weight(sample_weight, X)
        n_samples = sw.sum()
        n_features = X.shape[1]
        offsets = shared_offsets(
            self.random_state,
            {
                "scale": n_features,
                "center": n_features,
                "coef_width": 1,
                "coef": n_features + self.fit_intercept,
                "global_scale": 1,
                "constant_width": 1,
                "constant": 1,
                "choice": 1,
                "magnitude": 2,
                "spread": 1,
            },
        )
        # Magnitudes far from 1 are brought near 1 by exact powers of two (the
        # ridge problem in the new units is the same problem), so that squares
        # and fourth moments neither overflow nor underflow.
        x_exp = magnitude_exponent(X, offsets["magnitude"][0])
        y_exp = magnitude_exponent(y, offsets["magnitude"][1])
        if x_exp:
            X = np.ldexp(X, -x_exp)
        if y_exp:
            y = np.ldexp(y, -y_exp)
        alpha = float(min(np.ldexp(self.alpha, -2 * x_exp), 1e300))

        ridge = _centred_ridge(X, y, sw, alpha, self.fit_intercept)
        Xc = ridge.pop("Xc")
        mean, variance = ridge["mean"], ridge["variance"]
        coef, intercept, residual = ridge["coef"], ridge["intercept"], ridge["residual"]
        scale, center, basis_cost = self._rounding_basis(
            Xc if self.fit_intercept else X, sw, mean, variance, offsets
        )
        offset_0 = center - ridge["x_mean"] if self.fit_intercept else None
        dof = max(n_samples - n_features - self.fit_intercept, 1.0)
        residual_sq = residual**2
        # (Xc is a private copy when centred, overwritten here; X itself must
        # stay untouched.)
        var_u, var_0 = _sandwich_variances(
            Xc,
            residual_sq,
            sw,
            ridge["h_inv"],
            scale,
            offset_0,
            hc1=n_samples / dof,
            overwrite=self.fit_intercept,
        )
        del Xc

        u_hat = scale * coef
        beta0_hat = intercept + center @ coef
        entries = np.append(u_hat, beta0_hat) if self.fit_intercept else u_hat
        lattice = shifted_lattice(entries.size, self.rounding)
        auto = self.grid_width == "auto"
        residual_var = (sw @ residual_sq) / dof
        if auto:
            homo_se, clipped_sq = _homoscedastic_standard_errors(
                ridge["hessian"],
                alpha,
                ridge["h_inv"],
                residual,
                sw,
                scale,
                offset_0,
                dof=dof,
            )
            width, width_cost, ideal_width = self._auto_width(
                sw, lattice, homo_se, clipped_sq, np.abs(entries).max(), offsets
            )
        else:
            width = ideal_width = float(self.grid_width)
            width_cost = 0.0
        # The crossing rate in expectation, with the sandwich standard errors.
        se_all = np.sqrt(np.append(var_u, var_0) if self.fit_intercept else var_u)
        rounding_cost = lattice.expected_crossing_rate(se_all, width)
        linear_cost = basis_cost + width_cost + rounding_cost

        self.coef_unrounded_ = np.ldexp(coef, y_exp - x_exp)
        self.intercept_unrounded_ = float(np.ldexp(intercept, y_exp))
        self.coef_stderr_ = np.ldexp(np.sqrt(var_u) / scale, y_exp - x_exp)
        self.basis_scale_ = np.ldexp(scale, x_exp)
        self.basis_center_ = np.ldexp(center, x_exp)

        # Never worse than a replicable constant: the expected squared error of
        # the rounded linear model (residual plus rounding, whose per-entry
        # error variances are uncorrelated) against the rounded mean's.
        moment = variance + (mean - center) ** 2
        error_var = lattice.coordinate_variance(width)
        linear_loss = residual_var + float(
            error_var[:n_features] @ (moment / scale**2)
            + (error_var[-1] if self.fit_intercept else 0.0)
        )
        constant = self._constant_model(sw, y, offsets)
        use_linear, choice_cost = True, 0.0
        if auto:
            use_linear, choice_cost = _choose_linear(
                constant["loss"],
                linear_loss,
                offsets["choice"][0],
                spread=2.0
                * (
                    log2_width_disagreement(sw, residual_sq)
                    + log2_width_disagreement(sw, constant["terms"])
                ),
            )
        self.constant_fallback_ = not use_linear
        if use_linear and auto:
            self._design_budget(n_samples, warn=True)
        if use_linear:
            rounded = lattice.round(entries, width, offsets["coef"])
            coef_out = rounded[:n_features] / scale
            if self.fit_intercept:
                # An exactly rounded sum (no BLAS): the same bits everywhere.
                intercept_out = float(rounded[-1] - math.fsum(center * coef_out))
            else:
                intercept_out = 0.0
            self.grid_width_ = float(np.ldexp(width, y_exp))
            self.intercept_grid_width_ = self.grid_width_ if self.fit_intercept else 0.0
            cost = linear_cost
        else:
            coef_out = np.zeros(n_features)
            intercept_out = constant["value"]
            self.grid_width_ = float(np.ldexp(constant["width"], y_exp))
            self.intercept_grid_width_ = self.grid_width_
            cost = constant["cost"]
            self._warn_fallback(
                n_samples,
                residual_var,
                linear_loss,
                constant,
                (ideal_width / width) ** 2,
            )
        self.coef_ = np.ldexp(coef_out, y_exp - x_exp)
        self.intercept_ = float(np.ldexp(intercept_out, y_exp))
        self.disagreement_bound_ = float(min(1.0, cost + choice_cost))
        return self

    def _constant_model(self, sw, y, offsets):
        """The replicable constant: the mean of ``y`` rounded on its own grid.

        Without an intercept the constant is zero (nothing to round).
        """
        n_samples = sw.sum()
        if not self.fit_intercept:
            loss = float(sw @ y**2 / n_samples)
            return {
                "value": 0.0,
                "width": 0.0,
                "loss": loss,
                "mean_loss": loss,
                "var_y": loss,
                "cost": 0.0,
                "terms": np.zeros_like(y),
            }
        mean = sw @ y / n_samples
        terms = (y - mean) ** 2
        var_y = float(sw @ terms / max(n_samples - 1.0, 1.0))
        lattice = shifted_lattice(1, self.rounding)
        se = np.array([np.sqrt(var_y / n_samples)])
        if self.grid_width == "auto":
            # The width follows sd(y) and is rounded in log2; at small n the
            # chance that the two runs' widths round apart, about
            # _CONSTANT_WIDTH_NOISE / (h sqrt(n)) on a grid of spacing h, would
            # take the whole budget at h = 1 (diabetes, n = 353, rho = 0.05:
            # about 0.08 against 0.0375). The spacing is chosen from n and rho alone
            # (both runs agree on it) to minimise the expected squared error
            # of the rounded mean at the design disagreement.
            spacing, budget = best_log2_spacing(
                RIDGE_DESIGN_SHARE * self.rho,
                _CONSTANT_WIDTH_NOISE / np.sqrt(n_samples),
            )
            width, ideal = lattice_width(
                lattice.expected_crossing_rate(se, 1.0),
                budget,
                offsets["constant_width"][0],
                abs(mean),
                RIDGE_FLOOR_MAGNITUDE,
                spacing=spacing,
            )
            width_cost = log2_width_disagreement(sw, terms, spacing=spacing)
            # The squared width over the shared offset of its log2 grid.
            mean_square_width = log2_ratio_moments(spacing)[1] * ideal**2
        else:
            ideal = width = float(self.grid_width)
            width_cost = 0.0
            mean_square_width = width**2
        value = float(lattice.round(np.array([mean]), width, offsets["constant"])[0])
        cost = width_cost + lattice.expected_crossing_rate(se, width)
        return {
            "value": value,
            "width": width,
            "ideal_width": ideal,
            "loss": var_y + width**2 / 12.0,
            "mean_loss": var_y + mean_square_width / 12.0,
            "var_y": var_y,
            "cost": float(cost),
            "terms": terms,
        }

    def _warn_fallback(self, n_samples, residual_var, linear_loss, constant, ratio):
        """Say that the constant model was fitted, what it costs, what n would do.

        ``ratio`` is ``(ideal width / rounded width)^2``: the rounding loss at
        the width asked for, before its log2 rounding.
        """
        var_y = constant["var_y"]
        if var_y <= 0:
            return
        needed = _samples_needed(
            n_samples,
            max(linear_loss - residual_var, 0.0) * ratio,
            var_y - residual_var,
            self._design_budget,
        )
        need = (
            f"About n >= {needed:.2g} samples would keep the linear model's "
            "rounding error under a tenth of what it explains at this rho; "
            if np.isfinite(needed)
            else "The linear model explains too little of y here for more "
            "samples to help; "
        )
        warn_user(
            f"{type(self).__name__}(rho={self.rho}) at n={n_samples:g}: the "
            "rounded linear model is expected to predict worse than the rounded "
            f"mean of y (expected squared error {linear_loss / var_y:.3g} against "
            f"{constant['loss'] / var_y:.3g} times Var(y)), so the fit falls back "
            "to the replicable constant model: coef_ is zero and intercept_ is "
            "the mean of y rounded on a shared grid of width "
            f"{constant['width']:.3g}, an expected R^2 of about "
            f"{1.0 - constant['loss'] / var_y:.2g} (about "
            f"{1.0 - constant['mean_loss'] / var_y:.2g} on average over the "
            f"shared randomness). {need}otherwise raise rho."
        )

    def _reserve(self, n_samples):
        """Probability set aside for the data-driven scale and basis (n, d only)."""
        reserve = RIDGE_RESERVE_PER_WIDTH / np.sqrt(n_samples)
        if self.basis_ == "standardized":
            reserve += (
                _BASIS_RESERVE_PER_FEATURE * self.n_features_in_ / np.sqrt(n_samples)
            )
        elif self.basis_ == "scaled":
            reserve += _GLOBAL_SCALE_RESERVE / np.sqrt(n_samples * self.n_features_in_)
        return reserve

    def _design_budget(self, n_samples, warn=False):
        """The rounding budget ``B`` at ``n_samples`` (see ``rounding_budget``)."""
        return rounding_budget(
            self.rho,
            self._reserve(n_samples),
            design_share=RIDGE_DESIGN_SHARE,
            warn=warn,
        )

    def _rounding_basis(self, X, sw, mean, variance, offsets):
        """Replicable scales and centre, and their estimated disagreement cost.

        ``X`` is the data or, when centred already, ``X - mean``; ``mean`` and
        ``variance`` are the weighted column means and variances.
        """
        n_samples, n_features = sw.sum(), X.shape[1]
        self.basis_ = self.basis
        if self.basis == "raw":
            return np.ones(n_features), np.zeros(n_features), 0.0
        switch_cost = 0.0
        if self.basis == "scaled":
            std = np.sqrt(variance)
            varying = std > np.maximum(1e-8 * np.abs(mean), _TINY)
            if not np.any(varying):
                return np.ones(n_features), np.zeros(n_features), 0.0
            log_std = np.log2(std[varying])
            # Features in mixed units: when the log2 scales spread further
            # from their mean than a shared uniform threshold in
            # [_SPREAD_LOW, _SPREAD_HIGH], switch to the standardized basis.
            # Both runs switch alike unless their spreads straddle the
            # threshold (their log2 scales move by ~1.6 / sqrt(n)).
            spread = np.max(np.abs(log_std - log_std.mean()))
            threshold = (
                _SPREAD_LOW + (_SPREAD_HIGH - _SPREAD_LOW) * offsets["spread"][0]
            )
            noise = _SPREAD_NOISE / np.sqrt(n_samples)
            if abs(spread - threshold) < 4.0 * noise:
                switch_cost = min(1.0, noise / (_SPREAD_HIGH - _SPREAD_LOW))
            if spread > threshold:
                self.basis_ = "standardized"
        if self.basis_ == "scaled":
            # One scale for every slope: the geometric mean of the features'
            # standard deviations, rounded in log2 with a shared offset. Slopes
            # times it have the units of y, like the intercept, so rescaling X
            # moves the scale and leaves the rounded predictions alone (up to
            # the log2 grid). Its cost is the reserve (it averages d scales).
            std = np.sqrt(variance)
            varying = std > np.maximum(1e-8 * np.abs(mean), _TINY)
            if not np.any(varying):
                return np.ones(n_features), np.zeros(n_features), 0.0
            scale = round_log2(
                2.0 ** log_std.mean(), _GLOBAL_SCALE_SPACING, offsets["global_scale"][0]
            )
            cost = _GLOBAL_SCALE_RESERVE / np.sqrt(n_samples * n_features)
            cost += switch_cost
            return np.full(n_features, float(scale)), np.zeros(n_features), cost
        # X is centred already when fitting an intercept.
        offset = np.zeros(n_features) if self.fit_intercept else mean
        mad = _weighted_abs_deviation(X, sw, offset) / n_samples
        second = variance
        # Columns constant up to rounding noise keep scale 1 (no rescaling).
        varying = mad > np.maximum(1e-8 * np.abs(mean), _TINY)
        scale = np.ones(n_features)
        scale[varying] = round_log2(
            mad[varying] * np.sqrt(np.pi / 2), LOG2_SPACING, offsets["scale"][varying]
        )
        # Delta method: Var(log mad) ~ (E dev^2 / (E|dev|)^2 - 1) / n.
        log_mad_se = np.sqrt(
            np.clip(second[varying] / mad[varying] ** 2 - 1.0, 0.0, None) / n_samples
        )
        cost = np.minimum(
            1.0, EXPECTED_ABS_DIFF_PER_SE * log_mad_se / np.log(2) / LOG2_SPACING
        ).sum()
        cost += switch_cost
        if not self.fit_intercept:
            return scale, np.zeros(n_features), float(cost)
        center_width = _CENTER_SPACING * scale
        center = round_to_grid(mean, center_width, offsets["center"])
        mean_se = np.sqrt(second / n_samples)
        cost += np.minimum(1.0, EXPECTED_ABS_DIFF_PER_SE * mean_se / center_width).sum()
        return scale, center, float(cost)

    def _auto_width(
        self, sw, lattice, standard_errors, residual_sq, magnitude, offsets
    ):
        """One lattice scale from rho and the standard errors, rounded in log2.

        The expected crossing rate is ``K / t`` for scale ``t``; the log2
        rounding multiplies ``t`` by ``r = 2^(U - 1/2)`` (``U`` uniform from the
        shared offset), so the scale asked for is ``E[1/r] K / B``, which
        makes the rate equal the rounding budget ``B`` on average over ``U``.
        Returns the rounded scale, the chance that the two runs' rounded
        scales differ and the scale asked for.
        """
        # (The warning that rho is out of reach comes after the choice of
        # model: the constant fallback has its own budget.)
        budget = self._design_budget(sw.sum())
        width, ideal = lattice_width(
            lattice.expected_crossing_rate(standard_errors, 1.0),
            budget,
            offsets["coef_width"][0],
            magnitude,
            RIDGE_FLOOR_MAGNITUDE,
        )
        # The width scales like the root of the residual sum of squares: its
        # relative standard error (the leverages are far more stable) gives the
        # chance that the two runs' log2 widths round apart.
        return width, log2_width_disagreement(sw, residual_sq), ideal

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # On the checks' small samples the grid spans many standard errors,
        # so the rounded fit is coarse by design.
        tags.regressor_tags.poor_score = True
        return tags

    def predict(self, X):
        """Predict with the rounded linear model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_
