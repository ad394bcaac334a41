"""Replicable covariance: the empirical matrix rounded on shared random grids."""

from numbers import Real

import numpy as np
from scipy import linalg
from sklearn.base import _fit_context
from sklearn.covariance import EmpiricalCovariance
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._rounding import (
    EXPECTED_ABS_DIFF_PER_SE,
    RESERVE_PER_WIDTH,
    auto_grid_width,
    log2_width_disagreement,
    round_to_grid,
    rounding_budget,
    shared_offsets,
)

# Share of the budget left after the widths that rounds the location (when it
# is estimated); the covariance entries get the rest.
_LOCATION_SHARE = 0.25


class ReplicableCovariance(EmpiricalCovariance):
    """Second-moment (or covariance) matrix that is replicable across samples.

    Implements R-UC-Cov-Estimation of "Replicable Reinforcement Learning with
    Linear Function Approximation" (Eaton, Hussing, Kearns, Roth, Sengupta and
    Sorrell; ICLR 2026; arXiv:2509.08660): form the empirical matrix
    ``S = (1/n) sum_i (x_i - m)(x_i - m)^T``, round its upper triangle to the
    midpoints of a grid whose offsets come from the shared randomness
    (``random_state``), mirror it, and project it onto the PSD cone by clipping
    negative eigenvalues (the projection cannot move it further from the true,
    PSD, matrix). Two runs on independent samples with the same integer
    ``random_state`` return identical matrices unless a grid boundary falls
    between their entries: probability at most ``sum_{j<=k} |Delta_jk| / width``.

    With ``assume_centered=True`` (the default, as in the paper) ``m = 0`` and
    the estimate is the uncentred second moment ``E[x x^T]``. Otherwise the
    location ``m`` is the mean rounded on its own shared grid, so that it too is
    identical across runs.

    ``grid_width="auto"`` picks the widths from ``rho`` and the standard errors
    of the entries (and of the mean): the width of the entries is
    ``(2/sqrt(pi)) sum_{j<=k} se_jk / budget`` (``2 se / sqrt(pi)`` is the
    expected run-to-run difference of an entry), rounded in ``log2`` on a shared
    grid. The budget is the design target ``rho / 2`` (the other half of
    ``rho`` is a margin for the approximations) minus a reserve of
    ``1.5 / sqrt(n)`` per data-driven width (for the chance that the rounded
    widths differ); with a location, a quarter of it goes to the mean. The
    estimated total is ``disagreement_bound_``. One width serves all entries,
    so put the features in comparable units first (with a data-independent
    transformation; a fitted scaler is not replicable).

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
        Width of the grid of the entries.
    location_grid_width_ : float
        Width of the grid of the mean (``0.0`` when ``assume_centered=True``).
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
    >>> est = ReplicableCovariance(rho=0.1, random_state=0)
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
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        store_precision=True,
        assume_centered=True,
        grid_width="auto",
        rho=0.05,
        random_state=None,
    ):
        super().__init__(
            store_precision=store_precision, assume_centered=assume_centered
        )
        self.grid_width = grid_width
        self.rho = rho
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Estimate the matrix and round it on the shared grids.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (finite).
        y : Ignored
            Not used, present for API consistency by convention.

        Returns
        -------
        self : object
            The fitted estimator.
        """
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
            },
        )
        ones = np.ones(n_samples)
        mean = X.mean(axis=0)
        location_terms = (X - mean) ** 2
        auto = self.grid_width == "auto"
        # The entries' standard errors depend on the location only through a
        # shift of order se(mean); compute them around the mean.
        products = _upper_products(X - (0.0 if self.assume_centered else mean), upper)
        entry_se = np.sqrt(products.var(axis=0) / n_samples)
        width_cost, budget = 0.0, self.rho
        if auto:
            entry_terms = ((products - products.mean(axis=0)) ** 2).sum(axis=1)
            width_cost = log2_width_disagreement(ones, entry_terms)
            n_widths = 1
            if not self.assume_centered:
                width_cost += log2_width_disagreement(ones, location_terms.sum(1))
                n_widths = 2
            reserve = RESERVE_PER_WIDTH * n_widths / np.sqrt(n_samples)
            budget = rounding_budget(self.rho, reserve)

        if self.assume_centered:
            location, location_width, location_cost = np.zeros(n_features), 0.0, 0.0
        else:
            mean_se = np.sqrt(location_terms.mean(axis=0) / n_samples)
            if auto:
                location_budget = _LOCATION_SHARE * budget
                location_width = auto_grid_width(
                    mean_se,
                    location_budget,
                    offsets["location_width"][0],
                    np.abs(mean).max(),
                )
                budget -= location_budget
            else:
                location_width = float(self.grid_width)
            location = round_to_grid(mean, location_width, offsets["location"])
            location_cost = EXPECTED_ABS_DIFF_PER_SE * mean_se.sum() / location_width

        Z = X - location
        unrounded = Z.T @ Z / n_samples
        width = (
            auto_grid_width(
                entry_se,
                budget,
                offsets["entries_width"][0],
                np.abs(unrounded).max(),
            )
            if auto
            else float(self.grid_width)
        )
        rounded = np.zeros((n_features, n_features))
        rounded[upper] = round_to_grid(unrounded[upper], width, offsets["entries"])
        rounded = rounded + np.triu(rounded, 1).T

        self.location_ = location
        self._set_covariance(_project_psd(rounded))
        self.covariance_unrounded_ = unrounded
        self.grid_width_ = float(width)
        self.location_grid_width_ = float(location_width)
        entry_cost = EXPECTED_ABS_DIFF_PER_SE * entry_se.sum() / width
        self.disagreement_bound_ = float(
            min(1.0, width_cost + location_cost + entry_cost)
        )
        return self

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


def _upper_products(Z, upper):
    """Per-sample products ``z_j z_k`` for the upper-triangle pairs."""
    return Z[:, upper[0]] * Z[:, upper[1]]


def _project_psd(matrix):
    """Clip negative eigenvalues; a PSD input is returned unchanged (on grid)."""
    eigval, eigvec = linalg.eigh(matrix)
    if eigval.min() >= 0:
        return matrix
    projected = (eigvec * np.clip(eigval, 0.0, None)) @ eigvec.T
    return (projected + projected.T) / 2
