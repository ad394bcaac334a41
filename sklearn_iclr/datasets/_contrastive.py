"""Generators for contrastive learning: Laplace inputs and long-tailed sparse codes."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_laplace_classification(
    n_samples=2000, *, n_features=64, n_classes=4, random_state=None
):
    """Independent Laplace inputs with labels from random linear scores.

    ``x`` has i.i.d. Laplace coordinates of variance 1 (heavy-tailed, so
    every coordinate fails a normality test), the synthetic input of Betser et
    al., "InfoNCE Induces Gaussian Distribution", ICLR 2026. The label is
    ``argmax_k (x . w_k)`` for ``n_classes`` standard normal vectors ``w_k``,
    so that the same inputs can train a supervised encoder for comparison.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of rows.
    n_features : int, default=64
        Input dimension.
    n_classes : int, default=4
        Number of labels.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Labels in ``0 .. n_classes - 1``.

    Examples
    --------
    >>> X, y = make_laplace_classification(100, n_features=8, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((100, 8), [0, 1, 2, 3])
    """
    rng = check_random_state(random_state)
    weights = rng.standard_normal((n_features, n_classes))
    X = rng.laplace(scale=1 / np.sqrt(2), size=(n_samples, n_features))
    return X, np.argmax(X @ weights, axis=1)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_majority": [Interval(Integral, 0, None, closed="left")],
        "n_minority": [Interval(Integral, 0, None, closed="left")],
        "majority_rate": [Interval(Real, 0, 1, closed="both")],
        "minority_rate": [Interval(Real, 0, 1, closed="both")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_long_tailed_sparse_coding(
    n_samples=2000,
    *,
    n_features=64,
    n_majority=4,
    n_minority=4,
    majority_rate=0.3,
    minority_rate=0.03,
    noise=0.3,
    random_state=None,
):
    """Sparse-coding data whose dictionary features occur with long-tailed rates.

    The data model of Liao et al., "Theoretical Analysis of Contrastive
    Learning under Imbalanced Data: From Training Dynamics to a Pruning
    Solution", ICLR 2026: ``x = sum_k c_k m_k + noise * N(0, I)`` with
    orthonormal dictionary features ``m_k``; ``c_k`` is 1 (the feature is
    present) with probability ``majority_rate`` for each of the
    ``n_majority`` majority features, ``minority_rate`` for each of the
    ``n_minority`` minority features, and 0 otherwise.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of rows.
    n_features : int, default=64
        Input dimension, at least ``n_majority + n_minority``.
    n_majority : int, default=4
        Frequent features.
    n_minority : int, default=4
        Rare features.
    majority_rate : float, default=0.3
        Probability that a majority feature is active in a sample.
    minority_rate : float, default=0.03
        Probability that a minority feature is active in a sample.
    noise : float, default=0.3
        Standard deviation of the isotropic Gaussian noise.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    codes : ndarray of shape (n_samples, n_majority + n_minority)
        The coefficients ``c_k`` in {0, 1}; majority features first.
    minority : ndarray of shape (n_majority + n_minority,)
        True for the minority features.

    Examples
    --------
    >>> X, codes, minority = make_long_tailed_sparse_coding(
    ...     500, n_features=16, random_state=0
    ... )
    >>> X.shape, codes.shape, int(minority.sum())
    ((500, 16), (500, 8), 4)
    >>> bool((codes[:, ~minority] != 0).mean() > (codes[:, minority] != 0).mean())
    True
    """
    n_atoms = n_majority + n_minority
    if n_atoms > n_features:
        raise ValueError(
            f"n_majority + n_minority = {n_atoms} orthonormal features do not fit "
            f"in n_features={n_features} dimensions; raise n_features."
        )
    rng = check_random_state(random_state)
    dictionary = np.linalg.qr(rng.standard_normal((n_features, max(n_atoms, 1))))[0]
    dictionary = dictionary[:, :n_atoms].T
    rates = np.r_[
        np.full(n_majority, majority_rate), np.full(n_minority, minority_rate)
    ]
    codes = (rng.uniform(size=(n_samples, n_atoms)) < rates).astype(np.float64)
    X = codes @ dictionary + noise * rng.standard_normal((n_samples, n_features))
    return X, codes, np.r_[np.zeros(n_majority, bool), np.ones(n_minority, bool)]


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_tokens": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_majority": [Interval(Integral, 0, None, closed="left")],
        "n_minority": [Interval(Integral, 0, None, closed="left")],
        "majority_rate": [Interval(Real, 0, 1, closed="both")],
        "imbalance": [Interval(Real, 1, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_sparse_coding_pairs(
    n_samples=2000,
    *,
    n_tokens=4,
    n_features=32,
    n_majority=4,
    n_minority=4,
    majority_rate=0.2,
    imbalance=10.0,
    noise=0.1,
    random_state=None,
):
    """Token sequences from an imbalanced sparse-coding model, with positive pairs.

    The data model of Liao, Zhou, Zhang, Wang and Zhang, "Theoretical
    Analysis of Contrastive Learning under Imbalanced Data: From Training
    Dynamics to a Pruning Solution", ICLR 2026, arXiv:2602.10357. Every
    sample is a sequence of ``n_tokens`` tokens::

        x_r = M z_r + xi_r,    xi_r ~ N(0, noise^2 I_d),

    with an orthonormal dictionary ``M`` (``n_features x K``,
    ``K = n_majority + n_minority``). Feature ``j`` is active in a token with
    probability ``eps_j``, independently, with a random sign. The majority
    features have ``eps_j = majority_rate``; the minority rates fall
    geometrically, ``eps_j = majority_rate * imbalance**(-i / n_minority)``
    for the ``i``-th minority feature (``i = 1 .. n_minority``), so that the
    rarest one has ``eps_max / eps_min = imbalance`` (the paper's ``rho``)
    and several ratios ``eps_j / eps_max`` are available. The positive view
    of a sample shares its codes (support and signs) and draws fresh noise.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of sequences.
    n_tokens : int, default=4
        Tokens per sequence ``L``.
    n_features : int, default=32
        Token dimension ``d``, at least ``n_majority + n_minority``.
    n_majority : int, default=4
        Frequent features.
    n_minority : int, default=4
        Rare features.
    majority_rate : float, default=0.2
        Probability ``eps_max`` that a majority feature is active in a token.
    imbalance : float, default=10.0
        ``rho = eps_max / eps_min`` (>= 1); ``1`` gives balanced data.
    noise : float, default=0.1
        Standard deviation of every noise coordinate.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw.

    Returns
    -------
    X : ndarray of shape (n_samples, n_tokens, n_features)
        The anchor views.
    X_positive : ndarray of shape (n_samples, n_tokens, n_features)
        The positive views (same codes, fresh noise).
    codes : ndarray of shape (n_samples, n_tokens, n_majority + n_minority)
        The codes ``z_r`` in {-1, 0, 1}; majority features first.
    dictionary : ndarray of shape (n_features, n_majority + n_minority)
        ``M``, with orthonormal columns.
    rates : ndarray of shape (n_majority + n_minority,)
        The activation probabilities ``eps_j``; the minority features are
        those with ``rates < rates.max()`` (none when ``imbalance=1``).

    Examples
    --------
    >>> X, X_pos, codes, M, rates = make_sparse_coding_pairs(100, random_state=0)
    >>> X.shape, X_pos.shape, codes.shape, M.shape
    ((100, 4, 32), (100, 4, 32), (100, 4, 8), (32, 8))
    >>> float(rates.max() / rates.min())
    10.0
    """
    n_atoms = n_majority + n_minority
    if n_atoms > n_features:
        raise ValueError(
            f"n_majority + n_minority = {n_atoms} orthonormal features do not fit "
            f"in n_features={n_features} dimensions; raise n_features."
        )
    rng = check_random_state(random_state)
    dictionary = np.linalg.qr(rng.standard_normal((n_features, max(n_atoms, 1))))[0]
    dictionary = dictionary[:, :n_atoms]
    steps = np.arange(1, n_minority + 1) / max(n_minority, 1)
    rates = np.r_[np.full(n_majority, majority_rate), majority_rate * imbalance**-steps]
    shape = (n_samples, n_tokens, n_atoms)
    active = rng.uniform(size=shape) < rates
    codes = np.where(active, rng.choice([-1.0, 1.0], size=shape), 0.0)
    clean = codes @ dictionary.T
    noise_shape = (2, n_samples, n_tokens, n_features)
    X, X_positive = clean + noise * rng.standard_normal(noise_shape)
    return X, X_positive, codes, dictionary, rates
