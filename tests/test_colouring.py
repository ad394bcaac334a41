"""The greedy colouring kernel of the truncated-Ising sampler, against its
numpy reference (``graphical/_colouring.py``); also run with
``NUMBA_DISABLE_JIT=1``."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.datasets import make_random_kcnf, make_regular_coupling
from sklearn_iclr.graphical._cnf import check_cnf
from sklearn_iclr.graphical._colouring import (
    colour_classes,
    conflict_graph,
    greedy_colouring_reference,
)
from sklearn_iclr.graphical._coupling import check_coupling

pytestmark = pytest.mark.kernel


def _colours(classes, n):
    """The colour of every vertex, from the kernel's classes."""
    colour = np.full(n, -1)
    for c, idx in enumerate(classes):
        colour[idx] = c
    return colour


@st.composite
def coupling_and_cnf(draw):
    n = draw(st.integers(1, 24))
    pairs = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40)
    )
    edges = np.array([(i, j) for i, j in pairs if i != j], dtype=int).reshape(-1, 2)
    A = np.zeros((n, n))
    A[edges[:, 0], edges[:, 1]] = 1.0
    A = np.maximum(A, A.T)
    literal = st.integers(1, n).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(literal, min_size=1, max_size=4), max_size=12))
    return check_coupling(A, n), check_cnf(clauses or None, n)


@settings(max_examples=200)
@given(problem=coupling_and_cnf())
def test_kernel_colours_equal_the_reference(problem):
    A, cnf = problem
    occurrences = cnf.vertex_literals() if cnf.n_clauses else None
    kernel = _colours(colour_classes(A, cnf, occurrences), A.shape[0])
    reference = greedy_colouring_reference(conflict_graph(A, cnf))
    np.testing.assert_array_equal(kernel, reference)


@pytest.mark.parametrize("k, density", [(None, 0), (2, 1), (3, 5), (8, 2)])
@pytest.mark.parametrize("seed", [0, 1])
def test_colour_classes_are_independent_and_cover(k, density, seed):
    # Every class is an independent set of the explicit conflict graph, the
    # classes cover the vertices, and greedy uses at most max degree + 1.
    n = 2000
    A = make_regular_coupling(n, 3, random_state=seed)
    clauses = None if k is None else make_random_kcnf(n, k, density, random_state=seed)
    cnf = check_cnf(clauses, n)
    occurrences = cnf.vertex_literals() if cnf.n_clauses else None
    classes = colour_classes(A, cnf, occurrences)
    assert np.array_equal(np.sort(np.concatenate(classes)), np.arange(n))
    graph = conflict_graph(A, cnf)
    for idx in classes:
        assert len(idx) and np.all(np.diff(idx) > 0)
        assert graph[idx][:, idx].nnz == 0
    assert len(classes) <= np.diff(graph.indptr).max() + 1


def test_reference_on_a_path_and_a_triangle():
    # Oracle by hand: a path 0-1-2 takes colours 0, 1, 0; a triangle 0, 1, 2.
    path = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float))
    np.testing.assert_array_equal(greedy_colouring_reference(path), [0, 1, 0])
    triangle = sp.csr_array(np.ones((3, 3)) - np.eye(3))
    np.testing.assert_array_equal(greedy_colouring_reference(triangle), [0, 1, 2])
