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
    lattice_width,
    log2_width_disagreement,
    magnitude_exponent,
    rounding_budget,
    shared_offsets,
)
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._dask import any_dask, reduce_blocks, validate_dask_data

# The failure budget's calibration (user guide, "The replicable failure
# budget"): the design spends half of rho in expectation (the lemma is an
# expectation over the offsets and the standard errors are estimates), and each
# data-driven width reserves RESERVE_PER_WIDTH / sqrt(n). The widths follow the
# entries' fourth moments, whose log2 moved between runs by about 1.15 / sqrt(n)
# per width for Gaussian data and 2 / sqrt(n) for Student-t(8) features.
DESIGN_SHARE = 0.5
RESERVE_PER_WIDTH = 1.5
# Smallest magnitude of the lattice scale for all-zero entries.
FLOOR_MAGNITUDE = 1e-300
# Share of the budget left after the widths that rounds the location (when it
# is estimated); the covariance entries get the rest.
_LOCATION_SHARE = 0.25
# Largest magnitude of X whose second moments (and their rounding grid) stay
# finite in float64: sqrt(max float) / 16.
_MAX_MAGNITUDE = float(np.sqrt(np.finfo(np.float64).max) / 16)


class ReplicableCovariance(EmpiricalCovariance):
    """Second-moment (or covariance) matrix that is replicable across samples.

    Implements R-UC-Cov-Estimation of "Replicable Reinforcement Learning with
    Linear Function Approximation" (Eaton, Hussing, Kearns, Roth, Sengupta and
    Sorrell; ICLR 2026; arXiv:2509.08660): form the empirical matrix
    ``S = (1/n) sum_i (x_i - m)(x_i - m)^T``, round its upper triangle
    (``m = d (d + 1) / 2`` entries) jointly to a randomly shifted lattice whose
    shift comes from the shared randomness (``random_state``; the ``E8``
    product lattice of :class:`~sklearn_iclr.ReplicableLinearRegressor`, or
    the paper's per-entry grid with ``rounding="cube"``), mirror it, and
    project it onto the PSD cone by clipping negative eigenvalues (the
    projection cannot move it further from the true, PSD, matrix). Two runs
    on independent samples with the same integer ``random_state`` return
    identical matrices unless a cell boundary falls between their entries:
    probability at most the expected number of lattice facets between the two
    (the cube's ``sum_{j<=k} |Delta_jk| / width``).

    Parameters
    ----------
    store_precision : bool, default=True
        Whether to store the precision matrix (pseudo-inverse of
        ``covariance_``).
    assume_centered : bool, default=True
        If True, estimate the uncentred second moment ``E[x x^T]`` (location
        zero); if False, centre at the replicably rounded mean.
    grid_width : "auto" or float, default="auto"
        Width of the grid of the matrix entries (and of the mean). ``"auto"``
        derives it from ``rho`` and the standard errors; a float is used as is
        and leaves ``rho`` unused.
    rho : float, default=0.05
        Bound, in (0, 1), on the probability that two runs on independent
        samples with the same ``random_state`` disagree (the auto rule designs
        for ``rho / 2`` in expectation).
    rounding : {"lattice", "cube"}, default="lattice"
        Quantizer of the upper triangle (and of the location): ``"lattice"``
        rounds it jointly to randomly shifted ``E8`` blocks and one remainder
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
    grid_width_ : float
        Scale of the lattice of the entries (the cell width for ``"cube"``).
    location_grid_width_ : float
        Scale of the lattice of the mean (``0.0`` when ``assume_centered=True``).
    disagreement_bound_ : float
        Predicted probability that a second run with the same ``random_state``
        on an independent sample differs (estimated from this sample).
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
    With ``assume_centered=True`` (the default, as in the paper) the estimate is
    the uncentred second moment ``E[x x^T]``; otherwise the mean is rounded on its
    own shared grid, so that it too is identical across runs.

    ``grid_width="auto"`` picks the widths from ``rho`` and the standard errors
    of the entries, rounded in ``log2`` on a shared grid; the estimated total
    disagreement is ``disagreement_bound_``. One width serves all entries, so put
    the features in comparable units first, with a data-independent
    transformation (a fitted scaler is not replicable).

    The moments are accumulated over row blocks with BLAS on one thread, so every
    attribute has the same bits whatever the thread setting. Entries above about
    ``8e152`` (whose second moments overflow float64) are refused.

    The width rule and its failure budget are in the user guide
    (:ref:`replicable-covariance-details`).


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
    ...     return np.random.default_rng(seed).multivariate_normal([0, 0], cov, 20000)
    >>> est = ReplicableCovariance(rho=0.1, random_state=3)
    >>> first = est.fit(sample(1)).covariance_
    >>> second = est.fit(sample(2)).covariance_
    >>> bool(np.array_equal(first, second))
    True
    >>> bool(np.abs(first - cov).max() < est.grid_width_)
    True
    """

    _parameter_constraints: dict = {
        **EmpiricalCovariance._parameter_constraints,
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
        grid_width="auto",
        rho=0.05,
        rounding="lattice",
        random_state=None,
    ):
        super().__init__(
            store_precision=store_precision, assume_centered=assume_centered
        )
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
        location, rounded, unrounded, width, location_width, bound = result
        self.location_ = np.ldexp(location, exponent)
        self._set_covariance(np.ldexp(rounded, 2 * exponent))
        self.covariance_unrounded_ = np.ldexp(unrounded, 2 * exponent)
        self.grid_width_ = float(np.ldexp(width, 2 * exponent))
        self.location_grid_width_ = float(np.ldexp(location_width, exponent))
        self.disagreement_bound_ = bound
        return self

    def _fit_scaled(self, data, upper, offsets):
        """Location, rounded and unrounded matrices, widths and bound, for X.

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
        second, fourth = moments["second"], moments["fourth"]
        entry_var = np.maximum(fourth - second**2, 0.0)[upper]
        entry_se = np.sqrt(entry_var / n_samples)
        width_cost, budget = 0.0, self.rho
        if auto:
            width_cost, budget = _width_cost_and_budget(
                data, centre, moments, self.rho, self.assume_centered
            )
        if self.assume_centered:
            location, location_width, location_cost = np.zeros(n_features), 0.0, 0.0
        else:
            location_budget = _LOCATION_SHARE * budget if auto else None
            location, location_width, location_cost = _round_location(
                mean,
                np.sqrt(moments["variance"] / n_samples),
                self.rounding,
                float(self.grid_width) if not auto else None,
                location_budget,
                offsets,
            )
            if auto:
                budget -= location_budget
        unrounded, rounded, width, entry_cost = _round_entries(
            data.second_moment(location, centre, moments),
            upper,
            entry_se,
            self.rounding,
            float(self.grid_width) if not auto else None,
            budget,
            offsets,
        )
        bound = float(min(1.0, width_cost + location_cost + entry_cost))
        return location, _project_psd(rounded), unrounded, width, location_width, bound

    def score(self, X_test, y=None):
        """Log-likelihood of ``X_test`` under the Gaussian with these moments.

        Parameters
        ----------
        X_test : array-like of shape (n_samples, n_features)
            Test data.
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        res : float
            The log-likelihood of ``X_test`` with ``location_`` and
            ``covariance_`` (``-inf`` if ``covariance_`` is singular).
        """
        check_is_fitted(self)
        return super().score(X_test, y)

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of ``X`` to ``location_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        dist : ndarray of shape (n_samples,)
            Squared distances under ``precision_``.
        """
        check_is_fitted(self)
        return super().mahalanobis(X)


class _InMemoryData:
    """The statistics ``_fit_scaled`` needs, from an in-memory array."""

    def __init__(self, X):
        self.X = X
        self.n_samples, self.n_features = X.shape

    def mean(self):
        return self.X.mean(axis=0)

    def moments(self, centre):
        return _product_moments(self.X, centre)

    def entry_width_cost(self, centre, second):
        terms = _entry_terms(self.X, centre, second)
        return log2_width_disagreement(np.ones(self.n_samples), terms)

    def location_width_cost(self, moments):
        terms = moments["location_terms"]
        return log2_width_disagreement(np.ones(self.n_samples), terms)

    def second_moment(self, location, centre, moments):
        """``(X - location)^T (X - location) / n``."""
        Z = self.X - location
        return Z.T @ Z / self.n_samples


class _BlockwiseData:
    """The statistics ``_fit_scaled`` needs, blockwise from a Dask array.

    Passes over the data: one here (count, sums, largest magnitude), one for
    the moments about the centre, one for the entries' width cost (auto
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

    def entry_width_cost(self, centre, second):
        sums = reduce_blocks(
            _entry_term_sums, [self.X], ["X"], args=(self.exponent, centre, second)
        )
        return log2_width_disagreement_from_sums(
            self.n_samples, sums["sum"], sums["sum_sq"]
        )

    def location_width_cost(self, moments):
        total, total_sq = moments["location_sums"]
        return log2_width_disagreement_from_sums(self.n_samples, total, total_sq)

    def second_moment(self, location, centre, moments):
        """About ``location``, from the moments about ``centre`` (no pass)."""
        shift = centre - location
        deviation = self.mean() - centre
        cross = np.outer(deviation, shift)
        return moments["second"] + cross + cross.T + np.outer(shift, shift)


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


def _entry_term_sums(X, exponent, centre, second):
    if exponent:
        X = np.ldexp(X, -exponent)
    terms = _entry_terms(X, centre, second)
    return {"sum": terms.sum(), "sum_sq": terms @ terms}


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


def _entry_terms(X, centre, second, block=4096):
    """Per-row ``sum_{j<=k} (z_j z_k - S_jk)^2`` without the products array.

    Over the upper triangle (diagonal included),
    ``sum z_j^2 z_k^2 = ((sum_j z_j^2)^2 + sum_j z_j^4) / 2``,
    ``sum z_j z_k S_jk = (z^T S z + sum_j z_j^2 S_jj) / 2`` and
    ``sum S_jk^2 = (||S||_F^2 + sum_j S_jj^2) / 2``.
    """
    n_samples = X.shape[0]
    diag = np.diag(second)
    constant = 0.5 * (np.sum(second * second) + np.sum(diag * diag))
    terms = np.empty(n_samples)
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        Z = X[rows] - centre
        Z2 = Z * Z
        squares = Z2.sum(axis=1)
        quartic = 0.5 * (squares**2 + (Z2 * Z2).sum(axis=1))
        cross = 0.5 * (np.einsum("ij,ij->i", Z @ second, Z) + Z2 @ diag)
        terms[rows] = np.maximum(quartic - 2.0 * cross + constant, 0.0)
    return terms


def _width_cost_and_budget(data, centre, moments, rho, assume_centered):
    """Chance that the data-driven widths round apart, and the budget left.

    One width for the entries, and one for the location when it is estimated,
    each with the policy's reserve (see :mod:`sklearn_iclr._replicable._rounding`).
    """
    n_samples = data.n_samples
    width_cost = data.entry_width_cost(centre, moments["second"])
    n_widths = 1
    if not assume_centered:
        width_cost += data.location_width_cost(moments)
        n_widths = 2
    reserve = RESERVE_PER_WIDTH * n_widths / np.sqrt(n_samples)
    return width_cost, rounding_budget(rho, reserve, DESIGN_SHARE)


def _round_location(mean, mean_se, rounding, width, budget, offsets):
    """The mean rounded on its shared lattice, the lattice scale and its cost.

    ``width`` is the fixed scale, or None to pick it from ``budget``.
    """
    lattice = shifted_lattice(len(mean), rounding)
    if width is None:
        width = _lattice_width(
            lattice, mean_se, budget, offsets["location_width"][0], np.abs(mean).max()
        )
    location = lattice.round(mean, width, offsets["location"])
    return location, width, lattice.expected_crossing_rate(mean_se, width)


def _round_entries(unrounded, upper, entry_se, rounding, width, budget, offsets):
    """The rounding of the second-moment matrix ``unrounded``.

    ``width`` is the fixed scale, or None to pick it from ``budget``. Returns
    the unrounded matrix, the rounded symmetric one (before the PSD
    projection), the lattice scale and the expected crossing rate.
    """
    n_features = len(unrounded)
    lattice = shifted_lattice(len(upper[0]), rounding)
    if width is None:
        width = _lattice_width(
            lattice,
            entry_se,
            budget,
            offsets["entries_width"][0],
            np.abs(unrounded).max(),
        )
    rounded = np.zeros((n_features, n_features))
    rounded[upper] = lattice.round(unrounded[upper], width, offsets["entries"])
    rounded = rounded + np.triu(rounded, 1).T
    return unrounded, rounded, width, lattice.expected_crossing_rate(entry_se, width)


def _lattice_width(lattice, standard_errors, budget, offset, magnitude):
    """Lattice scale whose expected crossing rate is ``budget``, rounded in log2."""
    width, _ = lattice_width(
        lattice.expected_crossing_rate(standard_errors, 1.0),
        budget,
        offset,
        magnitude,
        FLOOR_MAGNITUDE,
    )
    return width


def _project_psd(matrix):
    """Clip negative eigenvalues; a PSD input is returned unchanged (on grid)."""
    eigval, eigvec = linalg.eigh(matrix)
    if eigval.min() >= 0:
        return matrix
    projected = (eigvec * np.clip(eigval, 0.0, None)) @ eigvec.T
    return (projected + projected.T) / 2
