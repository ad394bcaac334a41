"""Replicable ridge regression: ridge, then rounding on shared random grids."""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._replicable._lattice import shifted_lattice
from .._replicable._rounding import (
    EXPECTED_ABS_DIFF_PER_SE,
    LOG2_SPACING,
    anchor_bits,
    best_log2_spacing,
    lattice_width,
    log2_ratio_moments,
    log2_width_disagreement,
    magnitude_exponent,
    round_log2,
    round_nested,
    round_to_grid,
    rounding_budget,
    shared_offsets,
)
from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._dask import (
    align_rows,
    any_dask,
    map_rows,
    r2_from_sums,
    r2_sums,
    reduce_blocks,
    validate_dask_data,
)
from ..utils.validation import check_nonnegative_sample_weight
from ._replicable_ridge_advice import RidgeAtSampleSize

# The failure budget's calibration (user guide, "Replicable ridge regression in
# detail"): the design spends 0.75 of rho in expectation (the width rule uses
# homoscedastic standard errors, the bound the sandwich ones; with 0.75 the
# measured disagreement was 0.72-0.89 rho). The lattice scale's reserve is the
# sample's own estimate of its width event, except where sqrt(n) B <
# PLUGIN_MIN (B the lattice budget at the fixed reserve): there the estimate's
# own noise would move the scale, and the fixed RESERVE_PER_WIDTH / sqrt(n),
# the upper end measured on heavy tails, is kept.
DESIGN_SHARE = 0.75
RESERVE_PER_WIDTH = 2.0
PLUGIN_MIN = 10.0
# Smallest magnitude of the lattice scale for all-zero entries.
FLOOR_MAGNITUDE = float(np.finfo(np.float64).tiny)

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
# E|Delta log2 sd(y)| * sqrt(n) between two runs, the reserve for the width
# event of the replicable constant (spacing h: this over h sqrt(n)):
# (2/sqrt(pi)) sqrt(kurtosis - 1) / (2 ln 2), 1.15 for Gaussian y (0.86 for
# diabetes, kurtosis 2.1). It depends on n only, so that both runs pick the
# same spacing and budget: a plug-in estimate in the budget would move the
# width between runs (at n = 221, on diabetes bootstrap halves, the width
# events were 0.027 of 1000 pairs against about 0.017 that it charged). Was
# 1.5 (covers kurtosis 4.4), whose coarser grid cost 1.5 times the squared
# error on diabetes (n = 353, rho = 0.05, independent grids).
_CONSTANT_WIDTH_NOISE = 1.15
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


def _weighted_abs_deviation(X, sw, offset, chunk=8192):
    """``sw @ |X - offset|`` by blocks of rows (no n x d temporary)."""
    total = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], chunk):
        rows = slice(start, start + chunk)
        total += sw[rows] @ np.abs(X[rows] - offset)
    return total


def _centred_gram(X, y, sw, fit_intercept):
    """Weighted Gram matrix of the (centred, with an intercept) data.

    Returns a dict with the weighted column ``mean``, the centre used
    ``x_mean`` (zero without intercept), ``y_mean``, the centred data ``Xc``
    (a private copy when centred, ``X`` itself otherwise), the Gram matrix
    ``gram`` of the weighted rows and ``cross``, ``Xc^T (sw (y - y_mean))``.
    """
    n_samples, n_features = sw.sum(), X.shape[1]
    mean = sw @ X / n_samples
    x_mean = mean if fit_intercept else np.zeros(n_features)
    y_mean = sw @ y / n_samples if fit_intercept else 0.0
    Xc = X - x_mean if fit_intercept else X
    Xw = Xc if np.all(sw == 1.0) else Xc * np.sqrt(sw)[:, None]
    return {
        "mean": mean,
        "x_mean": x_mean,
        "y_mean": y_mean,
        "Xc": Xc,
        "gram": Xw.T @ Xw,
        "cross": Xc.T @ (sw * (y - y_mean)),
    }


def _ridge_solution(gram, n_samples, alpha, fit_intercept):
    """Weighted ridge from the Gram statistics of ``_centred_gram``.

    Adds to ``gram`` (in place) the features' weighted central ``variance``,
    the regularised Gram matrix ``hessian`` (a copy: ``gram["gram"]`` stays
    unpenalised, which the fallback advice needs where ``alpha`` dwarfs it)
    and its inverse ``h_inv``, the ``coef`` and the ``intercept``.
    """
    mean, x_mean, y_mean = gram["mean"], gram["x_mean"], gram["y_mean"]
    hessian = gram["gram"].copy()
    n_features = len(hessian)
    # Weighted central variances of the features (from the Gram diagonal).
    variance = np.diag(hessian) / n_samples
    if not fit_intercept:
        variance = np.maximum(variance - mean**2, 0.0)
    hessian[np.diag_indices(n_features)] += alpha
    # numpy's LAPACK wrappers: scipy.linalg's validation dominates at small d.
    h_inv = np.linalg.inv(hessian)
    coef = np.linalg.solve(hessian, gram["cross"])
    gram.update(
        variance=variance,
        hessian=hessian,
        h_inv=h_inv,
        coef=coef,
        intercept=y_mean - x_mean @ coef,
    )
    return gram


class _InMemoryRidgeData:
    """Every statistic of the rows that ``fit`` uses, from in-memory arrays.

    ``BlockwiseRidgeData`` (``_replicable_ridge_dask.py``) computes the same
    ones blockwise from Dask arrays; the fit from the statistics on is shared.
    """

    def __init__(self, X, y, sw):
        self.X, self.y, self.sw = X, y, sw
        self.n_samples, self.n_features = sw.sum(), X.shape[1]

    def magnitude_exponents(self, offsets):
        x_exp = magnitude_exponent(self.X, offsets[0])
        y_exp = magnitude_exponent(self.y, offsets[1])
        if x_exp:
            self.X = np.ldexp(self.X, -x_exp)
        if y_exp:
            self.y = np.ldexp(self.y, -y_exp)
        return x_exp, y_exp

    def centred_gram(self, fit_intercept):
        gram = _centred_gram(self.X, self.y, self.sw, fit_intercept)
        self.fit_intercept = fit_intercept
        self.Xc = gram.pop("Xc")
        return gram

    def set_solution(self, ridge):
        """Residuals at the ridge solution (the rows' second pass)."""
        self.residual = self.y - ridge["y_mean"] - self.Xc @ ridge["coef"]
        self.residual_sq = self.residual**2

    def abs_deviation(self, offset):
        """``sw @ |X - offset|`` (``Xc`` when centred)."""
        return _weighted_abs_deviation(
            self.Xc if self.fit_intercept else self.X, self.sw, offset
        )

    def residual_moments(self):
        """``(meat, meat_1, s)`` of ``_sandwich_variances`` (``Xc`` overwritten)."""
        # (Xc is a private copy when centred, overwritten here; X itself must
        # stay untouched.)
        moments = _residual_moments(
            self.Xc, self.residual_sq, self.sw, overwrite=self.fit_intercept
        )
        del self.Xc
        return moments

    def residual_sum_sq(self):
        return self.sw @ self.residual_sq

    def residual_width_cost(self):
        return log2_width_disagreement(self.sw, self.residual_sq)

    def clipped_residuals(self):
        """``sw @ clipped_sq`` and its log2 width cost (``_clipped_squares``)."""
        clipped_sq = _clipped_squares(self.residual, self.sw)
        return self.sw @ clipped_sq, log2_width_disagreement(self.sw, clipped_sq)

    def target(self, fit_intercept, width_cost):
        """Sums of the constant model: mean, ``sw @ terms`` and their cost."""
        sw, y = self.sw, self.y
        if not fit_intercept:
            return {"mean": 0.0, "sum_sq": sw @ y**2, "terms_cost": 0.0}
        mean = sw @ y / self.n_samples
        terms = (y - mean) ** 2
        cost = log2_width_disagreement(sw, terms) if width_cost else 0.0
        return {"mean": mean, "sum_sq": sw @ terms, "terms_cost": cost}


def _residual_moments(Xc, residual_sq, sw, *, overwrite):
    """``M = sum_i w_i r_i^2 xc_i xc_i^T``, ``m = sum_i w_i r_i^2 xc_i``, ``s``.

    From one pass over the rows scaled in place (``Xc`` is overwritten when
    ``overwrite``); ``s = sum_i w_i r_i^2`` as the square of the roots.
    """
    root = np.sqrt(sw * residual_sq)
    Xr = np.multiply(Xc, root[:, None], out=Xc if overwrite else None)
    return Xr.T @ Xr, Xr.T @ root, root @ root


def _sandwich_variances(moments, n_samples, h_inv, scale, offset_0, *, hc1):
    """Sandwich (HC1) variances of the scaled slopes and of the intercept.

    Sample i moves w by H^{-1} xc_i r_i and beta_0 = b + c^T w by
    r_i (1/n + v^T xc_i), v = H^{-1} (c - x_mean) (``offset_0 = c - x_mean``,
    None without intercept). With the meat M = sum_i w_i r_i^2 xc_i xc_i^T,
    m = sum_i w_i r_i^2 xc_i and s = sum_i w_i r_i^2 (``moments``, from
    ``_residual_moments``):
    Var w = H^{-1} M H^{-1} and Var beta_0 = s / n^2 + 2 m.v / n + v^T M v.
    """
    meat, meat_1, root_sq = moments
    h_inv_meat = h_inv @ meat
    var_u = hc1 * scale**2 * np.einsum("ij,ji->i", h_inv_meat, h_inv)
    if offset_0 is None:
        return var_u, 0.0
    v = h_inv @ offset_0
    var_0 = hc1 * (
        root_sq / n_samples**2 + 2.0 * (meat_1 @ v) / n_samples + v @ meat @ v
    )
    return var_u, var_0


def _homoscedastic_standard_errors(
    hessian, alpha, h_inv, clipped_total, n_samples, scale, offset_0, *, dof
):
    """Standard errors of the grid-width rule.

    The width follows homoscedastic standard errors: one residual variance
    times the design's leverages, far more stable between runs than the
    sandwich (whose fourth moments of x r fluctuate). The residual variance is
    that of the residuals clipped at ``_CLIP`` robust standard deviations:
    with heavy tails (Student-t(5) features) the plain mean of r^2 moves
    between runs ~2.5x more, and its log2 rounding then differs between runs
    more often than the clipping's bias costs (Gaussian data: no change).
    ``offset_0`` is ``c - x_mean``, or None without intercept;
    ``clipped_total`` is ``sw @ _clipped_squares(residual, sw)``.
    """
    n_features = len(hessian)
    gram = hessian - alpha * np.eye(n_features)
    sandwich_x = h_inv @ gram @ h_inv
    # (Clipped: rounding makes a zero diagonal slightly negative.)
    leverage = np.maximum(np.diag(sandwich_x), 0.0)
    width_var = clipped_total / dof
    homo_se = np.sqrt(width_var * leverage) * scale
    if offset_0 is not None:
        lever_c = 1.0 / n_samples + max(offset_0 @ sandwich_x @ offset_0, 0.0)
        homo_se = np.append(homo_se, np.sqrt(width_var * lever_c))
    return homo_se


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
    The ridge solution of :class:`sklearn.linear_model.Ridge`, in a rounding
    basis itself rounded on shared grids, is rounded to a lattice of scale ``t``
    shifted at random by ``random_state``: two runs in one cell give identical
    bits. The ``E8`` lattice (default) has about half the cube's error.

    ``grid_width="auto"`` chooses ``t`` from ``rho`` and homoscedastic standard
    errors, designing for an expected disagreement of ``0.75 rho`` after a
    reserve for the rounded scales; under heteroscedastic noise the disagreement
    can exceed the design, and ``disagreement_bound_`` re-estimates it with
    sandwich errors. Accuracy close to ridge needs ``n`` well above
    ``d^3 / rho^2``. When the rounded linear model is predicted to lose to a
    replicably rounded constant, the fit falls back to it
    (``constant_fallback_``) with a warning that gives both losses and the ``n``
    needed. A data-dependent transformer in front (a ``StandardScaler`` in a
    ``Pipeline``) is not rounded and breaks replicability.

    The rounding, the failure budget, the bases and the fallback rule are derived
    in the user guide (:ref:`replicable-ridge-details`).


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
        X : {array-like, dask array, dask DataFrame} of shape (n_samples, n_features)
            Training data (finite). On Dask input the statistics are computed
            blockwise (three passes with ``grid_width="auto"``, two
            otherwise) and only ``d x d`` results reach the client (see the
            user guide, "Scaling out").
        y : array-like of shape (n_samples,)
            Target values (finite).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights: weight 2 counts a row twice.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if any_dask(X, y, sample_weight):
            from ._replicable_ridge_dask import BlockwiseRidgeData

            X = validate_dask_data(self, X, reset=True)
            data = BlockwiseRidgeData(X, y, sample_weight, self.fit_intercept)
        else:
            X, y = validate_data(self, X, y, y_numeric=True, dtype=np.float64)
            sw = check_nonnegative_sample_weight(sample_weight, X)
            data = _InMemoryRidgeData(X, y, sw)
        n_samples = data.n_samples
        n_features = data.n_features
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
                "anchor": 10,
            },
        )
        # Magnitudes far from 1 are brought near 1 by exact powers of two (the
        # ridge problem in the new units is the same problem), so that squares
        # and fourth moments neither overflow nor underflow.
        x_exp, y_exp = data.magnitude_exponents(offsets["magnitude"])
        with np.errstate(over="ignore"):  # tiny X: alpha is capped below
            alpha = float(min(np.ldexp(self.alpha, -2 * x_exp), 1e300))

        ridge = _ridge_solution(
            data.centred_gram(self.fit_intercept), n_samples, alpha, self.fit_intercept
        )
        data.set_solution(ridge)
        mean, variance = ridge["mean"], ridge["variance"]
        coef, intercept = ridge["coef"], ridge["intercept"]
        scale, center, basis_cost = self._rounding_basis(data, mean, variance, offsets)
        offset_0 = center - ridge["x_mean"] if self.fit_intercept else None
        dof = max(n_samples - n_features - self.fit_intercept, 1.0)
        var_u, var_0 = _sandwich_variances(
            data.residual_moments(),
            n_samples,
            ridge["h_inv"],
            scale,
            offset_0,
            hc1=n_samples / dof,
        )

        u_hat = scale * coef
        beta0_hat = intercept + center @ coef
        entries = np.append(u_hat, beta0_hat) if self.fit_intercept else u_hat
        lattice = shifted_lattice(entries.size, self.rounding)
        auto = self.grid_width == "auto"
        residual_var = data.residual_sum_sq() / dof
        if auto:
            clipped_total, clipped_cost = data.clipped_residuals()
            homo_se = _homoscedastic_standard_errors(
                ridge["hessian"],
                alpha,
                ridge["h_inv"],
                clipped_total,
                n_samples,
                scale,
                offset_0,
                dof=dof,
            )
            width, width_cost, ideal_width = self._auto_width(
                n_samples,
                lattice,
                homo_se,
                clipped_cost,
                np.abs(entries).max(),
                offsets,
            )
        else:
            width = ideal_width = float(self.grid_width)
            width_cost = clipped_cost = 0.0
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

        def rounded_loss(error_var, scale=scale):
            return residual_var + float(
                error_var[:n_features] @ (moment / scale**2)
                + (error_var[-1] if self.fit_intercept else 0.0)
            )

        use_linear, choice_cost = True, 0.0
        if auto:
            target = data.target(self.fit_intercept, auto)
            constant = self._constant_model(n_samples, target, offsets)
            # Both losses are compared in expectation over the shared offsets
            # of their log2-rounded widths (E[r^2] times the width asked for),
            # not at the rounded widths: those jump by a grid step where the
            # two runs' widths round apart, which would flip the choice with
            # the width event (a cost the choice's spread does not cover), and
            # would tie the choice to the width's offset, keeping the linear
            # model mostly where its width rounded down and its crossing rate
            # is above the budget. For the same reason the global scale of the
            # "scaled" basis enters unrounded (in expectation over its shared
            # offset), which also leaves the losses free of X's units.
            unrounded = self._unrounded_scale(mean, variance, scale)
            ideal_unrounded = ideal_width
            if self.basis_ == "scaled":
                homo_unrounded = homo_se.copy()
                homo_unrounded[:n_features] *= unrounded / scale
                ideal_unrounded *= lattice.expected_crossing_rate(
                    homo_unrounded, 1.0
                ) / max(lattice.expected_crossing_rate(homo_se, 1.0), _TINY)
            linear_mean_loss = rounded_loss(
                lattice.coordinate_variance(ideal_unrounded)
                * log2_ratio_moments(LOG2_SPACING)[1],
                scale=unrounded,
            )
            use_linear, choice_cost = _choose_linear(
                constant["mean_loss"],
                linear_mean_loss,
                offsets["choice"][0],
                spread=2.0 * (data.residual_width_cost() + constant["terms_cost"]),
            )
        self.constant_fallback_ = not use_linear
        if use_linear and auto:
            self._design_budget(n_samples, clipped_cost, warn=True)
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
            advice = RidgeAtSampleSize(
                ridge["gram"],
                ridge["cross"],
                target["sum_sq"],
                n_samples,
                alpha,
                unrounded,
                offset_0,
                moment,
                clipped_total / max(data.residual_sum_sq(), _TINY),
                lattice,
            )
            self._warn_fallback(
                n_samples, clipped_cost, advice, linear_mean_loss, constant
            )
        self.coef_ = np.ldexp(coef_out, y_exp - x_exp)
        self.intercept_ = float(np.ldexp(intercept_out, y_exp))
        self.disagreement_bound_ = float(min(1.0, cost + choice_cost))
        return self

    def _constant_model(self, n_samples, target, offsets):
        """The replicable constant: the mean of ``y`` rounded on its own grid.

        Only the automatic width falls back to it (a fixed width keeps the
        linear model). Without an intercept the constant is zero (nothing to
        round).
        ``target`` holds the sums of ``y`` (see ``_InMemoryRidgeData.target``).
        """
        if not self.fit_intercept:
            loss = float(target["sum_sq"] / n_samples)
            return {
                "value": 0.0,
                "width": 0.0,
                "loss": loss,
                "mean_loss": loss,
                "var_y": loss,
                "cost": 0.0,
                "terms_cost": 0.0,
            }
        mean = target["mean"]
        var_y = float(target["sum_sq"] / max(n_samples - 1.0, 1.0))
        lattice = shifted_lattice(1, self.rounding)
        se = np.array([np.sqrt(var_y / n_samples)])
        # The width follows sd(y) and is rounded in log2; at small n the
        # chance that the two runs' widths round apart, about
        # _CONSTANT_WIDTH_NOISE / (h sqrt(n)) on a grid of spacing h, would
        # take the whole budget at h = 1 (diabetes, n = 353, rho = 0.05:
        # about 0.06 against 0.0375). The spacing is chosen from n and rho
        # alone (both runs agree on it) to minimise the expected squared
        # error of the rounded mean at the design disagreement. The grids
        # of the mean are nested across widths (one shared anchor, integer
        # spacing, round_nested): a width event costs 1 - 2^-h of itself.
        spacing, budget = best_log2_spacing(
            DESIGN_SHARE * self.rho,
            _CONSTANT_WIDTH_NOISE / np.sqrt(n_samples),
            nested=True,
        )
        # terms_cost is the log2 width cost on a grid of spacing 1, and
        # the cost is inversely proportional to the spacing; a cost capped
        # at 1 (a degenerate sum of squares) stays 1.
        cost_at_unit_spacing = target["terms_cost"]
        width_cost = (
            (1.0 - 2.0**-spacing) * cost_at_unit_spacing / spacing
            if cost_at_unit_spacing < 1.0
            else 1.0
        )
        _, ideal = lattice_width(
            lattice.expected_crossing_rate(se, 1.0),
            budget,
            offsets["constant_width"][0],
            abs(mean),
            FLOOR_MAGNITUDE,
            spacing=spacing,
        )
        value, width = round_nested(
            mean,
            ideal,
            spacing,
            offsets["constant_width"][0],
            anchor_bits(offsets["anchor"]),
        )
        # The squared width over the shared offset of its log2 grid.
        mean_square_width = log2_ratio_moments(spacing)[1] * ideal**2
        cost = width_cost + lattice.expected_crossing_rate(se, width)
        return {
            "value": value,
            "width": width,
            "ideal_width": ideal,
            "loss": var_y + width**2 / 12.0,
            "mean_loss": var_y + mean_square_width / 12.0,
            "var_y": var_y,
            "cost": float(cost),
            "terms_cost": target["terms_cost"],
        }

    def _warn_fallback(self, n_samples, width_cost, advice, linear_loss, constant):
        """Say that the constant model was fitted, what it costs, what n would do.

        ``width_cost`` is the estimated chance of the lattice scale's event at
        ``n_samples`` (it falls like ``1 / sqrt(n)``); ``advice`` is the
        :class:`RidgeAtSampleSize` of this fit, whose answer does not depend on
        the units of ``X`` (only ``alpha``'s weight does); ``linear_loss`` and
        ``constant["mean_loss"]`` are the expected losses the choice compared.
        """
        var_y = constant["var_y"]
        if var_y <= 0:
            return
        cost_root_n = width_cost * np.sqrt(n_samples)

        def budget_at(n):
            return self._design_budget(n, cost_root_n / np.sqrt(n))

        # Least squares' n, which the units of X do not move; then this
        # alpha's, where its penalty (on Ridge's absolute scale) still shrinks
        # the slopes at that n.
        needed = advice.samples_needed(n_samples, budget_at, alpha=0.0)
        needed_alpha = advice.samples_needed(n_samples, budget_at)
        if not np.isfinite(needed):
            need = (
                "The linear model explains too little of y here for more "
                "samples to help; "
            )
        else:
            need = (
                f"About n >= {needed:.2g} samples would bring the rounded linear "
                "model's excess squared error over least squares under a tenth "
                "of what least squares explains, at this rho"
            )
            if needed_alpha > 1.5 * needed:
                at_alpha = (
                    f"n >= {needed_alpha:.2g}" if np.isfinite(needed_alpha) else "no n"
                )
                need += (
                    f" ({at_alpha} at alpha={self.alpha}, which is heavy for X "
                    "in these units: lower alpha)"
                )
            need += "; "
        warn_user(
            f"{type(self).__name__}(rho={self.rho}) at n={n_samples:g}: the "
            "rounded linear model is expected to predict worse than the rounded "
            f"mean of y (expected squared error {linear_loss / var_y:.3g} against "
            f"{constant['mean_loss'] / var_y:.3g} times Var(y)), so the fit falls "
            "back to the replicable constant model: coef_ is zero and intercept_ "
            "is the mean of y rounded on a shared grid of width "
            f"{constant['width']:.3g}, an expected R^2 of about "
            f"{1.0 - constant['loss'] / var_y:.2g} (about "
            f"{1.0 - constant['mean_loss'] / var_y:.2g} on average over the "
            f"shared randomness). {need}otherwise raise rho."
        )

    def _unrounded_scale(self, mean, variance, scale):
        """The basis scales before their log2 rounding, where that is one scale.

        The ``"scaled"`` basis's global scale is the geometric mean of the
        features' standard deviations (rounded on a log2 grid in the fit): the
        advice uses it unrounded, so that rescaling ``X`` does not move it.
        """
        if self.basis_ != "scaled":
            return scale
        std = np.sqrt(variance)
        varying = std > np.maximum(1e-8 * np.abs(mean), _TINY)
        if not np.any(varying):
            return scale
        return np.full(len(scale), 2.0 ** np.log2(std[varying]).mean())

    def _reserve(self, n_samples, width_cost):
        """Probability set aside for the data-driven lattice scale and basis.

        The lattice scale's own term is ``width_cost``, the estimated chance
        that the two runs' log2-rounded scales differ (the delta-method
        estimate ``log2_width_disagreement`` of the clipped residuals, which
        the scale follows): it adapts to the residuals' tails, about
        ``1.15 / sqrt(n)`` for Gaussian ones. It enters the budget smoothly, so
        its own run-to-run noise moves the log2 scale by a small fraction of
        the scale's where ``sqrt(n) B >= PLUGIN_MIN``; below, the fixed
        ``RESERVE_PER_WIDTH / sqrt(n)`` is kept. The basis terms depend
        on ``n`` and ``d`` only.
        """
        basis = 0.0
        if self.basis_ == "standardized":
            basis = (
                _BASIS_RESERVE_PER_FEATURE * self.n_features_in_ / np.sqrt(n_samples)
            )
        elif self.basis_ == "scaled":
            basis = _GLOBAL_SCALE_RESERVE / np.sqrt(n_samples * self.n_features_in_)
        # The estimate only where its own noise is small against the budget
        # (a rule in n, rho and d only, so both runs apply the same one).
        fixed = RESERVE_PER_WIDTH / np.sqrt(n_samples)
        budget = DESIGN_SHARE * self.rho - fixed - basis
        if np.sqrt(n_samples) * budget < PLUGIN_MIN:
            return fixed + basis
        return width_cost + basis

    def _design_budget(self, n_samples, width_cost, warn=False):
        """The rounding budget ``B`` at ``n_samples`` (see ``rounding_budget``)."""
        return rounding_budget(
            self.rho,
            self._reserve(n_samples, width_cost),
            design_share=DESIGN_SHARE,
            warn=warn,
        )

    def _rounding_basis(self, data, mean, variance, offsets):
        """Replicable scales and centre, and their estimated disagreement cost.

        ``data`` gives the rows' statistics (``abs_deviation``, of the data
        or, when centred already, of ``X - mean``); ``mean`` and ``variance``
        are the weighted column means and variances.
        """
        n_samples, n_features = data.n_samples, data.n_features
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
        mad = data.abs_deviation(offset) / n_samples
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
        self, n_samples, lattice, standard_errors, residual_cost, magnitude, offsets
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
        budget = self._design_budget(n_samples, residual_cost)
        width, ideal = lattice_width(
            lattice.expected_crossing_rate(standard_errors, 1.0),
            budget,
            offsets["coef_width"][0],
            magnitude,
            FLOOR_MAGNITUDE,
        )
        # The width scales like the root of the residual sum of squares: its
        # relative standard error (the leverages are far more stable) gives the
        # chance that the two runs' log2 widths round apart.
        return width, residual_cost, ideal

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # On the checks' small samples the grid spans many standard errors,
        # so the rounded fit is coarse by design.
        tags.regressor_tags.poor_score = True
        return tags

    def score(self, X, y, sample_weight=None):
        """R^2 of ``predict(X)`` against ``y``.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Test samples. On Dask input (``X``, ``y`` or ``sample_weight``)
            the sums are computed blockwise and only a few floats per block
            reach the client.
        y : array-like of shape (n_samples,)
            True values.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            The coefficient of determination, as
            :func:`sklearn.metrics.r2_score`.
        """
        check_is_fitted(self)
        if not any_dask(X, y, sample_weight):
            return super().score(X, y, sample_weight=sample_weight)
        X = validate_dask_data(self, X, reset=False)
        y = align_rows(X, y, "y", ndim=1)
        if sample_weight is not None:
            sample_weight = align_rows(X, sample_weight, "sample_weight", ndim=1)
        sums = reduce_blocks(
            _r2_block,
            [X, y, sample_weight],
            ["X", "y", "sample_weight"],
            args=(self.coef_, self.intercept_),
        )
        return r2_from_sums(sums)

    def predict(self, X):
        """Predict with the rounded linear model.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray or dask array of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        check_is_fitted(self)
        if any_dask(X):
            X = validate_dask_data(self, X, reset=False)
            return map_rows(_linear, X, coef=self.coef_, intercept=self.intercept_)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_ + self.intercept_


def _linear(X, coef, intercept):
    return X @ coef + intercept


def _r2_block(X, y, sample_weight, coef, intercept):
    return r2_sums(y, _linear(X, coef, intercept), sample_weight)
