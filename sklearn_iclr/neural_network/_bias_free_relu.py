"""Bias-free deep ReLU networks in numpy: forward pass, backprop, layer spectra.

The network of depth ``L`` maps a row ``x`` to ``Z_L`` with ``Z_1 = W_1 x`` and
``Z_l = W_l relu(Z_{l-1})`` for ``l >= 2`` (no activation on the input, none on
the output, no biases). Data are stored row-wise, so ``Z_l`` is computed as
``relu(Z_{l-1}) @ W_l.T``. Shared by :class:`EscapeDirection` and
:class:`SmallInitMLPRegressor`.
"""

import numpy as np


def layer_shapes(n_features, hidden_layer_sizes, n_outputs):
    """``(fan_out, fan_in)`` of every layer, input to output."""
    sizes = [n_features, *hidden_layer_sizes, n_outputs]
    return [(sizes[i + 1], sizes[i]) for i in range(len(sizes) - 1)]


def forward(weights, X):
    """The hidden activations and the output of the network on the rows of ``X``.

    Returns
    -------
    hidden : list of ndarray
        ``relu(Z_1), ..., relu(Z_{L-1})``, each of shape (n_samples, fan_out).
    output : ndarray of shape (n_samples, n_outputs)
        ``Z_L``.
    """
    pre = X @ weights[0].T
    hidden = []
    for W in weights[1:]:
        hidden.append(np.maximum(pre, 0.0, out=pre))
        pre = hidden[-1] @ W.T
    return hidden, pre


def backward(weights, X, hidden, output_grad):
    """Gradients of ``sum(output_grad * Z_L)`` with respect to every ``W_l``.

    ``hidden`` is what :func:`forward` returned for the same weights and
    ``X``; ``relu'(0)`` is taken as 0.
    """
    grads = [None] * len(weights)
    delta = output_grad
    for layer in range(len(weights) - 1, 0, -1):
        active = hidden[layer - 1]
        grads[layer] = delta.T @ active
        delta = delta @ weights[layer]
        delta *= active > 0.0
    grads[0] = delta.T @ X
    return grads


def singular_values(weights):
    """The singular values of every layer, each in decreasing order."""
    return [np.linalg.svd(W, compute_uv=False) for W in weights]


def rank_ratio(values):
    """``sum_{i>=2} s_i^2 / sum_i s_i^2``: the energy outside the top direction.

    0 for a rank-1 (or zero) matrix, ``1 - 1/r`` for ``r`` equal singular values.
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or values[0] == 0.0:
        return 0.0
    scaled = values / values[0]
    tail = np.sum(scaled[1:] ** 2)
    return float(tail / (1.0 + tail))


def effective_rank(values, rank_tol):
    """The number of singular values above ``rank_tol`` times the largest."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0 or values[0] == 0.0:
        return 0
    return int(np.sum(values > rank_tol * values[0]))


def operation_count(n_samples, shapes):
    """Multiply-adds of one forward and backward pass over ``n_samples`` rows."""
    return 3.0 * n_samples * sum(out * inp for out, inp in shapes)
