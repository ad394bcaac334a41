"""Single-layer attention pooling for weak, rare, sparse tokens."""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._tokens import flatten_token_input, token_view, warn_one_token_per_row
from ..utils.validation import check_binary_target, check_nonnegative_sample_weight

# Standard deviation (times 1 / sqrt(token_dim)) of the random initial
# max(beta, 1) * q of the joint protocol: small, so that the first L-BFGS steps
# see nearly uniform attention (mean pooling) and move (w, b) before q, as in
# the two-step one.
JOINT_INIT_SCALE = 1e-2
EPS = np.finfo(np.float64).eps
# Token magnitudes accepted by fit: the gradients (and the logistic fits on
# the pooled tokens) hold squares of the tokens, which leave float64 outside
# this range (1e140 ended in NaN inside LogisticRegression).
MAX_MAGNITUDE = 1e100


def attention_softmax(tokens, query, beta):
    """Attention weights ``softmax_l(beta * x_l . q)`` of every bag.

    The scores are shifted by their largest value before ``beta`` multiplies
    them, so that no ``beta`` (up to the largest float) overflows: a huge
    ``beta`` gives the hard attention of the limit, not NaN.

    Parameters
    ----------
    tokens : ndarray of shape (n_samples, n_tokens, token_dim)
    query : ndarray of shape (token_dim,)
    beta : float

    Returns
    -------
    weights : ndarray of shape (n_samples, n_tokens)
        Non-negative, each row sums to one.
    """
    scores = tokens @ query
    scores -= scores.max(axis=1, keepdims=True)
    with np.errstate(over="ignore"):  # -inf: a weight of 0, the limit
        scores *= beta
    weights = np.exp(scores, out=scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def _pool(tokens, weights):
    """``sum_l weights[i, l] * tokens[i, l]`` for every bag ``i``."""
    return np.einsum("nl,nlk->nk", weights, tokens)


def _logistic_gradients(tokens, y_signed, mass, query, coef, intercept, beta):
    """Weighted mean logistic loss and its gradients in (query, coef, intercept).

    ``mass`` holds the sample weights divided by their sum. With
    ``a = softmax(beta X q)``, ``p = X^T a`` and ``f = w . p + b``,
    ``df/dq = beta * sum_l a_l (x_l . w - p . w) x_l``.
    """
    weights = attention_softmax(tokens, query, beta)
    pooled = _pool(tokens, weights)
    margin = y_signed * (pooled @ coef + intercept)
    loss = mass @ np.logaddexp(0.0, -margin)
    dloss = -y_signed * expit(-margin) * mass
    grad_coef = pooled.T @ dloss
    grad_intercept = dloss.sum()
    token_scores = tokens @ coef
    dscores = weights * (token_scores - (pooled @ coef)[:, None]) * dloss[:, None]
    grad_query = beta * (dscores.reshape(-1) @ tokens.reshape(-1, tokens.shape[2]))
    return loss, grad_query, grad_coef, grad_intercept


def _penalised_logistic(params, features, y_signed, mass, penalty):
    """Weighted mean logistic loss of ``f = w . x + b`` plus ``penalty / 2 |w|^2``.

    ``params`` is ``(w, b)``; returns the loss and its gradient in ``params``:
    the objective of :class:`~sklearn.linear_model.LogisticRegression` with
    ``C = 1 / (penalty * sum(sample_weight))``.
    """
    coef, intercept = params[:-1], params[-1]
    margin = y_signed * (features @ coef + intercept)
    dloss = -y_signed * expit(-margin) * mass
    loss = mass @ np.logaddexp(0.0, -margin) + 0.5 * penalty * (coef @ coef)
    return loss, np.append(features.T @ dloss + penalty * coef, dloss.sum())


def _two_step_split(y_signed, split, rng):
    """Indices of D0 (gradient steps) and D1 (ERM), stratified by class.

    Every class keeps at least one sample in D1, so the ERM sees both classes.
    """
    first, second = [], []
    for label in (-1.0, 1.0):
        idx = rng.permutation(np.flatnonzero(y_signed == label))
        n_first = min(int(round(split * len(idx))), len(idx) - 1)
        first.append(idx[:n_first])
        second.append(idx[n_first:])
    return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))


class SparseTokenAttentionClassifier(ClassifierMixin, BaseEstimator):
    """Single-layer attention classifier for sparse-token bags (ICLR 2026).

    Implements the model and training protocol analysed in "High-Dimensional
    Analysis of Single-Layer Attention for Sparse-Token Classification" by
    Nicholas Barnfield, Hugo Cui and Yue M. Lu, ICLR 2026 (arXiv:2509.25153).
    Every sample is a bag ``X`` of ``L`` tokens ``x_l`` in ``R^k``; the
    classifier pools the tokens with one attention head and a learned query
    ``q``::

        a(X) = softmax(beta X q),   f(X) = w . (X^T a(X)) + b,

    and predicts ``sign f``. When the label depends on a weak signal carried by
    a few of the ``L`` tokens, attention can single them out: the paper shows
    that the error vanishes once the signal strength grows like ``log L``,
    while any linear classifier of the pooled or flattened tokens needs
    ``sqrt(L)``. The per-token weights :meth:`attention_weights` say which
    tokens carried the evidence.

    Parameters
    ----------
    protocol : {"two_step", "joint"}, default="two_step"
        ``"two_step"``, the paper's protocol: the data are split into D0 and D1
        (stratified); from ``q = w = 0, b = 0`` one gradient step of the mean
        logistic loss on D0 moves ``(w, b)``, a second one moves ``q``; ``q``
        is rescaled to unit norm; then ``(w, b)`` are fitted by
        L2-regularised logistic regression on the attention-pooled tokens of
        D1 with ``q`` fixed. ``"joint"``: ``(q, w, b)`` together by L-BFGS on
        the L2-regularised logistic loss of all the data, from a small random
        ``max(beta, 1) q`` and ``w = 0``.
    beta : float, default=1.0
        Inverse temperature of the softmax. With ``"two_step"`` the query has
        unit norm, so ``beta`` alone sets how peaked the attention is.
    token_dim : int, default=None
        Features per token when ``X`` is a 2-D table (token ``l`` is the
        ``l``-th block of ``token_dim`` consecutive columns). ``None`` takes
        it from a 3-D array ``(n_samples, n_tokens, token_dim)``; a 2-D table
        is then one token per row, on which attention does nothing: ``fit``
        warns.
    alpha : float, default=1.0
        L2 penalty of the logistic fits, on the scale of
        :class:`~sklearn.linear_model.LogisticRegression` (``C = 1 / alpha``):
        ``alpha / 2 * ||w||^2`` (``+ ||q||^2`` with ``"joint"``) against the
        summed loss.
    learning_rate : float, default=1.0
        Step size of the two gradient steps of ``"two_step"`` (unused by
        ``"joint"``). As the query is rescaled to unit norm, it acts only
        through the first step's ``(w, b)``, which weight the samples of the
        second step (larger steps weigh misclassified bags more).
    split : float, default=0.5
        Fraction of every class used as D0 by ``"two_step"``.
    max_iter : int, default=200
        Iterations of L-BFGS: of the ERM on D1 (``"two_step"``) or of the
        joint fit.
    tol : float, default=1e-5
        Stopping tolerance of L-BFGS on the gradient of the mean loss (as
        ``tol`` of :class:`~sklearn.linear_model.LogisticRegression` for the
        ERM on D1, as ``gtol`` of scipy's L-BFGS-B in ``(max(beta, 1) q, w, b)``
        for ``"joint"``).
    random_state : int, RandomState instance or None, default=None
        Seeds the D0/D1 split (``"two_step"``) or the initial query
        (``"joint"``).
    verbose : int, default=0
        Print the stages of the fit (and the loss every 10 L-BFGS iterations
        of ``"joint"``) when positive.

    Attributes
    ----------
    query_ : ndarray of shape (`token_dim_`,)
        The attention query ``q``.
    coef_ : ndarray of shape (1, `token_dim_`)
        The readout ``w`` of the pooled token (one row, as scikit-learn's
        binary linear classifiers).
    intercept_ : ndarray of shape (1,)
        The bias ``b``.
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[1]`` is the positive class.
    n_tokens_ : int
        Tokens per bag ``L``.
    token_dim_ : int
        Features per token ``k``.
    n_iter_ : int
        L-BFGS iterations of the final fit.
    loss_curve_ : list of float
        The objective of the final fit after every L-BFGS iteration: the
        weighted mean logistic loss plus the L2 penalty divided by the total
        weight, on D1 (``"two_step"``) or on all the data (``"joint"``).
    n_features_in_ : int
        Number of features seen during fit, ``n_tokens_ * token_dim_``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.datasets.make_sparse_token : The paper's data model.
    sklearn_iclr.datasets.load_digit_bags : Bags of handwritten digits.

    Notes
    -----
    Tokens are used as given: ``beta`` is a temperature and ``alpha`` a penalty
    on the scale given, so the model is not invariant to the units of the tokens.
    In the paper's data model (:func:`~sklearn_iclr.datasets.make_sparse_token`)
    noise entries are ``N(0, 1)`` and scores ``x_l . q`` are ``O(1)`` for a
    unit-norm query; rescale tokens far from unit size first. Magnitudes above
    ``1e100`` are refused.

    After the two gradient steps only the direction of ``q`` carries information,
    so its norm is set to one and ``beta`` is the knob to tune. Sample weights
    enter every loss as in ``LogisticRegression``; with ``"joint"`` an integer
    weight equals repeating the bag, with ``"two_step"`` the D0/D1 split is drawn
    over rows. The joint loss is not convex in ``q``: the local minimum L-BFGS
    finds depends on ``random_state``.

    More in the user guide (:ref:`sparse-token-attention-details`).


    References
    ----------
    N. Barnfield, H. Cui and Y. M. Lu, "High-Dimensional Analysis of
    Single-Layer Attention for Sparse-Token Classification", ICLR 2026,
    arXiv:2509.25153.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_sparse_token
    >>> from sklearn_iclr.attention import SparseTokenAttentionClassifier
    >>> X, y, xi, _ = make_sparse_token(600, n_tokens=10, token_dim=20,
    ...                                 signal_strength=5.0, random_state=0)
    >>> clf = SparseTokenAttentionClassifier(random_state=0).fit(X[:400], y[:400])
    >>> print(f"test accuracy {clf.score(X[400:], y[400:]):.3f}")
    test accuracy 0.975
    >>> print(f"|cos(q, xi)| = {abs(clf.query_ @ xi):.2f}")
    |cos(q, xi)| = 0.99
    >>> clf.attention_weights(X[400:402]).shape
    (2, 10)
    """

    _parameter_constraints = {
        "protocol": [StrOptions({"two_step", "joint"})],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "token_dim": [Interval(Integral, 1, None, closed="left"), None],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "split": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        protocol="two_step",
        *,
        beta=1.0,
        token_dim=None,
        alpha=1.0,
        learning_rate=1.0,
        split=0.5,
        max_iter=200,
        tol=1e-5,
        random_state=None,
        verbose=0,
    ):
        self.protocol = protocol
        self.beta = beta
        self.token_dim = token_dim
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.split = split
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the query, the readout and the bias.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Bags of tokens; a 2-D table is cut into tokens by ``token_dim``.
        y : array-like of shape (n_samples,)
            Binary labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative bag weights: they weight the loss of every step (the
            gradient steps on D0, the fit on D1, the joint fit), so an integer
            weight acts as repeating the bag within its half (see Notes).

        Returns
        -------
        self : SparseTokenAttentionClassifier
            The fitted classifier.
        """
        X, token_shape = flatten_token_input(X, self.token_dim)
        X, y = validate_data(self, X, y, dtype=np.float64)
        largest = float(np.max(np.abs(X)))
        if largest > MAX_MAGNITUDE:
            raise ValueError(
                f"X holds tokens of magnitude at most {largest:.3g}: the gradients "
                "of the attention and of the logistic fits hold squares of the "
                f"tokens, which overflow float64 above {MAX_MAGNITUDE:.0e}. "
                "Divide X by a constant, e.g. scale the tokens to unit norm "
                "(the attention temperature is then set by beta alone)."
            )
        if token_shape is None:
            warn_one_token_per_row(self)
        tokens = token_view(X, token_shape)
        self.n_tokens_, self.token_dim_ = tokens.shape[1:]
        self.classes_, y_signed = check_binary_target(y)
        sample_weight = check_nonnegative_sample_weight(sample_weight, X)
        rng = check_random_state(self.random_state)
        if self.protocol == "two_step":
            self._fit_two_step(tokens, y_signed, sample_weight, rng)
        else:
            self._fit_joint(tokens, y_signed, sample_weight, rng)
        return self

    def _fit_two_step(self, tokens, y_signed, sample_weight, rng):
        first, second = _two_step_split(y_signed, self.split, rng)
        if len(first) == 0:
            raise ValueError(
                "protocol='two_step' needs a class with at least 2 samples (one "
                "for the gradient steps on D0, one for the fit on D1); use more "
                "data or protocol='joint'."
            )
        tokens0, y0, weight0 = tokens[first], y_signed[first], sample_weight[first]
        if not weight0.any():
            raise ValueError(
                "All the samples drawn for the gradient steps (D0) have zero "
                "sample_weight; give more samples a positive weight."
            )
        mass0 = weight0 / weight0.sum()
        query = np.zeros(self.token_dim_)
        coef = np.zeros(self.token_dim_)
        _, _, grad_coef, grad_intercept = _logistic_gradients(
            tokens0, y0, mass0, query, coef, 0.0, self.beta
        )
        coef = -self.learning_rate * grad_coef
        intercept = -self.learning_rate * grad_intercept
        # At q = 0 the attention is uniform whatever beta, so the gradient in q
        # is beta times the one at beta = 1: its direction, all that is kept,
        # does not depend on beta (whose factor overflowed the norm at 1e200).
        _, grad_query, _, _ = _logistic_gradients(
            tokens0, y0, mass0, query, coef, intercept, 1.0
        )
        norm = np.linalg.norm(grad_query)
        # The gradient is a sum of terms of size up to |w| max |x_l|^2; when it
        # vanishes to rounding (identical tokens in every bag) its direction is
        # noise, so q stays 0: uniform attention, mean pooling.
        scale = np.linalg.norm(coef) * np.max(np.sum(tokens0**2, axis=2))
        degenerate = norm <= np.sqrt(EPS) * scale
        self.query_ = query if degenerate else -grad_query / norm
        if self.verbose:
            print(
                f"[two_step] steps on D0 ({len(first)} bags), |grad_q| = {norm:.3g}; "
                f"logistic regression on D1 ({len(second)} bags)"
            )
        pooled = _pool(tokens[second], self._weights(tokens[second]))
        self._fit_readout(pooled, y_signed[second], sample_weight[second])

    def _fit_readout(self, pooled, y_signed, sample_weight):
        """``(w, b)`` of the L2-regularised logistic regression of D1.

        scikit-learn's ``LogisticRegression`` (the same objective, L-BFGS-B
        options and model), run here so that every iteration's loss is kept.
        """
        if not sample_weight.any():
            raise ValueError(
                "All the samples drawn for the logistic fit (D1) have zero "
                "sample_weight; give more samples a positive weight."
            )
        total = sample_weight.sum()
        curve = []

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun))

        result = minimize(
            _penalised_logistic,
            np.zeros(pooled.shape[1] + 1),
            args=(pooled, y_signed, sample_weight / total, self.alpha / total),
            jac=True,
            method="L-BFGS-B",
            callback=record,
            options={
                "maxiter": self.max_iter,
                "maxls": 50,
                "gtol": self.tol,
                "ftol": 64 * EPS,
            },
        )
        if result.status == 1:
            warn_user(
                f"The logistic fit on D1 did not converge in max_iter="
                f"{self.max_iter} L-BFGS iterations; increase max_iter.",
                ConvergenceWarning,
            )
        self.coef_ = result.x[None, :-1].copy()
        self.intercept_ = result.x[-1:].copy()
        self.n_iter_ = len(curve)
        self.loss_curve_ = curve

    def _fit_joint(self, tokens, y_signed, sample_weight, rng):
        k = self.token_dim_
        # Summed loss + alpha / 2 |params|^2, divided by the total weight.
        penalty = self.alpha / sample_weight.sum()
        mass = sample_weight / sample_weight.sum()
        # L-BFGS runs on v = s q with s = max(beta, 1): the gradient in q
        # carries a factor beta and the curvature beta^2, so above beta = 1 the
        # fit in q converged slowly (1e3) or overflowed (1e200), while in
        # v = beta q neither depends on beta. The penalty alpha / 2 |q|^2 is
        # alpha / (2 s^2) |v|^2; below beta = 1 it keeps the fit in q
        # well-conditioned, so v = q there.
        query_scale = max(self.beta, 1.0)
        query_penalty = penalty / query_scale / query_scale

        def objective(params):
            scaled_query, coef, intercept = params[:k], params[k : 2 * k], params[-1]
            loss, g_query, g_coef, g_intercept = _logistic_gradients(
                tokens,
                y_signed,
                mass,
                scaled_query,
                coef,
                intercept,
                self.beta / query_scale,
            )
            loss += 0.5 * (
                query_penalty * (scaled_query @ scaled_query) + penalty * (coef @ coef)
            )
            grad = np.concatenate(
                [
                    g_query + query_penalty * scaled_query,
                    g_coef + penalty * coef,
                    [g_intercept],
                ]
            )
            return loss, grad

        curve = []

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun))
            if self.verbose and len(curve) % 10 == 0:
                print(f"[joint] iteration {len(curve)}: loss {curve[-1]:.6f}")

        start = np.zeros(2 * k + 1)
        start[:k] = rng.standard_normal(k) * JOINT_INIT_SCALE / np.sqrt(k)
        result = minimize(
            objective,
            start,
            jac=True,
            method="L-BFGS-B",
            callback=record,
            # gtol decides; scipy's default relative-decrease test (ftol)
            # would stop first, with gradients far above tol.
            options={"maxiter": self.max_iter, "gtol": self.tol, "ftol": EPS},
        )
        if result.status == 1:
            warn_user(
                f"The joint fit did not converge in max_iter={self.max_iter} "
                "L-BFGS iterations; increase max_iter.",
                ConvergenceWarning,
            )
        self.query_ = result.x[:k] / query_scale
        self.coef_ = result.x[None, k : 2 * k].copy()
        self.intercept_ = result.x[-1:].copy()
        self.n_iter_ = len(curve)
        self.loss_curve_ = curve

    def decision_function(self, X):
        """Signed score ``f(X)``; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Bags of tokens, laid out as in :meth:`fit`.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        tokens = self._validate_tokens(X)
        pooled = _pool(tokens, self._weights(tokens))
        return pooled @ self.coef_[0] + self.intercept_[0]

    def predict_proba(self, X):
        """Class probabilities ``sigmoid(f(X))`` of the logistic model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Bags of tokens.

        Returns
        -------
        proba : ndarray of shape (n_samples, 2)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        positive = expit(self.decision_function(X))
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X):
        """Predict the class of every bag.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Bags of tokens.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def attention_weights(self, X):
        """Attention weight of every token, ``softmax(beta X q)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Bags of tokens.

        Returns
        -------
        weights : ndarray of shape (n_samples, n_tokens)
            Non-negative; every row sums to one.
        """
        check_is_fitted(self)
        return self._weights(self._validate_tokens(X))

    def _weights(self, tokens):
        return attention_softmax(tokens, self.query_, self.beta)

    def _validate_tokens(self, X):
        X, token_dim = flatten_token_input(X, None)
        if token_dim not in (None, self.token_dim_):
            raise ValueError(
                f"X has tokens of dimension {token_dim}, but the classifier "
                f"was fitted on tokens of dimension {self.token_dim_}."
            )
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return token_view(X, self.token_dim_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.three_d_array = True
        return tags
