"""Maximum pseudolikelihood for the inverse temperature of a truncated Ising model."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import warn_user
from ..utils._compat import Interval, _fit_context
from ._cnf import check_cnf
from ._coupling import check_coupling

# A local field below this (relative to the largest row sum of |A|) is zero:
# sums such as 1/3 + 1/3 - 1/3 - 1/3 are not exactly 0 in floating point.
_ZERO_FIELD = 1e-10


def _log_2cosh(x):
    """``log(2 cosh(x))`` without overflow."""
    x = np.abs(x)
    return x + np.log1p(np.exp(-2.0 * x))


class PseudoLikelihoodIsing(BaseEstimator):
    """Inverse temperature of a (CNF-truncated) Ising model from one sample.

    Implements the maximum pseudolikelihood estimate (MPLE) of "Learning the
    Inverse Temperature of Ising Models under Hard Constraints using One Sample"
    (Rohan Chauhan and Ioannis Panageas, ICLR 2026, arXiv:2509.20993). One
    configuration of ``n`` spins on a known graph, drawn from an Ising model
    restricted to the satisfying assignments ``S`` of a k-CNF formula, gives a
    consistent estimate of ``beta`` at rate ``O(Delta^3 / sqrt(n))``.

    Parameters
    ----------
    coupling : {array-like, sparse matrix} of shape (n_vertices, n_vertices), \
            default=None
        Symmetric coupling matrix ``A`` with zero diagonal (the paper uses
        ``A_ij = +-1/Delta`` on the edges of a graph of maximum degree
        ``Delta``). ``None`` is the Curie-Weiss model: the complete graph on the
        columns of ``X`` with ``A_ij = 1 / (n_vertices - 1)``.
    clauses : array-like of shape (n_clauses, k) or sequence of sequences of \
            int, default=None
        The CNF whose satisfying assignments ``S`` the model is truncated to, in
        DIMACS literal convention: variable ``v`` is column ``v - 1`` and the
        literal ``+v`` (``-v``) is true when that spin is +1 (-1). Clauses may
        have different lengths. Use :func:`sklearn_iclr.datasets.read_dimacs_cnf`
        for a DIMACS file. ``None`` means no truncation (a plain Ising model).
    beta_bound : float, default=10.0
        The estimate is searched in ``[-beta_bound, beta_bound]``. When the
        MPLE lies outside (it is infinite when every informative flippable spin
        agrees, or disagrees, with its field) the bound is returned,
        ``at_bound_`` is set and a warning is issued.
    binarize : float or None, default=0.0
        Threshold mapping ``X > binarize`` to spin +1 and the rest to -1, as in
        :class:`~sklearn.naive_bayes.BernoulliNB`. ``None`` means ``X`` must
        already hold only -1 and +1.
    tol : float, default=1e-10
        Newton stops when a step changes ``beta`` by less than
        ``tol * (|beta| + 1 / max|m|)``, with ``m`` the local fields: relative
        to ``beta`` and, near ``beta = 0``, to the scale ``1 / max|m|`` that
        ``beta`` has for these fields, so the rule does not depend on the
        units of the coupling.
    max_iter : int, default=100
        Maximum number of safeguarded Newton steps.
    verbose : int, default=0
        Print the Newton iterations when positive.

    Attributes
    ----------
    beta_ : float
        The maximum pseudolikelihood estimate of ``beta`` (clipped to
        ``[-beta_bound, beta_bound]``).
    beta_stderr_ : float
        Curvature (observed information) standard error
        ``1 / sqrt(-l''(beta_))``; ``nan`` when ``at_bound_``. See Notes for
        its status: it treats the spins' conditionals as independent.
    at_bound_ : bool
        True when the MPLE is not inside ``(-beta_bound, beta_bound)``.
    n_flippable_ : ndarray of shape (n_samples,)
        Number of flippable spins in each row of ``X``.
    n_iter_ : int
        Newton (or bisection) steps taken; 0 when the estimate is at a bound.
    loss_curve_ : list of float
        The objective minimised, the negative mean log-pseudolikelihood
        (``-score(X)`` on the training rows), at the ``beta`` every step
        starts from: ``n_iter_`` values, the first at ``beta = 0``.
    n_features_in_ : int
        Number of vertices (columns of ``X``) seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit. Defined only when ``X`` has feature
        names that are all strings.

    See Also
    --------
    sklearn_iclr.datasets.make_truncated_ising : Sample the model by Glauber
        dynamics restricted to ``S``.

    Notes
    -----
    The model counts each edge once, ``P(sigma) ~ exp(beta sum_{i<j} A_ij
    sigma_i sigma_j) 1[sigma in S]`` (``beta_paper = beta / 2`` in the paper's
    ``sigma^T A sigma`` form). Only *flippable* spins, whose flip keeps every
    clause satisfied, carry information; the estimate maximises their concave
    log-pseudolikelihood by Newton steps inside a bisection bracket on
    ``[-beta_bound, beta_bound]``. The MPLE is finite iff some informative spin
    is aligned with its field and some anti-aligned; otherwise ``at_bound_`` is
    set and ``fit`` warns. With no informative spin ``fit`` raises.

    ``beta_stderr_`` is the curvature standard error; it ignores the dependence
    between neighbouring conditionals and can be ``sqrt(2)`` too small (at
    ``beta = 0`` on a regular graph): an order of magnitude, not a calibrated
    interval. :meth:`score` is the full log-pseudolikelihood.

    The derivations are in the user guide (:ref:`pseudolikelihood-ising-details`).


    References
    ----------
    .. [1] R. Chauhan and I. Panageas, "Learning the Inverse Temperature of Ising
       Models under Hard Constraints using One Sample", ICLR 2026,
       arXiv:2509.20993.
    .. [2] S. Chatterjee, "Estimation in spin glasses: a first step", Annals of
       Statistics 35(5), 2007.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_regular_coupling, make_truncated_ising
    >>> from sklearn_iclr.graphical import PseudoLikelihoodIsing
    >>> A = make_regular_coupling(10_000, 3, random_state=0)
    >>> X = make_truncated_ising(A, beta=0.8, n_sweeps=100, random_state=0)
    >>> est = PseudoLikelihoodIsing(coupling=A).fit(X)
    >>> print(f"{est.beta_:.1f}")
    0.8
    >>> bool(abs(est.beta_ - 0.8) < 3 * est.beta_stderr_)
    True
    """

    _parameter_constraints = {
        "coupling": ["array-like", "sparse matrix", None],
        "clauses": ["array-like", None],
        "beta_bound": [Interval(Real, 0, None, closed="neither")],
        "binarize": [Interval(Real, None, None, closed="neither"), None],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        coupling=None,
        *,
        clauses=None,
        beta_bound=10.0,
        binarize=0.0,
        tol=1e-10,
        max_iter=100,
        verbose=0,
    ):
        self.coupling = coupling
        self.clauses = clauses
        self.beta_bound = beta_bound
        self.binarize = binarize
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Estimate ``beta`` from configurations.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_vertices)
            Each row is one configuration (binarized with ``binarize``). One
            row is the paper's setting; several rows add their
            pseudolikelihoods.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X = validate_data(self, X, dtype=np.float64)
        spins = self._spins(X)
        fields, flippable = self._fields(spins)
        self.n_flippable_ = flippable.sum(axis=1)
        informative = flippable & (fields != 0)
        if not informative.any():
            raise ValueError(
                "beta is not identifiable: no row of X has a flippable spin with a "
                "non-zero local field (every spin is fixed by the clauses or has "
                "neighbours that cancel). Provide more vertices or samples, or "
                "fewer clauses."
            )
        # Solve for b = beta * field_scale on fields of largest magnitude 1:
        # scaling the coupling by c scales beta by 1 / c, and the Newton steps,
        # curvature and stopping rule are then the same at any c.
        m = fields[informative]
        field_scale = float(np.max(np.abs(m)))
        m = m / field_scale
        sm = spins[informative] * m
        b, losses, self.at_bound_ = self._solve(sm, m, field_scale)
        self.beta_ = b / field_scale
        self.n_iter_ = len(losses)
        # -score(X): the informative spins' losses, plus log 2 for every
        # flippable spin with a zero field, per row.
        zero_field = np.log(2.0) * np.count_nonzero(flippable & (fields == 0))
        self.loss_curve_ = [float((loss + zero_field) / len(X)) for loss in losses]
        if self.at_bound_:
            self.beta_stderr_ = np.nan
        else:
            info = np.dot(m * m, 1.0 - np.tanh(b * m) ** 2)
            self.beta_stderr_ = float(1.0 / (np.sqrt(info) * field_scale))
        return self

    def score_samples(self, X):
        """Log-pseudolikelihood of each configuration at ``beta_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_vertices)
            Configurations; each must satisfy the clauses.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``sum_i log P(sigma_i | rest)`` over the flippable spins of each row.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        spins = self._spins(X)
        fields, flippable = self._fields(spins)
        x = self.beta_ * fields
        return np.where(flippable, spins * x - _log_2cosh(x), 0.0).sum(axis=1)

    def score(self, X, y=None):
        """Mean log-pseudolikelihood per configuration at ``beta_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_vertices)
            Configurations; each must satisfy the clauses.
        y : None
            Ignored.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        return float(np.mean(self.score_samples(X)))

    def _spins(self, X):
        if self.binarize is not None:
            return np.where(X > self.binarize, 1.0, -1.0)
        bad = (X != 1) & (X != -1)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(
                f"With binarize=None, X must contain only -1 and +1; X[{row}, "
                f"{col}] = {float(X[row, col])!r}. Set binarize to a threshold "
                "(e.g. 0.0) to map X > threshold to +1 and the rest to -1."
            )
        return X

    def _fields(self, spins):
        """Local fields and flippable mask, both of shape (n_samples, n_vertices)."""
        n = spins.shape[1]
        cnf = check_cnf(self.clauses, n)
        flippable = cnf.flippable(spins.astype(np.int8), what="row")
        if self.coupling is None:
            if n < 2:
                raise ValueError(
                    "The Curie-Weiss coupling (coupling=None) needs at least 2 "
                    f"vertices; got n_features = {n}. Pass X with more columns or "
                    "an explicit coupling."
                )
            fields = (spins.sum(axis=1, keepdims=True) - spins) / (n - 1)
            scale = 1.0
        else:
            A = check_coupling(self.coupling, n)
            fields = np.asarray(A @ spins.T).T
            scale = max(float(abs(A).sum(axis=1).max()) if A.nnz else 0.0, 1e-300)
        fields[np.abs(fields) <= _ZERO_FIELD * scale] = 0.0
        return fields, flippable

    def _solve(self, sm, m, field_scale):
        """Root of l'(b) for fields ``m`` of largest magnitude 1.

        ``b = beta * field_scale`` is searched in ``field_scale * [-beta_bound,
        beta_bound]``. Returns ``(b, losses, at_bound)``, ``losses`` the
        negative log-pseudolikelihood ``-l(b)`` of the informative spins at
        the ``b`` every step starts from.
        """
        bound = float(self.beta_bound)
        b_bound = bound * field_scale
        total = sm.sum()
        losses = []

        def derivatives(b):
            t = np.tanh(b * m)
            return total - np.dot(m, t), np.dot(m * m, 1.0 - t * t)

        if not np.any(sm < 0) or not np.any(sm > 0):
            side = "aligned with" if np.all(sm > 0) else "anti-aligned with"
            beta = bound if np.all(sm > 0) else -bound
            warn_user(
                f"Every informative flippable spin is {side} its local field, so "
                f"the MPLE is {'+' if beta > 0 else '-'}infinity; returning "
                f"beta_ = {beta} (at_bound_=True). More vertices or samples are "
                "needed to resolve beta.",
                UserWarning,
            )
            return beta * field_scale, losses, True
        lo, hi = -b_bound, b_bound
        for b, inside in ((hi, lambda g: g < 0), (lo, lambda g: g > 0)):
            if not inside(derivatives(b)[0]):
                warn_user(
                    f"The MPLE lies outside [-{bound}, {bound}]; returning beta_ = "
                    f"{b / field_scale} (at_bound_=True). Increase beta_bound.",
                    UserWarning,
                )
                return b, losses, True
        b = 0.0
        for n_iter in range(1, self.max_iter + 1):
            grad, curvature = derivatives(b)
            losses.append(float(np.sum(_log_2cosh(b * m)) - b * total))
            if grad == 0:
                return b, losses, False
            if grad > 0:
                lo = b
            else:
                hi = b
            new = b + grad / curvature
            if not lo < new < hi:
                new = 0.5 * (lo + hi)
            if self.verbose:
                print(
                    f"[PseudoLikelihoodIsing] iter {n_iter}: "
                    f"beta={b / field_scale:.10g} l'={grad:.4g} bracket="
                    f"[{lo / field_scale:.6g}, {hi / field_scale:.6g}]"
                )
            converged = abs(new - b) <= self.tol * (abs(b) + 1.0)
            b = new
            if converged:
                return b, losses, False
        warn_user(
            f"Newton did not converge in max_iter={self.max_iter} steps; the "
            f"bracket is [{lo / field_scale:.6g}, {hi / field_scale:.6g}]. "
            "Increase max_iter or tol.",
            ConvergenceWarning,
        )
        return b, losses, False
