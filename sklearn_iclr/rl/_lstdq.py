"""LSTDQ: linear off-policy evaluation with the feature-dynamics coverage."""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ..utils import warn_user
from ..utils._compat import Interval, _fit_context
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

# Above this condition number the linear system A theta = b is solved in the
# least-squares sense (minimum norm), dropping the singular directions: a direct
# float64 solve would carry a relative error of about 1e-4 or worse.
MAX_CONDITION_NUMBER = 1e12

# Feature and reward magnitudes accepted: the sums of products of up to about
# 1e8 transitions stay finite (and the squares of features stay normal floats).
MAX_MAGNITUDE = 1e150
MIN_MAGNITUDE = 1e-150

# Rows of the weighted features formed at a time for the sandwich's sum of
# squares (a slab of 4096 x 64 float64 is 2 MiB).
SLAB_ROWS = 4096


class LSTDQEvaluator(RegressorMixin, BaseEstimator):
    """Least-squares temporal-difference Q evaluation (LSTDQ) of a target policy.

    Estimates the action-value function ``Q^pi(s, a) = phi(s, a)^T theta`` of a
    target policy ``pi`` from logged transitions ``(s, a, r, s')`` gathered by
    any behaviour policy, and from it the policy value ``J(pi)``, a standard
    error, and the feature-dynamics coverage that says how far the data
    support the estimate. This is the estimator analysed in "A Unifying View of
    Coverage in Linear Off-Policy Evaluation" (Amortila, Huang, Krishnamurthy
    and Jiang, ICLR 2026, arXiv:2601.19030).

    Parameters
    ----------
    gamma : float, default=0.9
        Discount factor, in [0, 1): the horizon ``1 / (1 - gamma)`` over which
        rewards are summed (the default is that of the package's MDP
        generators, which return the ``gamma`` of their exact value).
    alpha : float, default=0.0
        Ridge penalty on ``theta`` (not on the intercept), on the scale of
        :class:`~sklearn.linear_model.Ridge`: the penalty is ``alpha`` against
        the unnormalised sums. Set ``alpha > 0`` when ``A`` is singular
        (otherwise the minimum-norm solution is used, with a warning).
    fit_intercept : bool, default=False
        Append a constant feature to ``X`` and ``X_next`` (and ``X_init``).
        The constant of ``X_next`` is 1 even on zero rows, so with an
        intercept a zero row no longer marks a terminal transition; use your
        own constant column, zero at terminal states, instead.
    compute_standard_error : bool, default=True
        Whether :meth:`fit` makes the second pass over the data that the
        standard error needs (the TD residuals at the fitted ``coef_``, see
        :meth:`accumulate_residuals`). False fits in one pass, which halves
        the reads of an out-of-core Dask source; ``estimate_value(...,
        return_std=True)`` then needs :meth:`accumulate_residuals` first.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        ``theta``, the weights of the linear Q-function.
    intercept_ : float
        The constant of the Q-function; 0.0 when ``fit_intercept=False``.
    lstdq_matrix_ : ndarray of shape (n_params, n_params)
        The LSTDQ matrix ``A`` (without the ridge term); ``n_params`` is
        ``n_features + fit_intercept``, the constant feature last.
    b_ : ndarray of shape (n_params,)
        ``b``, the mean of ``phi_i r_i``.
    second_moment_ : ndarray of shape (n_params, n_params)
        The feature second-moment matrix ``Sigma``.
    condition_number_ : float
        Condition number (2-norm) of ``A + (alpha / W) I``, the matrix solved.
    rank_ : int
        Numerical rank of ``A + (alpha / W) I``: the number of its singular
        values above ``1e-12`` times the largest. Below ``n_params`` the fit
        is the minimum-norm least-squares solution.
    second_moment_condition_number_ : float
        Condition number (2-norm) of ``Sigma``.
    n_samples_seen_ : int
        Number of transitions accumulated by ``fit`` / ``partial_fit``.
    n_features_in_ : int
        Number of features seen during the first ``fit`` / ``partial_fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.datasets.make_linear_mdp_dataset : Linear MDP data, exact value.
    sklearn_iclr.datasets.make_tabular_mdp : Tabular MDP data with the exact value.

    Notes
    -----
    With features ``phi_i`` (``X``), rewards ``r_i`` (``y``), next features
    under the target policy ``phi'_i`` (``X_next``; zeros when terminal) and
    weights ``w_i``: ``A = sum w_i phi_i (phi_i - gamma phi'_i)^T / W``,
    ``b = sum w_i phi_i r_i / W``, ``theta = (A + (alpha / W) I)^{-1} b`` and
    ``J = phibar_0^T theta`` with ``phibar_0`` the mean of ``X_init``. With
    ``gamma = 0`` this is ridge regression of the reward on Ridge's ``alpha``
    scale. The standard error of ``J`` is about ``sigma sqrt(C / n) / (1 -
    gamma)``, with ``C`` the coverage.

    ``partial_fit`` on chunks gives what ``fit`` gives on their concatenation up
    to floating-point rounding (the sums are ordered differently), so logs larger
    than memory can be processed; the sandwich standard error needs a second pass
    (:meth:`accumulate_residuals`), which :meth:`fit` does itself (unless
    ``compute_standard_error=False``). ``X_next``
    reaches ``fit`` and ``score`` in a ``Pipeline`` through metadata routing, but
    steps before the evaluator do not transform it: preprocess it by hand.
    Magnitudes above ``1e150`` are refused; rescaling the features loses nothing.

    The formulas of ``C`` and of the sandwich error are in the user guide
    (:ref:`lstdq-details`).


    References
    ----------
    P. Amortila, A. Huang, A. Krishnamurthy and N. Jiang, "A Unifying View of
    Coverage in Linear Off-Policy Evaluation", ICLR 2026, arXiv:2601.19030.

    M. G. Lagoudakis and R. Parr, "Least-Squares Policy Iteration", JMLR 4,
    2003 (LSTDQ).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_tabular_mdp
    >>> from sklearn_iclr.rl import LSTDQEvaluator
    >>> X, y, X_next, X_init, value, gamma = make_tabular_mdp(
    ...     2000, n_states=3, gamma=0.5, random_state=0)
    >>> est = LSTDQEvaluator(gamma=gamma).fit(X, y, X_next=X_next)
    >>> J, se = est.estimate_value(X_init, return_std=True)
    >>> print(f"true {value:.3f}, estimate {J:.3f} +- {se:.3f}")
    true 1.614, estimate 1.623 +- 0.007
    >>> print(f"coverage {est.coverage(X_init):.2f}")
    coverage 1.51
    """

    _parameter_constraints = {
        "gamma": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "compute_standard_error": ["boolean"],
    }

    def __init__(
        self, gamma=0.9, *, alpha=0.0, fit_intercept=False, compute_standard_error=True
    ):
        self.gamma = gamma
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.compute_standard_error = compute_standard_error

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_next=None, sample_weight=None):
        """Fit the linear Q-function of the target policy.

        Parameters
        ----------
        X : {array-like, dask array, dask DataFrame} of shape (n_samples, n_features)
            Features ``phi(s_i, a_i)`` of the logged state-action pairs. On
            Dask input (``X``, or any of ``y``, ``X_next``,
            ``sample_weight``) the sums are computed blockwise in two passes
            (one with ``compute_standard_error=False``) and only
            ``n_params x n_params`` results reach the client; the other
            arrays are rechunked to ``X``'s row chunks (see the user guide,
            "Scaling out").
        y : array-like of shape (n_samples,)
            Rewards ``r_i``.
        X_next : array-like of shape (n_samples, n_features), default=None
            Next features under the target policy, ``E_{a' ~ pi} phi(s'_i, a')``;
            a zero row for a terminal transition. None means no discounted
            term: ridge regression of the reward.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative transition weights (frequency weights).

        Returns
        -------
        self : LSTDQEvaluator
            The fitted estimator.
        """
        for name in ("_sums", "_meat", "_A_solved", "_A_pinv", "coef_", "intercept_"):
            self.__dict__.pop(name, None)
        X, y, X_next, sample_weight = self._validate_transitions(
            X, y, X_next, sample_weight, reset=True
        )
        self._accumulate(X, y, X_next, sample_weight)
        self._solve()
        if self.compute_standard_error:
            # The first pass checked every block of these arrays for NaN and inf.
            self._accumulate_meat(X, y, X_next, sample_weight, check_finite=False)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, X_next=None, sample_weight=None):
        """Add a chunk of transitions and refit.

        Chunk after chunk gives the same model as :meth:`fit` on all of them
        (up to rounding, see Notes). While ``A`` is still singular (early
        chunks that miss part of the feature space) a warning is raised and
        ``coef_`` is the minimum-norm solution, as in :meth:`fit`.
        For the standard error, pass the chunks again through
        :meth:`accumulate_residuals` after the last call.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Features ``phi(s_i, a_i)`` (a Dask array: its sums blockwise).
        y : array-like of shape (n_samples,)
            Rewards ``r_i``.
        X_next : array-like of shape (n_samples, n_features), default=None
            Next features under the target policy; None for no discounted term.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative transition weights.

        Returns
        -------
        self : LSTDQEvaluator
            The updated estimator.
        """
        first = not hasattr(self, "_sums")
        X, y, X_next, sample_weight = self._validate_transitions(
            X, y, X_next, sample_weight, reset=first
        )
        self._accumulate(X, y, X_next, sample_weight)
        self._solve()
        return self

    def accumulate_residuals(self, X, y, X_next=None, sample_weight=None):
        """Second pass for the standard error: add TD residuals of a chunk.

        Accumulates ``sum_i w_i eps_i^2 phi_i phi_i^T`` at the current
        ``coef_``. Call it on the chunks (all, or a random subset) after the
        last :meth:`partial_fit`; a later ``partial_fit`` discards the sums.
        :meth:`fit` makes this pass itself unless
        ``compute_standard_error=False``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features ``phi(s_i, a_i)``.
        y : array-like of shape (n_samples,)
            Rewards ``r_i``.
        X_next : array-like of shape (n_samples, n_features), default=None
            Next features under the target policy.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative transition weights.

        Returns
        -------
        self : LSTDQEvaluator
            The estimator, ready for ``estimate_value(..., return_std=True)``.
        """
        check_is_fitted(self)
        X, y, X_next, sample_weight = self._validate_transitions(
            X, y, X_next, sample_weight, reset=False
        )
        self._accumulate_meat(X, y, X_next, sample_weight)
        return self

    def predict(self, X):
        """Predict Q-values ``phi(s, a)^T theta``.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Features of state-action pairs.

        Returns
        -------
        q_values : ndarray or dask array of shape (n_samples,)
            The estimated ``Q^pi(s, a)``; a lazy Dask array, block by block,
            for Dask input.
        """
        check_is_fitted(self)
        if any_dask(X):
            X = validate_dask_data(self, X, reset=False)
            return map_rows(_linear, X, coef=self.coef_, intercept=self.intercept_)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self._q_values(X)

    def estimate_value(self, X_init, return_std=False):
        """Estimate the policy value ``J(pi) = phibar_0^T theta``.

        Parameters
        ----------
        X_init : array-like of shape (n_init, n_features)
            Initial features under the target policy,
            ``phi(s_0, pi) = E_{a ~ pi(s_0)} phi(s_0, a)`` for initial states
            ``s_0``; their mean is ``phibar_0``. One row holding the exact
            mean is fine; a Dask array is averaged blockwise.
        return_std : bool, default=False
            Also return the standard error (see Notes of the class).

        Returns
        -------
        value : float
            The estimated policy value.
        std : float
            The standard error; only when ``return_std=True``. A 95%
            interval is ``value +- 1.96 * std``.
        """
        check_is_fitted(self)
        phibar = self._mean_initial_feature(X_init)
        value = float(phibar[: len(self.coef_)] @ self.coef_ + self.intercept_)
        if not return_std:
            return value
        if not hasattr(self, "_meat"):
            raise ValueError(
                "The standard error needs the TD residuals at the final coef_: "
                "after the last partial_fit, pass the chunks (or a random subset) "
                "through accumulate_residuals(X, y, X_next), then call "
                "estimate_value again. fit makes this pass itself unless "
                "compute_standard_error=False."
            )
        v = self._solve_transposed(phibar)
        meat = self._meat["sum"] / self._meat["weight"]
        return value, float(np.sqrt(max(v @ meat @ v, 0.0) / self._sums["weight"]))

    def coverage(self, X_init):
        """Feature-dynamics coverage ``C`` of the target policy by the data.

        ``C = (1 - gamma)^2 phibar_0^T A^{-1} Sigma A^{-T} phibar_0``, with the
        ridge term in ``A`` when ``alpha > 0``. It is 1 for on-policy tabular
        data and grows as the data miss where the target policy goes; the
        value error scales like ``sqrt(C / n)``.

        Parameters
        ----------
        X_init : array-like of shape (n_init, n_features)
            Initial features under the target policy (see
            :meth:`estimate_value`).

        Returns
        -------
        coverage : float
            The coverage ``C``.
        """
        check_is_fitted(self)
        phibar = self._mean_initial_feature(X_init)
        v = self._solve_transposed(phibar)
        return float((1 - self.gamma) ** 2 * (v @ self.second_moment_ @ v))

    def score(self, X, y, X_next=None, sample_weight=None):
        """R^2 of the Q-values against the one-step Bellman targets.

        The targets are ``y + gamma * predict(X_next)`` (just ``y`` without
        ``X_next``, which gives the usual R^2). Higher is better. On held-out
        data with random transitions the squared TD error also holds the
        variance of the next value (double sampling), so as a model-selection
        criterion it leans towards smoother Q-functions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Features ``phi(s_i, a_i)``.
        y : array-like of shape (n_samples,)
            Rewards ``r_i``.
        X_next : array-like of shape (n_samples, n_features), default=None
            Next features under the target policy.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            ``R^2`` of ``predict(X)`` against the Bellman targets.
        """
        check_is_fitted(self)
        X, y, X_next, sample_weight = self._validate_transitions(
            X, y, X_next, sample_weight, reset=False
        )
        if any_dask(X):
            sums = reduce_blocks(
                _score_sums,
                [X, y, X_next, sample_weight],
                ["X", "y", "X_next", "sample_weight"],
                args=(self.coef_, self.intercept_, self.gamma),
            )
            return r2_from_sums(sums)
        targets = y if X_next is None else y + self.gamma * self._q_values(X_next)
        return r2_score(targets, self._q_values(X), sample_weight=sample_weight)

    def __sklearn_is_fitted__(self):
        return hasattr(self, "coef_")

    def _validate_transitions(self, X, y, X_next, sample_weight, reset):
        if any_dask(X, y, X_next, sample_weight):
            return self._validate_dask_transitions(X, y, X_next, sample_weight, reset)
        X, y = validate_data(self, X, y, reset=reset, dtype=np.float64, y_numeric=True)
        if X_next is not None:
            names = getattr(X_next, "columns", None)
            expected = getattr(self, "feature_names_in_", None)
            if names is not None and expected is not None:
                if list(map(str, names)) != list(expected):
                    raise ValueError(
                        "X_next has different columns from X: give both the same "
                        "features in the same order."
                    )
            X_next = check_array(X_next, dtype=np.float64, input_name="X_next")
            if X_next.shape != X.shape:
                raise ValueError(
                    f"X_next has shape {X_next.shape} but X has shape {X.shape}: row "
                    "i of X_next must hold the next features of transition i under "
                    "the target policy (a zero row for a terminal transition)."
                )
        if sample_weight is not None:
            sample_weight = check_nonnegative_sample_weight(sample_weight, X)
        _check_magnitudes(X, y, X_next)
        return X, y, X_next, sample_weight

    def _validate_dask_transitions(self, X, y, X_next, sample_weight, reset):
        """Dask input: lazy checks here, finiteness and magnitudes in the pass."""
        names = getattr(X_next, "columns", None)
        X = validate_dask_data(self, X, reset=reset)
        expected = getattr(self, "feature_names_in_", None)
        if names is not None and expected is not None:
            if list(map(str, names)) != list(expected):
                raise ValueError(
                    "X_next has different columns from X: give both the same "
                    "features in the same order."
                )
        y = align_rows(X, y, "y", ndim=1)
        if X_next is not None:
            X_next = align_rows(X, X_next, "X_next", ndim=2)
            if X_next.shape != X.shape:
                raise ValueError(
                    f"X_next has shape {X_next.shape} but X has shape {X.shape}: "
                    "row i of X_next must hold the next features of transition i "
                    "under the target policy (a zero row for a terminal transition)."
                )
        if sample_weight is not None:
            sample_weight = align_rows(X, sample_weight, "sample_weight", ndim=1)
        return X, y, X_next, sample_weight

    def _accumulate(self, X, y, X_next, sample_weight):
        """Add the chunk's sums (a Dask array: blockwise) to the statistics."""
        n, d = X.shape
        p = d + self.fit_intercept
        if not hasattr(self, "_sums"):
            self._sums = {
                "weight": 0.0,
                "phi_phi": np.zeros((p, p)),
                "phi_next": np.zeros((p, p)),
                "phi_r": np.zeros(p),
            }
            self.n_samples_seen_ = 0
        elif self._sums["phi_r"].shape[0] != p:
            raise ValueError(
                "fit_intercept changed between partial_fit calls; call fit to "
                "start again with the new setting."
            )
        if any_dask(X):
            chunk = reduce_blocks(
                _dask_chunk_sums,
                [X, y, X_next, sample_weight],
                ["X", "y", "X_next", "sample_weight"],
                args=(self.fit_intercept,),
            )
            if chunk.pop("max_negative_weight") > 0:
                raise ValueError("Negative values in data passed to `sample_weight`")
            if chunk["weight"] == 0:
                raise ValueError(
                    "Sample weights must contain at least one non-zero number."
                )
            _check_magnitude_stats(
                {key: chunk.pop(key) for key in list(chunk) if key.startswith("max_")}
            )
        else:
            chunk = _chunk_sums(X, y, X_next, sample_weight, self.fit_intercept)
        for key, value in chunk.items():
            self._sums[key] += value
        self.n_samples_seen_ += n
        self.__dict__.pop("_meat", None)

    def _solve(self):
        """Solve ``(A + alpha / W I) theta = b`` from the accumulated sums."""
        s = self._sums
        p = s["phi_r"].shape[0]
        self.second_moment_ = s["phi_phi"] / s["weight"]
        self.lstdq_matrix_ = (s["phi_phi"] - self.gamma * s["phi_next"]) / s["weight"]
        self.b_ = s["phi_r"] / s["weight"]
        penalty = np.full(p, self.alpha / s["weight"])
        if self.fit_intercept:
            penalty[-1] = 0.0
        A_solved = self.lstdq_matrix_ + np.diag(penalty)
        self.condition_number_ = float(np.linalg.cond(A_solved))
        self.second_moment_condition_number_ = float(
            np.linalg.cond(self.second_moment_)
        )
        self._A_solved = A_solved
        if self.condition_number_ < MAX_CONDITION_NUMBER:
            self.rank_ = p
            self._A_pinv = None
            theta = np.linalg.solve(A_solved, self.b_)
        else:
            U, singular, Vt = np.linalg.svd(A_solved)
            keep = singular > singular[0] / MAX_CONDITION_NUMBER
            self.rank_ = int(keep.sum())
            self._A_pinv = (Vt[keep].T / singular[keep]) @ U[:, keep].T
            theta = self._A_pinv @ self.b_
            warn_user(
                f"The LSTDQ matrix A{' + alpha I' if self.alpha else ''} is singular "
                f"or ill-conditioned: condition number {self.condition_number_:.3g} > "
                f"{MAX_CONDITION_NUMBER:.0e} after n_samples = {self.n_samples_seen_} "
                f"transitions. coef_ is the minimum-norm least-squares solution, of "
                f"rank {self.rank_} < {p} (rank_). Set alpha > 0 (ridge), remove "
                "redundant features, or add transitions that cover the feature "
                "space."
            )
        if self.fit_intercept:
            self.coef_, self.intercept_ = theta[:-1], float(theta[-1])
        else:
            self.coef_, self.intercept_ = theta, 0.0

    def _solve_transposed(self, rhs):
        """``(A + alpha / W I)^{-T} rhs``, the pseudo-inverse when singular."""
        if self._A_pinv is not None:
            return self._A_pinv.T @ rhs
        return np.linalg.solve(self._A_solved.T, rhs)

    def _accumulate_meat(self, X, y, X_next, sample_weight, check_finite=True):
        """Add ``sum_i w_i eps_i^2 phi_i phi_i^T`` at the current ``theta``."""
        args = (self.coef_, self.intercept_, self.gamma, self.fit_intercept)
        if any_dask(X):
            chunk = reduce_blocks(
                _chunk_meat,
                [X, y, X_next, sample_weight],
                ["X", "y", "X_next", "sample_weight"],
                args=args,
                check_finite=check_finite,
            )
        else:
            chunk = _chunk_meat(X, y, X_next, sample_weight, *args)
        meat = getattr(self, "_meat", {"sum": 0.0, "weight": 0.0})
        meat["sum"] = meat["sum"] + chunk["sum"]
        meat["weight"] += chunk["weight"]
        self._meat = meat

    def _q_values(self, X):
        return X @ self.coef_ + self.intercept_

    def _mean_initial_feature(self, X_init):
        if any_dask(X_init):
            X_init = validate_dask_data(self, X_init, reset=False)
            sums = reduce_blocks(_column_sums, [X_init], ["X_init"])
            phibar = sums["sum"] / sums["count"]
        else:
            X_init = validate_data(self, X_init, reset=False, dtype=np.float64)
            phibar = X_init.mean(axis=0)
        return np.append(phibar, 1.0) if self.fit_intercept else phibar


def _chunk_sums(X, y, X_next, sample_weight, fit_intercept):
    """One chunk's sums: weight, ``phi phi^T``, ``phi phi'^T`` and ``phi r``."""
    n, d = X.shape
    p = d + fit_intercept
    if sample_weight is None:
        weighted, weight = X, float(n)
    else:
        weighted, weight = X * sample_weight[:, None], float(sample_weight.sum())
    phi_phi = np.empty((p, p))
    phi_next = np.zeros((p, p))
    phi_r = np.empty(p)
    phi_phi[:d, :d] = weighted.T @ X
    phi_r[:d] = weighted.T @ y
    if X_next is not None:
        phi_next[:d, :d] = weighted.T @ X_next
    if fit_intercept:
        col = weighted.sum(axis=0)
        phi_phi[:d, d] = col
        phi_phi[d, :d] = col
        phi_phi[d, d] = weight
        phi_r[d] = (
            y.sum(dtype=np.float64) if sample_weight is None else sample_weight @ y
        )
        if X_next is not None:
            # The constant feature is 1 in the next state too.
            phi_next[:d, d] = col
            phi_next[d, :d] = (
                X_next.sum(axis=0) if sample_weight is None else sample_weight @ X_next
            )
            phi_next[d, d] = weight
    return {"weight": weight, "phi_phi": phi_phi, "phi_next": phi_next, "phi_r": phi_r}


def _dask_chunk_sums(X, y, X_next, sample_weight, fit_intercept):
    """One Dask block: its sums, magnitudes and most negative weight."""
    sums = _chunk_sums(X, y, X_next, sample_weight, fit_intercept)
    for name, values in (("X", X), ("y", y), ("X_next", X_next)):
        if values is not None:
            sums[f"max_{name}"] = _column_magnitudes(values)
    sums["max_negative_weight"] = (
        0.0 if sample_weight is None else float(np.max(-sample_weight, initial=0.0))
    )
    return sums


def _chunk_meat(X, y, X_next, sample_weight, coef, intercept, gamma, fit_intercept):
    """``sum_i w_i eps_i^2 phi_i phi_i^T`` and ``sum_i w_i`` of one chunk."""
    # Z^T Z with Z = sqrt(w) |eps| phi, slab by slab: numpy computes each
    # product as a symmetric rank-k update (half a general product), the slab
    # stays in cache and no temporary of the chunk's length is allocated (on
    # a Dask worker, whose allocator returns large blocks to the system, each
    # would be page-faulted in again).
    n, d = X.shape
    total = np.zeros((d + fit_intercept, d + fit_intercept))
    slab = np.empty((min(n, SLAB_ROWS), d + fit_intercept))
    for start in range(0, n, SLAB_ROWS):
        rows = slice(start, start + SLAB_ROWS)
        scale = y[rows] - (X[rows] @ coef + intercept)
        if X_next is not None:
            scale += gamma * (X_next[rows] @ coef + intercept)
        np.abs(scale, out=scale)
        if sample_weight is not None:
            scale *= np.sqrt(sample_weight[rows])
        Z = slab[: len(scale)]
        np.multiply(X[rows], scale[:, None], out=Z[:, :d])
        if fit_intercept:
            Z[:, d] = scale
        total += Z.T @ Z
    weight = float(n) if sample_weight is None else sample_weight.sum()
    return {"sum": total, "weight": weight}


def _score_sums(X, y, X_next, sample_weight, coef, intercept, gamma):
    """One block's sums for the R^2 of ``score`` (targets: Bellman's)."""
    targets = y if X_next is None else y + gamma * (X_next @ coef + intercept)
    return r2_sums(targets, X @ coef + intercept, sample_weight)


def _linear(X, coef, intercept):
    return X @ coef + intercept


def _column_sums(X):
    return {"sum": X.sum(axis=0), "count": float(len(X))}


def _check_magnitudes(X, y, X_next):
    """Refuse magnitudes whose products overflow or underflow float64."""
    arrays = {"X": X, "y": y} if X_next is None else {"X": X, "X_next": X_next, "y": y}
    _check_magnitude_stats(
        {
            f"max_{name}": _column_magnitudes(values)
            for name, values in arrays.items()
            if values.size
        }
    )


def _column_magnitudes(values):
    """Column maxima of ``|values|``: two reductions, no ``|values|`` temporary."""
    return np.maximum(values.max(axis=0), -values.min(axis=0))


def _check_magnitude_stats(maxima):
    """Refuse magnitudes (column maxima of ``|X|``, ``|X_next|``, ``|y|``)."""
    for name in ("X", "X_next", "y"):
        column_max = maxima.get(f"max_{name}")
        if column_max is None or np.size(column_max) == 0:
            continue
        largest = float(np.max(column_max))
        if largest > MAX_MAGNITUDE:
            raise ValueError(
                f"{name} holds values of magnitude {largest:.3g}, above "
                f"{MAX_MAGNITUDE:.0e}: the sums of products LSTDQ accumulates would "
                f"overflow float64. Divide {name} by a constant (coef_ scales "
                "inversely with the features, linearly with the rewards)."
            )
        if name == "y":
            features = maxima.get("max_X")
            largest_feature = float(np.max(features)) if np.size(features) else 0.0
            # compared in log2: the product itself may underflow to 0
            if (
                largest > 0
                and largest_feature > 0
                and math.log2(largest) + math.log2(largest_feature)
                < 2 * math.log2(MIN_MAGNITUDE)
            ):
                raise ValueError(
                    f"y holds values of magnitude at most {largest:.3g} and X "
                    f"{largest_feature:.3g}: their products, the sums LSTDQ "
                    f"accumulates for b, underflow float64 (below "
                    f"{MIN_MAGNITUDE**2:.0e}) and coef_ would be 0. Multiply y by "
                    "a constant (coef_ scales linearly with the rewards)."
                )
            continue
        tiny = (column_max > 0) & (column_max < MIN_MAGNITUDE)
        if tiny.any():
            j = int(np.flatnonzero(tiny)[0])
            raise ValueError(
                f"Column {j} of {name} has magnitude {column_max[j]:.3g}, below "
                f"{MIN_MAGNITUDE:.0e}: its products underflow float64 and it would "
                "look constant. Multiply the feature by a constant (coef_ scales "
                "inversely)."
            )
