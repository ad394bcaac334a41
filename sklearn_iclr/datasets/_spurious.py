"""Data sets with a spurious feature correlated with the label.

Both generators return ``(X, y, groups)`` where ``groups`` encodes
(label, spurious attribute) as ``2 * y + attribute`` for a binary label ``y``
in {0, 1} and a binary attribute: groups 0 and 3 are the majority groups
(the attribute agrees with the label), groups 1 and 2 the minority groups.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._compat import Interval, validate_params


def _flip_minority(rng, n_samples, minority_fraction):
    """Boolean mask with exactly ``round(minority_fraction * n)`` True entries."""
    n_minority = int(round(minority_fraction * n_samples))
    mask = np.zeros(n_samples, dtype=bool)
    mask[rng.choice(n_samples, size=n_minority, replace=False)] = True
    return mask


@validate_params(
    {
        "n_samples": [Interval(Integral, 4, None, closed="left")],
        "minority_fraction": [Interval(Real, 0, 1, closed="both")],
        "spurious_scale": [Interval(Real, 0, None, closed="left")],
        "n_noise_features": [Interval(Integral, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_spurious_correlation(
    n_samples=1000,
    *,
    minority_fraction=0.05,
    spurious_scale=2.0,
    n_noise_features=0,
    noise=0.0,
    random_state=None,
):
    """Generate the four-point model of spurious correlation, plus noise.

    The model analysed by Mirzaie et al., "Implicit Regularization of SGD
    Reduces Shortcut Learning" (ICLR 2026), after Nagarajan et al. (ICLR
    2021). With a label ``s`` in {-1, +1}::

        x = [s, B z, e_1, ..., e_k],   z = s with probability 1 - rho, else -s

    The first (core) feature determines the label; the second (spurious)
    feature agrees with it in the majority groups and has the larger scale
    ``B = spurious_scale``, so a classifier that follows the larger margin
    direction relies on it and fails on the minority groups. Exactly
    ``round(minority_fraction * n_samples)`` samples, chosen at random, are
    minority samples (``z = -s``). Gaussian noise of standard deviation
    ``noise`` is added to the two first features, and ``n_noise_features``
    standard normal features carry no signal.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples.
    minority_fraction : float, default=0.05
        The fraction ``rho`` of samples whose spurious feature disagrees with
        the label. ``0.5`` gives no spurious correlation.
    spurious_scale : float, default=2.0
        The scale ``B`` of the spurious feature (the core feature has scale 1).
    n_noise_features : int, default=0
        Number of extra standard normal features.
    noise : float, default=0.0
        Standard deviation of the Gaussian noise added to the core and the
        spurious feature.
    random_state : int, RandomState instance or None, default=None
        Seed of the labels, the minority samples and the noise.

    Returns
    -------
    X : ndarray of shape (n_samples, 2 + n_noise_features)
        Column 0 is the core feature, column 1 the spurious one.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1} (``s = 2 y - 1``).
    groups : ndarray of shape (n_samples,)
        ``2 * y + (z > 0)``: 0 and 3 are the majority groups, 1 and 2 the
        minority groups.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_spurious_correlation
    >>> X, y, groups = make_spurious_correlation(200, minority_fraction=0.1,
    ...                                          random_state=0)
    >>> X.shape, int(((groups == 1) | (groups == 2)).sum())
    ((200, 2), 20)
    """
    rng = check_random_state(random_state)
    y = rng.randint(2, size=n_samples)
    signed = 2.0 * y - 1.0
    z = np.where(_flip_minority(rng, n_samples, minority_fraction), -signed, signed)
    X = np.empty((n_samples, 2 + n_noise_features))
    X[:, 0] = signed + noise * rng.standard_normal(n_samples)
    X[:, 1] = spurious_scale * z + noise * rng.standard_normal(n_samples)
    X[:, 2:] = rng.standard_normal((n_samples, n_noise_features))
    return X, y, 2 * y + (z > 0)


@validate_params(
    {
        "minority_fraction": [Interval(Real, 0, 1, closed="both")],
        "patch_size": [Interval(Integral, 1, 8, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def load_spurious_digits(minority_fraction=0.05, *, patch_size=2, random_state=None):
    """Load scikit-learn's 8x8 digits with a spurious patch tied to the label.

    The binary task is "digit >= 5" on the 1797 real images of
    :func:`sklearn.datasets.load_digits`. A ``patch_size x patch_size``
    square of maximal intensity (16) is painted in the top-left corner, where
    the digits themselves are blank: on label-1 images except a minority,
    and on a minority of label-0 images. A network trained without group
    labels can reach low training loss from the patch alone, and then fails
    on the minority groups (label 1 without the patch, label 0 with it). This
    mirrors the colour-patch benchmarks (CMNIST, the CIFAR-10 corner box) of
    Mirzaie et al., "Implicit Regularization of SGD Reduces Shortcut
    Learning" (ICLR 2026), at a size that fits on a laptop.

    Every call returns all 1797 images in the same order; only the patches
    depend on ``minority_fraction`` and ``random_state``. To build a biased
    training set and a group-balanced test set, call it twice (say with 0.05
    and 0.5) and take disjoint row indices from the two results.

    Parameters
    ----------
    minority_fraction : float, default=0.05
        The fraction of images, chosen at random among all 1797, whose patch
        disagrees with the label.
    patch_size : int, default=2
        Side of the square patch, in pixels.
    random_state : int, RandomState instance or None, default=None
        Seed of the choice of minority images.

    Returns
    -------
    X : ndarray of shape (1797, 64)
        Pixel intensities in [0, 16].
    y : ndarray of shape (1797,)
        1 for the digits 5 to 9, 0 for 0 to 4.
    groups : ndarray of shape (1797,)
        ``2 * y + has_patch``: 0 and 3 are the majority groups, 1 and 2 the
        minority groups.

    Examples
    --------
    >>> from sklearn_iclr.datasets import load_spurious_digits
    >>> X, y, groups = load_spurious_digits(0.05, random_state=0)
    >>> X.shape, sorted(set(groups.tolist()))
    ((1797, 64), [0, 1, 2, 3])
    """
    from sklearn.datasets import load_digits

    rng = check_random_state(random_state)
    digits = load_digits()
    X = digits.data.copy()
    y = (digits.target >= 5).astype(np.int64)
    patch = np.where(_flip_minority(rng, len(y), minority_fraction), 1 - y, y)
    images = X.reshape(-1, 8, 8)
    images[patch == 1, :patch_size, :patch_size] = 16.0
    return X, y, 2 * y + patch
