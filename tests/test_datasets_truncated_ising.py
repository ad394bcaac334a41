"""make_truncated_ising: exact-law checks of the sampler, clauses, errors."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from sklearn_iclr.datasets import (
    make_random_kcnf,
    make_regular_coupling,
    make_truncated_ising,
)


def _all_states(n):
    """All 2^n spin vectors; state index k has spin i = -1 iff bit i of k is set."""
    bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    return 1 - 2 * bits


def _index(X):
    return ((X < 0) * (1 << np.arange(X.shape[1]))).sum(axis=1)


def _exact_law(A, beta, clauses):
    """Enumerate P(sigma) ~ exp(beta * sum_{i<j} A_ij s_i s_j) 1[S]."""
    states = _all_states(A.shape[0])
    log_w = beta * 0.5 * np.einsum("si,ij,sj->s", states, A, states)
    sat = np.ones(len(states), dtype=bool)
    for clause in clauses:
        sat &= np.any([states[:, abs(v) - 1] * np.sign(v) > 0 for v in clause], 0)
    weights = np.where(sat, np.exp(log_w - log_w[sat].max()), 0.0)
    return states, sat, weights / weights.sum()


def _single_flip_components(states, sat):
    """Connected components of S under single spin flips."""
    n = states.shape[1]
    idx = np.flatnonzero(sat)
    rows = np.repeat(idx, n)
    cols = (idx[:, None] ^ (1 << np.arange(n))).ravel()
    keep = sat[cols]
    graph = sp.coo_array(
        (np.ones(keep.sum()), (rows[keep], cols[keep])), shape=(len(states),) * 2
    )
    return connected_components(graph, directed=False)[1]


def _tv_tolerance(p, n_draws):
    # E[TV] of an i.i.d. empirical law <= 0.5 * sum sqrt(p(1-p)/N); 3x that bound.
    return 1.5 * np.sum(np.sqrt(p * (1 - p) / n_draws))


@pytest.mark.parametrize("with_clauses", [False, True])
def test_sampler_matches_exact_truncated_law(with_clauses):
    rng = np.random.RandomState(0)
    n = 7
    A = np.triu(rng.choice([-1.0, 0.0, 1.0], size=(n, n)), 1) * 0.6
    A = A + A.T
    clauses = [(1, -2, 3), (-4, 5), (2, 6, -7), (-1, 7)] if with_clauses else []
    states, sat, p = _exact_law(A, 0.9, clauses)
    components = _single_flip_components(states, sat)
    assert len(np.unique(components[sat])) == 1  # precondition: irreducible on S
    n_draws = 20000
    X = make_truncated_ising(
        A, 0.9, clauses=clauses or None, n_samples=n_draws, n_sweeps=40, random_state=0
    )
    empirical = np.bincount(_index(X), minlength=len(p)) / n_draws
    assert empirical[~sat].sum() == 0
    assert 0.5 * np.abs(empirical - p).sum() < _tv_tolerance(p, n_draws)


def test_sampler_matches_enumeration_through_the_estimator_convention():
    # Same beta in sampler and estimator: the MPLE from many exact-law rows of a
    # 10-spin model recovers beta (the factor-2 trap would give 2x or 0.5x).
    rng = np.random.RandomState(1)
    n, beta = 10, 0.7
    A = np.triu(rng.choice([0.0, 1.0], size=(n, n)), 1) / 3
    A = A + A.T
    clauses = [(1, 2, -3), (4, -5, 6), (-7, 8, 9)]
    from sklearn_iclr.graphical import PseudoLikelihoodIsing

    X = make_truncated_ising(
        A, beta, clauses=clauses, n_samples=4000, n_sweeps=30, random_state=0
    )
    est = PseudoLikelihoodIsing(coupling=A, clauses=clauses).fit(X)
    # 4000 rows x ~8 flippable spins: sd ~ 0.02-0.05; 0.15 rules out 2x and 0.5x.
    assert est.beta_ == pytest.approx(beta, abs=0.15)


def test_reducible_case_is_exact_within_components_only():
    # (x1 or x2), (not x1 or not x2), (x1 or x3): S has two single-flip
    # components, {x1=+1, x2=-1} and {x1=-1, x2=+1, x3=+1}. No chain ever
    # crosses; inside each component the law is the exact conditional one; the
    # component masses are those of the Moser-Tardos start (documented).
    A = np.array([[0, 0, 1, 1], [0, 0, 1, 0], [1, 1, 0, 1], [1, 0, 1, 0]]) * 0.8
    clauses = [(1, 2), (-1, -2), (1, 3)]
    states, sat, p = _exact_law(A, 1.0, clauses)
    components = _single_flip_components(states, sat)
    assert len(np.unique(components[sat])) == 2
    n_draws = 20000
    start = make_truncated_ising(
        A, 1.0, clauses=clauses, n_samples=n_draws, n_sweeps=0, random_state=0
    )
    X = make_truncated_ising(
        A, 1.0, clauses=clauses, n_samples=n_draws, n_sweeps=30, random_state=0
    )
    np.testing.assert_array_equal(components[_index(X)], components[_index(start)])
    for comp in np.unique(components[sat]):
        inside = components == comp
        rows = components[_index(X)] == comp
        conditional = np.where(inside, p, 0) / p[inside].sum()
        empirical = np.bincount(_index(X[rows]), minlength=len(p)) / rows.sum()
        tv = 0.5 * np.abs(empirical - conditional).sum()
        assert tv < _tv_tolerance(conditional, rows.sum())


def test_samples_satisfy_the_clauses_and_are_reproducible():
    A = make_regular_coupling(500, 3, signed=True, random_state=0)
    clauses = make_random_kcnf(500, 3, 5, random_state=0)
    X = make_truncated_ising(
        A, 1.0, clauses=clauses, n_samples=3, n_sweeps=10, random_state=7
    )
    lits = np.abs(clauses) - 1
    assert np.all(np.any(X[:, lits] * np.sign(clauses) > 0, axis=2))
    again = make_truncated_ising(
        A, 1.0, clauses=clauses, n_samples=3, n_sweeps=10, random_state=7
    )
    np.testing.assert_array_equal(X, again)
    assert set(np.unique(X)) == {-1.0, 1.0}


def test_generator_errors():
    with pytest.raises(ValueError, match="even"):
        make_regular_coupling(5, 3)
    with pytest.raises(ValueError, match="n_vars >= k"):
        make_random_kcnf(2, 3, 1)
    with pytest.raises(ValueError, match="unsatisfiable"):
        make_truncated_ising(np.zeros((2, 2)), 0.0, clauses=[(1,), (-1,)])
    with pytest.raises(ValueError, match="symmetric"):
        make_truncated_ising(np.triu(np.ones((3, 3)), 1), 0.0)
