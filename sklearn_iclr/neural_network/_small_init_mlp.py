"""A bias-free deep ReLU regressor trained from a small initialisation."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ..utils import check_work_budget, warn_user
from ..utils._compat import Interval, _fit_context
from ..utils.validation import rms_scale
from ._bias_free_relu import (
    backward,
    effective_rank,
    forward,
    layer_shapes,
    operation_count,
    singular_values,
)

# Gradient descent whose loss grows this much above its start has diverged
# (overshooting steps then kill every ReLU and the output collapses to 0).
DIVERGENCE_FACTOR = 1e3
# A plateau is a run of records whose log-loss falls more slowly than this
# fraction of the fastest fall of the run, lasting at least this fraction of
# the iterations.
PLATEAU_SLOPE_FRACTION = 0.05
PLATEAU_MIN_FRACTION = 0.02
PLATEAU_FLAT_DROP = 1e-3
# A fit whose last loss is above this fraction of its first never left the
# saddle at the origin: it predicts (almost) 0, and fit warns.
ORIGIN_LOSS_FRACTION = 0.99


def detect_plateaus(iterations, losses, ranks):
    """Runs of records where the loss is (nearly) flat: the saddle visits.

    The slope of ``log(loss)`` per iteration between consecutive records is
    compared with the steepest slope of the run; records whose slope is below
    ``PLATEAU_SLOPE_FRACTION`` of it (or below ``PLATEAU_FLAT_DROP`` over the
    whole run) form plateaus, kept when they last at least
    ``PLATEAU_MIN_FRACTION`` of the iterations.

    Parameters
    ----------
    iterations : ndarray of shape (n_records,)
        The iteration of every record.
    losses : ndarray of shape (n_records,)
        The loss at every record.
    ranks : ndarray of shape (n_records, n_layers)
        The effective rank of every layer at every record.

    Returns
    -------
    plateaus : list of dict
        See :class:`SmallInitMLPRegressor`, attribute ``plateaus_``.
    """
    iterations = np.asarray(iterations)
    if len(iterations) < 3:
        return []
    log_loss = np.log(np.maximum(losses, np.finfo(np.float64).tiny))
    slope = -np.diff(log_loss) / np.diff(iterations)
    span = iterations[-1] - iterations[0]
    # A fall of the log-loss slower than PLATEAU_FLAT_DROP per run is flat
    # whatever the steepest slope (a run that never leaves the origin).
    threshold = max(PLATEAU_SLOPE_FRACTION * slope.max(), PLATEAU_FLAT_DROP / span)
    flat = slope < threshold
    min_length = PLATEAU_MIN_FRACTION * span
    plateaus, start = [], None
    for i, is_flat in enumerate([*flat, False]):
        if is_flat and start is None:
            start = i
        elif not is_flat and start is not None:
            end = i  # records start..end span the flat segments start..i-1
            if iterations[end] - iterations[start] >= min_length:
                plateaus.append(
                    {
                        "start_iteration": int(iterations[start]),
                        "end_iteration": int(iterations[end]),
                        "loss": float(np.median(losses[start : end + 1])),
                        "effective_ranks": _most_frequent_row(ranks[start : end + 1]),
                        "exit_ranks": np.asarray(ranks[end]).copy(),
                        "final": bool(end == len(iterations) - 1),
                    }
                )
            start = None
    return plateaus


def _most_frequent_row(rows):
    values, counts = np.unique(np.asarray(rows), axis=0, return_counts=True)
    return values[np.argmax(counts)].copy()


def _descend(units, log_norms, grads, learning_rate):
    """One step ``W_l -= lr_t grad_l`` on layers kept as unit matrices and log-norms.

    ``W_l = exp(log_norms[l]) * units[l]`` and ``grads`` are the gradients at
    the unit layers. From ``init_scale=1e-100`` the output of a depth-6 network
    is about ``1e-600`` and the step ``lr_t`` about ``1e400``, while the
    products that the update needs are of order one. The network is
    1-homogeneous in each layer, so the gradient with respect to ``W_l`` is
    ``exp(sum_{k != l} log_norms[k])`` times ``grads[l]`` and the update of
    ``units[l]`` is scaled by ``lr_t * exp(sum(log_norms) - 2 log_norms[l])``,
    computed in logs. ``units`` and ``log_norms`` are updated in place.
    """
    depth = len(units)
    # log ||theta||^2 = log sum_l exp(2 log_norms[l]), without overflow
    largest = log_norms.max()
    log_norm_sq = 2.0 * largest + math.log(
        float(np.sum(np.exp(2.0 * (log_norms - largest))))
    )
    # log of lr_t = learning_rate * (L / ||theta||^2)^((L - 2) / 2)
    log_step = math.log(learning_rate) + 0.5 * (depth - 2) * (
        math.log(depth) - log_norm_sq
    )
    factors = np.exp(log_step + log_norms.sum() - 2.0 * log_norms)
    for layer, (U, g) in enumerate(zip(units, grads, strict=True)):
        U = U - factors[layer] * g
        norm = math.sqrt(float(np.vdot(U, U)))
        log_norms[layer] += math.log(norm)
        units[layer] = U / norm


class SmallInitMLPRegressor(RegressorMixin, BaseEstimator):
    """Bias-free deep ReLU regressor trained from a small initialisation.

    Trains the network of Ioannis Bantzis, James B. Simon and Arthur Jacot,
    "Saddle-To-Saddle Dynamics in Deep ReLU Networks: Low-Rank Bias in the
    First Saddle Escape", ICLR 2026 (arXiv:2505.21722), and records its
    saddle-to-saddle path. The network is ``Z_1 = W_1 x``,
    ``Z_l = W_l relu(Z_{l-1})``, ``f(x) = Z_L`` (no biases), trained by
    full-batch gradient descent on ``1/(2n) sum_i ||f(x_i) - y_i||^2`` from
    layers of Frobenius norm ``init_scale``.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=(50, 50, 50, 50, 50)
        Widths of the hidden layers; the depth is ``len + 1``.
    init_scale : float, default=1e-3
        Frobenius norm of every layer at initialisation (Gaussian directions).
    learning_rate : float, default=1.0
        Step of gradient descent at unit-norm layers (see above). The time to
        align with the escape direction is proportional to
        ``1 / learning_rate`` and grows with the width and the depth (a random
        layer of width ``w`` and unit norm has gain about ``1/sqrt(w)``); the
        default leaves the origin of the default network in a few thousand
        steps on standardised data. Too large a step diverges after the
        escape (an error says so).
    max_iter : int, default=5000
        Full-batch gradient steps.
    record_every : int, default=10
        Singular values of every layer are recorded every ``record_every``
        steps (and at the first and last).
    rank_tol : float, default=0.1
        A singular value counts towards a layer's effective rank when it
        exceeds ``rank_tol`` times the layer's largest.
    max_work : float, default=3600
        Largest estimated cost of the fit, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from the multiply-adds
        of ``max_iter`` forward and backward passes plus the recorded SVDs; a
        costlier fit is refused before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights.
    verbose : int, default=0
        Print the loss and the ranks at every record when positive.

    Attributes
    ----------
    coefs_ : list of ndarray
        The layers ``W_1, ..., W_L``, ``W_l`` of shape ``(fan_out, fan_in)``,
        acting on ``X / x_scale_`` and predicting ``y / y_scale_``.
    loss_curve_ : list of float
        ``1/(2n) sum_i ||f(x_i) - y_i / y_scale_||^2`` after every step:
        ``n_iter_`` values (at the start it is near 1/2).
    history_ : list of dict
        One record every ``record_every`` steps (and at the last): ``"iter"``
        (the steps taken), ``"loss"`` (the loss after them,
        ``loss_curve_[iter - 1]``, or at the start for ``iter = 0``),
        ``"singular_values"`` (a list with one decreasing array of length
        ``min(fan_in, fan_out)`` per layer) and ``"effective_ranks"`` (an
        int array of shape ``(n_layers,)``: the singular values above
        ``rank_tol`` times the layer's largest).
    plateaus_ : list of dict
        The saddle visits found on the recorded loss, in order. Each has
        ``start_iteration``, ``end_iteration``, ``loss`` (median on the
        plateau), ``effective_ranks`` (per layer, the most frequent along the
        plateau: the rank of the saddle), ``exit_ranks`` (per layer, at its
        end: the next escape often adds a singular value before the loss
        moves) and ``final``
        (the plateau lasts until the end of training: a saddle not yet left,
        or the minimum reached).
    x_scale_ : float
        Root-mean-square norm of the training rows; inputs are divided by it.
    y_scale_ : float
        Root-mean-square norm of the training targets; the network predicts
        ``y / y_scale_``.
    n_iter_ : int
        Steps run.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    EscapeDirection : the optimal direction of the first escape.
    sklearn.neural_network.MLPRegressor : a biased ReLU MLP with the usual
        initialisation and optimisers.

    Notes
    -----
    From a small initialisation the loss stays on a plateau at the origin until
    the weights align with an escape direction (:class:`EscapeDirection`), then
    drops to a saddle where the deep layers have rank 1, and later escapes again,
    adding a singular value at a time. The step is scaled by the parameter norm,
    ``lr_t = learning_rate * (sqrt(L) / ||theta_t||)^(L - 2)``, so the first
    plateau lengthens only like ``log(1 / init_scale)`` (any ``init_scale``
    down to 1e-300 trains: the layers are stored as unit matrices and
    log-norms).

    The model has no intercept and is positively homogeneous in ``x``; inputs and
    target are divided by scalars only, so the fit is equivariant to their
    scales. The defaults are set for studying the first escape: on a generic
    regression task the default fit usually stops at the first (rank-1) saddle.
    As a regressor, use e.g. ``hidden_layer_sizes=(16, 16), init_scale=0.1``.

    More in the user guide (:ref:`small-init-mlp-details`).


    References
    ----------
    .. [1] I. Bantzis, J. B. Simon and A. Jacot. "Saddle-To-Saddle Dynamics in
       Deep ReLU Networks: Low-Rank Bias in the First Saddle Escape".
       ICLR 2026. arXiv:2505.21722.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.neural_network import SmallInitMLPRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 5))
    >>> y = np.maximum(X[:, 0], 0) + 0.5 * np.maximum(X[:, 1], 0)
    >>> reg = SmallInitMLPRegressor(
    ...     hidden_layer_sizes=(10, 10), init_scale=1e-2, learning_rate=0.3,
    ...     max_iter=1500, random_state=0,
    ... ).fit(X, y)
    >>> reg.score(X, y) > 0.9
    True
    >>> reg.plateaus_[0]["start_iteration"]
    0
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "init_scale": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "record_every": [Interval(Integral, 1, None, closed="left")],
        "rank_tol": [Interval(Real, 0, 1, closed="both")],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        hidden_layer_sizes=(50, 50, 50, 50, 50),
        init_scale=1e-3,
        learning_rate=1.0,
        max_iter=5000,
        record_every=10,
        rank_tol=0.1,
        max_work=3600.0,
        random_state=None,
        verbose=0,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.init_scale = init_scale
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.record_every = record_every
        self.rank_tol = rank_tol
        self.max_work = max_work
        self.random_state = random_state
        self.verbose = verbose

    def _hidden_sizes(self):
        sizes = np.asarray(self.hidden_layer_sizes)
        if (
            sizes.ndim != 1
            or sizes.size == 0
            or not np.issubdtype(sizes.dtype, np.integer)
            or np.any(sizes < 1)
        ):
            raise ValueError(
                "hidden_layer_sizes must be a non-empty sequence of positive "
                "integers (at least one hidden layer), got "
                f"{self.hidden_layer_sizes!r}."
            )
        return [int(s) for s in sizes]

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train from a small initialisation, recording the layers' spectra.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Training targets.

        Returns
        -------
        self : SmallInitMLPRegressor
            The fitted estimator.
        """
        hidden = self._hidden_sizes()
        X, y = validate_data(
            self, X, y, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y = y.reshape(len(y), -1)
        shapes = layer_shapes(X.shape[1], hidden, Y.shape[1])
        n_records = self.max_iter // self.record_every + 2
        svd_work = sum(min(s) ** 2 * max(s) for s in shapes)
        work = self.max_iter * operation_count(len(X), shapes) + n_records * svd_work
        check_work_budget(
            {"multiply_add": work},
            self.max_work,
            advice="Or lower max_iter or the hidden layer sizes, raise "
            "record_every, or subsample X.",
        )
        # Rows of unit root-mean-square norm: divide by the entry RMS times
        # sqrt(n_columns), computed without overflow.
        self.x_scale_ = rms_scale(X) * math.sqrt(X.shape[1])
        self.y_scale_ = rms_scale(Y) * math.sqrt(Y.shape[1])
        Xs, Ys = X / self.x_scale_, Y / self.y_scale_
        self._y_ndim = y.ndim

        rng = check_random_state(self.random_state)
        units = [W / np.linalg.norm(W) for W in map(rng.standard_normal, shapes)]
        log_norms = np.full(len(units), math.log(self.init_scale))
        with threadpool_limits(limits=1, user_api="blas"):
            self._train(units, log_norms, Xs, Ys)
        return self

    def _train(self, units, log_norms, X, Y):
        """Gradient descent on ``W_l = exp(log_norms[l]) * units[l]`` (see _descend)."""
        n_samples = len(X)
        losses, self.history_ = [], []
        # A diverging fit overflows; its loss is then reported as such.
        with np.errstate(over="ignore", invalid="ignore"):
            for iteration in range(self.max_iter + 1):
                hidden, unit_output = forward(units, X)
                residual = np.exp(log_norms.sum()) * unit_output - Y
                loss = 0.5 * float(np.vdot(residual, residual)) / n_samples
                start = losses[0] if losses else loss
                if not np.isfinite(loss) or loss > DIVERGENCE_FACTOR * start:
                    raise ValueError(
                        f"Training diverged at iteration {iteration} (the loss "
                        f"went from {start:.3g} to {loss:.3g}); lower "
                        f"learning_rate (got {self.learning_rate})."
                    )
                losses.append(loss)
                if iteration % self.record_every == 0 or iteration == self.max_iter:
                    self._record(iteration, loss, units, log_norms)
                if iteration < self.max_iter:
                    grads = backward(units, X, hidden, residual / n_samples)
                    _descend(units, log_norms, grads, self.learning_rate)

        self.coefs_ = [math.exp(r) * U for r, U in zip(log_norms, units, strict=True)]
        self.loss_curve_ = losses[1:]
        self.n_iter_ = self.max_iter
        self.plateaus_ = detect_plateaus(
            [record["iter"] for record in self.history_],
            [record["loss"] for record in self.history_],
            [record["effective_ranks"] for record in self.history_],
        )
        if losses[-1] > ORIGIN_LOSS_FRACTION * losses[0]:
            warn_user(
                f"The network did not leave the saddle at the origin in "
                f"max_iter={self.max_iter} steps (the loss went from "
                f"{losses[0]:.4g} to {losses[-1]:.4g}): it predicts about 0. "
                "Raise max_iter, try another learning_rate, or standardise the "
                "columns of X (a constant or dominant column slows the escape).",
                ConvergenceWarning,
            )

    def _record(self, iteration, loss, units, log_norms):
        unit_values = singular_values(units)
        ranks = np.array([effective_rank(v, self.rank_tol) for v in unit_values])
        self.history_.append(
            {
                "iter": iteration,
                "loss": loss,
                "singular_values": [
                    math.exp(r) * v for r, v in zip(log_norms, unit_values, strict=True)
                ],
                "effective_ranks": ranks,
            }
        )
        if self.verbose:
            print(
                f"[{type(self).__name__}] iteration {iteration}: "
                f"loss {loss:.4g}, effective ranks {ranks.tolist()}"
            )

    def predict(self, X):
        """Predict with the trained network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predictions, 1-D when ``y`` was 1-D during fit.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        out = forward(self.coefs_, X / self.x_scale_)[1] * self.y_scale_
        return out.ravel() if self._y_ndim == 1 else out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
