"""Patch data with normal, non-semantic and semantic anomalies (Chen & Liu)."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_train": [Interval(Integral, 1, None, closed="left")],
        "n_test": [Interval(Integral, 1, None, closed="left")],
        "n_patches": [Interval(Integral, 1, None, closed="left")],
        "patch_dim": [Interval(Integral, 2, None, closed="left")],
        "n_always_present": [Interval(Integral, 1, None, closed="left")],
        "n_replaced": [Interval(Integral, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_patch_anomalies(
    n_train=500,
    n_test=200,
    *,
    n_patches=20,
    patch_dim=24,
    n_always_present=10,
    n_replaced=4,
    noise=0.01,
    random_state=None,
):
    """Generate the patch data model of Chen & Liu with two kinds of anomalies.

    The data model of "Two-Layer Convolutional Autoencoders Trained on Normal
    Data Provably Detect Unseen Anomalies" (Yanbo Chen and Weiwei Liu, ICLR
    2026, OpenReview FnbGlnKbIU). The features ``v_1, ..., v_d`` are a random
    orthonormal basis of ``R^d`` (``d = patch_dim``). A normal sample has
    ``n_patches`` patches: one for each of the ``n_always_present`` first
    features (in every sample), and ``n_patches - n_always_present`` patches
    that are occasional features, each drawn independently from the remaining
    ``d - n_always_present`` features with the probabilities ``frequencies``
    (themselves drawn uniformly at random, then normalised). Every patch gets
    ``N(0, noise^2 I_d)`` noise.

    Parameters
    ----------
    n_train : int, default=500
        Number of normal training samples.
    n_test : int, default=200
        Number of samples in each of the three test sets.
    n_patches : int, default=20
        Patches per sample ``P``; more than ``n_always_present``.
    patch_dim : int, default=24
        Dimension ``d`` of a patch, which is also the number of features.
    n_always_present : int, default=10
        Features present in every normal sample; fewer than ``patch_dim``.
    n_replaced : int, default=4
        Patches replaced in an anomalous sample; at most ``n_always_present``.
    noise : float, default=0.01
        Standard deviation of the Gaussian noise added to every coordinate.
    random_state : int, RandomState instance or None, default=None
        Seeds the features, frequencies, samples and noise.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        With the arrays ``X_train`` (n_train, n_patches, patch_dim) and
        ``X_normal``, ``X_non_semantic``, ``X_semantic`` (n_test, n_patches,
        patch_dim); ``features`` (patch_dim, patch_dim), the orthonormal
        features as rows; ``always_present`` (indices of the always-present
        features, the first ``n_always_present``); ``frequencies``
        (patch_dim,), the probability of each feature in an occasional patch
        (zero for the always-present ones).

    Raises
    ------
    ValueError
        If ``n_always_present >= patch_dim``, ``n_always_present >=
        n_patches`` or ``n_replaced > n_always_present``.

    Notes
    -----
    Two anomalous test sets replace the first ``n_replaced`` patches (always-
    present features) of otherwise normal samples:

    - non-semantic: the patches become ``N(0, I_d)`` vectors, random
      directions never seen in training (norm about ``sqrt(d)``);
    - semantic: the patches become occasional features (plus noise), drawn
      with the same frequencies as in normal data: the sample lacks some of
      its defining features but is built only from known ones.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_patch_anomalies
    >>> data = make_patch_anomalies(n_train=50, n_test=10, random_state=0)
    >>> data.X_train.shape, data.X_semantic.shape
    ((50, 20, 24), (10, 20, 24))
    >>> bool(abs(data.features @ data.features.T - np.eye(24)).max() < 1e-12)
    True
    """
    if n_always_present >= patch_dim or n_always_present >= n_patches:
        raise ValueError(
            f"n_always_present={n_always_present} must be smaller than both "
            f"patch_dim={patch_dim} and n_patches={n_patches}, so that there are "
            "occasional features and patches to hold them; lower n_always_present."
        )
    if n_replaced > n_always_present:
        raise ValueError(
            f"n_replaced={n_replaced} must not exceed n_always_present="
            f"{n_always_present}: anomalies replace always-present patches."
        )
    rng = check_random_state(random_state)
    q, r = np.linalg.qr(rng.standard_normal((patch_dim, patch_dim)))
    features = (q * np.sign(np.diag(r))).T
    frequencies = np.zeros(patch_dim)
    frequencies[n_always_present:] = rng.uniform(size=patch_dim - n_always_present)
    frequencies /= frequencies.sum()

    def occasional(shape):
        return features[rng.choice(patch_dim, size=shape, p=frequencies)]

    def normal(n_samples):
        n_occasional = n_patches - n_always_present
        always = np.broadcast_to(
            features[:n_always_present], (n_samples, n_always_present, patch_dim)
        )
        clean = np.concatenate([always, occasional((n_samples, n_occasional))], 1)
        return clean + noise * rng.standard_normal(clean.shape)

    X_train, X_normal = normal(n_train), normal(n_test)
    X_non_semantic = normal(n_test)
    X_non_semantic[:, :n_replaced] = rng.standard_normal(
        (n_test, n_replaced, patch_dim)
    )
    X_semantic = normal(n_test)
    X_semantic[:, :n_replaced] = occasional(
        (n_test, n_replaced)
    ) + noise * rng.standard_normal((n_test, n_replaced, patch_dim))
    return Bunch(
        X_train=X_train,
        X_normal=X_normal,
        X_non_semantic=X_non_semantic,
        X_semantic=X_semantic,
        features=features,
        always_present=np.arange(n_always_present),
        frequencies=frequencies,
    )
