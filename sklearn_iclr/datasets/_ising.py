"""Ising couplings and a sampler for Ising models truncated to a CNF."""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from ..graphical._cnf import check_cnf, moser_tardos
from ..graphical._coupling import check_coupling
from ..graphical._sampler import ColourSweepSampler
from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_vertices": [Interval(Integral, 2, None, closed="left")],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "signed": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_regular_coupling(n_vertices, degree, *, signed=False, random_state=None):
    """Coupling ``A = adj / degree`` of a random ``degree``-regular graph.

    The graph comes from the configuration model (stubs paired at random);
    self-loops and repeated edges are repaired by random double-edge swaps
    ``(a, b), (c, d) -> (a, c), (b, d)``, which keep every degree. This is the
    coupling of Chauhan and Panageas, "Learning the Inverse Temperature of
    Ising Models under Hard Constraints using One Sample" (ICLR 2026):
    ``A_ij = +-1 / Delta`` on the edges, so every local field is in [-1, 1].

    Parameters
    ----------
    n_vertices : int
        Number of vertices; ``n_vertices * degree`` must be even.
    degree : int
        Degree ``Delta`` of every vertex, below ``n_vertices``.
    signed : bool, default=False
        If True every edge gets an independent random sign (a spin glass);
        otherwise all couplings are ``+1 / degree`` (a ferromagnet).
    random_state : int, RandomState instance or None, default=None
        Seed of the pairing, the repairs and the signs.

    Returns
    -------
    coupling : scipy.sparse.csr_array of shape (n_vertices, n_vertices)
        Symmetric, zero diagonal, ``degree`` entries ``+-1/degree`` per row.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_regular_coupling
    >>> A = make_regular_coupling(10, 3, random_state=0)
    >>> A.sum(axis=1)
    array([1., 1., 1., 1., 1., 1., 1., 1., 1., 1.])
    """
    n, d = n_vertices, degree
    if d >= n or (n * d) % 2:
        raise ValueError(
            f"A {d}-regular graph on {n} vertices needs degree < n_vertices and "
            f"n_vertices * degree even; got n_vertices={n}, degree={d}."
        )
    rng = check_random_state(random_state)
    stubs = np.repeat(np.arange(n), d)
    rng.shuffle(stubs)
    edges = stubs.reshape(-1, 2)
    for _ in range(10_000):
        low, high = edges.min(axis=1), edges.max(axis=1)
        key = low.astype(np.int64) * n + high
        _, first = np.unique(key, return_index=True)
        bad = np.ones(len(edges), dtype=bool)
        bad[first] = False
        bad |= low == high
        if not bad.any():
            break
        for e in np.flatnonzero(bad):
            f = rng.randint(len(edges))
            (a, b), (c, e_) = edges[e], edges[f]
            if rng.random_sample() < 0.5:
                edges[e], edges[f] = (a, c), (b, e_)
            else:
                edges[e], edges[f] = (a, e_), (b, c)
    else:  # pragma: no cover - the swaps mix quickly for every valid (n, d)
        raise ValueError(f"Could not build a simple {d}-regular graph on {n} vertices.")
    weights = np.full(len(edges), 1.0 / d)
    if signed:
        weights *= np.where(rng.random_sample(len(edges)) < 0.5, -1.0, 1.0)
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    A = sp.csr_array((np.concatenate([weights, weights]), (rows, cols)), shape=(n, n))
    A.sort_indices()
    return A


@validate_params(
    {
        "coupling": ["array-like", "sparse matrix"],
        "beta": [Interval(Real, None, None, closed="neither")],
        "clauses": ["array-like", None],
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_sweeps": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_truncated_ising(
    coupling, beta, *, clauses=None, n_samples=1, n_sweeps=100, random_state=None
):
    """Sample an Ising model truncated to the satisfying assignments of a CNF.

    The target law (each edge counted once) is::

        P(sigma) = exp(beta * sum_{i<j} A_ij sigma_i sigma_j) 1[sigma in S] / Z,

    with ``S`` the satisfying assignments of ``clauses``; written as
    ``exp(beta_paper * sigma^T A sigma)`` this is ``beta_paper = beta / 2``. It
    is the model of Chauhan and Panageas, "Learning the Inverse Temperature of
    Ising Models under Hard Constraints using One Sample" (ICLR 2026), in the
    convention of :class:`~sklearn_iclr.graphical.PseudoLikelihoodIsing`.

    Parameters
    ----------
    coupling : {array-like, sparse matrix} of shape (n_vertices, n_vertices)
        Symmetric coupling matrix ``A`` with zero diagonal.
    beta : float
        Inverse temperature.
    clauses : array-like of shape (n_clauses, k) or sequence of sequences of \
            int, default=None
        CNF in DIMACS literal convention (variable ``v`` is vertex ``v - 1``;
        ``+v`` is true when that spin is +1). ``None``: no truncation.
    n_samples : int, default=1
        Number of independent chains, one configuration each.
    n_sweeps : int, default=100
        Sweeps of Glauber dynamics per chain (0 returns the Moser-Tardos start).
    random_state : int, RandomState instance or None, default=None
        Seed of the start and the dynamics.

    Returns
    -------
    X : ndarray of shape (n_samples, n_vertices)
        Configurations in {-1.0, +1.0}, each satisfying the clauses.

    Notes
    -----
    Each sample is an independent chain of heat-bath Glauber dynamics restricted
    to ``S``: a spin whose flip would violate a clause stays; any other spin is
    redrawn from ``P(sigma_i = +1 | rest) = (1 + tanh(beta m_i)) / 2``. The
    chain starts from a satisfying assignment found by Moser-Tardos resampling.
    A sweep updates every spin once, one colour class at a time: the classes are
    independent sets of the conflict graph (Ising edges plus clause
    co-membership, coloured greedily in vertex order), so a whole class is
    updated at once, vectorised over vertices and chains. The sampler is built
    for sparse couplings: with a dense one (e.g. Curie-Weiss) every class is a
    single vertex and a sweep costs ``n`` vectorised steps.

    Every update leaves the truncated law invariant, but single-spin dynamics
    can be *reducible* on ``S``: with the clauses ``(x1 or x2)`` and
    ``(not x1 or not x2)`` no single flip moves between ``x1 = +1, x2 = -1``
    and ``x1 = -1, x2 = +1``. Within its connected component of ``S`` a chain
    converges to the law conditioned on that component, but the mass of each
    component is the one of the Moser-Tardos start, not the target's.

    Examples
    --------
    >>> from sklearn_iclr.datasets import (
    ...     make_random_kcnf, make_regular_coupling, make_truncated_ising)
    >>> A = make_regular_coupling(1000, 3, random_state=0)
    >>> clauses = make_random_kcnf(1000, 3, 5, random_state=0)
    >>> X = make_truncated_ising(A, 0.5, clauses=clauses, n_samples=2,
    ...                          random_state=0)
    >>> X.shape
    (2, 1000)
    """
    rng = check_random_state(random_state)
    A = check_coupling(coupling)
    cnf = check_cnf(clauses, A.shape[0])
    spins = moser_tardos(cnf, n_samples, rng).astype(np.float64)
    if n_sweeps:
        sampler = ColourSweepSampler(A, cnf, n_samples)
        sampler.run(spins.reshape(-1), float(beta), n_sweeps, rng)
    return spins
