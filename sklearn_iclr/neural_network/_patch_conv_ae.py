"""Anomaly detection by the reconstruction error of a two-layer convolutional AE."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import (
    import_torch,
    resolve_device,
    seed_from_random_state,
    torch_num_threads,
    torch_seeded,
)
from ..utils._compat import DeviceOptions, Interval, _fit_context

# Width of the polynomial part of the smooth ReLU, in units of the RMS patch
# norm of the (rescaled) training data. Small enough that trained kernels work
# in the linear part; the quadratic part near zero lets the kernel best aligned
# with a feature outgrow the others from a tiny initialisation.
SMOOTH_RELU_WIDTH = 0.01
# Training data magnitudes accepted: the scores are squared errors in the
# units of X, which leave float64 outside this range.
MAX_MAGNITUDE = 1e150
MIN_MAGNITUDE = 1e-150


def smooth_relu(z, width=SMOOTH_RELU_WIDTH):
    """Smooth ReLU: 0 for ``z <= 0``, ``z^2 / (2 width)`` up to ``width``, then linear.

    The linear part is ``z - width / 2``, so the function is C^1.
    """
    torch = import_torch()
    quadratic = torch.clamp(z, 0.0, width) ** 2 / (2 * width)
    return quadratic + torch.clamp(z - width, min=0.0)


def reconstruct(X, kernels):
    """Paper decoder: ``x_hat_i = sum_j sigma(<w_j, x_i>) delta(i, j) w_j``.

    ``delta(i, j)`` is 1 on the patch ``i`` where kernel ``j`` responds most
    (max-pooling over patches, one winning patch per kernel and sample).

    Parameters
    ----------
    X : torch.Tensor of shape (n_samples, n_patches, patch_dim)
    kernels : torch.Tensor of shape (n_kernels, patch_dim)

    Returns
    -------
    X_hat : torch.Tensor of shape (n_samples, n_patches, patch_dim)
    """
    responses = X @ kernels.T
    winners = responses.argmax(dim=1, keepdim=True)
    activations = smooth_relu(responses.gather(1, winners))[:, 0]
    contributions = activations[:, :, None] * kernels[None]
    index = winners[:, 0, :, None].expand(-1, -1, X.shape[2])
    return X.new_zeros(X.shape).scatter_add(1, index, contributions)


def reconstruction_errors(X, kernels):
    """Per-sample squared reconstruction error ``sum_i ||x_i - x_hat_i||^2``."""
    return ((X - reconstruct(X, kernels)) ** 2).sum(dim=(1, 2))


def cut_into_patches(X, patch_shape):
    """Reshape 2-D rows into ``(n_samples, n_patches, patch_dim)``.

    ``None``: each row is one patch. An int ``p``: consecutive windows of
    ``p`` features. A pair ``(h, w)``: each row is a square image (row-major)
    cut into non-overlapping ``h x w`` blocks, each flattened row-major.
    """
    n_samples, n_features = X.shape
    if patch_shape is None:
        return X[:, None, :]
    if isinstance(patch_shape, Integral):
        if n_features % patch_shape:
            raise ValueError(
                f"patch_shape={patch_shape} does not divide the {n_features} "
                "features into windows; pick a window length that divides the "
                "number of features, or pass 3-D input."
            )
        return X.reshape(n_samples, n_features // patch_shape, patch_shape)
    height, width = patch_shape
    side = math.isqrt(n_features)
    if side * side != n_features or side % height or side % width:
        raise ValueError(
            f"patch_shape={tuple(patch_shape)} needs rows that are square images "
            f"whose side is a multiple of the patch sides; got {n_features} "
            "features. Reshape to (n_samples, n_patches, patch_dim) yourself for "
            "other layouts."
        )
    blocks = X.reshape(n_samples, side // height, height, side // width, width)
    return blocks.transpose(0, 1, 3, 2, 4).reshape(n_samples, -1, height * width)


class PatchConvAEDetector(OutlierMixin, BaseEstimator):
    """Reconstruction-based anomaly detection with a two-layer convolutional AE.

    Implements the model of Yanbo Chen and Weiwei Liu, "Two-Layer
    Convolutional Autoencoders Trained on Normal Data Provably Detect Unseen
    Anomalies", ICLR 2026 (OpenReview FnbGlnKbIU). A sample is a set of
    patches ``x_1, ..., x_P`` in ``R^d``. ``C`` convolution kernels ``w_j``
    with a smooth ReLU ``sigma`` and per-kernel max-pooling over the patches
    reconstruct::

        x_hat_i = sum_j sigma(<w_j, x_i>) delta(i, j) w_j,
        delta(i, j) = 1 if i = argmax_i' <w_j, x_i'> else 0,

    and full-batch gradient descent from a tiny random initialisation
    minimises ``L(W) = 1/(2n) sum_samples sum_i ||x_i - x_hat_i||^2`` on
    normal data only. The theory: each kernel is absorbed by the "cone" of a
    feature of the normal data and stays there, so the kernels align with
    the always-present features; patches made of directions never seen in
    training (non-semantic anomalies) are not reconstructed and score high,
    while anomalies built from known features (semantic) are harder.

    Parameters
    ----------
    n_kernels : int or None, default=None
        Number of kernels ``C``. ``None`` uses ``2 * patch_dim``.
    patch_shape : int, pair of int or None, default=None
        How 2-D input is cut into patches. ``None``: one patch per row. An int
        ``p``: consecutive windows of ``p`` features (a time series); it must
        divide the number of features. ``(h, w)``: each row is a square image
        (row-major, as ``load_digits`` gives them) cut into non-overlapping
        ``h x w`` blocks. Must be ``None`` for 3-D input
        ``(n_samples, n_patches, patch_dim)``, which is used as it is.
    init_scale : float, default=1e-3
        Standard deviation of the Gaussian initial kernels (the theory needs a
        tiny initialisation).
    learning_rate : float, default=0.2
        Step of full-batch gradient descent on ``L``.
    max_epochs : int, default=500
        Gradient steps (each uses every training sample once).
    contamination : float, default=0.05
        Fraction of the training data flagged as outliers; sets ``offset_``.
        In ``(0, 0.5]``.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Torch device for training (``"cuda:N"`` works too); the fitted kernels
        are stored on the CPU as numpy.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial kernels (through a forked torch generator; the
        global torch random state is left untouched).
    verbose : int, default=0
        Print the training loss ten times during ``fit`` when positive.

    Attributes
    ----------
    kernels_ : ndarray of shape (n_kernels, patch_dim)
        The trained kernels ``w_j`` of the network on ``X / x_scale_``. A
        kernel that has absorbed a feature has a norm close to 1 (it then
        reconstructs its patch as a projection).
    x_scale_ : float
        Root-mean-square patch norm of the training data; the network works
        on ``X / x_scale_`` (one number, so directions are unchanged) and its
        reconstructions are scaled back.
    offset_ : float
        Threshold on :meth:`score_samples`: the ``contamination`` quantile of
        the training scores. ``decision_function = score_samples - offset_``.
    loss_curve_ : list of float
        Training loss ``L`` (on ``X / x_scale_``) before each gradient step.
    n_iter_ : int
        Gradient steps run so far.
    n_patches_ : int
        Patches per sample.
    patch_dim_ : int
        Dimension of a patch.
    n_features_in_ : int
        Number of features seen during fit (``n_patches * patch_dim`` for 3-D
        input).
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.ensemble.IsolationForest : tree-based anomaly scores.
    sklearn.neighbors.LocalOutlierFactor : density-based novelty detection.

    Notes
    -----
    The anomaly score is the reconstruction error; :meth:`score_samples`
    returns its negative (higher is more normal), as scikit-learn does.

    Training is a plain gradient-descent loop on a custom torch module
    rather than a skorch net: the paper's analysis is for full-batch
    gradient descent on this exact loss, there is no target and no
    minibatch, and the quantity of interest is the trajectory of the
    kernels (see :meth:`partial_fit`), not a prediction. ``fit(X)`` with
    ``max_epochs=k`` gives the same kernels as ``k`` calls of
    :meth:`partial_fit` with the same ``random_state``. On the CPU, training
    uses one torch thread.

    References
    ----------
    .. [1] Y. Chen and W. Liu. "Two-Layer Convolutional Autoencoders Trained
       on Normal Data Provably Detect Unseen Anomalies". ICLR 2026.
       OpenReview FnbGlnKbIU.

    Examples
    --------
    >>> from sklearn.metrics import roc_auc_score
    >>> from sklearn_iclr.datasets import make_patch_anomalies
    >>> from sklearn_iclr.neural_network import PatchConvAEDetector
    >>> data = make_patch_anomalies(n_train=100, n_test=50, random_state=0)
    >>> detector = PatchConvAEDetector(n_kernels=28, max_epochs=300, random_state=0)
    >>> detector = detector.fit(data.X_train)
    >>> scores = np.r_[detector.score_samples(data.X_normal),
    ...                detector.score_samples(data.X_non_semantic)]
    >>> is_normal = np.r_[np.ones(50), np.zeros(50)]
    >>> roc_auc_score(is_normal, scores) > 0.95
    True
    >>> bool(detector.kernel_alignment(data.features[:10]).min() > 0.9)
    True
    """

    _parameter_constraints = {
        "n_kernels": [Interval(Integral, 1, None, closed="left"), None],
        "patch_shape": [Interval(Integral, 1, None, closed="left"), tuple, None],
        "init_scale": [Interval(Real, 0, None, closed="neither")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_epochs": [Interval(Integral, 1, None, closed="left")],
        "contamination": [Interval(Real, 0, 0.5, closed="right")],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_kernels=None,
        *,
        patch_shape=None,
        init_scale=1e-3,
        learning_rate=0.2,
        max_epochs=500,
        contamination=0.05,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        self.n_kernels = n_kernels
        self.patch_shape = patch_shape
        self.init_scale = init_scale
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.contamination = contamination
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Train the kernels on normal data by full-batch gradient descent.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Normal training data; 2-D rows are cut by ``patch_shape``.
        y : None
            Ignored.

        Returns
        -------
        self : PatchConvAEDetector
            The fitted detector.
        """
        patches = self._validate_patches(X, reset=True)
        self._initialise(patches)
        self._train(patches, self.max_epochs)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None):
        """Run one gradient step on ``X`` from the current kernels.

        The first call initialises the kernels (from ``random_state``) and the
        scale as :meth:`fit` does, so ``k`` calls on the same data follow the
        trajectory of ``fit`` with ``max_epochs=k``: this is how to watch the
        kernels move epoch by epoch (e.g. with :meth:`kernel_alignment`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Normal training data.
        y : None
            Ignored.

        Returns
        -------
        self : PatchConvAEDetector
            The updated detector.
        """
        first_call = not hasattr(self, "kernels_")
        patches = self._validate_patches(X, reset=first_call)
        if first_call:
            self._initialise(patches)
        self._train(patches, 1)
        return self

    def _validate_patches(self, X, reset):
        """Validate ``X`` and return it as float64 ``(n, n_patches, patch_dim)``."""
        ndim = getattr(X, "ndim", None)
        if ndim is None and isinstance(X, (list, tuple)):
            ndim = np.ndim(X)
        if ndim == 3:
            return self._validate_3d(np.asarray(X), reset)
        X = validate_data(self, X, reset=reset, dtype=np.float64)
        patch_shape = self.patch_shape
        if isinstance(patch_shape, tuple) and not (
            len(patch_shape) == 2
            and all(isinstance(s, Integral) and s >= 1 for s in patch_shape)
        ):
            raise ValueError(
                f"patch_shape must be None, a positive int or a pair of positive "
                f"ints (height, width), got {patch_shape!r}."
            )
        patches = cut_into_patches(X, patch_shape)
        return self._check_patch_layout(patches, reset)

    def _validate_3d(self, X, reset):
        if self.patch_shape is not None:
            raise ValueError(
                f"patch_shape={self.patch_shape!r} cuts 2-D input into patches, "
                "but X is 3-D, already (n_samples, n_patches, patch_dim): pass "
                "2-D rows, or use patch_shape=None for 3-D input."
            )
        n_samples, n_patches, patch_dim = X.shape
        if n_patches == 0 or patch_dim == 0:
            raise ValueError(
                f"3-D input needs at least one patch of dimension at least 1, got "
                f"shape {X.shape}."
            )
        # An explicit width: reshape(n, -1) fails on an empty batch before
        # validate_data can say what is wrong.
        flat = validate_data(
            self,
            X.reshape(n_samples, n_patches * patch_dim),
            reset=reset,
            dtype=np.float64,
        )
        return self._check_patch_layout(flat.reshape(X.shape), reset)

    def _check_patch_layout(self, patches, reset):
        _, n_patches, patch_dim = patches.shape
        if reset:
            largest = float(np.max(np.abs(patches))) if patches.size else 0.0
            if largest > MAX_MAGNITUDE or 0 < largest < MIN_MAGNITUDE:
                raise ValueError(
                    f"X holds values of magnitude at most {largest:.3g}: the "
                    "anomaly scores are squared reconstruction errors in the "
                    "units of X, which leave float64 outside "
                    f"[{MIN_MAGNITUDE:.0e}, {MAX_MAGNITUDE:.0e}]. Divide X by a "
                    "constant (the detector is equivariant to the units of X)."
                )
            self.n_patches_, self.patch_dim_ = n_patches, patch_dim
        elif (n_patches, patch_dim) != (self.n_patches_, self.patch_dim_):
            raise ValueError(
                f"X has {n_patches} patches of dimension {patch_dim}, but "
                f"{type(self).__name__} was fitted on {self.n_patches_} patches "
                f"of dimension {self.patch_dim_}."
            )
        return patches

    def _initialise(self, patches):
        # RMS patch norm, computed on X / max|X| so that squares stay finite.
        peak = float(np.max(np.abs(patches))) if patches.size else 0.0
        peak = peak if peak > 0 else 1.0
        mean_square_norm = float(((patches / peak) ** 2).sum(axis=2).mean())
        self.x_scale_ = (
            peak * math.sqrt(mean_square_norm) if mean_square_norm > 0 else 1.0
        )
        n_kernels = self.n_kernels or 2 * self.patch_dim_
        torch = import_torch()
        with torch_seeded(seed_from_random_state(self.random_state)):
            initial = self.init_scale * torch.randn(n_kernels, self.patch_dim_)
        self.kernels_ = initial.double().numpy()
        self.loss_curve_ = []
        self.n_iter_ = 0

    def _train(self, patches, n_steps):
        torch = import_torch()
        device = resolve_device(self.device)
        report_every = max(1, n_steps // 10)
        with torch_num_threads(1 if device == "cpu" else None):
            X = torch.as_tensor(patches / self.x_scale_, dtype=torch.float32).to(device)
            kernels = torch.as_tensor(
                self.kernels_, dtype=torch.float32, device=device
            ).requires_grad_(True)
            for step in range(n_steps):
                loss = reconstruction_errors(X, kernels).mean() / 2
                (gradient,) = torch.autograd.grad(loss, kernels)
                with torch.no_grad():
                    kernels -= self.learning_rate * gradient
                self.loss_curve_.append(loss.item())
                if self.verbose and step % report_every == 0:
                    print(
                        f"{type(self).__name__}: epoch {self.n_iter_ + step + 1}, "
                        f"loss {loss.item():.6g}"
                    )
                if not math.isfinite(self.loss_curve_[-1]):
                    raise ValueError(
                        f"The training loss diverged at epoch {self.n_iter_ + step + 1}"
                        f" (learning_rate={self.learning_rate}); lower learning_rate."
                    )
            self.kernels_ = kernels.detach().cpu().double().numpy()
        self.n_iter_ += n_steps
        self.offset_ = float(
            np.percentile(self._scores(patches), 100 * self.contamination)
        )

    def _scores(self, patches):
        torch = import_torch()
        with torch_num_threads(1), torch.no_grad():
            errors = reconstruction_errors(
                torch.as_tensor(patches / self.x_scale_),
                torch.as_tensor(self.kernels_),
            )
        return -errors.numpy() * self.x_scale_**2

    def score_samples(self, X):
        """Negative reconstruction error of each sample (higher is more normal).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Samples to score.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``-sum_i ||x_i - x_hat_i||^2``, in the units of ``X`` squared.
        """
        check_is_fitted(self)
        return self._scores(self._validate_patches(X, reset=False))

    def decision_function(self, X):
        """Shifted score: negative for outliers, positive for inliers.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Samples to score.

        Returns
        -------
        decision : ndarray of shape (n_samples,)
            ``score_samples(X) - offset_``.
        """
        check_is_fitted(self)
        return self.score_samples(X) - self.offset_

    def predict(self, X):
        """Label each sample +1 (inlier) or -1 (outlier).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Samples to label.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            -1 where ``decision_function(X) < 0``, else +1.
        """
        check_is_fitted(self)
        return np.where(self.decision_function(X) < 0, -1, 1)

    def reconstruct(self, X):
        """Reconstruct the patches of ``X`` with the fitted kernels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_patches, patch_dim) or \
                (n_samples, n_features)
            Samples to reconstruct.

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_patches, patch_dim)
            ``sum_j sigma(<w_j, x_i>) delta(i, j) w_j`` for every patch,
            in the units of ``X``.
        """
        check_is_fitted(self)
        patches = self._validate_patches(X, reset=False)
        torch = import_torch()
        with torch_num_threads(1), torch.no_grad():
            X_hat = reconstruct(
                torch.as_tensor(patches / self.x_scale_),
                torch.as_tensor(self.kernels_),
            )
        return X_hat.numpy() * self.x_scale_

    def kernel_alignment(self, features):
        """Cosine of each feature with its best-aligned kernel.

        A feature is "absorbed" when some kernel has a cosine close to 1 with
        it (the theory's cone sets).

        Parameters
        ----------
        features : array-like of shape (n_directions, patch_dim)
            Directions in patch space (need not be unit vectors).

        Returns
        -------
        alignment : ndarray of shape (n_directions,)
            ``max_j <v, w_j> / (||v|| ||w_j||)`` for every feature ``v``.
        """
        check_is_fitted(self)
        features = np.asarray(features, dtype=np.float64)
        if features.ndim != 2 or features.shape[1] != self.patch_dim_:
            raise ValueError(
                f"features must have shape (n_directions, {self.patch_dim_}), got "
                f"{features.shape}."
            )
        if not np.all(np.isfinite(features)):
            raise ValueError(
                "features contains NaN or infinity; pass finite feature directions."
            )
        norms = np.linalg.norm(features, axis=1, keepdims=True)
        kernel_norms = np.linalg.norm(self.kernels_, axis=1)
        if np.any(norms == 0):
            raise ValueError(
                "features contains a zero vector, which has no direction; remove "
                "the zero rows."
            )
        cosines = (features / norms) @ (self.kernels_ / kernel_norms[:, None]).T
        return cosines.max(axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags
