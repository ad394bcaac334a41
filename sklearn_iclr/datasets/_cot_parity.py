"""Parity prompts with short answers and rare chain-of-thought demonstrations."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_bits": [Interval(Integral, 1, None, closed="left")],
        "p_cot": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_cot_parity(n_samples=1000, n_bits=30, *, p_cot=0.25, random_state=None):
    """Parity data with a share ``p_cot`` of chain-of-thought demonstrations.

    The mixture ``D(p_cot)`` of Tsilivis, Malach, Ullrich and Kempe, "How
    Reinforcement Learning After Next-Token Prediction Facilitates Learning"
    (ICLR 2026, arXiv:2510.11495): ``x`` is uniform on ``{-1, +1}^d`` and the
    label is the parity ``y = x_1 x_2 ... x_d``. With probability ``p_cot`` the
    demonstration is the long chain of prefix parities
    ``(x_1, x_1 x_2, ..., x_1 ... x_d, EOS)``, otherwise the short answer
    ``(y, EOS)``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of prompts.
    n_bits : int, default=30
        Number of bits ``d``.
    p_cot : float, default=0.25
        Probability of a long demonstration, in ``[0, 1]``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_bits)
        The bits, float64 in ``{-1, +1}``.
    y : ndarray of shape (n_samples,)
        The parities, int64 in ``{-1, +1}``.
    sequences : ndarray of shape (n_samples, n_bits), dtype int8
        The demonstrations: tokens in ``{-1, +1}`` followed by zeros (0 marks
        EOS and the padding after it), the format
        :meth:`~sklearn_iclr.sequence.ChainOfThoughtClassifier.fit` takes.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_cot_parity
    >>> X, y, seqs = make_cot_parity(4, 3, p_cot=0.5, random_state=0)
    >>> X.shape, y.shape, seqs.shape
    ((4, 3), (4,), (4, 3))
    >>> lengths = (seqs != 0).sum(axis=1)
    >>> bool((seqs[lengths == 1, 0] == y[lengths == 1]).all())
    True
    """
    rng = check_random_state(random_state)
    X = rng.choice(np.array([-1.0, 1.0]), size=(n_samples, n_bits))
    prefix = np.cumprod(X, axis=1).astype(np.int8)
    y = prefix[:, -1].astype(np.int64)
    long = rng.random_sample(n_samples) < p_cot
    sequences = np.zeros((n_samples, n_bits), dtype=np.int8)
    sequences[long] = prefix[long]
    sequences[~long, 0] = prefix[~long, -1]
    return X, y, sequences
