"""Replicable covariance: the empirical matrix rounded on shared random grids."""

from numbers import Real

import numpy as np
from scipy import linalg
from sklearn.covariance import EmpiricalCovariance
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from .._replicable._blockwise import (
    log2_width_disagreement_from_sums,
    magnitude_exponent_blockwise,
)
from .._replicable._lattice import shifted_lattice
from .._replicable._rounding import (
    EXPECTED_ABS_DIFF_PER_SE,
    LOG2_SPACING,
    lattice_width,
    log2_ratio_moments,
    log2_width_disagreement,
    magnitude_exponent,
    rounding_budget,
    samples_needed,
    shared_offsets,
)
from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._dask import any_dask, map_rows, reduce_blocks, validate_dask_data

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
# Smallest magnitude of the lattice scale floor: the floor (WIDTH_FLOOR times
# the entries' magnitude) is then never below the smallest normal float.
FLOOR_MAGNITUDE = float(np.finfo(np.float64).tiny * 2.0**40)
# Largest magnitude of X whose second moments (and their rounding grid) stay
# finite in float64: sqrt(max float) / 16.
_MAX_MAGNITUDE = float(np.sqrt(np.finfo(np.float64).max) / 16)
# The fit warns when the expected Frobenius error of the matrix it returns,
# against the population matrix, exceeds this fraction of ||S||_F.
TOLERANCE = 0.1
# The structures "auto" chooses among, from the richest.
STRUCTURES = ("full", "diag", "spherical")
# Width, in log2 units, of the band of the shared offsets of the choice of
# structure: each expected loss is multiplied by 2^(band U) (U uniform) before
# the least is taken, so two runs choose alike unless their losses straddle.
_CHOICE_BAND = 0.5


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
            data = _BlockwiseData(X)
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
            data = _InMemoryData(X)
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

        ``data`` is an ``_InMemoryData`` or ``_BlockwiseData``: the statistics
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
        candidates = _structures(unrounded, moments, n_samples, upper)
        structure = "full" if self.covariance_type == "auto" else self.covariance_type
        cost = location_cost
        if auto:
            for candidate in candidates.values():
                candidate.price(self.rounding, budget, offsets)
            if self.covariance_type == "auto":
                structure, choice_cost = _choose(candidates, offsets["choice"])
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


class _Structure:
    """One candidate structure: the entries it rounds and its expected loss.

    ``values``, ``standard_errors`` and ``multiplicity`` (how many entries of
    the matrix each rounded value fills) describe the rounded vector;
    ``bias`` is the estimated squared Frobenius distance between the
    population matrix and its structured part, ``bias_parts`` its terms with
    their sampling variances (for the choice's spread) and ``variance`` the
    summed sampling variance of the entries it fills.
    """

    def __init__(
        self, name, values, standard_errors, multiplicity, variance, bias_parts
    ):
        self.name = name
        self.values = values
        self.standard_errors = standard_errors
        self.multiplicity = multiplicity
        self.variance = variance
        self.bias_parts = bias_parts
        self.bias = sum(max(value, 0.0) for value, _ in bias_parts.values())

    def price(self, rounding, budget, offsets):
        """Lattice scale for ``budget`` and the expected loss it gives.

        The loss is an expectation over the shared offset of the log2-rounded
        scale (``E[r^2]`` times the scale asked for), the same in both runs
        up to sampling noise.
        """
        lattice = shifted_lattice(len(self.values), rounding)
        self.width, ideal = lattice_width(
            lattice.expected_crossing_rate(self.standard_errors, 1.0),
            budget,
            offsets[_width_key(self.name)][0],
            np.abs(self.values).max(),
            FLOOR_MAGNITUDE,
        )
        mean_square = log2_ratio_moments(LOG2_SPACING)[1]
        variance = lattice.coordinate_variance(ideal) * mean_square
        self.rounding_loss = float(self.multiplicity @ variance)
        # (At least the smallest normal float: zero data have no loss.)
        self.loss = max(
            self.bias + self.variance + self.rounding_loss,
            float(np.finfo(np.float64).tiny),
        )

    def round(self, n_features, rounding, width, offsets):
        """The rounded, PSD matrix of this structure and the width used."""
        if not np.any(self.values):
            # All exactly zero (X is zero): nothing to round.
            return np.zeros((n_features, n_features)), 0.0
        lattice = shifted_lattice(len(self.values), rounding)
        key = "entries" if self.name == "full" else self.name
        rounded = lattice.round(self.values, width, offsets[key])
        if self.name == "full":
            matrix = np.zeros((n_features, n_features))
            matrix[np.triu_indices(n_features)] = rounded
            return _project_psd(matrix + np.triu(matrix, 1).T), width
        # A diagonal matrix is PSD when its entries are non-negative; the
        # spherical one repeats its single value.
        diagonal = np.broadcast_to(np.clip(rounded, 0.0, None), n_features)
        return np.diag(diagonal), width


def _width_key(name):
    return "entries_width" if name == "full" else f"{name}_width"


def _structures(second, moments, n_samples, upper):
    """The full, diagonal and spherical candidates of the matrix ``second``.

    ``S`` (``second``) is the second moment about the location, and
    ``v_jk = Var(z_j z_k) / n`` (from the moments about the centre) the sampling
    variance of its entries. The squared off-diagonal mass
    ``sum_{j != k} Sigma_jk^2`` is estimated by ``sum_{j != k} (S_jk^2 -
    v_jk)``, and the spread of the variances ``sum_j (Sigma_jj - mu)^2`` by
    ``sum_j (S_jj - mu_hat)^2`` less its noise; each with the delta-method
    variance ``4 S^2 v + 2 v^2`` per entry.
    """
    fourth = moments["fourth"]
    n_features = len(second)
    variance = np.maximum(fourth - moments["second"] ** 2, 0.0) / n_samples
    diagonal = np.diag(second)
    var_diagonal = np.diag(variance)
    off = ~np.eye(n_features, dtype=bool)
    # The mean variance mu = tr(S) / d is the mean of q_i = ||z_i||^2 / d.
    mu = float(diagonal.mean())
    centred_trace = np.trace(moments["second"])
    var_mu = max(float(fourth.sum() - centred_trace**2), 0.0) / (
        n_features**2 * n_samples
    )
    off_part = (
        float(np.sum(second[off] ** 2 - variance[off])),
        float(
            np.sum(2 * (4 * second[off] ** 2 * variance[off] + 2 * variance[off] ** 2))
        ),
    )
    spread_part = (
        float(
            np.sum((diagonal - mu) ** 2) - (var_diagonal.sum() - n_features * var_mu)
        ),
        float(np.sum(4 * (diagonal - mu) ** 2 * var_diagonal + 2 * var_diagonal**2)),
    )
    on_diagonal = upper[0] == upper[1]
    return {
        "full": _Structure(
            "full",
            second[upper],
            np.sqrt(variance[upper]),
            np.where(on_diagonal, 1.0, 2.0),
            float(variance.sum()),
            {},
        ),
        "diag": _Structure(
            "diag",
            diagonal.copy(),
            np.sqrt(var_diagonal),
            np.ones(n_features),
            float(var_diagonal.sum()),
            {"off": off_part},
        ),
        "spherical": _Structure(
            "spherical",
            np.array([mu]),
            np.array([np.sqrt(var_mu)]),
            np.array([float(n_features)]),
            n_features * var_mu,
            {"off": off_part, "spread": spread_part},
        ),
    }


def _choose(candidates, offsets):
    """The structure of least perturbed ``log2`` loss, and the choice's cost.

    Each loss is compared in ``log2`` after adding ``_CHOICE_BAND`` times a
    shared uniform offset. Two runs choose differently when the gap between
    the winner and another candidate moves across zero; the gap moves by about
    ``spread`` (``E|Delta|`` of the difference of their ``log2`` losses between
    runs, from the sampling variances of the bias terms), which costs about
    ``spread / _CHOICE_BAND`` when the gap is within four spreads.
    """
    scores = {
        name: np.log2(candidate.loss) + _CHOICE_BAND * offset
        for (name, candidate), offset in zip(candidates.items(), offsets, strict=True)
    }
    best = min(scores, key=scores.get)
    cost = 0.0
    for name, score in scores.items():
        if name == best:
            continue
        spread = _log2_loss_spread(candidates[best], candidates[name])
        if abs(score - scores[best]) < 4.0 * spread + 1e-12:
            cost += min(1.0, spread / _CHOICE_BAND)
    return best, cost


def _log2_loss_spread(a, b):
    """``E|Delta (log2 L_a - log2 L_b)|`` between two runs (delta method).

    The bias terms carry the noise of the losses; a term that both share
    cancels in proportion to the two losses.
    """
    variance = np.float64(0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        for part in set(a.bias_parts) | set(b.bias_parts):
            sd = np.sqrt(np.float64((a.bias_parts.get(part) or b.bias_parts[part])[1]))
            if sd == 0:
                continue
            term = (sd / a.loss if part in a.bias_parts else 0.0) - (
                sd / b.loss if part in b.bias_parts else 0.0
            )
            variance += term * term
    return float(EXPECTED_ABS_DIFF_PER_SE * np.sqrt(variance) / np.log(2))


class _InMemoryData:
    """The statistics ``_fit_scaled`` needs, from an in-memory array."""

    def __init__(self, X):
        self.X = X
        self.n_samples, self.n_features = X.shape

    def mean(self):
        return self.X.mean(axis=0)

    def moments(self, centre):
        return _product_moments(self.X, centre)

    def width_costs(self, centre, moments):
        """Estimated chance that each log2-rounded width rounds apart."""
        weights = np.ones(self.n_samples)
        terms = _structure_terms(self.X, centre, moments["second"])
        terms["location"] = moments["location_terms"]
        return {
            name: log2_width_disagreement(weights, values)
            for name, values in terms.items()
        }


class _BlockwiseData:
    """The statistics ``_fit_scaled`` needs, blockwise from a Dask array.

    Passes over the data: one here (count, sums, largest magnitude), one for
    the moments about the centre, one for the structures' width costs (auto
    width only), and one more for data of extreme magnitude.
    """

    def __init__(self, X):
        self.X = X
        self.n_features = X.shape[1]
        first = reduce_blocks(_first_pass, [X], ["X"])
        self.n_samples = first["count"]
        self.peak = float(first["max_abs"])
        self._sum = first["sum"]
        self.exponent = 0

    def scale_by_power_of_two(self, offset):
        """Work in units of ``2**exponent`` (exact) from now on."""
        self.exponent = magnitude_exponent_blockwise(self.X, self.peak, offset)
        return self.exponent

    def mean(self):
        return np.ldexp(self._sum, -self.exponent) / self.n_samples

    def moments(self, centre):
        sums = reduce_blocks(
            _moment_sums, [self.X], ["X"], args=(self.exponent, centre, self.mean())
        )
        n = self.n_samples
        return {
            "second": sums["second"] / n,
            "fourth": sums["fourth"] / n,
            "variance": sums["variance"] / n,
            "location_sums": (sums["location"], sums["location_sq"]),
        }

    def width_costs(self, centre, moments):
        """Estimated chance that each log2-rounded width rounds apart."""
        sums = reduce_blocks(
            _structure_term_sums,
            [self.X],
            ["X"],
            args=(self.exponent, centre, moments["second"]),
        )
        costs = {
            name: log2_width_disagreement_from_sums(
                self.n_samples, sums[name], sums[f"{name}_sq"]
            )
            for name in STRUCTURES
        }
        costs["location"] = log2_width_disagreement_from_sums(
            self.n_samples, *moments["location_sums"]
        )
        return costs


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


def _first_pass(X):
    return {"count": float(len(X)), "sum": X.sum(axis=0), "max_abs": np.abs(X).max()}


def _moment_sums(X, exponent, centre, mean):
    """One block's ``_product_moments`` as sums (location terms: sum, squares)."""
    if exponent:
        X = np.ldexp(X, -exponent)
    Z = X - centre
    Z2 = Z * Z
    dev = (X - mean) ** 2
    location_terms = dev.sum(axis=1)
    return {
        "second": Z.T @ Z,
        "fourth": Z2.T @ Z2,
        "variance": dev.sum(axis=0),
        "location": location_terms.sum(),
        "location_sq": location_terms @ location_terms,
    }


def _structure_term_sums(X, exponent, centre, second):
    if exponent:
        X = np.ldexp(X, -exponent)
    sums = {}
    for name, terms in _structure_terms(X, centre, second).items():
        sums[name] = terms.sum()
        sums[f"{name}_sq"] = terms @ terms
    return sums


def _product_moments(X, centre, block=4096):
    """Second and fourth moments of the products ``z_j z_k``, by row blocks.

    With ``Z = X - centre``: ``second = Z^T Z / n``, ``fourth = (Z*Z)^T (Z*Z) / n``
    (the mean of ``z_j^2 z_k^2``), the variances of the columns around their
    mean and the per-row terms ``sum_j (x_j - mean_j)^2``. Memory: one block of
    rows and a few ``d x d`` matrices.
    """
    n_samples, n_features = X.shape
    mean = X.mean(axis=0)
    second = np.zeros((n_features, n_features))
    fourth = np.zeros((n_features, n_features))
    variance = np.zeros(n_features)
    location_terms = np.empty(n_samples)
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        Z = X[rows] - centre
        second += Z.T @ Z
        Z2 = Z * Z
        fourth += Z2.T @ Z2
        dev = (X[rows] - mean) ** 2
        variance += dev.sum(axis=0)
        location_terms[rows] = dev.sum(axis=1)
    return {
        "second": second / n_samples,
        "fourth": fourth / n_samples,
        "variance": variance / n_samples,
        "location_terms": location_terms,
    }


def _structure_terms(X, centre, second, block=4096):
    """Per-row terms whose sums the structures' widths follow.

    Full: ``sum_{j<=k} (z_j z_k - S_jk)^2`` without the products array, from
    ``sum z_j^2 z_k^2 = ((sum_j z_j^2)^2 + sum_j z_j^4) / 2``,
    ``sum z_j z_k S_jk = (z^T S z + sum_j z_j^2 S_jj) / 2`` and
    ``sum S_jk^2 = (||S||_F^2 + sum_j S_jj^2) / 2`` over the upper triangle.
    Diagonal: ``sum_j (z_j^2 - S_jj)^2``. Spherical: ``(||z||^2 / d - mu)^2``.
    """
    n_samples, n_features = X.shape
    diag = np.diag(second)
    mu = diag.mean()
    constant = 0.5 * (np.sum(second * second) + np.sum(diag * diag))
    terms = {name: np.empty(n_samples) for name in STRUCTURES}
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        Z = X[rows] - centre
        Z2 = Z * Z
        squares = Z2.sum(axis=1)
        quartic = 0.5 * (squares**2 + (Z2 * Z2).sum(axis=1))
        cross = 0.5 * (np.einsum("ij,ij->i", Z @ second, Z) + Z2 @ diag)
        terms["full"][rows] = np.maximum(quartic - 2.0 * cross + constant, 0.0)
        terms["diag"][rows] = ((Z2 - diag) ** 2).sum(axis=1)
        terms["spherical"][rows] = (squares / n_features - mu) ** 2
    return terms


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


def _project_psd(matrix):
    """Clip negative eigenvalues; a PSD input is returned unchanged (on grid)."""
    eigval, eigvec = linalg.eigh(matrix)
    if eigval.min() >= 0:
        return matrix
    projected = (eigvec * np.clip(eigval, 0.0, None)) @ eigvec.T
    return (projected + projected.T) / 2


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
