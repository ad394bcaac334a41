"""QuantizedReLUClassifier's compiled branch search against its numpy reference.

``search_branch`` (numba) finds the best hidden units under one output unit by
a depth-first branch and bound with symmetry breaking;
``branch_optimum`` evaluates every assignment of patterns to hidden units. Both
must reach the same optimum, and the network the search reports must have the
errors it reports. These tests also run with ``NUMBA_DISABLE_JIT=1``.
"""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_iclr.neural_network._quantized_relu_kernel import (
    free_unit_reach,
    label_tables,
    search_branch,
)
from sklearn_iclr.neural_network._quantized_relu_reference import (
    assignment_errors,
    branch_optimum,
)

AGREE = settings(max_examples=80, deadline=None)


@st.composite
def branches(draw):
    """One top branch of a small problem: patterns, class counts, output unit."""
    n_inputs = draw(st.integers(1, 5))
    n_classes = draw(st.integers(2, 3))
    high_value = draw(st.integers(1, 2))
    n_patterns = draw(st.integers(1, 5))
    width = draw(st.integers(1, 3))
    patterns = draw(
        arrays(np.int64, (n_patterns, n_inputs), elements=st.integers(0, high_value))
    )
    # Halves: weighted counts, whose sums float64 keeps exact.
    counts = draw(arrays(np.float64, (n_inputs, n_classes), elements=st.integers(0, 6)))
    counts = counts / 2
    out_coef = np.sort(draw(arrays(np.int64, width, elements=st.integers(-2, 2))))
    out_bias = draw(st.integers(-2, 2))
    return patterns, counts, out_coef, out_bias, n_classes - 1, high_value


def run(problem, best=math.inf, stop_at=-math.inf, max_nodes=10**9):
    """Search a branch to its end (resuming after every ``max_nodes``)."""
    patterns, counts, out_coef, out_bias, top, high_value = problem
    rest_low, rest_high = free_unit_reach(out_coef, high_value)
    width = len(out_coef)
    index, depth = np.zeros(width, np.int64), 0
    found = np.full(width, -1, np.int64)
    nodes = 0
    while depth >= 0:
        best, depth, count = search_branch(
            patterns,
            counts.sum(axis=1),
            label_tables(counts),
            out_coef,
            out_bias,
            top,
            rest_low,
            rest_high,
            best,
            found,
            index,
            depth,
            stop_at,
            max_nodes,
        )
        nodes += count
    return best, found, nodes


def errors_of(problem, assignment):
    patterns, counts, out_coef, out_bias, top, _ = problem
    return assignment_errors(
        patterns, counts, out_coef, out_bias, top, assignment[None]
    )[0]


@AGREE
@given(branches())
def test_the_search_reaches_the_enumerated_optimum(problem):
    optimum, _ = branch_optimum(*problem[:5])
    best, found, _ = run(problem)
    assert best == optimum
    assert errors_of(problem, found) == optimum


@AGREE
@given(branches(), st.integers(1, 4))
def test_a_search_resumed_every_few_nodes_ends_where_one_call_does(problem, chunk):
    whole = run(problem)
    pieces = run(problem, max_nodes=chunk)
    assert pieces[0] == whole[0]
    np.testing.assert_array_equal(pieces[1], whole[1])
    assert pieces[2] == whole[2]


@AGREE
@given(branches(), st.sampled_from([0.0, 0.5, 3.0]))
def test_only_a_strictly_better_network_replaces_the_incumbent(problem, margin):
    optimum, _ = branch_optimum(*problem[:5])
    best, found, _ = run(problem, best=optimum + margin)
    if margin == 0.0:
        assert best == optimum and np.all(found == -1)
    else:
        assert best == optimum and errors_of(problem, found) == optimum


@AGREE
@given(branches(), st.floats(0, 10))
def test_the_search_stops_at_the_first_network_within_stop_at(problem, stop_at):
    optimum, _ = branch_optimum(*problem[:5])
    best, found, _ = run(problem, stop_at=stop_at)
    assert best >= optimum
    assert best <= stop_at or best == optimum
    assert errors_of(problem, found) == best
