"""Factual recall by one attention head over fixed random token embeddings."""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import sparse
from scipy.special import logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import check_work_budget
from ..utils._compat import Interval, StrOptions, _fit_context


def _draw_embeddings(n_tokens, dim, kind, rng):
    """Token embeddings ``E``, the trigger vector and the EOS query, unit scale."""
    n_vectors = n_tokens + 2
    if kind == "orthogonal":
        if dim < n_vectors:
            raise ValueError(
                f"embeddings='orthogonal' needs embedding_dim >= n_tokens + 2 = "
                f"{n_vectors} (the tokens, the trigger vector and the EOS query); "
                f"got embedding_dim={dim}. Use embeddings='gaussian' or a larger "
                "embedding_dim."
            )
        Q, _ = np.linalg.qr(rng.standard_normal((dim, n_vectors)))
        vectors = Q.T
    else:
        vectors = rng.standard_normal((n_vectors, dim)) / np.sqrt(dim)
    return vectors[:n_tokens], vectors[n_tokens], vectors[n_tokens + 1]


class _RecallModel:
    """Forward and backward passes of the attention(-MLP) recall model.

    Position ``j`` of sequence ``i`` is ``h_ij = E[t_ij] + z_trig [t_i,j-1 =
    trigger]``. The EOS query gives scores ``s_ij = z_eos^T W h_ij``,
    attention ``a_i = softmax(s_i)``, context ``c_i = sum_j a_ij h_ij``,
    features ``f_i = c_i`` (or ``relu(A c_i) / sqrt(m)``) and logits
    ``f_i^T V``. Nothing of size ``n x L x d`` is formed.
    """

    def __init__(self, tokens, marks, E, z_trig, z_eos, mlp):
        self.tokens = tokens
        self.marks = marks.astype(float)
        self.E = E
        self.z_trig = z_trig
        self.z_eos = z_eos
        self.mlp = mlp
        n, L = tokens.shape
        self._indptr = np.arange(0, n * L + 1, L)

    def _per_token(self, weights):
        n = self.tokens.shape[0]
        return sparse.csr_matrix(
            (weights.ravel(), self.tokens.ravel(), self._indptr),
            shape=(n, self.E.shape[0]),
        )

    def forward(self, W, V):
        w = W.T @ self.z_eos
        scores = (self.E @ w)[self.tokens] + (self.z_trig @ w) * self.marks
        attn = softmax(scores, axis=1)
        context = self._per_token(attn) @ self.E + np.outer(
            (attn * self.marks).sum(axis=1), self.z_trig
        )
        if self.mlp is None:
            pre, features = None, context
        else:
            pre = context @ self.mlp.T
            features = np.maximum(pre, 0.0) / np.sqrt(self.mlp.shape[0])
        return attn, context, pre, features, features @ V

    def loss_and_grads(self, W, V, Y):
        attn, context, pre, features, logits = self.forward(W, V)
        n = Y.shape[0]
        log_p = logits - logsumexp(logits, axis=1, keepdims=True)
        loss = -np.sum(Y * log_p) / n
        G = (np.exp(log_p) - Y) / n
        grad_V = features.T @ G
        d_features = G @ V.T
        if self.mlp is None:
            d_context = d_features
        else:
            d_pre = d_features * (pre > 0) / np.sqrt(self.mlp.shape[0])
            d_context = d_pre @ self.mlp
        along_tokens = np.take_along_axis(d_context @ self.E.T, self.tokens, axis=1)
        d_scores = attn * (
            along_tokens
            + np.outer(d_context @ self.z_trig, np.ones(self.tokens.shape[1]))
            * self.marks
            - np.sum(d_context * context, axis=1, keepdims=True)
        )
        per_token = np.bincount(
            self.tokens.ravel(), weights=d_scores.ravel(), minlength=self.E.shape[0]
        )
        grad_w = per_token @ self.E + np.sum(d_scores * self.marks) * self.z_trig
        grad_W = np.outer(self.z_eos, grad_w)
        return loss, grad_W, grad_V


class RandomEmbeddingRecallClassifier(ClassifierMixin, BaseEstimator):
    """One attention head over fixed random embeddings for key-value recall.

    Implements the model of Nuri Mert Vural, Alberto Bietti, Mahdi
    Soltanolkotabi and Denny Wu, "Learning to Recall with Transformers Beyond
    Orthogonal Embeddings", ICLR 2026 (arXiv:2603.15923). A sequence of ``L``
    integer tokens holds one informative token, the one right after the
    trigger token; its label is a fixed one-to-one function of it (a "fact").
    Tokens get fixed random embeddings ``E[t]`` in ``R^d`` (not orthogonal
    when ``d`` is below the vocabulary size), the position after a trigger
    gets a fixed random trigger vector ``z_trig`` added, and a single head
    with the EOS embedding ``z_eos`` as query reads the sequence::

        h_j = E[t_j] + z_trig [t_{j-1} = trigger]
        a = softmax_j(z_eos^T W_KQ h_j),   c = sum_j a_j h_j
        logits = V^T c                   (attention-only)
        logits = V^T relu(A c) / sqrt(m) (attention-MLP, A fixed random m x d)

    trained with the mean cross-entropy. Only ``W_KQ`` and ``V`` are learned.
    The paper's "early phase" is three full-batch gradient steps from
    ``V = W_KQ = 0``: ``V1 = -eta grad_V``, ``W_KQ1 = -gamma grad_W`` (at
    ``V1``), ``V2 = V1 - gamma grad_V`` (at ``V1, W_KQ1``), with ``eta`` small
    and ``gamma`` large. Its storage capacity depends multiplicatively on the
    sample size, ``d`` and ``L`` (see :func:`recall_capacity` to measure it).

    Parameters
    ----------
    embedding_dim : int, default=64
        Embedding dimension ``d``.
    mlp_width : int or None, default=None
        Width ``m`` of the fixed random ReLU layer before the readout
        (attention-MLP model); ``None`` reads out the context directly.
    training : {"early_phase", "gd", "adam"}, default="early_phase"
        ``"early_phase"``: the paper's three steps. ``"gd"``: ``n_steps``
        full-batch gradient steps of size ``learning_rate`` from zero.
        ``"adam"``: ``n_steps`` full-batch Adam steps of size
        ``learning_rate``.
    n_steps : int, default=300
        Steps of ``"gd"`` and ``"adam"`` (``"early_phase"`` always takes 3).
    learning_rate : float or None, default=None
        ``gamma`` of the early phase, the step of ``"gd"`` or of ``"adam"``.
        ``None`` picks ``300 * K`` for the early phase (the gradients are
        means over samples and classes, of order ``1 / K``), ``10 * K`` for
        ``"gd"`` and ``0.05`` for ``"adam"``, ``K`` the number of classes
        (chosen on :func:`~sklearn_iclr.datasets.make_token_recall` data).
    first_step : float, default=0.01
        ``eta`` of the early phase's first step, as a fraction of
        ``learning_rate`` (``eta = first_step * gamma``; the paper's regime is
        ``first_step`` small). Unused by the other trainings.
    embeddings : {"gaussian", "orthogonal"}, default="gaussian"
        ``"gaussian"``: i.i.d. ``N(0, 1/d)`` entries (unit norm on average).
        ``"orthogonal"``: orthonormal token, trigger and EOS vectors, which
        needs ``d >= n_tokens + 2``.
    vocab_size : int or None, default=None
        Number of token ids (ids are ``0, ..., vocab_size - 1``, trigger
        included). ``None`` takes ``max(X) + 1`` at fit. Tokens outside it are
        refused at fit and predict.
    trigger_token : int or None, default=0
        The token id that marks the informative token (the token after it).
        ``None``: no marking (attention sees the token embeddings only).
    max_work : float, default=3600
        Largest estimated cost of the fit, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from its multiply-adds;
        a costlier fit is refused before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds the embeddings and the MLP layer.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels.
    key_query_ : ndarray of shape (embedding_dim, embedding_dim)
        The learned key-query matrix ``W_KQ``.
    value_ : ndarray of shape (embedding_dim or mlp_width, n_classes)
        The learned value (readout) matrix ``V``.
    embeddings_ : ndarray of shape (n_tokens, embedding_dim)
        The fixed token embeddings ``E``.
    trigger_embedding_ : ndarray of shape (embedding_dim,)
        ``z_trig``.
    query_embedding_ : ndarray of shape (embedding_dim,)
        ``z_eos``.
    mlp_weights_ : ndarray of shape (mlp_width, embedding_dim) or None
        The fixed random layer ``A`` (entries ``N(0, 1)``).
    n_tokens_ : int
        Number of token ids of the embedding table.
    loss_curve_ : list of float
        Training cross-entropy before every step, and after the last.
    n_iter_ : int
        Steps taken.
    n_features_in_ : int
        Sequence length ``L`` seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of columns seen during fit, when ``X`` has string column names.

    See Also
    --------
    recall_capacity : measures the sample size needed for a recall accuracy
        over a grid of ``d``, ``L`` and ``V``, and fits the scaling law.
    sklearn_iclr.datasets.make_token_recall : data in this format.

    Notes
    -----
    When every sequence holds exactly one trigger, not in the last position
    (the recall format), fit checks that the labels are a one-to-one function
    of the marked tokens and raises a ``ValueError`` otherwise. Other tables
    (no trigger, several, ``trigger_token=None``) are fitted as they are: the
    marking applies to every position that follows a trigger. The key-query
    gradient is ``z_eos`` times a vector, so ``W_KQ`` trained by ``"gd"`` or
    the early phase has rank one; only ``W_KQ^T z_eos`` matters.

    References
    ----------
    .. [1] N. M. Vural, A. Bietti, M. Soltanolkotabi and D. Wu. "Learning to
       Recall with Transformers Beyond Orthogonal Embeddings". ICLR 2026.
       arXiv:2603.15923.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_token_recall
    >>> from sklearn_iclr.attention import RandomEmbeddingRecallClassifier
    >>> X, y = make_token_recall(3000, vocab_size=16, seq_len=4, random_state=0)
    >>> clf = RandomEmbeddingRecallClassifier(embedding_dim=32, random_state=0)
    >>> clf.fit(X[:2000], y[:2000]).score(X[2000:], y[2000:]) > 0.9
    True
    >>> clf.attention_weights(X[:1]).shape
    (1, 4)
    """

    _parameter_constraints = {
        "embedding_dim": [Interval(Integral, 1, None, closed="left")],
        "mlp_width": [Interval(Integral, 1, None, closed="left"), None],
        "training": [StrOptions({"early_phase", "gd", "adam"})],
        "n_steps": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither"), None],
        "first_step": [Interval(Real, 0, None, closed="neither")],
        "embeddings": [StrOptions({"gaussian", "orthogonal"})],
        "vocab_size": [Interval(Integral, 1, None, closed="left"), None],
        "trigger_token": [Interval(Integral, 0, None, closed="left"), None],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        embedding_dim=64,
        mlp_width=None,
        training="early_phase",
        n_steps=300,
        learning_rate=None,
        first_step=0.01,
        embeddings="gaussian",
        vocab_size=None,
        trigger_token=0,
        max_work=3600.0,
        random_state=None,
    ):
        self.embedding_dim = embedding_dim
        self.mlp_width = mlp_width
        self.training = training
        self.n_steps = n_steps
        self.learning_rate = learning_rate
        self.first_step = first_step
        self.embeddings = embeddings
        self.vocab_size = vocab_size
        self.trigger_token = trigger_token
        self.max_work = max_work
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags

    def _validate_tokens(self, X, reset, y=None):
        try:
            if y is None:
                X = validate_data(self, X, reset=reset, dtype=None)
            else:
                X, y = validate_data(self, X, y, reset=reset, dtype=None)
        except ValueError as exc:
            if "inhomogeneous" in str(exc):
                raise ValueError(
                    "X must be a table of equal-length token sequences; "
                    "sequences of different lengths were given. Pad or cut "
                    "them to one length first."
                ) from exc
            raise
        if X.dtype.kind == "O":
            X = X.astype(np.float64)
        if X.dtype.kind not in "iub":
            if X.dtype.kind != "f":
                raise ValueError(f"X must hold integer token ids; got dtype {X.dtype}.")
            if not np.all(np.isfinite(X)) or np.any(X != np.round(X)):
                raise ValueError(
                    "X must hold integer token ids; got non-integer values "
                    "(for example a scaled or real-valued table)."
                )
        if X.size and X.min() < 0:
            raise ValueError(
                f"Negative values in data passed to {type(self).__name__}: "
                f"token ids must be non-negative; got {X.min()}. Map tokens "
                "to 0, ..., vocab_size - 1 first."
            )
        limit = self.vocab_size if reset else self.n_tokens_
        if reset and limit is None:
            if X.size and X.max() >= 2**24:
                raise ValueError(
                    f"Token id {X.max()} is too large for an embedding table; "
                    "map tokens to 0, ..., vocab_size - 1 first."
                )
            return X.astype(np.int64), y
        if X.size and X.max() >= limit:
            raise ValueError(
                f"Token id {X.max()} is outside the vocabulary: ids must be "
                f"in 0, ..., {limit - 1} (the vocabulary "
                + ("given by vocab_size)." if reset else "of fit).")
            )
        return X.astype(np.int64), y

    def _marks(self, tokens):
        marks = np.zeros(tokens.shape, dtype=bool)
        if self.trigger_token is not None:
            marks[:, 1:] = tokens[:, :-1] == self.trigger_token
        return marks

    def _model(self, tokens):
        return _RecallModel(
            tokens,
            self._marks(tokens),
            self.embeddings_,
            self.trigger_embedding_,
            self.query_embedding_,
            self.mlp_weights_,
        )

    def _check_one_to_one(self, tokens, y_encoded):
        if self.trigger_token is None:
            return
        is_trigger = tokens == self.trigger_token
        if not (np.all(is_trigger.sum(axis=1) == 1) and not is_trigger[:, -1].any()):
            return
        rows = np.arange(tokens.shape[0])
        keys = tokens[rows, np.argmax(is_trigger, axis=1) + 1]
        pairs = np.unique(np.c_[keys, y_encoded], axis=0)
        if len(np.unique(pairs[:, 0])) < len(pairs):
            key = pairs[np.argmax(np.diff(pairs[:, 0]) == 0), 0]
            raise ValueError(
                f"The labels are not a function of the marked token: token "
                f"{key} follows the trigger with several labels. Recall data "
                "maps every informative token to one label."
            )
        if len(np.unique(pairs[:, 1])) < len(pairs):
            raise ValueError(
                "The labels are not one-to-one: two marked tokens share a "
                "label. Recall data maps tokens to labels one to one (a "
                "permutation)."
            )

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit ``W_KQ`` and ``V`` on token sequences.

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids (integer-valued floats are accepted).
        y : array-like of shape (n_samples,)
            Labels.

        Returns
        -------
        self : object
            The fitted classifier.
        """
        tokens, y = self._validate_tokens(X, reset=True, y=y)
        check_classification_targets(y)
        self.classes_, y_encoded = np.unique(np.asarray(y), return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "RandomEmbeddingRecallClassifier needs at least 2 classes; "
                f"got 1 class ({self.classes_[0]!r})."
            )
        if len(y_encoded) != tokens.shape[0]:
            raise ValueError(
                f"X has {tokens.shape[0]} rows but y has {len(y_encoded)} labels."
            )
        n, L = tokens.shape
        n_tokens = self.vocab_size
        if n_tokens is None:
            n_tokens = int(tokens.max()) + 1
        if self.trigger_token is not None:
            n_tokens = max(n_tokens, self.trigger_token + 1)
        K = len(self.classes_)
        d = self.embedding_dim
        width = d if self.mlp_width is None else self.mlp_width
        steps = 3 if self.training == "early_phase" else self.n_steps
        per_pass = n * L * (2 * d + n_tokens) + n * width * (3 * K + 2 * d)
        check_work_budget(
            {"multiply_add": steps * 3 * per_pass},
            self.max_work,
            advice="Use fewer samples, steps, a smaller embedding_dim or mlp_width.",
        )
        self._check_one_to_one(tokens, y_encoded)
        rng = check_random_state(self.random_state)
        E, z_trig, z_eos = _draw_embeddings(n_tokens, d, self.embeddings, rng)
        self.embeddings_ = E
        self.trigger_embedding_ = z_trig
        self.query_embedding_ = z_eos
        self.mlp_weights_ = (
            None if self.mlp_width is None else rng.standard_normal((self.mlp_width, d))
        )
        self.n_tokens_ = n_tokens

        Y = np.zeros((n, K))
        Y[np.arange(n), y_encoded] = 1.0
        model = self._model(tokens)
        W = np.zeros((d, d))
        V = np.zeros((width, K))
        losses = []
        if self.training == "early_phase":
            gamma = 300.0 * K if self.learning_rate is None else self.learning_rate
            loss, _, grad_V = model.loss_and_grads(W, V, Y)
            losses.append(loss)
            V = -self.first_step * gamma * grad_V
            loss, grad_W, _ = model.loss_and_grads(W, V, Y)
            losses.append(loss)
            W = -gamma * grad_W
            loss, _, grad_V = model.loss_and_grads(W, V, Y)
            losses.append(loss)
            V = V - gamma * grad_V
        elif self.training == "gd":
            lr = 10.0 * K if self.learning_rate is None else self.learning_rate
            for _ in range(steps):
                loss, grad_W, grad_V = model.loss_and_grads(W, V, Y)
                losses.append(loss)
                W = W - lr * grad_W
                V = V - lr * grad_V
        else:
            lr = 0.05 if self.learning_rate is None else self.learning_rate
            params = [W, V]
            m1 = [np.zeros_like(p) for p in params]
            m2 = [np.zeros_like(p) for p in params]
            for t in range(1, steps + 1):
                loss, grad_W, grad_V = model.loss_and_grads(*params, Y)
                losses.append(loss)
                for k, g in enumerate((grad_W, grad_V)):
                    m1[k] = 0.9 * m1[k] + 0.1 * g
                    m2[k] = 0.999 * m2[k] + 0.001 * g * g
                    step = m1[k] / (1 - 0.9**t)
                    scale = np.sqrt(m2[k] / (1 - 0.999**t)) + 1e-8
                    params[k] = params[k] - lr * step / scale
            W, V = params
        losses.append(model.loss_and_grads(W, V, Y)[0])
        self.key_query_ = W
        self.value_ = V
        self.loss_curve_ = [float(v) for v in losses]
        self.n_iter_ = steps
        return self

    def _forward(self, X):
        check_is_fitted(self)
        tokens, _ = self._validate_tokens(X, reset=False)
        return self._model(tokens).forward(self.key_query_, self.value_)

    def decision_function(self, X):
        """Logits ``V^T f(c)`` of every class.

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids.

        Returns
        -------
        logits : ndarray of shape (n_samples, n_classes) or (n_samples,)
            For two classes, the logit of the second minus that of the first.
        """
        logits = self._logits(X)
        return logits[:, 1] - logits[:, 0] if logits.shape[1] == 2 else logits

    def _logits(self, X):
        return self._forward(X)[-1]

    def predict_proba(self, X):
        """Class probabilities (softmax of the logits).

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return softmax(self._logits(X), axis=1)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        logits = self._logits(X)
        return logits - logsumexp(logits, axis=1, keepdims=True)

    def predict(self, X):
        """The most probable label.

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self._logits(X), axis=1)]

    def attention_weights(self, X):
        """Attention of the EOS query on every position.

        Parameters
        ----------
        X : array-like of shape (n_samples, seq_len)
            Integer token ids.

        Returns
        -------
        attention : ndarray of shape (n_samples, seq_len)
            Non-negative, each row sums to 1.
        """
        return self._forward(X)[0]


def _draw_accuracies(estimator, n_samples, vocab_size, seq_len, n_test, seed, repeats):
    """Held-out accuracy of ``repeats`` independent draws at one sample size.

    Draw ``r`` has its own facts, sequences and embeddings: the data and the
    estimator's ``random_state`` are two independent seeds spawned from
    ``(seed, r)``, the same for every sample size (common random numbers).
    """
    from ..datasets import make_token_recall

    scores = []
    for r in range(repeats):
        data_seed, model_seed = np.random.SeedSequence([seed, r]).generate_state(2)
        X, y = make_token_recall(
            n_samples + n_test, vocab_size, seq_len, random_state=int(data_seed)
        )
        estimator.set_params(random_state=int(model_seed))
        with warnings.catch_warnings():
            # A few sequences per fact is a regime the search must visit.
            warnings.filterwarnings("ignore", "The number of unique classes")
            estimator.fit(X[:n_samples], y[:n_samples])
        scores.append(np.mean(estimator.predict(X[n_samples:]) == y[n_samples:]))
    return np.asarray(scores)


def _crossing(evaluations, accuracy, lo, hi):
    """Log sample size where accuracy crosses ``accuracy``, and its stderr.

    Least squares of the per-draw accuracies on ``log N`` over the sizes
    evaluated within a factor 4 of the final bracket ``[lo, hi]``; the
    crossing of that line, clipped to the bracket, with the delta-method
    standard error plus the bracket's own resolution (uniform error).
    """
    log_lo, log_hi = np.log(lo), np.log(hi)
    resolution = (log_hi - log_lo) / np.sqrt(12)
    x, a = [], []
    for n, scores in evaluations:
        if log_lo - np.log(4) - 1e-9 <= np.log(n) <= log_hi + np.log(4) + 1e-9:
            x.extend([np.log(n)] * len(scores))
            a.extend(scores)
    x, a = np.asarray(x), np.asarray(a)
    if len(np.unique(x)) >= 2 and len(x) >= 3:
        slope, intercept = np.polyfit(x, a, 1)
        if slope > 0:
            resid = a - (intercept + slope * x)
            s2 = resid @ resid / max(len(x) - 2, 1)
            x_star = np.clip((accuracy - intercept) / slope, log_lo, log_hi)
            sxx = np.sum((x - x.mean()) ** 2)
            var_fit = s2 * (1 / len(x) + (x_star - x.mean()) ** 2 / sxx)
            return x_star, float(np.sqrt(var_fit / slope**2 + resolution**2))
    return (log_lo + log_hi) / 2, float((log_hi - log_lo) / 2)


def _log_linear_fit(table, names):
    """OLS of ``log n_required`` on the logs of the factors that vary."""
    rows = [r for r in table if r["reached"] and not r["censored"]]
    varying = [k for k in names if len({r[k] for r in rows}) > 1]
    result = {"exponents": {}, "exponents_stderr": {}, "intercept": np.nan}
    result.update(r2=np.nan, residuals=[None] * len(table), chi2_per_dof=np.nan)
    if len(rows) <= len(varying) + 1:
        return result
    A = np.c_[np.ones(len(rows)), [[np.log(r[k]) for k in varying] for r in rows]]
    target = np.log([r["n_required"] for r in rows])
    coef, *_ = np.linalg.lstsq(A, target, rcond=None)
    residual = target - A @ coef
    dof = len(rows) - A.shape[1]
    sigma2 = residual @ residual / dof
    cov = sigma2 * np.linalg.pinv(A.T @ A)
    total = np.sum((target - target.mean()) ** 2)
    noise = np.array([r["log_n_stderr"] for r in rows])
    result["intercept"] = float(coef[0])
    result["r2"] = float(1 - residual @ residual / total) if total > 0 else np.nan
    if np.all(noise > 0):
        result["chi2_per_dof"] = float(np.sum((residual / noise) ** 2) / dof)
    for k, name in enumerate(varying, start=1):
        result["exponents"][name] = float(coef[k])
        result["exponents_stderr"][name] = float(np.sqrt(cov[k, k]))
    fitted = iter(residual)
    result["residuals"] = [
        float(next(fitted)) if r["reached"] and not r["censored"] else None
        for r in table
    ]
    return result


def _search(est, V, L, accuracy, n_min, n_max, rtol, n_test, seed, repeats):
    """Bracket by factors of 4 from ``n_min``, then bisect on a log scale."""
    evaluations = []

    def evaluate(n):
        scores = _draw_accuracies(est, n, V, L, n_test, seed, repeats)
        evaluations.append((n, scores))
        return scores.mean()

    lo = n_min
    if evaluate(lo) >= accuracy:
        return evaluations, lo, lo, "below"
    hi = lo
    while True:
        hi = min(4 * hi, n_max)
        if evaluate(hi) >= accuracy:
            break
        if hi >= n_max:
            return evaluations, lo, None, None
        lo = hi
    while hi > (1 + rtol) * lo:
        mid = int(round(np.sqrt(lo * hi)))
        if mid <= lo or mid >= hi:
            break
        if evaluate(mid) >= accuracy:
            hi = mid
        else:
            lo = mid
    return evaluations, lo, hi, None


def recall_capacity(
    embedding_dims,
    seq_lens,
    vocab_sizes,
    accuracy=0.9,
    *,
    mlp_widths=(None,),
    estimator=None,
    n_min=None,
    n_max=None,
    rtol=0.2,
    n_test=1000,
    n_repeats=4,
    random_state=0,
):
    """Sample size needed for a recall accuracy, and its scaling law.

    For every setting ``(d, L, V[, m])`` of the grid, finds the smallest
    number of training sequences ``N`` of
    :func:`~sklearn_iclr.datasets.make_token_recall` at which the classifier
    reaches ``accuracy`` on ``n_test`` fresh sequences of the same facts, in
    the mean over ``n_repeats`` independent draws (facts, sequences and
    embeddings). The search brackets the crossing by factors of 4 from
    ``n_min``, bisects on a log scale until the bracket ``[lo, hi]`` has
    ``hi <= (1 + rtol) lo``, and places ``N`` inside it where a least-squares
    line of the per-draw accuracies against ``log N`` (over the sizes
    evaluated within a factor 4 of the bracket) crosses ``accuracy``; that
    line also gives the standard error of ``log N``. A setting already at
    ``accuracy`` at ``n_min`` is censored (flagged, left out of the fit).

    Then fits ``log N = c + a_d log d + a_L log L + a_V log V (+ a_m log m)``
    by least squares over the settings that reached it (factors with one
    value are left out). A multiplicative law ``N d ~ V L`` reads
    ``a_d = -1, a_L = a_V = 1``. From Vural, Bietti, Soltanolkotabi and Wu,
    "Learning to Recall with Transformers Beyond Orthogonal Embeddings" (ICLR
    2026, arXiv:2603.15923), whose capacity is multiplicative in ``N``, ``d``
    and ``L``.

    Parameters
    ----------
    embedding_dims, seq_lens, vocab_sizes : sequence of int
        The grid of ``d``, ``L`` (with the trigger) and ``V``.
    accuracy : float, default=0.9
        Held-out accuracy to reach (mean over the draws).
    mlp_widths : sequence of int or None, default=(None,)
        Widths ``m`` of the attention-MLP model (``None``: attention-only).
    estimator : RandomEmbeddingRecallClassifier or None, default=None
        The model, cloned for every setting with ``embedding_dim``,
        ``mlp_width`` and ``vocab_size`` (``V + 1`` token ids) set and
        ``random_state`` redrawn for every draw;
        ``None`` uses the defaults.
    n_min, n_max : int or None, default=None
        The range of ``N``; ``None`` gives ``V`` and ``256 V``. A setting
        that misses ``accuracy`` at ``n_max`` is reported as not reached.
    rtol : float, default=0.2
        Relative width at which the bisection stops (``hi <= (1 + rtol) lo``).
    n_test : int, default=1000
        Held-out sequences per fit.
    n_repeats : int, default=4
        Independent draws per tested ``N``, the same draws (seeds spawned
        from ``random_state``) at every ``N``.
    random_state : int, default=0
        Seed of the draws.

    Returns
    -------
    result : dict
        ``"table"``: a list of dicts, one per setting, with keys
        ``"embedding_dim"``, ``"seq_len"``, ``"vocab_size"``, ``"mlp_width"``,
        ``"n_required"`` (``None`` if not reached), ``"log_n_stderr"``,
        ``"bracket"`` (``[lo, hi]``), ``"reached"``, ``"censored"`` (reached
        at ``n_min`` already), ``"evaluations"`` (``[N, mean accuracy,
        standard deviation over draws]`` for every tested ``N``) and
        ``"n_fits"``. ``"exponents"`` and ``"exponents_stderr"``: dicts keyed
        by ``"embedding_dim"``, ``"seq_len"``, ``"vocab_size"``,
        ``"mlp_width"``; ``"intercept"``; ``"r2"`` of the log-log fit;
        ``"residuals"`` (one per table row, ``None`` where left out);
        ``"chi2_per_dof"``: the mean squared residual in units of the
        settings' own ``log_n_stderr``, near 1 when the law fits within the
        measurement noise and far above 1 when the residual is structure.

    Examples
    --------
    >>> from sklearn_iclr.attention import recall_capacity
    >>> res = recall_capacity([16, 24, 32], [4], [16], accuracy=0.8,
    ...                       n_repeats=2, rtol=0.5, n_test=500)
    >>> [row["reached"] for row in res["table"]]
    [True, True, True]
    >>> sorted(res["exponents"])
    ['embedding_dim']
    """
    from sklearn.base import clone

    if not 0 < accuracy <= 1:
        raise ValueError(f"accuracy must be in (0, 1]; got {accuracy}.")
    if n_repeats < 1 or not rtol > 0:
        raise ValueError(
            f"n_repeats must be >= 1 and rtol > 0; got {n_repeats}, {rtol}."
        )
    base = RandomEmbeddingRecallClassifier() if estimator is None else estimator
    table = []
    for m in mlp_widths:
        for V in vocab_sizes:
            for L in seq_lens:
                for d in embedding_dims:
                    est = clone(base).set_params(
                        embedding_dim=d, mlp_width=m, vocab_size=V + 1
                    )
                    lo_n = V if n_min is None else n_min
                    hi_n = 256 * V if n_max is None else n_max
                    evaluations, lo, hi, censored = _search(
                        est,
                        V,
                        L,
                        accuracy,
                        lo_n,
                        max(hi_n, lo_n),
                        rtol,
                        n_test,
                        random_state,
                        n_repeats,
                    )
                    reached = hi is not None
                    if censored or not reached:
                        n_required, stderr = (lo if reached else None), np.nan
                    else:
                        log_n, stderr = _crossing(evaluations, accuracy, lo, hi)
                        n_required = float(np.exp(log_n))
                    table.append(
                        {
                            "embedding_dim": d,
                            "seq_len": L,
                            "vocab_size": V,
                            "mlp_width": m,
                            "n_required": n_required,
                            "log_n_stderr": stderr,
                            "bracket": [lo, hi],
                            "reached": reached,
                            "censored": censored is not None,
                            "evaluations": [
                                [n, float(s.mean()), float(s.std())]
                                for n, s in sorted(evaluations, key=lambda e: e[0])
                            ],
                            "n_fits": len(evaluations) * n_repeats,
                        }
                    )
    names = ["embedding_dim", "seq_len", "vocab_size", "mlp_width"]
    fit = _log_linear_fit(table, names if None not in mlp_widths else names[:3])
    return {"table": table, **fit}
