"""Replicable covariance: the empirical matrix rounded on shared random grids."""

from numbers import Real

import numpy as np
from scipy import linalg
from sklearn.covariance import EmpiricalCovariance
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from .._replicable._lattice import shifted_lattice
from .._replicable._rounding import (
    lattice_width,
    magnitude_exponent,
    rounding_budget,
    samples_needed,
    shared_offsets,
)
from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._dask import any_dask, map_rows, reduce_blocks, validate_dask_data
from ._replicable_covariance_moments import BlockwiseData, InMemoryData
from ._replicable_covariance_structures import (
    FLOOR_MAGNITUDE,
    STRUCTURES,
    choose,
    structures,
)

# The failure budget's calibration (user guide, "The replicable failure
# budget"): the design spends half of rho in expectation (the lemma is an
# expectation over the offsets and the standard errors are estimates), and each
# data-driven width reserves RESERVE_PER_WIDTH / sqrt(n). The widths follow the
# entries' fourth moments, whose log2 moved between runs by about 1.15 / sqrt(n)
# per width for Gaussian data and 2 / sqrt(n) for Student-t(8) features.
DESIGN_SHARE = 0.5
RESERVE_PER_WIDTH = 1.5
# Share of the budget left after the widths that rounds the location (when it
# is estimated); the covariance entries get the rest.
_LOCATION_SHARE = 0.25
# Largest magnitude of X whose second moments (and their rounding grid) stay
# finite in float64: sqrt(max float) / 16.
_MAX_MAGNITUDE = float(np.sqrt(np.finfo(np.float64).max) / 16)
# The fit warns when the expected Frobenius error of the matrix it returns,
# against the population matrix, exceeds this fraction of ||S||_F.
TOLERANCE = 0.1


class ReplicableCovariance(EmpiricalCovariance):
    """Second-moment (or covariance) matrix that is replicable across samples.

    Implements R-UC-Cov-Estimation of "Replicable Reinforcement Learning with
    Linear Function Approximation" (Eaton, Hussing, Kearns, Roth, Sengupta and
    Sorrell; ICLR 2026; arXiv:2509.08660): form the empirical matrix
    ``S = (1/n) sum_i (x_i - m)(x_i - m)^T``, round its entries jointly to a
    randomly shifted lattice whose shift comes from the shared randomness
    (``random_state``; ``E8`` blocks, or the paper's per-entry grid with
    ``rounding="cube"``), and project the result onto the PSD cone (which
    cannot move it further from the true, PSD, matrix). Two runs on
    independent samples with the same integer ``random_state`` return
    identical matrices unless a cell boundary falls between them: probability
    at most the expected number of lattice facets between the two (the cube's
    ``sum_j |Delta_j| / width``).

    Rounding ``m`` entries costs a width proportional to ``m``: the full
    matrix (``m = d (d + 1) / 2``) is accurate only for ``n`` of order
    ``d^4 / rho^2``. ``covariance_type="auto"`` therefore also prices the
    diagonal (``m = d``) and the spherical matrix ``(tr S / d) I`` (``m = 1``),
    and returns the one of least expected error.

    Parameters
    ----------
    store_precision : bool, default=True
        Whether to store the precision matrix (pseudo-inverse of
        ``covariance_``).
    assume_centered : bool, default=True
        If True, estimate the uncentred second moment ``E[x x^T]`` (location
        zero); if False, centre at the replicably rounded mean.
    covariance_type : {"auto", "full", "diag", "spherical"}, default="auto"
        Structure of the matrix rounded and returned: all its entries, its
        diagonal, or one variance ``tr(S) / d`` for every feature.
        ``"auto"`` chooses among the three the one whose expected Frobenius
        error against the population matrix (bias, sampling and rounding) is
        least, with shared offsets so that two runs choose alike; with a
        fixed ``grid_width`` it means ``"full"``.
    grid_width : "auto" or float, default="auto"
        Width of the grid of the matrix entries (and of the mean). ``"auto"``
        derives it from ``rho`` and the standard errors; a float is used as is
        and leaves ``rho`` unused.
    rho : float, default=0.05
        Bound, in (0, 1), on the probability that two runs on independent
        samples with the same ``random_state`` disagree (the auto rule designs
        for ``rho / 2`` in expectation).
    rounding : {"lattice", "cube"}, default="lattice"
        Quantizer of the entries (and of the location): ``"lattice"`` rounds
        them jointly to randomly shifted ``E8`` blocks and one remainder
        block (about half the squared error of ``"cube"`` at equal expected
        disagreement); ``"cube"`` rounds every entry to the midpoint of its
        cell, as in the paper.
    random_state : int, RandomState instance or None, default=None
        The shared randomness: it draws every grid offset. Two runs are
        replicable only with the same integer.

    Attributes
    ----------
    location_ : ndarray of shape (n_features,)
        Rounded location (zeros when ``assume_centered=True``).
    covariance_ : ndarray of shape (n_features, n_features)
        Rounded, symmetric, positive semi-definite matrix.
    precision_ : ndarray of shape (n_features, n_features)
        Pseudo-inverse of ``covariance_`` (``None`` if ``store_precision`` is
        False).
    covariance_unrounded_ : ndarray of shape (n_features, n_features)
        The empirical matrix before rounding (around ``location_``).
    covariance_type_ : str
        The structure returned: ``covariance_type``, or the choice of
        ``"auto"``.
    grid_width_ : float
        Scale of the lattice of the rounded entries (the cell width for
        ``"cube"``); ``0.0`` when they are all exactly zero (nothing to round).
    location_grid_width_ : float
        Scale of the lattice of the mean (``0.0`` when ``assume_centered=True``).
    disagreement_bound_ : float
        Predicted probability that a second run with the same ``random_state``
        on an independent sample differs (estimated from this sample; it
        includes the chance that the two runs choose different structures).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.covariance.EmpiricalCovariance : The unrounded estimator.
    sklearn_iclr.ReplicableLinearRegressor : Replicable ridge regression.

    Notes
    -----
    With ``grid_width="auto"`` the fit warns when the expected Frobenius error
    of ``covariance_`` against the population matrix (bias of the structure,
    sampling error and rounding, estimated from the sample) exceeds
    ``0.1 ||S||_F``, and names the ``n`` at which the full matrix would be
    within that tolerance at this ``rho``.

    One width serves all rounded entries, so put the features in comparable
    units first, with a data-independent transformation (a fitted scaler is
    not replicable). With ``assume_centered=False`` the mean is rounded on its
    own shared grid, so that it too is identical across runs.

    The moments are accumulated over row blocks with BLAS on one thread, so every
    attribute has the same bits whatever the thread setting. Entries above about
    ``8e152`` (whose second moments overflow float64) are refused.

    The width rule, the choice of structure and the failure budget are in the
    user guide (:ref:`replicable-covariance-details`).

    References
    ----------
    .. [1] E. Eaton, M. Hussing, M. Kearns, A. Roth, S. B. Sengupta and
       J. Sorrell, "Replicable Reinforcement Learning with Linear Function
       Approximation", ICLR 2026, arXiv:2509.08660.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr import ReplicableCovariance
    >>> cov = np.array([[1.0, 0.5], [0.5, 2.0]])
    >>> def sample(seed):
    ...     rng = np.random.default_rng(seed)
    ...     return rng.multivariate_normal([0, 0], cov, 400_000)
    >>> est = ReplicableCovariance(rho=0.2, random_state=0)
    >>> first = est.fit(sample(1)).covariance_
    >>> second = est.fit(sample(2)).covariance_
    >>> bool(np.array_equal(first, second)), est.covariance_type_
    (True, 'full')
    >>> bool(np.linalg.norm(first - cov) < 0.1 * np.linalg.norm(cov))
    True
    """

    _parameter_constraints: dict = {
        **EmpiricalCovariance._parameter_constraints,
        "covariance_type": [StrOptions({"auto", *STRUCTURES})],
        "grid_width": [StrOptions({"auto"}), Interval(Real, 0, None, closed="neither")],
        "rho": [Interval(Real, 0, 1, closed="neither")],
        "rounding": [StrOptions({"lattice", "cube"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        store_precision=True,
        assume_centered=True,
        covariance_type="auto",
        grid_width="auto",
        rho=0.05,
        rounding="lattice",
        random_state=None,
    ):
        super().__init__(
            store_precision=store_precision, assume_centered=assume_centered
        )
        self.covariance_type = covariance_type
        self.grid_width = grid_width
        self.rho = rho
        self.rounding = rounding
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Estimate the matrix and round it on the shared grids.

        Parameters
        ----------
        X : {array-like, dask array, dask DataFrame} of shape (n_samples, n_features)
            Training data (finite). On Dask input the moments are computed
            blockwise (three passes with ``grid_width="auto"``, two
            otherwise) and only ``d x d`` results reach the client (see the
            user guide, "Scaling out").
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        dask_input = any_dask(X)
        if dask_input:
            X = validate_dask_data(self, X, reset=True)
            data = BlockwiseData(X)
        else:
            X = validate_data(self, X, dtype=np.float64)
        n_samples, n_features = X.shape
        upper = np.triu_indices(n_features)
        offsets = shared_offsets(
            self.random_state,
            {
                "location_width": 1,
                "location": n_features,
                "entries_width": 1,
                "entries": len(upper[0]),
                "magnitude": 1,
                "diag_width": 1,
                "diag": n_features,
                "spherical_width": 1,
                "spherical": 1,
                "choice": len(STRUCTURES),
            },
        )
        if dask_input:
            peak = data.peak
        else:
            peak = float(np.max(np.abs(X))) if X.size else 0.0
        if peak > _MAX_MAGNITUDE:
            raise ValueError(
                f"X has entries of magnitude up to {peak:.3g}: its second moments "
                f"(up to {peak:.3g}^2) exceed the largest float64 "
                f"({np.finfo(np.float64).max:.3g}). Divide X by a constant "
                f"(for example 2**{int(np.log2(peak)) // 2}) first."
            )
        # Extreme magnitudes: work in units of an exact power of two, so that
        # fourth moments neither overflow nor underflow.
        if dask_input:
            exponent = data.scale_by_power_of_two(offsets["magnitude"][0])
        else:
            exponent = magnitude_exponent(X, offsets["magnitude"][0])
            if exponent:
                X = np.ldexp(X, -exponent)
            data = InMemoryData(X)
        # BLAS sums in an order that depends on its thread count; one thread
        # gives the same bits whatever the caller's setting (Dask: in the
        # threads of this process; distributed workers run BLAS on one thread
        # by default).
        with threadpool_limits(limits=1, user_api="blas"):
            result = self._fit_scaled(data, upper, offsets)
        self.location_ = np.ldexp(result["location"], exponent)
        self._set_covariance(np.ldexp(result["covariance"], 2 * exponent))
        self.covariance_unrounded_ = np.ldexp(result["unrounded"], 2 * exponent)
        self.covariance_type_ = result["structure"]
        self.grid_width_ = float(np.ldexp(result["width"], 2 * exponent))
        self.location_grid_width_ = float(np.ldexp(result["location_width"], exponent))
        self.disagreement_bound_ = result["bound"]
        return self

    def _fit_scaled(self, data, upper, offsets):
        """The rounded location and matrix, widths and bound, for X in its units.

        ``data`` is an ``InMemoryData`` or ``BlockwiseData``: the statistics
        of X, computed in memory or blockwise on a Dask array.
        """
        n_samples, n_features = data.n_samples, data.n_features
        mean = data.mean()
        auto = self.grid_width == "auto"
        centre = np.zeros(n_features) if self.assume_centered else mean
        # The entries' standard errors depend on the location only through a
        # shift of order se(mean); compute them around the mean. Moments of
        # the products z_j z_k come from d x d Gram matrices by blocks of rows
        # (never an n x d(d+1)/2 array).
        moments = data.moments(centre)
        budget, width_costs, location_cost = self.rho, None, 0.0
        n_widths = 1 if self.assume_centered else 2
        if auto:
            width_costs = data.width_costs(centre, moments)
            budget = _rounding_budget(self.rho, n_samples, n_widths)
        if self.assume_centered:
            location, location_width = np.zeros(n_features), 0.0
        else:
            location_budget = _LOCATION_SHARE * budget if auto else None
            location, location_width, location_cost = _round_location(
                mean,
                np.sqrt(moments["variance"] / n_samples),
                self.rounding,
                None if auto else float(self.grid_width),
                location_budget,
                offsets,
            )
            if auto:
                location_cost += width_costs["location"]
                budget -= location_budget
        unrounded = _second_moment_about(location, centre, mean, moments["second"])
        candidates = structures(unrounded, moments, n_samples, upper)
        structure = "full" if self.covariance_type == "auto" else self.covariance_type
        cost = location_cost
        if auto:
            for candidate in candidates.values():
                candidate.price(self.rounding, budget, offsets)
            if self.covariance_type == "auto":
                structure, choice_cost = choose(candidates, offsets["choice"])
                cost += choice_cost
            cost += width_costs[structure]
            width = candidates[structure].width
        else:
            width = float(self.grid_width)
        chosen = candidates[structure]
        rounded, width = chosen.round(n_features, self.rounding, width, offsets)
        if width > 0:
            lattice = shifted_lattice(len(chosen.values), self.rounding)
            cost += lattice.expected_crossing_rate(chosen.standard_errors, width)
        if auto:
            self._warn_if_inaccurate(
                candidates, structure, moments, n_samples, n_widths
            )
        bound = float(min(1.0, cost))
        return {
            "location": location,
            "covariance": rounded,
            "unrounded": unrounded,
            "structure": structure,
            "width": width,
            "location_width": location_width,
            "bound": bound,
        }

    def _warn_if_inaccurate(self, candidates, structure, moments, n_samples, n_widths):
        """Warn when the expected error exceeds ``TOLERANCE ||S||_F``.

        The message gives the expected relative error of the matrix returned
        and the ``n`` at which the full matrix would be within the tolerance:
        its sampling variance falls like ``1 / n`` and its rounding loss like
        ``1 / (n B(n)^2)``, ``B(n)`` the rounding budget at ``n``.
        """
        norm_sq = float(np.sum(moments["second"] ** 2))
        if norm_sq <= 0:
            return
        chosen = candidates[structure]
        relative = np.sqrt(chosen.loss / norm_sq)
        if relative <= TOLERANCE:
            return
        full = candidates["full"]
        budget_0 = _rounding_budget(self.rho, n_samples, n_widths, warn=False)

        def within(n):
            budget = _rounding_budget(self.rho, n, n_widths, warn=False)
            factor = n_samples / n
            rounding = full.rounding_loss * factor * (budget_0 / budget) ** 2
            return full.variance * factor + rounding <= TOLERANCE**2 * norm_sq

        needed = samples_needed(n_samples, within)
        other = (
            ""
            if structure == "full"
            else f" (the full matrix: {np.sqrt(full.loss / norm_sq):.2g})"
        )
        need = (
            f"About n >= {needed:.2g} samples would bring the full matrix within "
            f"{TOLERANCE} at this rho; otherwise raise rho."
            if np.isfinite(needed)
            else "No sample size up to 1e18 would bring the full matrix within "
            f"{TOLERANCE} at this rho: raise rho."
        )
        warn_user(
            f"{type(self).__name__}(rho={self.rho}) at n={n_samples:g}: the "
            f"{structure} matrix returned is expected to be off the population "
            f"matrix by {relative:.2g} times ||S||_F{other}, above the tolerance "
            f"{TOLERANCE}: replicability at this rho needs a rounding grid many "
            f"standard errors wide. {need}"
        )

    def score(self, X_test, y=None):
        """Log-likelihood of ``X_test`` under the Gaussian with these moments.

        Parameters
        ----------
        X_test : {array-like, dask array} of shape (n_samples, n_features)
            Test data (a Dask array: summed blockwise, one float per block to
            the client).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        res : float
            The mean log-likelihood of ``X_test`` with ``location_`` and
            ``covariance_``: ``-inf`` if ``covariance_`` is singular or if a
            squared Mahalanobis distance overflows float64.
        """
        check_is_fitted(self)
        precision = self.get_precision()
        if any_dask(X_test):
            X_test = validate_dask_data(self, X_test, reset=False)
            sums = reduce_blocks(
                _distance_sums,
                [X_test],
                ["X_test"],
                args=(self.location_, precision),
            )
            mean_distance = sums["distance"] / sums["count"]
        else:
            X_test = validate_data(self, X_test, reset=False, dtype=np.float64)
            mean_distance = np.mean(
                _mahalanobis(X_test, location=self.location_, precision=precision)
            )
        eigenvalues = linalg.eigvalsh(self.covariance_)
        # pinvh's rank rule: eigenvalues below d eps times the largest are zero.
        cutoff = len(eigenvalues) * np.finfo(np.float64).eps * eigenvalues.max()
        if eigenvalues.max() <= 0 or eigenvalues.min() <= cutoff:
            return -np.inf
        log_det = float(np.sum(np.log(eigenvalues)))
        n_features = len(eigenvalues)
        return float(-0.5 * (mean_distance + log_det + n_features * np.log(2 * np.pi)))

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of ``X`` to ``location_``.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            The observations (a Dask array gives a lazy Dask array).

        Returns
        -------
        dist : ndarray or dask array of shape (n_samples,)
            Squared distances under ``precision_`` (``inf`` where they overflow
            float64).
        """
        check_is_fitted(self)
        precision = self.get_precision()
        if any_dask(X):
            X = validate_dask_data(self, X, reset=False)
            return map_rows(
                _mahalanobis, X, location=self.location_, precision=precision
            )
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _mahalanobis(X, location=self.location_, precision=precision)

    def error_norm(self, comp_cov, norm="frobenius", scaling=True, squared=True):
        """Squared error norm between ``comp_cov`` and ``covariance_``.

        Parameters
        ----------
        comp_cov : array-like of shape (n_features, n_features)
            The covariance to compare with.
        norm : {"frobenius", "spectral"}, default="frobenius"
            The norm of the difference ``comp_cov - covariance_``.
        scaling : bool, default=True
            Divide the squared norm by ``n_features``.
        squared : bool, default=True
            Return the squared norm (else the norm).

        Returns
        -------
        result : float
            The (squared, scaled) error norm.
        """
        check_is_fitted(self)
        comp_cov = np.asarray(comp_cov, dtype=np.float64)
        if comp_cov.shape != self.covariance_.shape:
            raise ValueError(
                f"comp_cov has shape {comp_cov.shape} but covariance_ has shape "
                f"{self.covariance_.shape}: pass a matrix over the same "
                f"{self.covariance_.shape[0]} features."
            )
        return super().error_norm(comp_cov, norm=norm, scaling=scaling, squared=squared)


def _rounding_budget(rho, n_samples, n_widths, warn=True):
    """The rounding budget after the reserve of the data-driven widths."""
    reserve = RESERVE_PER_WIDTH * n_widths / np.sqrt(n_samples)
    return rounding_budget(rho, reserve, DESIGN_SHARE, warn=warn)


def _second_moment_about(location, centre, mean, second):
    """``E[(x - location)(x - location)^T]`` from the moment about ``centre``.

    No pass over the data: with ``s = centre - location``,
    ``E[(x - l)(x - l)^T] = second + (mean - centre) s^T + s (mean - centre)^T
    + s s^T``; the centre is zero or the mean, and ``s`` is zero or the
    rounding of the mean, so nothing cancels.
    """
    shift = centre - location
    cross = np.outer(mean - centre, shift)
    return second + cross + cross.T + np.outer(shift, shift)


def _round_location(mean, mean_se, rounding, width, budget, offsets):
    """The mean rounded on its shared lattice, the lattice scale and its cost.

    ``width`` is the fixed scale, or None to pick it from ``budget``.
    """
    if not np.any(mean):
        return np.zeros_like(mean), 0.0, 0.0
    lattice = shifted_lattice(len(mean), rounding)
    if width is None:
        width, _ = lattice_width(
            lattice.expected_crossing_rate(mean_se, 1.0),
            budget,
            offsets["location_width"][0],
            np.abs(mean).max(),
            FLOOR_MAGNITUDE,
        )
    location = lattice.round(mean, width, offsets["location"])
    return location, width, lattice.expected_crossing_rate(mean_se, width)


def _mahalanobis(X, location, precision):
    """``(x - location)^T precision (x - location)`` per row, without NaN.

    Each row is divided by an exact power of two near its largest magnitude
    first, so the quadratic form of huge rows overflows to ``inf`` (never to
    ``inf - inf``); the form of a PSD precision is clipped at zero.
    """
    peak = np.maximum(np.abs(X).max(axis=1), np.abs(location).max())
    _, exponent = np.frexp(peak)
    Z = np.ldexp(X, -exponent[:, None]) - np.ldexp(location, -exponent[:, None])
    form = np.maximum(np.einsum("ij,ij->i", Z @ precision, Z), 0.0)
    with np.errstate(over="ignore"):
        return np.ldexp(form, 2 * exponent)


def _distance_sums(X, location, precision):
    with np.errstate(over="ignore"):
        total = np.sum(_mahalanobis(X, location, precision))
    return {"distance": total, "count": float(len(X))}
