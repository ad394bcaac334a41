"""Bags of tokens in which a few tokens carry the label: synthetic and digits."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, StrOptions, validate_params

# load_digit_bags: the first DIGITS_TRAIN_IMAGES of scikit-learn's 1797 digits
# make the "train" subset, the rest the "test" subset, so that bags built for
# training and testing never share an image.
DIGITS_TRAIN_IMAGES = 1200


def _labels(n_samples, positive_fraction, rng):
    """Shuffled 0/1 labels with ``round(positive_fraction * n_samples)`` ones."""
    n_positive = int(round(positive_fraction * n_samples))
    return (rng.permutation(n_samples) < n_positive).astype(np.int64)


def _signal_positions(y, n_tokens, n_signal_tokens, rng):
    """Boolean mask (n_samples, n_tokens): n_signal_tokens random slots per positive."""
    mask = np.zeros((len(y), n_tokens), dtype=bool)
    for i in np.flatnonzero(y == 1):
        mask[i, rng.choice(n_tokens, n_signal_tokens, replace=False)] = True
    return mask


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_tokens": [Interval(Integral, 1, None, closed="left")],
        "token_dim": [Interval(Integral, 1, None, closed="left")],
        "n_signal_tokens": [Interval(Integral, 1, None, closed="left")],
        "signal_strength": [Interval(Real, 0, None, closed="left")],
        "positive_fraction": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_sparse_token(
    n_samples=1000,
    *,
    n_tokens=10,
    token_dim=50,
    n_signal_tokens=1,
    signal_strength=5.0,
    positive_fraction=0.5,
    random_state=None,
):
    """Sparse-token classification data of Barnfield, Cui & Lu (ICLR 2026).

    A bag is ``X = theta * v xi^T + Z`` (positive, ``y = 1``) or ``X = Z``
    (negative, ``y = 0``): ``Z`` has i.i.d. ``N(0, 1)`` entries, ``xi`` is a
    unit vector drawn uniformly on the sphere, and ``v`` marks
    ``n_signal_tokens`` of the ``n_tokens`` tokens, drawn at random per bag.
    The signal is weak: along ``xi`` a signal token stands ``theta`` noise
    standard deviations out, while every token has norm about
    ``sqrt(token_dim)``. From "High-Dimensional Analysis of Single-Layer
    Attention for Sparse-Token Classification" (Barnfield, Cui and Lu, ICLR
    2026, arXiv:2509.25153).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of bags.
    n_tokens : int, default=10
        Tokens per bag ``L``.
    token_dim : int, default=50
        Dimension ``d`` of a token.
    n_signal_tokens : int, default=1
        Signal tokens ``R`` of a positive bag; at most ``n_tokens``.
    signal_strength : float, default=5.0
        ``theta``.
    positive_fraction : float, default=0.5
        Fraction of positive bags (rounded to a count; shuffled): the rarity
        ``pi`` of the paper.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_tokens, token_dim)
        The bags.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    direction : ndarray of shape (token_dim,)
        The unit signal direction ``xi``.
    signal_mask : ndarray of shape (n_samples, n_tokens)
        True at the signal tokens (only in positive bags).

    Examples
    --------
    >>> X, y, xi, mask = make_sparse_token(6, n_tokens=4, token_dim=3,
    ...                                    n_signal_tokens=2, random_state=0)
    >>> X.shape, y.tolist(), mask.sum(axis=1).tolist()
    ((6, 4, 3), [0, 1, 1, 0, 0, 1], [0, 2, 2, 0, 0, 2])
    """
    if n_signal_tokens > n_tokens:
        raise ValueError(
            f"n_signal_tokens={n_signal_tokens} exceeds n_tokens={n_tokens}: a bag "
            "cannot hold more signal tokens than tokens."
        )
    rng = check_random_state(random_state)
    direction = rng.standard_normal(token_dim)
    direction /= np.linalg.norm(direction)
    y = _labels(n_samples, positive_fraction, rng)
    mask = _signal_positions(y, n_tokens, n_signal_tokens, rng)
    X = rng.standard_normal((n_samples, n_tokens, token_dim))
    X += signal_strength * mask[:, :, None] * direction
    return X, y, direction, mask


@validate_params(
    {
        "target_digit": [Interval(Integral, 0, 9, closed="both")],
        "n_tokens": [Interval(Integral, 1, None, closed="left")],
        "n_bags": [Interval(Integral, 1, None, closed="left")],
        "n_target_tokens": [Interval(Integral, 1, None, closed="left")],
        "subset": [StrOptions({"train", "test", "all"})],
        "return_X_y": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def load_digit_bags(
    target_digit=0,
    *,
    n_tokens=8,
    n_bags=500,
    n_target_tokens=1,
    subset="all",
    return_X_y=False,
    random_state=None,
):
    """Bags of handwritten digits, positive when they hold the target digit.

    A real-data sparse-token task built from scikit-learn's 8x8 digits
    (:func:`sklearn.datasets.load_digits`, pixels scaled to [0, 1]): a bag is
    ``n_tokens`` images, one token each; a positive bag holds
    ``n_target_tokens`` images of ``target_digit`` at random positions among
    other digits, a negative bag only other digits. Images are drawn with
    replacement. The multiple-instance counterpart of the synthetic model of
    Barnfield, Cui and Lu (ICLR 2026, arXiv:2509.25153).

    Parameters
    ----------
    target_digit : int, default=0
        The digit whose presence makes a bag positive.
    n_tokens : int, default=8
        Images per bag.
    n_bags : int, default=500
        Number of bags; half are positive (rounded to a count; shuffled).
    n_target_tokens : int, default=1
        Target images in a positive bag; at most ``n_tokens``.
    subset : {"all", "train", "test"}, default="all"
        Which images to draw from: the first 1200 digits (``"train"``), the
        other 597 (``"test"``), or all. Train and test bags drawn from the two
        subsets never share an image.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch, as scikit-learn's
        loaders do.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (n_bags, n_tokens, 64): the bags of flattened images;
        ``target`` (n_bags,): 1 when the bag holds the target digit, else 0;
        ``target_mask`` (n_bags, n_tokens): True at the images of the target
        digit; ``DESCR``.
    (data, target) : tuple if ``return_X_y`` is True

    Examples
    --------
    >>> bags = load_digit_bags(3, n_tokens=5, n_bags=4, random_state=0)
    >>> bags.data.shape, bool((bags.target_mask.any(axis=1) == bags.target).all())
    ((4, 5, 64), True)
    >>> X, y = load_digit_bags(3, n_bags=4, return_X_y=True, random_state=0)
    >>> X.shape, y.shape
    ((4, 8, 64), (4,))
    """
    from sklearn.datasets import load_digits

    if n_target_tokens > n_tokens:
        raise ValueError(
            f"n_target_tokens={n_target_tokens} exceeds n_tokens={n_tokens}: a bag "
            "cannot hold more target images than images."
        )
    digits = load_digits()
    images, labels = digits.data / 16.0, digits.target
    keep = {
        "train": slice(0, DIGITS_TRAIN_IMAGES),
        "test": slice(DIGITS_TRAIN_IMAGES, None),
        "all": slice(None),
    }[subset]
    images, labels = images[keep], labels[keep]
    target = np.flatnonzero(labels == target_digit)
    others = np.flatnonzero(labels != target_digit)
    rng = check_random_state(random_state)
    y = _labels(n_bags, 0.5, rng)
    mask = _signal_positions(y, n_tokens, n_target_tokens, rng)
    index = rng.choice(others, size=(n_bags, n_tokens))
    index[mask] = rng.choice(target, size=int(mask.sum()))
    if return_X_y:
        return images[index], y
    description = (
        f"Bags of {n_tokens} of scikit-learn's 8x8 digits ({subset} images), "
        f"positive when they hold {n_target_tokens} image(s) of {target_digit}."
    )
    return Bunch(data=images[index], target=y, target_mask=mask, DESCR=description)
