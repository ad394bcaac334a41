"""The paper's contrastive encoder: one attention layer, then BReLU neurons.

Numpy with hand-written gradients (checked against torch autograd and finite
differences in the tests): the model is small, and a numpy loop keeps the
estimator free of the torch extra. The products run in BLAS; the elementwise
passes between them are numba kernels (``_brelu_kernel.py``).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data
from threadpoolctl import threadpool_limits

from ..utils import check_work_budget
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils._tokens import flatten_token_input, token_view, warn_one_token_per_row
from ._brelu_kernel import (
    brelu_grad,
    brelu_outputs,
    noise_views,
    normalise_keys,
    shift_rows,
    softmax_grad,
)
from ._infonce import resolve_batch_size

# Gradient steps that work lower the loss from its first value (InfoNCE near
# log(batch_size) on the paper's data); a minibatch loss this many times the
# first one (or than 1, if smaller) means they diverge: fit stops and raises.
DIVERGENCE_FACTOR = 10.0
# learning_rate="auto" is AUTO_STEP * temperature / (n_tokens^2 lambda), with
# lambda the largest eigenvalue of the second moment of a sample's mean token
# (tokens at unit RMS norm). At the start the attention is uniform, every
# token reads the mean token, and a neuron's output is n_tokens BReLU(w . mean
# token): the logits grow like n_tokens^2 lambda |w|^2 / temperature, which
# sets the step. The constant gives 0.15-0.26 on make_sparse_coding_pairs data
# (where the former default step, 0.2, trained) and trains scikit-learn's
# digits and breast cancer, raw or standardised (bench_brelu_attention.py,
# table auto_step, measures the margin).
AUTO_STEP = 0.2
# Largest neuron output accepted by transform (a margin below the float range).
MAX_OUTPUT = 1e300
# Largest history_ (neuron weights and masks) a fit may build, in bytes.
MAX_HISTORY_BYTES = 2**30


def _magnitude_mask(weights, prune_ratio):
    """True for the neurons kept: all but the ``prune_ratio`` smallest norms."""
    n_neurons = weights.shape[0]
    keep = np.ones(n_neurons, dtype=bool)
    n_pruned = int(np.floor(prune_ratio * n_neurons))
    if n_pruned:
        keep[np.argsort(np.linalg.norm(weights, axis=1), kind="stable")[:n_pruned]] = (
            False
        )
    return keep


def _attention_probs(tokens, attention, *, rescale=False):
    """``softmax_l(x_r^T A x_l)`` of every sample.

    The softmax runs in place on the scores, numba kernels on either side of
    numpy's ``exp``.

    With ``rescale``, for tokens of any magnitude (``transform``'s; the
    training tokens are at unit RMS norm): each sample's tokens are divided by
    a power of two ``c`` at least their largest entry, so the scores of the
    scaled tokens are the scores over ``c^2`` to the bit; they are shifted by
    their row maximum and multiplied back by ``c`` twice (a shifted score that
    overflows is ``-inf``: a weight of 0). The result is the plain softmax,
    without overflow of the scores.
    """
    if rescale:
        _, exponent = np.frexp(np.max(np.abs(tokens), axis=(1, 2)))
        scale = np.ldexp(1.0, exponent)[:, None]
        scaled = tokens / scale[:, :, None]
    else:
        scaled = tokens
    scores = (scaled @ attention) @ scaled.transpose(0, 2, 1)
    shift_rows(scores)
    if rescale:
        with np.errstate(over="ignore"):
            scores *= scale[:, :, None]
            scores *= scale[:, :, None]
    np.exp(scores, out=scores)
    normalise_keys(scores)
    return scores


def _forward(tokens, attention, weights, bias, *, rescale=False):
    """Unmasked neuron outputs ``h`` (n, m) and the cache of the backward pass."""
    probs = _attention_probs(tokens, attention, rescale=rescale)
    mixed = probs @ tokens
    pre = mixed @ weights.T
    outputs = np.empty((pre.shape[0], pre.shape[2]))
    brelu_outputs(pre, bias, outputs)
    return outputs, (tokens, probs, mixed, pre)


def _backward(grad_out, cache, weights, bias):
    """Gradients of ``sum(grad_out * h)`` with respect to (attention, weights)."""
    tokens, probs, mixed, pre = cache
    grad_pre = np.empty_like(pre)
    brelu_grad(grad_out, pre, bias, grad_pre)
    m, d = grad_pre.shape[-1], mixed.shape[-1]
    grad_weights = grad_pre.reshape(-1, m).T @ mixed.reshape(-1, d)
    grad_mixed = grad_pre @ weights
    grad_scores = grad_mixed @ tokens.transpose(0, 2, 1)
    softmax_grad(probs, grad_scores)
    # sum_n T_n^T dS_n T_n, as one matrix product.
    grad_attention = tokens.reshape(-1, d).T @ (grad_scores @ tokens).reshape(-1, d)
    return grad_attention, grad_weights


def _log_softmax_rows(logits):
    """``log softmax`` of every row, shifted by its (finite) maximum, in place."""
    shift_rows(logits[None])
    logits -= np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return logits


def infonce_stopgrad_loss(
    views, attention, weights, *, bias, temperature, alpha, keep=None
):
    """InfoNCE with a stop-gradient on the positive views, plus L2, and its gradient.

    For a batch of ``B`` pairs ``(X_i, Y_i)``, with ``f`` the masked encoder,
    ``u_i = f(X_i)`` and ``v_j = StopGrad f(Y_j)``::

        L = (1/B) sum_i -log softmax_j(u_i . v_j / tau)_i
            + (alpha / 2) (|attention|_F^2 + |weights|_F^2).

    The gradient flows through the anchors only. The neuron mask ``keep``
    acts in the forward pass; its gradient is straight-through (every neuron
    gets the gradient it would get were it kept), so pruned neurons keep
    being updated (Algorithm 1 of Liao et al.).

    Parameters
    ----------
    views : ndarray of shape (2, B, n_tokens, token_dim)
        The anchors ``X`` (``views[0]``) and their positives ``Y``
        (``views[1]``), encoded in one pass.
    attention : ndarray of shape (token_dim, token_dim)
    weights : ndarray of shape (n_neurons, token_dim)
    bias, temperature, alpha : float
    keep : ndarray of shape (n_neurons,) of bool, default=None
        Neurons kept in the forward pass (``None``: all).

    Returns
    -------
    loss : float
    grad_attention : ndarray of shape (token_dim, token_dim)
    grad_weights : ndarray of shape (n_neurons, token_dim)
    """
    n_pairs = views.shape[1]
    outputs, cache = _forward(
        views.reshape(-1, *views.shape[2:]), attention, weights, bias
    )
    h, targets = outputs[:n_pairs], outputs[n_pairs:]
    if keep is None:
        logits = h @ targets.T
    else:
        logits = (h * keep) @ (targets * keep).T
    logits /= temperature
    log_probs = _log_softmax_rows(logits)
    loss = -np.trace(log_probs) / n_pairs
    loss += 0.5 * alpha * (np.sum(attention**2) + np.sum(weights**2))
    probs = np.exp(log_probs, out=log_probs)
    grad_h = probs @ targets
    grad_h -= targets
    grad_h /= temperature * n_pairs
    anchors_cache = [array[:n_pairs] for array in cache]
    grad_attention, grad_weights = _backward(grad_h, anchors_cache, weights, bias)
    return (
        float(loss),
        grad_attention + alpha * attention,
        grad_weights + alpha * weights,
    )


def auto_learning_rate(tokens, temperature):
    """The step of ``learning_rate="auto"`` for tokens at unit RMS norm.

    ``AUTO_STEP * temperature / (n_tokens^2 lambda)``, with ``lambda`` the
    largest eigenvalue of the covariance of the samples' mean tokens.
    """
    mean_tokens = tokens.mean(axis=1)
    largest = np.linalg.eigvalsh(mean_tokens.T @ mean_tokens / len(mean_tokens))[-1]
    if largest <= 0:
        raise ValueError(
            "Every sample has the same mean token: the encoder has nothing to "
            "tell apart, and learning_rate='auto' no scale to choose a step "
            "from. Check the input, or set learning_rate."
        )
    return AUTO_STEP * temperature / (tokens.shape[1] ** 2 * largest)


class BReLUAttentionEncoder(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Contrastive encoder of Liao et al.: attention, then BReLU neurons (ICLR 2026).

    The model analysed in Liao, Zhou, Zhang, Wang and Zhang, "Theoretical
    Analysis of Contrastive Learning under Imbalanced Data: From Training
    Dynamics to a Pruning Solution", ICLR 2026, arXiv:2602.10357. A sample
    is a sequence of ``L`` tokens ``x_1 .. x_L``. One attention head mixes
    them, and ``m`` neurons with the bilateral ReLU read the mixture::

        a_r  = sum_l softmax_l(x_r^T A x_l) x_l
        f_i(X) = sum_r BReLU_b(w_i . a_r),
        BReLU_b(s) = ReLU(s - b) - ReLU(-s - b).

    Training minimises InfoNCE with a stop-gradient on the positive view,
    ``-log softmax_j(f(X_i) . StopGrad f(Y_j) / tau)_i`` averaged over a
    minibatch, plus ``alpha / 2`` times the squared norm of ``(A, W)``, by
    minibatch gradient descent. With ``prune_ratio > 0`` that fraction of
    neurons with the smallest ``|w_i|`` is masked in every forward pass, and
    all neurons are updated (Algorithm 1 of the paper). :meth:`transform`
    returns ``f(X)`` with the final mask.

    Parameters
    ----------
    n_neurons : int, default=32
        Number ``m`` of BReLU neurons (the embedding dimension).
    brelu_bias : float, default=0.01
        Threshold ``b`` of the BReLU, in units of the rescaled tokens (see
        Notes).
    temperature : float, default=0.5
        InfoNCE temperature ``tau``.
    prune_ratio : float, default=0.0
        Fraction of neurons masked by magnitude in every forward pass
        (Algorithm 1); ``0`` disables pruning.
    alpha : float, default=1e-3
        Weight of the L2 penalty on the attention and neuron weights.
    noise_scale : float, default=0.1
        When :meth:`fit` gets no ``X_positive``, both views are ``X`` plus
        Gaussian noise of this standard deviation per coordinate (in units
        of the rescaled tokens).
    token_dim : int, default=None
        Features per token of a 2-D input table; ``None`` takes it from a 3-D
        array, and reads a 2-D table as one token per row (the attention then
        does nothing: ``fit`` warns).
    init_scale : float, default=0.1
        The initial neuron weights are ``N(0, init_scale^2 / token_dim)``;
        the attention starts at zero (uniform attention).
    batch_size : int or "auto", default="auto"
        Pairs per minibatch (the other pairs of the batch are the
        negatives). ``"auto"`` is ``min(256, n_samples)``.
    max_epochs : int, default=100
        Passes over the data.
    learning_rate : float or "auto", default="auto"
        Step size of the gradient descent. ``"auto"`` chooses it from the
        training tokens (see Notes). A minibatch loss that grows ten times
        above the first one (or becomes non-finite) stops the fit with a
        ``ValueError``: lower the step then.
    record_every : int, default=1
        Epochs between two entries of ``history_`` (the initialisation is
        always recorded). A history above 1 GiB is refused up front, with the
        ``record_every`` that fits.
    max_work : float, default=3600
        Largest estimated cost of the fit, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from its multiply-adds;
        a costlier fit is refused before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights, the minibatch order and the views.
    verbose : int, default=0
        Print the loss every epoch when positive.

    Attributes
    ----------
    attention_ : ndarray of shape (token_dim, token_dim)
        The attention matrix ``A = W_Q^T W_K``.
    neuron_weights_ : ndarray of shape (n_neurons, token_dim)
        The neuron weights ``w_i`` (rows); pruned ones included.
    neuron_mask_ : ndarray of shape (n_neurons,) of bool
        True for the neurons kept by the final magnitude mask.
    history_ : list of dict
        One entry per recorded epoch: ``"epoch"`` (0 is the initialisation),
        ``"neuron_weights"`` (a copy of the weights, ``(n_neurons,
        token_dim)``) and ``"neuron_mask"`` (the magnitude mask); read by
        :func:`neuron_alignment`.
    learning_rate_ : float
        The step size used.
    token_scale_ : float
        The root-mean-square token norm of the training data; tokens are
        divided by it before they enter the model.
    loss_curve_ : list of float
        Mean training loss (InfoNCE plus penalty) of every epoch.
    n_iter_ : int
        Epochs run.
    n_tokens_ : int
        Tokens per training sample.
    token_dim_ : int
        Features per token.
    n_features_in_ : int
        Number of columns of the (flattened) training input.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    neuron_alignment : specialisation of the neurons to a known dictionary.
    InfoNCEEncoder : an MLP trained with symmetric, normalised InfoNCE (the
        encoder people train in practice), with the same ``prune_ratio``.
    sklearn_iclr.datasets.make_sparse_coding_pairs : the paper's data.

    Notes
    -----
    The value matrix of the attention is the identity, so that every ``w_i``
    lives in token space and can be compared with the dictionary features.
    Tokens are divided by their root-mean-square norm on the training data,
    so that the fit is equivariant to the scale of ``X`` (``brelu_bias`` and
    ``noise_scale`` are in these units) and the attention scores cannot
    overflow. ``learning_rate="auto"`` is ``0.2 tau / (L^2 lambda)``, with
    ``lambda`` the largest eigenvalue of the second moment of a sample's mean
    token: at the start the attention is uniform and the logits grow like
    ``L^2 lambda |w|^2 / tau``. Training runs BLAS on one thread (its
    products are small).

    More in the user guide (:ref:`brelu-attention-details`).

    References
    ----------
    .. [1] H. Liao, Y. Zhou, S. Zhang, M. Wang and S. Zhang. "Theoretical
       Analysis of Contrastive Learning under Imbalanced Data: From Training
       Dynamics to a Pruning Solution". ICLR 2026. arXiv:2602.10357.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_sparse_coding_pairs
    >>> from sklearn_iclr.contrastive import BReLUAttentionEncoder
    >>> X, X_pos, codes, M, rates = make_sparse_coding_pairs(300, random_state=0)
    >>> encoder = BReLUAttentionEncoder(n_neurons=16, max_epochs=5, random_state=0)
    >>> encoder.fit(X, X_positive=X_pos).transform(X).shape
    (300, 16)
    """

    _parameter_constraints = {
        "n_neurons": [Interval(Integral, 1, None, closed="left")],
        "brelu_bias": [Interval(Real, 0, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "prune_ratio": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "noise_scale": [Interval(Real, 0, None, closed="left")],
        "token_dim": [Interval(Integral, 1, None, closed="left"), None],
        "init_scale": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [
            Interval(Integral, 2, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "record_every": [Interval(Integral, 1, None, closed="left")],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_neurons=32,
        *,
        brelu_bias=0.01,
        temperature=0.5,
        prune_ratio=0.0,
        alpha=1e-3,
        noise_scale=0.1,
        token_dim=None,
        init_scale=0.1,
        batch_size="auto",
        max_epochs=100,
        learning_rate="auto",
        record_every=1,
        max_work=3600.0,
        random_state=None,
        verbose=0,
    ):
        self.n_neurons = n_neurons
        self.brelu_bias = brelu_bias
        self.temperature = temperature
        self.prune_ratio = prune_ratio
        self.alpha = alpha
        self.noise_scale = noise_scale
        self.token_dim = token_dim
        self.init_scale = init_scale
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.record_every = record_every
        self.max_work = max_work
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, X_positive=None):
        """Train the encoder with stop-gradient InfoNCE on positive pairs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Anchor views; a 2-D table is cut into tokens by ``token_dim``.
        y : None
            Ignored (the training is self-supervised).
        X_positive : array-like of the shape of ``X``, default=None
            Positive views: ``X_positive[i]`` is the positive of ``X[i]``
            (for the paper's data, the same codes with fresh noise). ``None``
            makes both views by adding Gaussian noise to ``X``.

        Returns
        -------
        self : BReLUAttentionEncoder
            The fitted encoder.
        """
        X, token_dim = flatten_token_input(X, self.token_dim)
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        if token_dim is None:
            warn_one_token_per_row(self)
        tokens = token_view(X, token_dim)
        n_samples, self.n_tokens_, self.token_dim_ = tokens.shape
        positives = None
        if X_positive is not None:
            positives = self._check_positive(X_positive, X.shape)
        batch_size = resolve_batch_size(self.batch_size, n_samples)
        self._check_budget(n_samples)
        self.token_scale_ = _token_scale(tokens)
        if positives is None:
            tokens = tokens / self.token_scale_
        else:
            # Both views side by side: the pairs of a minibatch are one slice.
            pairs = np.stack((tokens, positives))
            pairs /= self.token_scale_
            tokens = pairs[0]
        self.learning_rate_ = (
            auto_learning_rate(tokens, self.temperature)
            if self.learning_rate == "auto"
            else float(self.learning_rate)
        )
        rng = check_random_state(self.random_state)
        d = self.token_dim_
        weights = rng.standard_normal((self.n_neurons, d)) * (
            self.init_scale / np.sqrt(d)
        )
        attention = np.zeros((d, d))
        self.history_ = []
        self.loss_curve_ = []

        def record(epoch):
            self.history_.append(
                {
                    "epoch": epoch,
                    "neuron_weights": weights.copy(),
                    "neuron_mask": _magnitude_mask(weights, self.prune_ratio),
                }
            )

        record(0)
        if positives is None:
            # The views' Gaussian noise: ziggurat draws of a Generator on
            # SFC64 (numpy's fastest bit generator), seeded by random_state,
            # made by a numba kernel into one buffer. RandomState's Gaussian
            # draws alone cost more than the dense products of the fit.
            noise_rng = np.random.Generator(
                np.random.SFC64(rng.randint(np.iinfo(np.int32).max))
            )
            views = np.empty((2, batch_size, *tokens.shape[1:]))
        first_loss = None
        # One small product after the other: BLAS threads would spend more
        # CPU time synchronising than they save. Overflow on the way to a
        # diverging loss is reported by the check below, as a ValueError.
        with (
            threadpool_limits(limits=1, user_api="blas"),
            np.errstate(over="ignore", invalid="ignore"),
        ):
            for epoch in range(1, self.max_epochs + 1):
                order = rng.permutation(n_samples)
                losses = []
                for start in range(0, n_samples - batch_size + 1, batch_size):
                    batch = order[start : start + batch_size]
                    if positives is None:
                        noise_views(tokens, batch, self.noise_scale, noise_rng, views)
                    else:
                        views = np.take(pairs, batch, axis=1)
                    loss, grad_attention, grad_weights = infonce_stopgrad_loss(
                        views,
                        attention,
                        weights,
                        bias=self.brelu_bias,
                        temperature=self.temperature,
                        alpha=self.alpha,
                        keep=(
                            _magnitude_mask(weights, self.prune_ratio)
                            if self.prune_ratio > 0
                            else None
                        ),
                    )
                    first_loss = loss if first_loss is None else first_loss
                    self._check_divergence(loss, first_loss, epoch)
                    attention -= self.learning_rate_ * grad_attention
                    weights -= self.learning_rate_ * grad_weights
                    losses.append(loss)
                self.loss_curve_.append(float(np.mean(losses)))
                if epoch % self.record_every == 0 or epoch == self.max_epochs:
                    record(epoch)
                if self.verbose:
                    print(f"epoch {epoch}: loss {self.loss_curve_[-1]:.5f}")
        self.attention_ = attention
        self.neuron_weights_ = weights
        self.neuron_mask_ = _magnitude_mask(weights, self.prune_ratio)
        self.n_iter_ = self.max_epochs
        self._n_features_out = self.n_neurons
        return self

    def _check_divergence(self, loss, first_loss, epoch):
        if np.isfinite(loss) and loss <= DIVERGENCE_FACTOR * max(first_loss, 1.0):
            return
        raise ValueError(
            f"The training loss grew from {first_loss:.3g} (first minibatch) to "
            f"{loss:.3g} at epoch {epoch}: the gradient steps diverge. "
            f"learning_rate={self.learning_rate_:.3g} is too large for this "
            "data; lower it (or raise temperature)."
        )

    def transform(self, X):
        """Embed ``X``: the masked neuron outputs ``f(X)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_tokens, token_dim) or \
                (n_samples, n_tokens * token_dim)
            Token sequences of the training token dimension.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_neurons)
            ``f(X)``; the columns of pruned neurons are zero.
        """
        check_is_fitted(self)
        X, token_dim = flatten_token_input(X, None)
        if token_dim not in (None, self.token_dim_):
            raise ValueError(
                f"X has tokens of dimension {token_dim}, but the encoder was "
                f"fitted on tokens of dimension {self.token_dim_}."
            )
        X = validate_data(self, X, reset=False, dtype=np.float64)
        self._check_output_range(X)
        tokens = token_view(X, self.token_dim_) / self.token_scale_
        h, _ = _forward(
            tokens,
            self.attention_,
            self.neuron_weights_,
            self.brelu_bias,
            rescale=True,
        )
        return h * self.neuron_mask_

    def _check_output_range(self, X):
        """Refuse tokens whose neuron outputs would overflow float64.

        A neuron reads convex mixtures of the tokens, so its output is at most
        ``n_tokens * |x|_max * |w_i|`` (in the rescaled units); the attention
        itself takes tokens of any magnitude.
        """
        largest = float(np.max(np.abs(X), initial=0.0)) / self.token_scale_
        bound = (
            largest
            * np.sqrt(self.token_dim_)
            * self.n_tokens_
            * np.max(np.linalg.norm(self.neuron_weights_, axis=1))
        )
        if not bound <= MAX_OUTPUT:
            raise ValueError(
                f"X holds values up to {largest:.3g} times the training tokens' "
                f"RMS norm ({self.token_scale_:.3g}): the neuron outputs would "
                "overflow float64. Rescale X to the units of the training data."
            )

    def _check_positive(self, X_positive, shape):
        X_positive, _ = flatten_token_input(X_positive, self.token_dim)
        X_positive = np.asarray(X_positive, dtype=np.float64)
        if X_positive.shape != shape:
            raise ValueError(
                f"X_positive has shape {X_positive.shape} once flattened, but X "
                f"has {shape}: give one positive view per sample, of the same "
                "shape as X."
            )
        if not np.all(np.isfinite(X_positive)):
            raise ValueError("X_positive contains NaN or infinity.")
        return token_view(X_positive, self.token_dim_)

    def _check_budget(self, n_samples):
        L, d, m = self.n_tokens_, self.token_dim_, self.n_neurons
        # Forward and backward of both views: attention scores and mixing
        # (L^2 d, with the d x d attention product L d^2), the neurons (L d m).
        per_sample = 6 * (2 * L * L * d + L * d * d + L * d * m)
        work = float(self.max_epochs) * n_samples * per_sample
        check_work_budget(
            {"multiply_add": work},
            self.max_work,
            advice="Or lower max_epochs or n_neurons, or subsample X.",
        )
        # The snapshots are memory the work count does not see: many epochs
        # on a few samples are cheap, their history is not.
        n_records = 1 + -(-self.max_epochs // self.record_every)
        snapshot = m * (8 * d + 1)  # float64 weights and the bool mask
        if n_records * snapshot > MAX_HISTORY_BYTES:
            fits = MAX_HISTORY_BYTES // snapshot - 1
            raise ValueError(
                f"history_ would hold {n_records} snapshots of {m} x {d} neuron "
                f"weights ({n_records * snapshot / 2**30:.3g} GiB, more than "
                f"{MAX_HISTORY_BYTES / 2**30:g} GiB): set record_every >= "
                f"{-(-self.max_epochs // fits)} (or lower max_epochs or n_neurons)."
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags


def _token_scale(tokens):
    """Root-mean-square token norm, computed without under- or overflow."""
    largest = float(np.max(np.abs(tokens)))
    if largest == 0:
        raise ValueError(
            "X is all zeros: the encoder has nothing to learn from. Check the "
            "input (every token is the zero vector)."
        )
    return largest * float(np.sqrt(np.mean(np.sum((tokens / largest) ** 2, axis=-1))))
