"""The BReLU encoder's elementwise kernels (``contrastive/_brelu_kernel.py``)
against their numpy references, to the bit; also run with
``NUMBA_DISABLE_JIT=1``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.contrastive import _brelu_kernel

pytestmark = pytest.mark.kernel


@st.composite
def blocks(draw, special=False):
    """A random ``(n, rows, cols)`` array, entries over many magnitudes, with
    zeros and (``special``) infinities and NaN among them."""
    rng = np.random.RandomState(draw(st.integers(0, 2**31 - 1)))
    shape = tuple(draw(st.integers(1, n)) for n in (6, 20, 200))
    values = rng.standard_normal(shape) * 10.0 ** rng.uniform(-8, 8, shape)
    values[rng.random_sample(shape) < 0.1] = 0.0
    if special:
        for value in (np.inf, -np.inf, np.nan):
            values[rng.random_sample(shape) < 0.05] = value
    return values


def _same_in_place(kernel, reference, array, *args):
    """Both functions, on copies of ``array``, leave the same bits in it."""
    out, ref = array.copy(), array.copy()
    kernel(out, *args)
    reference(ref, *args)
    np.testing.assert_array_equal(out, ref)


@settings(max_examples=100, deadline=None)
@given(scores=blocks(special=True))
def test_shift_rows_equals_the_reference(scores):
    _same_in_place(_brelu_kernel.shift_rows, _brelu_kernel.shift_rows_reference, scores)


@settings(max_examples=100, deadline=None)
@given(weights=blocks())
def test_normalise_keys_equals_the_reference(weights):
    _same_in_place(
        _brelu_kernel.normalise_keys,
        _brelu_kernel.normalise_keys_reference,
        np.abs(weights),
    )


@settings(max_examples=100, deadline=None)
@given(
    pre=blocks(),
    bias=st.sampled_from([0.0, 1e-3, 0.01, 1.0]),
    seed=st.integers(0, 2**31 - 1),
)
def test_brelu_passes_equal_the_references(pre, bias, seed):
    n, _, m = pre.shape
    outputs = [np.full((n, m), np.nan) for _ in range(2)]
    _brelu_kernel.brelu_outputs(pre, bias, outputs[0])
    _brelu_kernel.brelu_outputs_reference(pre, bias, outputs[1])
    np.testing.assert_array_equal(*outputs)
    grad_outputs = np.random.RandomState(seed).standard_normal((n, m))
    grads = [np.full_like(pre, np.nan) for _ in range(2)]
    _brelu_kernel.brelu_grad(grad_outputs, pre, bias, grads[0])
    _brelu_kernel.brelu_grad_reference(grad_outputs, pre, bias, grads[1])
    np.testing.assert_array_equal(*grads)


@settings(max_examples=100, deadline=None)
@given(weights=blocks(), grad_probs=blocks())
def test_softmax_grad_equals_the_reference(weights, grad_probs):
    shape = np.minimum(weights.shape, grad_probs.shape)
    probs = np.abs(weights[: shape[0], : shape[1], : shape[2]])
    probs /= np.maximum(probs.sum(axis=-1, keepdims=True), 1e-300)
    grad_probs = grad_probs[: shape[0], : shape[1], : shape[2]]
    _same_in_place(
        lambda g: _brelu_kernel.softmax_grad(probs, g),
        lambda g: _brelu_kernel.softmax_grad_reference(probs, g),
        grad_probs,
    )


@settings(max_examples=50, deadline=None)
@given(
    tokens=blocks(),
    batch_seed=st.integers(0, 2**31 - 1),
    noise_seed=st.integers(0, 2**63 - 1),
    noise_scale=st.sampled_from([0.0, 0.1, 3.0]),
)
def test_noise_views_draw_numpys_stream(tokens, batch_seed, noise_seed, noise_scale):
    batch = np.random.RandomState(batch_seed).randint(len(tokens), size=7)
    views = [np.full((2, len(batch), *tokens.shape[1:]), np.nan) for _ in range(2)]
    generators = [np.random.Generator(np.random.SFC64(noise_seed)) for _ in range(2)]
    _brelu_kernel.noise_views(tokens, batch, noise_scale, generators[0], views[0])
    _brelu_kernel.noise_views_reference(
        tokens, batch, noise_scale, generators[1], views[1]
    )
    np.testing.assert_array_equal(*views)
    # Both leave the generator in the same state: the next fit step's draws.
    assert generators[0].random() == generators[1].random()
