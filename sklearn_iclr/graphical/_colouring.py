"""Greedy colouring of the truncated-Ising sampler's conflict graph (numba).

Two spins conflict when they are Ising neighbours or share a clause: a colour
class (an independent set of the conflict graph) can then be updated at once.
The kernel walks each vertex's Ising neighbours and clause partners directly,
without building the conflict graph, whose size grows like the number of
literals times the clause length. numba compiles it once and caches it on
disk (``cache=True``).

:func:`conflict_graph` and :func:`greedy_colouring_reference` are the numpy
reference of the kernel: the conflict graph built explicitly (a sparse product
of the clause incidence matrix) and the same greedy rule read from it. Tests
check that the kernel's colours equal the reference's.
"""

import numpy as np
import scipy.sparse as sp
from numba import njit


@njit(cache=True)
def _greedy_colouring(a_ptr, a_idx, occ_ptr, occ_clause, clause_ptr, lit_var, bound):
    n = len(a_ptr) - 1
    colour = np.full(n, -1, dtype=np.int32)
    # seen[c] == v: colour c is taken by a neighbour of v. ``bound`` bounds
    # the number of neighbours (with repeats), so colours stay below it.
    seen = np.full(bound + 1, -1, dtype=np.int64)
    for v in range(n):
        for j in range(a_ptr[v], a_ptr[v + 1]):
            c = colour[a_idx[j]]
            if c >= 0:
                seen[c] = v
        for j in range(occ_ptr[v], occ_ptr[v + 1]):
            clause = occ_clause[j]
            for lit in range(clause_ptr[clause], clause_ptr[clause + 1]):
                c = colour[lit_var[lit]]
                if c >= 0:
                    seen[c] = v
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c
    return colour


def colour_classes(A, cnf, occurrences):
    """Independent sets of the conflict graph covering the vertices.

    Sequential greedy colouring in vertex order: every vertex takes the
    smallest colour absent from its already coloured Ising neighbours and
    clause partners, so at most ``max conflict degree + 1`` colours are used.

    Parameters
    ----------
    A : scipy.sparse.csr_array of shape (n, n)
        Validated coupling (its pattern is used; the diagonal is ignored).
    cnf : CNF
        Validated formula.
    occurrences : tuple of ndarray or None
        ``cnf.vertex_literals()`` (None without clauses).

    Returns
    -------
    classes : list of ndarray
        Vertex indices of each colour class, in increasing order.
    """
    n = A.shape[0]
    a_ptr = np.asarray(A.indptr, dtype=np.int64)
    degree = np.diff(a_ptr)
    if occurrences is None:
        occ_ptr = np.zeros(n + 1, dtype=np.int64)
        occ_clause = lit_var = np.zeros(0, dtype=np.int32)
        clause_ptr = np.zeros(1, dtype=np.int64)
    else:
        order, ptr = occurrences
        occ_ptr = np.asarray(ptr, dtype=np.int64)
        # Clause of every occurrence, in vertex order: read sequentially.
        occ_clause = cnf.clause_of_lit[order].astype(np.int32)
        clause_ptr = np.asarray(cnf.clause_ptr, dtype=np.int64)
        lit_var = cnf.lit_var.astype(np.int32)
        clause_length = np.diff(clause_ptr)[cnf.clause_of_lit]
        degree = degree + np.bincount(cnf.lit_var, clause_length, minlength=n)
    colour = _greedy_colouring(
        a_ptr,
        np.asarray(A.indices, dtype=np.int32),
        occ_ptr,
        occ_clause,
        clause_ptr,
        lit_var,
        int(degree.max()) if n else 0,
    )
    order = np.argsort(colour, kind="stable")
    bounds = np.searchsorted(colour[order], np.arange(colour.max() + 2))
    return [order[bounds[c] : bounds[c + 1]] for c in range(len(bounds) - 1)]


def conflict_graph(A, cnf):
    """The conflict graph as a sparse matrix: Ising edges and clause partners.

    Parameters
    ----------
    A : scipy.sparse.csr_array of shape (n, n)
        Validated coupling (its pattern is used; the diagonal is ignored).
    cnf : CNF
        Validated formula.

    Returns
    -------
    graph : scipy.sparse.csr_array of shape (n, n)
        Symmetric 0/1 pattern without self-loops.
    """
    pattern = sp.csr_array(
        (np.ones(A.nnz), A.indices, A.indptr), shape=A.shape, dtype=np.float64
    )
    if cnf.n_clauses:
        incidence = sp.csr_array(
            (np.ones(len(cnf.lit_var)), (cnf.clause_of_lit, cnf.lit_var)),
            shape=(cnf.n_clauses, cnf.n_vars),
        )
        pattern = pattern + incidence.T @ incidence
    pattern.setdiag(0)
    pattern.eliminate_zeros()
    pattern.data[:] = 1.0
    return sp.csr_array(pattern)


def greedy_colouring_reference(graph):
    """The kernel's greedy colouring, read from an explicit conflict graph.

    Vertex by vertex in index order, the smallest colour that no already
    coloured neighbour has.

    Parameters
    ----------
    graph : scipy.sparse.csr_array of shape (n, n)
        Symmetric pattern, as :func:`conflict_graph` returns it.

    Returns
    -------
    colour : ndarray of shape (n,)
        The colour of every vertex.
    """
    n = graph.shape[0]
    colour = np.full(n, -1, dtype=np.int64)
    for v in range(n):
        taken = colour[graph.indices[graph.indptr[v] : graph.indptr[v + 1]]]
        free = np.ones(len(taken) + 1, dtype=bool)
        free[taken[(taken >= 0) & (taken < len(free))]] = False
        colour[v] = np.argmax(free)
    return colour
