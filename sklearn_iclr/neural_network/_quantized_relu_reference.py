"""A plain numpy reference for the branch search of :class:`QuantizedReLUClassifier`.

:func:`branch_optimum` solves what ``_quantized_relu_kernel.search_branch``
solves, the best hidden units under a fixed output unit, by evaluating every
assignment of patterns to hidden units: no bound, no pruning, no symmetry
breaking, the class counts used as they are. It is the oracle that
``tests/test_quantized_relu_kernel.py`` checks the compiled search against, on
problems small enough to enumerate.
"""

import itertools

import numpy as np


def assignment_errors(patterns, counts, out_coef, out_bias, top, assignments):
    """Errors of the networks given by ``assignments`` under one output unit.

    Parameters
    ----------
    patterns : ndarray of shape (n_patterns, n_inputs)
        The candidate hidden units' values on the distinct inputs.
    counts : ndarray of shape (n_inputs, n_classes)
        Samples (or their weight) of every class at every distinct input.
    out_coef : ndarray of shape (width,)
        The output unit's weights.
    out_bias : int
        The output unit's bias (subtracted).
    top : int
        The largest output value; the output is a class index.
    assignments : ndarray of shape (n_networks, width), int
        The pattern of every hidden unit, one network per row.

    Returns
    -------
    errors : ndarray of shape (n_networks,)
        The samples (weight) whose class differs from the network's output.
    """
    hidden = patterns[assignments]  # (n_networks, width, n_inputs)
    output = np.clip(np.einsum("nwi,w->ni", hidden, out_coef) - out_bias, 0, top)
    inputs = np.arange(counts.shape[0])
    return counts.sum() - counts[inputs, output].sum(axis=1)


def branch_optimum(patterns, counts, out_coef, out_bias, top):
    """The fewest errors of any network with this output unit, by enumeration.

    Parameters
    ----------
    patterns, counts, out_coef, out_bias, top
        As in :func:`assignment_errors`.

    Returns
    -------
    errors : float
        The minimum over all ``n_patterns ** width`` assignments.
    assignment : ndarray of shape (width,)
        The first assignment (in lexicographic order) that reaches it.
    """
    width = len(out_coef)
    assignments = np.array(
        list(itertools.product(range(len(patterns)), repeat=width)), dtype=np.int64
    ).reshape(-1, width)
    errors = assignment_errors(patterns, counts, out_coef, out_bias, top, assignments)
    best = int(np.argmin(errors))
    return float(errors[best]), assignments[best]
