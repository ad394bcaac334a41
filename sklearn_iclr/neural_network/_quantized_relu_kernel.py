"""The compiled branch and bound of :class:`QuantizedReLUClassifier`.

One *top branch* fixes the output unit's weights and bias; :func:`search_branch`
assigns a hidden-unit pattern (its values on the distinct inputs) to every
hidden unit, depth first, and bounds every partial network by the errors that
no completion can avoid. ``_quantized_relu_reference.branch_optimum`` is its
plain numpy reference (every assignment, no bound);
``tests/test_quantized_relu_kernel.py`` checks that both agree, also with
``NUMBA_DISABLE_JIT=1``.
"""

import numba
import numpy as np


def label_tables(counts):
    """``best[i, lo, hi] = max(counts[i, lo:hi + 1])`` for every ``lo <= hi``."""
    n_inputs, n_classes = counts.shape
    best = np.zeros((n_inputs, n_classes, n_classes))
    for lo in range(n_classes):
        best[:, lo, lo:] = np.maximum.accumulate(counts[:, lo:], axis=1)
    return best


def free_unit_reach(out_coef, high_value):
    """How far the output's pre-activation can move through the unassigned units.

    Parameters
    ----------
    out_coef : ndarray of shape (width,)
        The output unit's weights (integers, non-decreasing).
    high_value : int
        The largest value of a hidden unit.

    Returns
    -------
    rest_low, rest_high : ndarray of shape (width + 1,)
        ``rest_low[k]`` (``rest_high[k]``) is the most negative (positive)
        contribution of units ``k, ..., width - 1``; 0 at ``k = width``.
    """
    positive = np.maximum(out_coef, 0) * high_value
    negative = np.minimum(out_coef, 0) * high_value
    rest_high = np.append(np.cumsum(positive[::-1])[::-1], 0)
    rest_low = np.append(np.cumsum(negative[::-1])[::-1], 0)
    return rest_low, rest_high


@numba.njit(cache=True)
def search_branch(
    patterns,
    totals,
    best_in_range,
    out_coef,
    out_bias,
    top,
    rest_low,
    rest_high,
    best,
    best_index,
    index,
    depth,
    stop_at,
    max_nodes,
):
    """Depth-first branch and bound over the hidden units of one top branch.

    The output weights ``out_coef`` (non-decreasing) and bias are fixed;
    hidden unit ``k`` takes one of the distinct patterns (its values on the
    distinct inputs). Units with equal output weight take non-decreasing
    pattern indices (hidden-unit permutations are symmetries), units with
    output weight 0 take pattern 0. A node assigns units ``0..k`` and is
    bounded by the error that no completion can avoid: on input ``i`` the
    output can only reach ``[lo_i, hi_i]``, the clipped partial sum plus the
    most negative and most positive contributions of the free units.

    ``index`` and ``depth`` hold the search state so that a call can stop
    after ``max_nodes`` nodes and be resumed. Returns ``(best, depth,
    nodes)``; ``depth == -1`` when the branch is exhausted. ``best_index`` is
    updated in place whenever a strictly better network is found. The search
    stops early when ``best <= stop_at``.

    Parameters
    ----------
    patterns : ndarray of shape (n_patterns, n_inputs)
        The candidate hidden units' values on the distinct inputs.
    totals : ndarray of shape (n_inputs,)
        Samples (or their weight) per distinct input.
    best_in_range : ndarray of shape (n_inputs, n_classes, n_classes)
        ``best_in_range[i, lo, hi]``: the largest class count of input ``i``
        among the output values ``lo..hi``.
    out_coef, out_bias : ndarray of shape (width,), int
        The top branch: the output unit computes
        ``clip(sum_k out_coef[k] h_k - out_bias, 0, top)``.
    top : int
        The largest output value (``n_classes - 1``).
    rest_low, rest_high : ndarray of shape (width + 1,)
        From :func:`free_unit_reach`.
    best : float
        The incumbent's errors: only strictly better networks are recorded.
    best_index : ndarray of shape (width,), int
        The incumbent's pattern per hidden unit, updated in place.
    index : ndarray of shape (width,), int
        The search state (all 0 and ``depth=0`` for a new branch).
    depth : int
    stop_at : float
    max_nodes : int
    """
    n_patterns, n_inputs = patterns.shape
    width = out_coef.shape[0]
    partial = np.zeros((width + 1, n_inputs))
    for k in range(depth):
        for i in range(n_inputs):
            partial[k + 1, i] = partial[k, i] + out_coef[k] * patterns[index[k], i]
    nodes = 0
    while depth >= 0:
        unit = index[depth]
        if unit >= n_patterns or (out_coef[depth] == 0 and unit > 0):
            depth -= 1
            if depth >= 0:
                index[depth] += 1
            continue
        if nodes >= max_nodes:
            return best, depth, nodes
        nodes += 1
        weight = out_coef[depth]
        low = rest_low[depth + 1] - out_bias
        high = rest_high[depth + 1] - out_bias
        bound = 0.0
        for i in range(n_inputs):
            value = partial[depth, i] + weight * patterns[unit, i]
            partial[depth + 1, i] = value
            lo = min(max(value + low, 0), top)
            hi = min(max(value + high, 0), top)
            bound += totals[i] - best_in_range[i, int(lo), int(hi)]
            if bound >= best:
                break
        if bound < best and depth + 1 == width:
            best = bound
            for k in range(width):
                best_index[k] = index[k]
            if best <= stop_at:
                return best, -1, nodes
            index[depth] += 1
        elif bound < best:
            depth += 1
            if out_coef[depth] == 0 or out_coef[depth] != out_coef[depth - 1]:
                index[depth] = 0
            else:
                index[depth] = index[depth - 1]
        else:
            index[depth] += 1
    return best, -1, nodes
