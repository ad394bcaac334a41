"""Elementwise passes of :class:`BReLUAttentionEncoder`'s minibatch step (numba).

The products of a step (attention scores, mixing, neuron pre-activations,
logits and their gradients) stay in BLAS. What is left between them works on
arrays of a few thousand numbers, where numpy pays more for its calls and
temporaries than for the arithmetic. Each kernel below does one such pass in
place or into a given buffer, with the operations of its numpy reference
(``*_reference``) in the same order, so that the two agree to the bit (the
exponentials stay numpy's, between the kernels):

* :func:`noise_views`: the two noisy views of a minibatch, ``x + sigma z``
  with ``z`` standard normal, drawn from a ``numpy.random.Generator`` in
  numpy's order;
* :func:`shift_rows`: rows shifted by their maximum, before numpy's ``exp``
  (the softmax over the keys of the attention scores, and the log-softmax of
  the InfoNCE logits);
* :func:`normalise_keys`: the softmax over the keys after the ``exp``;
* :func:`brelu_outputs`: the BReLU (:func:`brelu`) of the pre-activations,
  summed over the tokens;
* :func:`brelu_grad`: the gradient of the pre-activations, the output
  gradient where the BReLU is active;
* :func:`softmax_grad`: the gradient of the scores from that of the
  attention probabilities.

The kernels' tests compare them with the references (also with
``NUMBA_DISABLE_JIT=1``).
"""

import numpy as np
from numba import njit


@njit(cache=True)
def noise_views(tokens, batch, noise_scale, generator, views):
    """``views[v, i] = noise_scale z + tokens[batch[i]]``, ``z`` drawn in C order.

    ``views`` has shape ``(2, len(batch), n_tokens, token_dim)``; the draws
    are ``generator.standard_normal()``, one per entry, in the order of
    ``generator.standard_normal(views.shape)``.
    """
    for v in range(views.shape[0]):
        for i in range(views.shape[1]):
            row = tokens[batch[i]]
            for r in range(views.shape[2]):
                for k in range(views.shape[3]):
                    draw = generator.standard_normal() * noise_scale
                    views[v, i, r, k] = draw + row[r, k]


def noise_views_reference(tokens, batch, noise_scale, generator, views):
    """:func:`noise_views` in numpy."""
    views[...] = generator.standard_normal(views.shape)
    views *= noise_scale
    views += tokens[batch]


@njit(cache=True)
def shift_rows(scores):
    """Subtract from every row ``scores[n, r, :]`` its maximum, in place.

    A row whose maximum is not finite, or that holds a NaN, is left as it is.
    """
    for n in range(scores.shape[0]):
        for r in range(scores.shape[1]):
            row = scores[n, r]
            largest = row[0]
            n_nan = 0
            # Branch-free, so that the loop vectorises.
            for key in range(1, row.shape[0]):
                value = row[key]
                largest = value if value > largest else largest
                n_nan += value != value
            if n_nan or not np.isfinite(largest):
                largest = 0.0
            for key in range(row.shape[0]):
                row[key] -= largest


def shift_rows_reference(scores):
    """:func:`shift_rows` in numpy."""
    largest = scores.max(axis=-1, keepdims=True)
    largest[~np.isfinite(largest)] = 0.0
    scores -= largest


@njit(cache=True, error_model="numpy")
def normalise_keys(weights):
    """Divide every row of ``weights[n, r, :]`` by its sum (in order), in place.

    A row of zeros becomes NaN, as in numpy.
    """
    for n in range(weights.shape[0]):
        for r in range(weights.shape[1]):
            total = weights[n, r, 0]
            for key in range(1, weights.shape[2]):
                total += weights[n, r, key]
            for key in range(weights.shape[2]):
                weights[n, r, key] /= total


def normalise_keys_reference(weights):
    """:func:`normalise_keys` in numpy."""
    total = weights[..., 0].copy()
    for key in range(1, weights.shape[2]):
        total += weights[..., key]
    weights /= total[..., None]


def brelu(s, bias):
    """Bilateral ReLU ``BReLU_b(s) = ReLU(s - b) - ReLU(-s - b)``.

    It is zero on ``[-b, b]`` and ``s -/+ b`` outside: the soft-thresholding
    of ``s`` at ``b``.

    Parameters
    ----------
    s : array-like
        Pre-activations.
    bias : float
        The threshold ``b >= 0``.

    Returns
    -------
    out : ndarray
        ``BReLU_b(s)``, elementwise.

    Examples
    --------
    >>> brelu([-2.0, -0.5, 0.0, 0.5, 2.0], 1.0).tolist()
    [-1.0, 0.0, 0.0, 0.0, 1.0]
    """
    s = np.asarray(s, dtype=np.float64)
    return s - np.clip(s, -bias, bias)


@njit(cache=True)
def brelu_outputs(pre, bias, outputs):
    """``outputs[n, i] = sum_r BReLU_bias(pre[n, r, i])``, summed in token order."""
    for n in range(pre.shape[0]):
        for r in range(pre.shape[1]):
            for i in range(pre.shape[2]):
                s = pre[n, r, i]
                term = s - min(max(s, -bias), bias)
                outputs[n, i] = term if r == 0 else outputs[n, i] + term


def brelu_outputs_reference(pre, bias, outputs):
    """:func:`brelu_outputs` in numpy."""
    terms = brelu(pre, bias)
    outputs[...] = terms[:, 0]
    for r in range(1, pre.shape[1]):
        outputs += terms[:, r]


@njit(cache=True)
def brelu_grad(grad_outputs, pre, bias, grad_pre):
    """``grad_pre[n, r, i] = grad_outputs[n, i] [|pre[n, r, i]| > bias]``."""
    for n in range(pre.shape[0]):
        for r in range(pre.shape[1]):
            for i in range(pre.shape[2]):
                active = 1.0 if abs(pre[n, r, i]) > bias else 0.0
                grad_pre[n, r, i] = grad_outputs[n, i] * active


def brelu_grad_reference(grad_outputs, pre, bias, grad_pre):
    """:func:`brelu_grad` in numpy."""
    grad_pre[...] = grad_outputs[:, None, :] * (np.abs(pre) > bias)


@njit(cache=True)
def _pairwise_sum(values):
    """``values.sum()`` as numpy adds a contiguous row: eight running sums in
    blocks of at most 128, halves added recursively above."""
    n = values.shape[0]
    if n < 8:
        total = -0.0
        for i in range(n):
            total += values[i]
        return total
    if n <= 128:
        partial = values[:8].copy()
        end = n - n % 8
        for i in range(8, end, 8):
            for j in range(8):
                partial[j] += values[i + j]
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        for i in range(end, n):
            total += values[i]
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(values[:half]) + _pairwise_sum(values[half:])


@njit(cache=True)
def softmax_grad(probs, grad_probs):
    """The softmax's backward pass over the keys, in place in ``grad_probs``.

    ``grad_probs[n, r, l]`` becomes ``p_l (g_l - sum_k g_k p_k)``, with ``p =
    probs[n, r]`` and ``g = grad_probs[n, r]``.
    """
    products = np.empty(probs.shape[2])
    for n in range(probs.shape[0]):
        for r in range(probs.shape[1]):
            for key in range(probs.shape[2]):
                products[key] = grad_probs[n, r, key] * probs[n, r, key]
            inner = _pairwise_sum(products)
            for key in range(probs.shape[2]):
                grad_probs[n, r, key] = probs[n, r, key] * (
                    grad_probs[n, r, key] - inner
                )


def softmax_grad_reference(probs, grad_probs):
    """:func:`softmax_grad` in numpy."""
    inner = np.sum(grad_probs * probs, axis=-1, keepdims=True)
    grad_probs[...] = probs * (grad_probs - inner)
