"""Contrastive (InfoNCE) encoder with optional magnitude pruning of neurons."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import (
    build_mlp,
    epoch_history,
    fit_skorch_net,
    import_torch,
    module_outputs,
    resolve_device,
    seed_from_random_state,
)
from ..utils._compat import DeviceOptions, Interval, StrOptions
from ..utils._skorch import check_mlp_training_budget
from ..utils.validation import rms_scale

AUGMENTATIONS = ("noise", "mask")
AUTO_BATCH_SIZE = 256
_HISTORY_KEYS = ("train_loss", "dur")


def parse_augmentation(augmentation):
    """The set of augmentation names in ``"noise"``, ``"mask"`` or ``"noise+mask"``.

    Parameters
    ----------
    augmentation : str
        Names from ``AUGMENTATIONS`` joined by ``"+"``.

    Returns
    -------
    names : frozenset of str

    Examples
    --------
    >>> sorted(parse_augmentation("mask+noise"))
    ['mask', 'noise']
    """
    names = augmentation.split("+")
    unknown = sorted({n for n in names if n not in AUGMENTATIONS})
    if unknown or len(set(names)) != len(names):
        raise ValueError(
            f"augmentation={augmentation!r} is not valid (unknown or repeated "
            f"names {unknown or names}): use 'noise', 'mask' or 'noise+mask'."
        )
    return frozenset(names)


class InfoNCEEncoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Contrastive encoder trained with InfoNCE on augmented views (ICLR 2026).

    A neural network ``f`` (an MLP, or a linear map) is trained without labels
    so that two random views ``x'``, ``x''`` of the same input embed close
    together and views of different inputs apart. For a batch of ``B``
    inputs, with ``u = f(x') / |f(x')|`` and ``v = f(x'') / |f(x'')|``::

        L = -(1 / 2B) sum_i [log softmax_j(u_i . v_j / tau)_i
                             + log softmax_j(v_i . u_j / tau)_i]

    (InfoNCE, symmetrised). :meth:`transform` returns the unnormalised
    embeddings ``f(x)``.

    Parameters
    ----------
    n_components : int, default=32
        Embedding dimension.
    hidden_layer_sizes : array-like of int, default=()
        Widths of the hidden ReLU layers; ``()`` is a linear encoder (the
        synthetic setting of Betser et al.).
    temperature : float, default=0.1
        InfoNCE temperature ``tau``.
    augmentation : {"noise+mask", "noise", "mask"}, default="noise+mask"
        How views are made: ``"mask"`` replaces each feature, with
        probability ``mask_rate``, by its training mean; ``"noise"`` adds
        Gaussian noise of standard deviation ``noise_scale`` times the
        feature's training standard deviation. ``"noise+mask"`` does both.
    noise_scale : float, default=0.5
        Noise of the ``"noise"`` augmentation, in feature standard deviations.
    mask_rate : float, default=0.2
        Probability that the ``"mask"`` augmentation replaces a feature.
    prune_ratio : float, default=0.0
        Fraction of each hidden layer's neurons masked by magnitude pruning
        (Liao et al.); needs hidden layers when positive.
    batch_size : int or "auto", default="auto"
        Inputs per minibatch (the other ``B - 1`` inputs of a batch are each
        view's negatives), at most the number of samples. ``"auto"`` is
        ``min(256, n_samples)``.
    max_epochs : int, default=50
        Passes over the data. ``0`` returns the encoder at its random
        initialisation, which is the same for the same ``random_state``: a
        baseline for the diagnostics.
    learning_rate : float, default=1e-3
        Adam step size.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Torch device of the training (``"cuda:N"`` works too); the fitted
        module is moved back to the CPU.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights, minibatch order and augmentations
        (through forked torch generators; the global torch state is left
        untouched).
    verbose : int, default=0
        Print skorch's per-epoch log (loss, duration) when positive.
    max_work : float, default=3600
        Largest estimated cost of the training, in seconds of the reference
        core (:func:`sklearn_iclr.utils.estimate_seconds`), from its
        multiply-adds (about ``3 * max_epochs * n_samples`` times the weights,
        per view) and optimiser steps; a costlier fit is refused before it
        starts, with the estimate.

    Attributes
    ----------
    module_ : torch.nn.Sequential
        The trained network, on the CPU (pruned neurons have zero weights);
        it reads ``X / x_scale_``.
    x_scale_ : float
        Root-mean-square entry of the training ``X``: the network is trained
        on ``X / x_scale_``, so that the embedding does not depend on the
        units of ``X``.
    neuron_mask_ : list of ndarray of bool
        For each hidden layer, True for the neurons kept by pruning (all True
        when ``prune_ratio=0``).
    loss_curve_ : list of float
        The training loss (InfoNCE, mean over the minibatches) of every epoch.
    history_ : list of dict
        Per epoch: ``epoch``, ``train_loss`` (InfoNCE) and ``dur`` (seconds).
    n_iter_ : int
        Epochs run.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.covariance.GaussianEmbeddingModel : Gaussian model of the
        embeddings (OOD scores, entropy, mutual information).
    sklearn_iclr.metrics.gaussianity_report : the normality diagnostics.
    BReLUAttentionEncoder : the model of Liao et al. (attention, BReLU
        neurons, stop-gradient InfoNCE) with neuron-level diagnostics.

    Notes
    -----
    Betser et al. show that InfoNCE drives the embeddings to a thin shell, spread
    uniformly over it, so that their coordinates become Gaussian; pair the
    encoder with :class:`~sklearn_iclr.covariance.GaussianEmbeddingModel`
    (``normalize="l2"`` to model the directions). Liao et al. show that rare
    features are learned worse and that magnitude pruning helps: ``prune_ratio >
    0`` masks the smallest-norm neurons of every hidden layer (straight-through
    during training, applied to the returned network).

    The loss sees only the directions ``f(x) / |f(x)|``. Strong views (the
    default) group inputs that are alike, so on data with classes the directions
    form clusters, far from Gaussian; near-identical views
    (``augmentation="noise"``, ``noise_scale`` about 0.05-0.1) with
    ``n_components`` of 64-128 give the Gaussian regime. Only the trained torch
    module is kept, on the CPU, so the encoder pickles and transforms anywhere.

    More in the user guide (:ref:`infonce-details`).


    References
    ----------
    .. [1] R. Betser, E. Gofer, M. Y. Levi and G. Gilboa. "InfoNCE Induces
       Gaussian Distribution". ICLR 2026. arXiv:2602.24012.
    .. [2] H. Liao, Y. Zhou, S. Zhang, M. Wang and S. Zhang. "Theoretical
       Analysis of Contrastive Learning under Imbalanced Data: From Training
       Dynamics to a Pruning Solution". ICLR 2026. arXiv:2602.10357.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_laplace_classification
    >>> from sklearn_iclr.contrastive import InfoNCEEncoder
    >>> X, _ = make_laplace_classification(500, n_features=16, random_state=0)
    >>> encoder = InfoNCEEncoder(n_components=8, max_epochs=5, random_state=0)
    >>> Z = encoder.fit_transform(X)
    >>> Z.shape
    (500, 8)
    >>> encoder.get_feature_names_out()[:2].tolist()
    ['infonceencoder0', 'infonceencoder1']
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "hidden_layer_sizes": ["array-like"],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "augmentation": [str],
        "noise_scale": [Interval(Real, 0, None, closed="left")],
        "mask_rate": [Interval(Real, 0, 1, closed="left")],
        "prune_ratio": [Interval(Real, 0, 1, closed="left")],
        "batch_size": [
            Interval(Integral, 2, None, closed="left"),
            StrOptions({"auto"}),
        ],
        "max_epochs": [Interval(Integral, 0, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "max_work": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        n_components=32,
        *,
        hidden_layer_sizes=(),
        temperature=0.1,
        augmentation="noise+mask",
        noise_scale=0.5,
        mask_rate=0.2,
        prune_ratio=0.0,
        batch_size="auto",
        max_epochs=50,
        learning_rate=1e-3,
        device="cpu",
        random_state=None,
        verbose=0,
        max_work=3600.0,
    ):
        self.n_components = n_components
        self.hidden_layer_sizes = hidden_layer_sizes
        self.temperature = temperature
        self.augmentation = augmentation
        self.noise_scale = noise_scale
        self.mask_rate = mask_rate
        self.prune_ratio = prune_ratio
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.max_work = max_work

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Train the encoder with InfoNCE on pairs of augmented views.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; at least 2 finite rows.
        y : None
            Ignored (the training is self-supervised).

        Returns
        -------
        self : InfoNCEEncoder
            The fitted encoder.
        """
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        self.x_scale_ = rms_scale(X)
        X = (X / self.x_scale_).astype(np.float32)
        names = parse_augmentation(self.augmentation)
        hidden = _check_hidden_layer_sizes(self.hidden_layer_sizes)
        if self.prune_ratio > 0 and not hidden:
            raise ValueError(
                f"prune_ratio={self.prune_ratio} prunes hidden neurons, but "
                "hidden_layer_sizes=() has none; give hidden layers, e.g. "
                "hidden_layer_sizes=(128,), or use prune_ratio=0."
            )
        n_samples = X.shape[0]
        batch_size = resolve_batch_size(self.batch_size, n_samples)
        check_mlp_training_budget(
            n_samples,
            (X.shape[1], *hidden, self.n_components),
            self.max_epochs,
            self.max_work,
            batch_size=batch_size,
            passes_per_sample=2,
        )
        device = resolve_device(self.device)
        torch = import_torch()
        from ._infonce_torch import (
            Augmentation,
            InfoNCELoss,
            InfoNCENet,
            MagnitudePrunedMLP,
        )

        augment = Augmentation(
            names,
            noise_std=torch.as_tensor(self.noise_scale * X.std(axis=0), device=device),
            fill=torch.as_tensor(X.mean(axis=0), device=device),
            mask_rate=self.mask_rate,
        )
        net = fit_skorch_net(
            InfoNCENet,
            lambda: MagnitudePrunedMLP(
                build_mlp(X.shape[1], self.n_components, hidden), self.prune_ratio
            ),
            X,
            np.zeros(n_samples, dtype=np.float32),
            batch_size=batch_size,
            seed=seed_from_random_state(self.random_state),
            device=device,
            n_threads=1,
            criterion=InfoNCELoss,
            criterion__temperature=self.temperature,
            optimizer=torch.optim.Adam,
            lr=self.learning_rate,
            max_epochs=self.max_epochs,
            augment=augment,
            verbose=self.verbose,
        )
        self.module_, self.neuron_mask_ = net.module_.pruned_mlp()
        self.history_ = epoch_history(net, _HISTORY_KEYS)
        self.loss_curve_ = [float(entry["train_loss"]) for entry in self.history_]
        self.n_iter_ = len(self.history_)
        self._n_features_out = self.n_components
        return self

    def transform(self, X):
        """Embed ``X`` with the trained network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components)
            Unnormalised embeddings ``f(x)`` (float64).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return module_outputs(self.module_, X / self.x_scale_)


def _check_hidden_layer_sizes(hidden_layer_sizes):
    """The widths as a tuple of ints, or a ``ValueError`` naming the parameter.

    It runs before the work-budget check, which multiplies the widths (a
    string width was a ``TypeError`` there).
    """
    hidden = tuple(hidden_layer_sizes)
    if not all(
        isinstance(w, Integral) and not isinstance(w, bool) and w > 0 for w in hidden
    ):
        raise ValueError(
            "hidden_layer_sizes must be a tuple of positive integers, got "
            f"{hidden_layer_sizes!r}; use () for a linear encoder."
        )
    return tuple(int(w) for w in hidden)


def resolve_batch_size(batch_size, n_samples):
    """Pairs per minibatch: ``"auto"`` is ``min(256, n_samples)``; a larger
    ``batch_size`` than ``n_samples`` is refused (the contrastive losses of
    this family take their negatives from the batch)."""
    if batch_size == "auto":
        return min(AUTO_BATCH_SIZE, n_samples)
    if batch_size > n_samples:
        raise ValueError(
            f"batch_size={batch_size} is larger than the {n_samples} "
            "training samples; use batch_size <= n_samples or "
            "batch_size='auto'."
        )
    return batch_size
