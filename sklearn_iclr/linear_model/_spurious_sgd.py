"""Small-batch SGD classifier that relies less on spurious features."""

import functools
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    check_is_fitted,
    check_random_state,
    validate_data,
)

from ..utils import (
    build_mlp,
    epoch_history,
    fit_skorch_net,
    import_torch,
    module_outputs,
    resolve_device,
    seed_from_random_state,
)
from ..utils._compat import DeviceOptions, Interval, StrOptions, _fit_context
from ..utils._skorch import check_mlp_training_budget
from ..utils.validation import check_nonnegative_sample_weight, rms_scale

_HISTORY_KEYS = (
    "train_loss",
    "dur",
    "group_accuracy",
    "worst_group_accuracy",
    "valid_group_accuracy",
    "valid_worst_group_accuracy",
)


def _predict_index(outputs):
    """Class indices from network outputs (one logit, or one per class)."""
    if outputs.shape[1] == 1:
        return (outputs[:, 0] > 0).astype(np.int64)
    return outputs.argmax(axis=1)


def _check_groups(groups, n_samples):
    """``groups`` as a 1-D array of ``n_samples`` finite labels (or None)."""
    if groups is None:
        return None
    groups = np.asarray(groups)
    if groups.ndim == 2 and groups.shape[1] == 1:
        groups = groups[:, 0]
    if groups.ndim != 1:
        raise ValueError(
            f"groups must be 1-D, one label per sample; got an array of "
            f"shape {groups.shape}."
        )
    if groups.dtype.kind in "fc" and not np.isfinite(groups).all():
        row = int(np.flatnonzero(~np.isfinite(groups))[0])
        raise ValueError(
            f"groups contains NaN or infinity (first at row {row}); give "
            "every sample a group label (or groups=None)."
        )
    if groups.dtype == object and any(g != g for g in groups):  # NaN
        raise ValueError(
            "groups contains NaN; give every sample a group label (or groups=None)."
        )
    if len(groups) != n_samples:
        raise ValueError(
            f"groups has {len(groups)} entries but X has {n_samples} rows; "
            "pass one group label per sample (or groups=None)."
        )
    return groups


def _check_hidden_layer_sizes(hidden_layer_sizes):
    """Refuse widths that are not positive ints, before any work."""
    if not all(
        isinstance(w, Integral) and not isinstance(w, bool) and w > 0
        for w in hidden_layer_sizes
    ):
        raise ValueError(
            "hidden_layer_sizes must be a tuple of positive ints, got "
            f"{hidden_layer_sizes!r}; use () for a linear model."
        )


def _monitor_sets(X, y_index, groups, train, valid):
    """The data whose per-group accuracy is recorded after every epoch.

    Returns ``{history prefix: (X, y_index, groups)}``: the training rows
    under ``""`` when groups are given, the validation rows under
    ``"valid_"`` when there is a split (one group when none are given).
    """
    monitor = {}
    if groups is not None:
        monitor[""] = (X[train], y_index[train], groups[train])
    if valid is not None:
        valid_groups = np.zeros(len(valid)) if groups is None else groups[valid]
        monitor["valid_"] = (X[valid], y_index[valid], valid_groups)
    return monitor


def _train_network(
    X,
    target,
    *,
    n_outputs,
    hidden_layer_sizes,
    batch_size,
    seed,
    device,
    loss,
    learning_rate,
    momentum,
    alpha,
    max_epochs,
    batch_grad_penalty,
    penalty_batch_size,
    monitor,
    divergence_advice,
    verbose,
):
    """Train the MLP by minibatch SGD with the optional gradient penalty.

    ``target`` holds the class index and the normalised sample weight of each
    row. Returns the trained module on the CPU (with the weights of the best
    validation epoch when ``monitor`` has a ``"valid_"`` entry), the per-epoch
    history records, and that best epoch (None without a validation split).
    """
    torch = import_torch()
    from ._spurious_sgd_torch import SpuriousRobustNet, WeightedMarginLoss

    net = fit_skorch_net(
        SpuriousRobustNet,
        functools.partial(build_mlp, X.shape[1], n_outputs, hidden_layer_sizes),
        X,
        target,
        batch_size=batch_size,
        seed=seed,
        device=device,
        n_threads=1,
        criterion=WeightedMarginLoss,
        criterion__loss=loss,
        optimizer=torch.optim.SGD,
        lr=learning_rate,
        optimizer__momentum=momentum,
        optimizer__weight_decay=alpha,
        max_epochs=max_epochs,
        batch_grad_penalty=batch_grad_penalty,
        penalty_batch_size=penalty_batch_size,
        monitor=monitor,
        divergence_advice=divergence_advice,
        verbose=verbose,
    )
    if net.best_state is not None:
        net.module_.load_state_dict(net.best_state)
    return net.module_, epoch_history(net, _HISTORY_KEYS), net.best_epoch


class SpuriousRobustSGD(ClassifierMixin, BaseEstimator):
    """Classifier trained by small-batch SGD, which suppresses spurious features.

    Implements the training recipe of Mirzaie et al., "Implicit Regularization
    of SGD Reduces Shortcut Learning", ICLR 2026 (OpenReview CPdAB7H8mU;
    submission title "On the Role of Implicit Regularization of Stochastic
    Gradient Descent in Group Robustness"). By backward error analysis, SGD
    with learning rate ``eps`` and ``m = n / b`` batches of size ``b``
    follows the modified loss::

        C_SGD(w) = C(w) + eps / (4 m) * sum_k ||grad C_k(w)||^2,

    whose extra term over full-batch gradient descent penalises the
    variance of the mini-batch gradients; it grows like ``eps / b``. In the
    four-point model ``x = [y, B z]`` (see
    :func:`~sklearn_iclr.datasets.make_spurious_correlation`) the paper shows
    that this term pushes the spurious weight ``w_z`` down, whereas full-batch
    gradient descent increases it, so small batches (8 to 16) give better
    worst-group accuracy without group labels. ``batch_grad_penalty = s``
    adds the explicit form ``s * ||grad L_batch||^2 / 4`` to every batch
    loss, so that large batches can be pushed in the same direction; with
    ``penalty_batch_size = k`` the squared gradient norm is averaged over
    micro-batches of ``k`` rows, which is the form of the implicit term of
    SGD with batch size ``k``.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default=()
        Widths of the ReLU hidden layers; ``()`` is a linear classifier.
    learning_rate : float, default=0.2
        SGD step size ``eps``. The defaults (0.2, batch 8, 40 epochs) gave the
        best worst-group accuracy on the synthetic four-point data, and were
        then checked on the spurious digits (see the benchmark); scale the
        inputs (e.g. ``StandardScaler``) so that 0.2 is a sensible step.
    batch_size : int or "full", default=8
        Minibatch size ``b``; ``"full"`` is full-batch gradient descent.
    max_epochs : int, default=40
        Passes over the training data (the number of updates is
        ``max_epochs * ceil(n / batch_size)``).
    momentum : float, default=0.0
        Heavy-ball momentum of SGD (the theory is for ``0``).
    alpha : float, default=0.0
        L2 penalty: every weight and bias gets ``alpha * w`` added to its
        gradient (SGD's weight decay), the gradient of ``alpha / 2 * ||w||^2``.
    loss : {"logistic", "exponential"}, default="logistic"
        ``"logistic"`` is the cross-entropy; ``"exponential"`` is the loss of
        the paper's analysis (``exp(-margin)``, and
        ``sum_{k != y} exp(f_k - f_y)`` for several classes).
    batch_grad_penalty : float, default=0.0
        Strength ``s >= 0`` of the explicit penalty ``s * ||grad L_batch||^2
        / 4`` on the gradient of each batch loss (0 disables it; each step
        then costs one extra backward pass per micro-batch).
    penalty_batch_size : int or None, default=None
        ``None`` penalises the gradient of the whole batch (the explicit
        regulariser of the paper's code). An integer ``k`` splits each batch
        into consecutive micro-batches of ``k`` rows and penalises the mean
        of their squared gradient norms, ``s / 4 * mean_j ||grad L_j||^2``:
        the mini-batch gradient-variance term that SGD with batch size ``k``
        adds implicitly. Ignored when ``batch_grad_penalty=0``.
    validation_fraction : float or None, default=None
        When set, this fraction of the training rows (stratified by
        ``groups`` when given, else by class) is held out; after every epoch
        the worst-group accuracy on it is recorded (the accuracy when no
        groups are given), and the weights of the best epoch are kept: the
        model selection by validation worst-group accuracy of the paper.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Where to train (``"cuda:N"`` also works). The fitted module is always
        moved back to the CPU.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights, the minibatch order and the validation
        split; the global torch and numpy random states are left untouched.
    verbose : int, default=0
        Print skorch's per-epoch log (loss, worst-group accuracy when groups
        are passed to ``fit``, time) when positive.
    max_work : float, default=3600
        Largest estimated cost of the training, in seconds of the reference
        core (:func:`sklearn_iclr.utils.estimate_seconds`), from its
        multiply-adds (about ``3 * max_epochs * n_samples`` times the weights,
        per view) and optimiser steps; a costlier fit is refused before it
        starts, with the estimate.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights of the linear model (only when ``hidden_layer_sizes=()``).
        For two classes, the single row scores ``classes_[1]``.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts of the linear model (only when ``hidden_layer_sizes=()``).
    module_ : torch.nn.Sequential
        The trained network, on the CPU; it reads ``X / x_scale_``.
    x_scale_ : float
        Root-mean-square entry of the training ``X``: the network is trained
        on ``X / x_scale_``, so that the fit does not depend on the units of
        ``X``.
    loss_curve_ : list of float
        The mean training data loss of each epoch (``history_``'s
        ``"train_loss"``; without the L2 and gradient penalties).
    history_ : list of dict
        One record per epoch: ``"epoch"``, ``"train_loss"`` (the mean data
        loss, without the penalty), ``"dur"`` (seconds) and, when ``groups``
        were passed to ``fit``, ``"group_accuracy"`` ({group: training
        accuracy}) and ``"worst_group_accuracy"``; with a validation split,
        also ``"valid_group_accuracy"`` and ``"valid_worst_group_accuracy"``.
    best_epoch_ : int
        The epoch whose weights were kept: the one with the highest
        validation worst-group accuracy (the first on ties) when
        ``validation_fraction`` is set, else the last epoch.
    n_iter_ : int
        Number of epochs run.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during ``fit``, when X has string column names.

    See Also
    --------
    sklearn.linear_model.SGDClassifier : Per-sample SGD on linear models.
    sklearn_iclr.metrics.worst_group_accuracy : The metric this optimises.

    Notes
    -----
    The network (``hidden_layer_sizes=()`` is the linear model of the theory)
    is trained in torch by a skorch net built inside ``fit`` and sized from
    the data; only the trained module is kept, on the CPU.

    ``benchmarks/bench_spurious_sgd.py`` compares the batch sizes, the
    micro-batch penalty and the anchors; its docs page gives its
    figures and the user guide its limits.

    Training uses one CPU thread (restored afterwards): small batches are
    dominated by thread synchronisation. ``device="cuda"`` is supported by
    the code but is not exercised by the tests of this package.

    References
    ----------
    .. [1] Mirzaie, Alipanah, Abbasi, Farzane, Jafarinia, Sobhaei, Ghaznavi,
       Najafi, Soleymani Baghshah and Rohban, "Implicit Regularization of SGD
       Reduces Shortcut Learning", ICLR 2026 (poster).
       https://openreview.net/forum?id=CPdAB7H8mU (no arXiv id was found).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_spurious_correlation
    >>> from sklearn_iclr.linear_model import SpuriousRobustSGD
    >>> from sklearn_iclr.metrics import worst_group_accuracy
    >>> X, y, groups = make_spurious_correlation(400, random_state=0)
    >>> for batch_size in [8, "full"]:
    ...     clf = SpuriousRobustSGD(batch_size=batch_size, max_epochs=10,
    ...                             random_state=0).fit(X, y)
    ...     print(batch_size, worst_group_accuracy(y, clf.predict(X), groups))
    8 1.0
    full 0.0
    """

    _parameter_constraints = {
        "hidden_layer_sizes": [tuple, list],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "batch_size": [
            Interval(Integral, 1, None, closed="left"),
            StrOptions({"full"}),
        ],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "momentum": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "loss": [StrOptions({"logistic", "exponential"})],
        "batch_grad_penalty": [Interval(Real, 0, None, closed="left")],
        "penalty_batch_size": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "max_work": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        hidden_layer_sizes=(),
        *,
        learning_rate=0.2,
        batch_size=8,
        max_epochs=40,
        momentum=0.0,
        alpha=0.0,
        loss="logistic",
        batch_grad_penalty=0.0,
        penalty_batch_size=None,
        validation_fraction=None,
        device="cpu",
        random_state=None,
        verbose=0,
        max_work=3600.0,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.momentum = momentum
        self.alpha = alpha
        self.loss = loss
        self.batch_grad_penalty = batch_grad_penalty
        self.penalty_batch_size = penalty_batch_size
        self.validation_fraction = validation_fraction
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.max_work = max_work

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, groups=None, sample_weight=None):
        """Train the network by minibatch SGD.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (finite).
        y : array-like of shape (n_samples,)
            Class labels (at least two classes).
        groups : array-like of shape (n_samples,), default=None
            Group labels, used only for monitoring and model selection: the
            accuracy of every group is recorded in ``history_`` after each
            epoch, and with ``validation_fraction`` the epoch with the best
            validation worst-group accuracy is kept. They never enter the
            training loss.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights of the per-sample losses (normalised to mean
            1), e.g. group-balanced weights for an oracle that knows groups.

        Returns
        -------
        self : SpuriousRobustSGD
            The fitted classifier.
        """
        _check_hidden_layer_sizes(self.hidden_layer_sizes)
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.x_scale_ = rms_scale(X)
        X = (X / self.x_scale_).astype(np.float32)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "SpuriousRobustSGD needs samples of at least two classes; got only "
                f"one class, {self.classes_[0]!r}."
            )
        groups = _check_groups(groups, X.shape[0])
        weights = check_nonnegative_sample_weight(sample_weight, X)
        rng = check_random_state(self.random_state)
        seed = seed_from_random_state(rng)
        train, valid = self._split_validation(y_index, groups, rng)
        monitor = _monitor_sets(X, y_index, groups, train, valid)
        X, y_index, weights = X[train], y_index[train], weights[train]
        if not np.any(weights > 0):
            raise ValueError(
                "sample_weight is zero on every training row left after the "
                "validation split; give positive weights or a smaller "
                "validation_fraction."
            )
        target = np.column_stack([y_index, weights / weights.mean()]).astype(np.float32)
        n_outputs = 1 if len(self.classes_) == 2 else len(self.classes_)
        batch_size = len(X) if self.batch_size == "full" else self.batch_size
        batch_size = min(batch_size, len(X))
        check_mlp_training_budget(
            len(X),
            (X.shape[1], *self.hidden_layer_sizes, n_outputs),
            self.max_epochs,
            self.max_work,
            batch_size=batch_size,
            # the penalty adds a backward pass per step
            passes_per_sample=2 if self.batch_grad_penalty > 0 else 1,
        )
        module, history, best_epoch = _train_network(
            X,
            target,
            n_outputs=n_outputs,
            hidden_layer_sizes=tuple(self.hidden_layer_sizes),
            batch_size=batch_size,
            seed=seed,
            device=resolve_device(self.device),
            loss=self.loss,
            learning_rate=self.learning_rate,
            momentum=self.momentum,
            alpha=self.alpha,
            max_epochs=self.max_epochs,
            batch_grad_penalty=self.batch_grad_penalty,
            penalty_batch_size=self.penalty_batch_size,
            monitor=monitor,
            divergence_advice=self._divergence_advice(),
            verbose=self.verbose,
        )
        self.module_ = module
        self.history_ = history
        self.loss_curve_ = [float(record["train_loss"]) for record in history]
        self.n_iter_ = len(self.history_)
        self.best_epoch_ = best_epoch or self.n_iter_
        if len(self.module_) == 1:
            weight = self.module_[0].weight.detach().numpy().astype(np.float64)
            self.coef_ = weight / self.x_scale_
            self.intercept_ = self.module_[0].bias.detach().numpy().astype(np.float64)
        return self

    def _divergence_advice(self):
        """Which parameter to lower when the weights blow up."""
        decay_step = self.learning_rate * self.alpha
        if decay_step >= 1:
            return (
                f"The decay step learning_rate * alpha = {decay_step:.3g} "
                "overshoots (it must be below 1 to shrink the weights): lower "
                f"alpha (={self.alpha:.3g}) or learning_rate."
            )
        return (
            f"The step size is too large for the scale of X: lower learning_rate "
            f"(={self.learning_rate:.3g}), or standardise X (StandardScaler)."
        )

    def _split_validation(self, y_index, groups, rng):
        """Training and validation row indices (``valid`` is None without one)."""
        rows = np.arange(len(y_index))
        if self.validation_fraction is None:
            return rows, None
        strata = y_index if groups is None else groups
        _, counts = np.unique(strata, return_counts=True)
        n_valid = int(np.ceil(self.validation_fraction * len(rows)))
        what = "class" if groups is None else "group"
        problem = None
        if counts.min() < 2:
            problem = (
                f"a {what} has only {counts.min()} row; every {what} needs at "
                "least 2, one in each part. Use more data or "
                "validation_fraction=None."
            )
        elif n_valid < len(counts):
            problem = (
                f"it holds out {n_valid} rows for {len(counts)} {what}s, fewer "
                f"than one per {what}. Use a larger validation_fraction, more "
                "data, or validation_fraction=None."
            )
        elif len(rows) - n_valid < max(2, len(counts)):
            problem = (
                f"it leaves {len(rows) - n_valid} of {len(rows)} rows for "
                f"training, fewer than one per {what}. Use a smaller "
                "validation_fraction or validation_fraction=None."
            )
        if problem is not None:
            raise ValueError(
                f"validation_fraction={self.validation_fraction} cannot hold out a "
                f"stratified validation split: {problem}"
            )
        return train_test_split(
            rows,
            test_size=self.validation_fraction,
            stratify=strata,
            random_state=rng,
        )

    def decision_function(self, X):
        """Network outputs: the logit of ``classes_[1]``, or one per class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            A positive score favours ``classes_[1]`` for two classes.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        outputs = module_outputs(self.module_, X / self.x_scale_)
        return outputs[:, 0] if outputs.shape[1] == 1 else outputs

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted labels.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        return self.classes_[_predict_index(scores.reshape(len(scores), -1))]

    def predict_proba(self, X):
        """Class probabilities from the loss's link function.

        For the logistic loss these are the softmax (sigmoid) of the outputs;
        for the exponential loss, whose population minimiser is half the
        log-odds, the softmax (sigmoid) of twice the outputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        check_is_fitted(self)
        scores = self.decision_function(X)
        scores = scores.reshape(len(scores), -1) * (
            2.0 if self.loss == "exponential" else 1.0
        )
        if scores.shape[1] == 1:
            scores = np.hstack([np.zeros_like(scores), scores])
        scores -= scores.max(axis=1, keepdims=True)
        proba = np.exp(scores)
        return proba / proba.sum(axis=1, keepdims=True)
