"""Baselines, tensor PCA, the exponent tests, the generators and the overlap metric."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sklearn_iclr.datasets import make_single_index, make_tensor_pca
from sklearn_iclr.metrics import overlap
from sklearn_iclr.single_index import (
    estimate_information_exponent,
    hermite_exponent_scores,
    tensor_pca_langevin,
)
from sklearn_iclr.single_index._baselines import (
    online_sgd_direction,
    partial_trace_direction,
)
from sklearn_iclr.testing.strategies import orthogonal_matrices

PAIRS = list(itertools.combinations(range(4), 2))


def hermite_tensor_4(x):
    """Brute-force He_4 tensor of one point from its textbook definition.

    ``x_a x_b x_c x_e`` minus ``delta x x`` over the 6 index pairs plus
    ``delta delta`` over the 3 pairings, entry by entry (small d only).
    """
    d = len(x)
    eye = np.eye(d)
    tensor = np.zeros((d,) * 4)
    for idx in itertools.product(range(d), repeat=4):
        a, b, c, e = idx
        value = x[a] * x[b] * x[c] * x[e]
        for i, j in PAIRS:
            p, q = (m for m in range(4) if m not in (i, j))
            value -= eye[idx[i], idx[j]] * x[idx[p]] * x[idx[q]]
        value += eye[a, b] * eye[c, e] + eye[a, c] * eye[b, e] + eye[a, e] * eye[b, c]
        tensor[idx] = value
    return tensor


def test_partial_trace_k4_matches_brute_force_hermite_tensor_contraction():
    # Oracle: contract the He_4 tensor of every sample over its last two
    # indices by brute force; its top eigenvector is the estimator's output.
    X, y, _ = make_single_index(120, 4, information_exponent=4, random_state=0)
    y_std = (y - y.mean()) / y.std()
    matrix = sum(
        w * np.trace(hermite_tensor_4(x), axis1=2, axis2=3)
        for w, x in zip(y_std, X, strict=True)
    ) / len(y)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    expected = eigvecs[:, np.argmax(np.abs(eigvals))]
    assert overlap(partial_trace_direction(X, y, 4), expected) > 1 - 1e-10


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_partial_trace_recovers_direction_with_many_samples(k):
    X, y, theta = make_single_index(20000, 6, information_exponent=k, random_state=k)
    assert overlap(partial_trace_direction(X, y, k), theta) > 0.9


def test_partial_trace_refuses_orders_above_4():
    X, y, _ = make_single_index(100, 4, information_exponent=1, random_state=0)
    with pytest.raises(ValueError, match="1 to 4"):
        partial_trace_direction(X, y, 5)


def test_online_sgd_recovers_k1_and_is_deterministic():
    X, y, theta = make_single_index(3000, 8, information_exponent=1, random_state=0)
    first = online_sgd_direction(X, y, 1, random_state=5)
    assert overlap(first, theta) > 0.95
    np.testing.assert_array_equal(first, online_sgd_direction(X, y, 1, random_state=5))


@pytest.mark.parametrize("func", [online_sgd_direction, partial_trace_direction])
def test_baselines_reject_bad_input(func):
    X = np.random.RandomState(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="constant"):
        func(X, np.ones(20), 1)
    with pytest.raises(ValueError, match="1 feature"):
        func(X[:, :1], X[:, 0], 1)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        func(X_nan, X[:, 0], 1)


@pytest.mark.parametrize("k, n", [(1, 2000), (2, 4000), (3, 4000), (4, 40000)])
def test_estimate_information_exponent(k, n):
    # d = 6: the order-4 statistic needs ~10^3 d^2 samples (heavy tails).
    X, y, _ = make_single_index(n, 6, information_exponent=k, random_state=10 + k)
    assert estimate_information_exponent(X, y) == k


def test_exponent_scores_are_null_sized_without_signal():
    # Under no signal the scores are roughly standard normal (the scalar ones
    # their absolute value); 6 is far in the tail yet below a real signal.
    rng = np.random.RandomState(0)
    X = rng.standard_normal((3000, 10))
    scores = hermite_exponent_scores(X, rng.standard_normal(3000))
    assert np.all(np.abs(scores) < 6), scores
    with pytest.warns(UserWarning, match="information_exponent explicitly"):
        estimate_information_exponent(X, rng.standard_normal(3000))


def test_tensor_pca_order_2_matches_the_top_eigenvector():
    # Oracle: for k = 2 the Gibbs second moment is spiked along the top
    # eigenvector of the symmetrised matrix, which numpy computes exactly.
    T, _ = make_tensor_pca(10, order=2, n_samples=50, random_state=0)
    eigvals, eigvecs = np.linalg.eigh((T + T.T) / 2)
    estimate = tensor_pca_langevin(T, max_iter=400, random_state=0)
    assert overlap(estimate, eigvecs[:, -1]) > 0.97


def test_tensor_pca_order_3_beats_its_partial_trace_at_low_snr():
    # The averaged iterate approaches the partial-trace direction; with the
    # non-linear response of the Gibbs measure it does better. Measured (data
    # seeds 1-4, random_state 0-1): overlap 0.991-0.994 against 0.906-0.963
    # for the partial trace, a margin of at least 0.028.
    T, theta = make_tensor_pca(12, order=3, n_samples=300, random_state=1)
    sym = sum(np.transpose(T, p) for p in itertools.permutations(range(3))) / 6
    trace = np.einsum("aac->c", sym)
    estimate = tensor_pca_langevin(T, random_state=0)
    assert overlap(estimate, theta) > 0.9
    assert overlap(estimate, theta) > overlap(trace, theta)


def test_tensor_pca_is_deterministic_and_rejects_bad_tensors():
    T, _ = make_tensor_pca(5, order=3, n_samples=100, random_state=0)
    a = tensor_pca_langevin(T, max_iter=20, n_chains=8, random_state=3)
    b = tensor_pca_langevin(T, max_iter=20, n_chains=8, random_state=3)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="square"):
        tensor_pca_langevin(np.zeros((3, 4)))
    bad = T.copy()
    bad[0, 0, 0] = np.inf
    with pytest.raises(ValueError, match="NaN or infinity"):
        tensor_pca_langevin(bad)


def test_overlap_ignores_sign_and_rejects_bad_vectors():
    assert overlap([1.0, 2.0], [-1.0, -2.0]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same length"):
        overlap([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="non-zero"):
        overlap([0.0, 0.0], [1.0, 2.0])


@settings(max_examples=25, deadline=None)
@given(Q=orthogonal_matrices(5), k=st.integers(1, 4))
def test_partial_trace_is_rotation_equivariant(Q, k):
    # x -> Q^T x maps theta* to Q^T theta*: the estimate must follow exactly
    # (up to the sign, arbitrary for even k), since |x|^2 is invariant.
    X, y, _ = make_single_index(400, 5, information_exponent=k, random_state=k)
    rotated = partial_trace_direction(X @ Q, y, k)
    assert overlap(rotated, Q.T @ partial_trace_direction(X, y, k)) > 1 - 1e-9


@settings(max_examples=25, deadline=None)
@given(Q=orthogonal_matrices(6))
def test_exponent_scores_are_rotation_invariant(Q):
    # The statistics need no direction: they depend on x only through |x|^2
    # and inner products, so rotating the inputs changes nothing but rounding.
    # The scores are O(1) and sums of 300 terms up to |x|^8 ~ 1e5, so rounding
    # reaches ~1e-10 absolute; a wrong rotation would move them by ~0.1.
    X, y, _ = make_single_index(300, 6, information_exponent=2, random_state=0)
    np.testing.assert_allclose(
        hermite_exponent_scores(X @ Q, y),
        hermite_exponent_scores(X, y),
        rtol=1e-7,
        atol=1e-7,
    )


@given(
    u=st.lists(st.floats(-10, 10), min_size=3, max_size=3),
    v=st.lists(st.floats(-10, 10), min_size=3, max_size=3),
    a=st.floats(0.1, 10) | st.floats(-10, -0.1),
)
def test_overlap_is_symmetric_scale_and_sign_invariant(u, v, a):
    u, v = np.array(u), np.array(v)
    assume(np.linalg.norm(u) > 1e-3 and np.linalg.norm(v) > 1e-3)
    value = overlap(u, v)
    assert 0.0 <= value <= 1.0
    assert value == pytest.approx(overlap(v, u))
    assert value == pytest.approx(overlap(a * u, v))
