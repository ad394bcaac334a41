"""Factual recall by one attention head over fixed random token embeddings."""

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from scipy.special import logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ..utils import check_work_budget
from ..utils._compat import Interval, StrOptions, _fit_context

# The softmax over the classes and its gradient (exp, log, five passes over
# the logits) cost about as much per logit as this many multiply-adds of the
# cost table (benchmarks/bench_cost.py, RandomEmbeddingRecallClassifier at
# d=16: 2.4 times the table's estimate when it counted 8).
SOFTMAX_MULTIPLY_ADDS = 100
# Step sizes of learning_rate="auto", per class: the gradients are means over
# samples and classes, of order 1 / K (chosen on make_token_recall data).
AUTO_STEP_PER_CLASS = {"early_phase": 300.0, "gd": 10.0}
AUTO_ADAM_STEP = 0.05


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
    ``f_i^T V``. The trigger vector is one more row of the embedding table,
    which every marked position reads besides its token, so that the context
    is one sparse product (``n`` rows of ``L + 1`` token weights) with the
    table; nothing of size ``n x L x d`` is formed.
    """

    def __init__(self, tokens, marks, E, z_trig, z_eos, mlp):
        n, L = tokens.shape
        self.n_rows = n
        self.tokens = tokens
        self.marks = marks.astype(E.dtype)
        self.table = np.vstack([E, z_trig])
        self.z_eos = z_eos
        self.mlp = mlp
        n_ids = len(self.table)
        # Row i of the sparse weights holds its L tokens, then the trigger row.
        self._columns = np.c_[tokens, np.full(n, n_ids - 1)].ravel()
        self._indptr = np.arange(0, n * (L + 1) + 1, L + 1)
        self._flat_index = np.arange(n)[:, None] * n_ids + tokens
        self._rows = np.arange(n)
        self._buffers = {}

    def _token_weights(self, attn):
        """``(n, n_tokens + 1)`` sparse: attention per token id, and on the trigger."""
        data = np.c_[attn, np.einsum("nl,nl->n", attn, self.marks)]
        return sparse.csr_matrix(
            (data.ravel(), self._columns, self._indptr),
            shape=(self.n_rows, len(self.table)),
        )

    def _buffer(self, name, shape):
        """An array reused from one training step to the next.

        Fresh arrays of ``n x n_classes`` (megabytes) at every step cost more
        than the products that fill them (their pages are mapped anew).
        """
        if name not in self._buffers or self._buffers[name].shape != shape:
            self._buffers[name] = np.empty(shape)
        return self._buffers[name]

    def _features(self, W):
        """Attention, context, MLP pre-activation (or None) and features."""
        table_scores = self.table @ (W.T @ self.z_eos)
        scores = np.take(table_scores, self.tokens)
        scores += table_scores[-1] * self.marks
        scores -= scores.max(axis=1, keepdims=True)
        attn = np.exp(scores, out=scores)
        attn /= attn.sum(axis=1, keepdims=True)
        context = self._token_weights(attn) @ self.table
        if self.mlp is None:
            return attn, context, None, context
        pre = context @ self.mlp.T
        features = np.maximum(pre, 0.0)
        features *= 1.0 / np.sqrt(self.mlp.shape[0])
        return attn, context, pre, features

    def forward(self, W, V):
        """Attention weights and logits."""
        attn, _, _, features = self._features(W)
        return attn, features @ V

    def loss_and_grads(self, W, V, y):
        """Mean cross-entropy of the labels ``y`` (indices) and its gradients."""
        attn, context, pre, features = self._features(W)
        n = self.n_rows
        logits = np.matmul(features, V, out=self._buffer("logits", (n, V.shape[1])))
        logits -= logits.max(axis=1, keepdims=True)
        picked = np.sum(logits[self._rows, y])
        G = np.exp(logits, out=logits)
        total = G.sum(axis=1)
        loss = (np.sum(np.log(total)) - picked) / n
        # d loss / d logits = (softmax - one_hot) / n.
        G *= (1.0 / (n * total))[:, None]
        G[self._rows, y] -= 1.0 / n
        grad_V = features.T @ G
        d_features = np.matmul(G, V.T, out=self._buffer("features", features.shape))
        if self.mlp is None:
            d_context = d_features
        else:
            d_features *= pre > 0
            d_features *= 1.0 / np.sqrt(self.mlp.shape[0])
            d_context = d_features @ self.mlp
        along_table = np.matmul(
            d_context, self.table.T, out=self._buffer("along", (n, len(self.table)))
        )
        d_scores = np.take(along_table, self._flat_index)
        d_scores += along_table[:, -1:] * self.marks
        d_scores -= np.einsum("nd,nd->n", d_context, context)[:, None]
        d_scores *= attn
        per_token = np.bincount(
            self.tokens.ravel(), weights=d_scores.ravel(), minlength=len(self.table)
        )
        per_token[-1] = np.einsum("nl,nl->", d_scores, self.marks)
        grad_W = np.outer(self.z_eos, per_token @ self.table)
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
        ``"early_phase"``: the paper's three steps. ``"gd"``: ``max_iter``
        full-batch gradient steps of size ``learning_rate`` from zero.
        ``"adam"``: ``max_iter`` full-batch Adam steps of size
        ``learning_rate``.
    max_iter : int, default=300
        Steps of ``"gd"`` and ``"adam"`` (``"early_phase"`` always takes 3).
    learning_rate : float or "auto", default="auto"
        ``gamma`` of the early phase, the step of ``"gd"`` or of ``"adam"``.
        ``"auto"`` takes ``300 * K`` for the early phase (the gradients are
        means over samples and classes, of order ``1 / K``), ``10 * K`` for
        ``"gd"`` and ``0.05`` for ``"adam"``, ``K`` the number of classes
        (chosen on :func:`~sklearn_iclr.datasets.make_token_recall` data). A
        step under which the loss overflows raises a ``ValueError``.
    first_step : float, default=0.01
        ``eta`` of the early phase's first step, as a fraction of
        ``learning_rate`` (``eta = first_step * gamma``; the paper's regime is
        ``first_step`` small). Unused by the other trainings.
    embeddings : {"gaussian", "orthogonal"}, default="gaussian"
        ``"gaussian"``: i.i.d. ``N(0, 1/d)`` entries (unit norm on average).
        ``"orthogonal"``: orthonormal token, trigger and EOS vectors, which
        needs ``d >= n_tokens + 2``.
    n_tokens : int or None, default=None
        Number of token ids (ids are ``0, ..., n_tokens - 1``, trigger
        included). ``None`` takes ``max(X) + 1`` at fit. Tokens outside it are
        refused at fit and predict. :func:`~sklearn_iclr.datasets.make_token_recall`
        with ``vocab_size=V`` content tokens makes ``V + 1`` token ids.
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
        Training cross-entropy after every step: ``n_iter_`` values (before
        the first step it is ``log(n_classes)``).
    n_iter_ : int
        Steps taken (3 for the early phase).
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
    the early phase has rank one; only ``W_KQ^T z_eos`` matters. Training
    runs BLAS on one thread (its products are small).

    More in the user guide (:ref:`random-embedding-recall-details`).

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
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "first_step": [Interval(Real, 0, None, closed="neither")],
        "embeddings": [StrOptions({"gaussian", "orthogonal"})],
        "n_tokens": [Interval(Integral, 1, None, closed="left"), None],
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
        max_iter=300,
        learning_rate="auto",
        first_step=0.01,
        embeddings="gaussian",
        n_tokens=None,
        trigger_token=0,
        max_work=3600.0,
        random_state=None,
    ):
        self.embedding_dim = embedding_dim
        self.mlp_width = mlp_width
        self.training = training
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.first_step = first_step
        self.embeddings = embeddings
        self.n_tokens = n_tokens
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
                "to 0, ..., n_tokens - 1 first."
            )
        limit = self.n_tokens if reset else self.n_tokens_
        if reset and limit is None:
            if X.size and X.max() >= 2**24:
                raise ValueError(
                    f"Token id {X.max()} is too large for an embedding table; "
                    "map tokens to 0, ..., n_tokens - 1 first."
                )
            return X.astype(np.int64), y
        if X.size and X.max() >= limit:
            raise ValueError(
                f"Token id {X.max()} is outside the vocabulary: ids must be "
                f"in 0, ..., {limit - 1} (the vocabulary "
                + ("given by n_tokens)." if reset else "of fit).")
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
        n_tokens = self.n_tokens
        if n_tokens is None:
            n_tokens = int(tokens.max()) + 1
        if self.trigger_token is not None:
            n_tokens = max(n_tokens, self.trigger_token + 1)
        self._check_budget(n, L, n_tokens, len(self.classes_))
        self._check_one_to_one(tokens, y_encoded)
        rng = check_random_state(self.random_state)
        d = self.embedding_dim
        E, z_trig, z_eos = _draw_embeddings(n_tokens, d, self.embeddings, rng)
        self.embeddings_ = E
        self.trigger_embedding_ = z_trig
        self.query_embedding_ = z_eos
        self.mlp_weights_ = (
            None if self.mlp_width is None else rng.standard_normal((self.mlp_width, d))
        )
        self.n_tokens_ = n_tokens
        width = d if self.mlp_width is None else self.mlp_width
        W, V = np.zeros((d, d)), np.zeros((width, len(self.classes_)))
        # One small product after the other: BLAS threads would spend more CPU
        # time synchronising than they save. Overflow ends in a non-finite
        # loss, which _train reports.
        with (
            threadpool_limits(limits=1, user_api="blas"),
            np.errstate(over="ignore", invalid="ignore"),
        ):
            losses = self._train(self._model(tokens), y_encoded, W, V)
        self.key_query_ = W
        self.value_ = V
        self.loss_curve_ = losses[1:]
        self.n_iter_ = len(self.loss_curve_)
        return self

    def _train(self, model, y, W, V):
        """Update ``W`` and ``V`` in place; the loss before every step and after."""
        lr = self._step_size(len(self.classes_))
        losses = []

        def loss_and_grads():
            loss, grad_W, grad_V = model.loss_and_grads(W, V, y)
            if not np.isfinite(loss):
                raise ValueError(
                    f"The training loss became {loss} after {len(losses)} "
                    f"{self.training!r} steps (first: {losses[0]:.3g}): "
                    f"learning_rate={lr:.3g} is too large for this data; lower it."
                )
            losses.append(float(loss))
            return grad_W, grad_V

        if self.training == "early_phase":
            _, grad_V = loss_and_grads()
            V -= self.first_step * lr * grad_V
            grad_W, _ = loss_and_grads()
            W -= lr * grad_W
            _, grad_V = loss_and_grads()
            V -= lr * grad_V
        elif self.training == "gd":
            for _ in range(self.max_iter):
                grad_W, grad_V = loss_and_grads()
                W -= lr * grad_W
                V -= lr * grad_V
        else:
            moments = [(np.zeros_like(p), np.zeros_like(p)) for p in (W, V)]
            for t in range(1, self.max_iter + 1):
                for param, grad, (m1, m2) in zip(
                    (W, V), loss_and_grads(), moments, strict=True
                ):
                    m1 *= 0.9
                    m1 += 0.1 * grad
                    m2 *= 0.999
                    m2 += 0.001 * grad * grad
                    scale = np.sqrt(m2 / (1 - 0.999**t)) + 1e-8
                    param -= (lr / (1 - 0.9**t)) * m1 / scale
        loss_and_grads()
        return losses

    def _step_size(self, n_classes):
        if self.learning_rate != "auto":
            return self.learning_rate
        if self.training == "adam":
            return AUTO_ADAM_STEP
        return AUTO_STEP_PER_CLASS[self.training] * n_classes

    def _check_budget(self, n, L, n_tokens, n_classes):
        d = self.embedding_dim
        width = d if self.mlp_width is None else self.mlp_width
        steps = 3 if self.training == "early_phase" else self.max_iter
        # Per sample and step: logits, readout gradient and feature gradient
        # (3 w K), the context and the scores along the embedding table
        # ((L + 1 + n_tokens + 1) d), the MLP layer both ways (2 m d), the
        # softmax over the classes.
        per_sample = (
            3 * width * n_classes
            + (L + n_tokens + 2) * d
            + (0 if self.mlp_width is None else 2 * width * d)
            + SOFTMAX_MULTIPLY_ADDS * n_classes
        )
        check_work_budget(
            {"multiply_add": float(steps + 1) * n * per_sample},
            self.max_work,
            advice="Use fewer samples or steps, a smaller embedding_dim or mlp_width.",
        )

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
