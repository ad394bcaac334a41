"""make_sparse_coding_pairs: rates, dictionary, shared codes and fresh noise."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_sparse_coding_pairs


def test_rates_dictionary_and_pairs():
    X, X_pos, codes, M, rates = make_sparse_coding_pairs(
        5000, n_tokens=4, n_features=12, imbalance=10.0, noise=0.0, random_state=0
    )
    np.testing.assert_allclose(M.T @ M, np.eye(8), atol=1e-12)
    # Geometric minority rates down to eps_max / rho.
    np.testing.assert_allclose(rates[:4], 0.2)
    np.testing.assert_allclose(rates[4:], 0.2 * 10.0 ** -(np.arange(1, 5) / 4))
    # Binomial standard error of a rate over 20000 tokens: at most 0.0029.
    np.testing.assert_allclose(np.abs(codes).mean(axis=(0, 1)), rates, atol=0.012)
    # Signs are symmetric.
    active = codes != 0
    assert abs(codes[active].mean()) < 0.03
    # Noise-free: both views are M z exactly.
    np.testing.assert_allclose(X, codes @ M.T, atol=1e-12)
    np.testing.assert_array_equal(X, X_pos)


def test_positive_views_share_codes_with_fresh_noise():
    X, X_pos, codes, M, _ = make_sparse_coding_pairs(
        3000, n_tokens=2, n_features=16, noise=0.5, random_state=1
    )
    noise_a, noise_b = X - codes @ M.T, X_pos - codes @ M.T
    # Independent N(0, 0.25) noises: sd 0.5 each, correlation ~ 0.
    np.testing.assert_allclose(noise_a.std(), 0.5, rtol=0.02)
    np.testing.assert_allclose(noise_b.std(), 0.5, rtol=0.02)
    assert abs(np.corrcoef(noise_a.ravel(), noise_b.ravel())[0, 1]) < 0.01


def test_balanced_and_seeded():
    a = make_sparse_coding_pairs(50, imbalance=1.0, random_state=3)
    b = make_sparse_coding_pairs(50, imbalance=1.0, random_state=3)
    for first, second in zip(a, b, strict=True):
        np.testing.assert_array_equal(first, second)
    assert np.all(a[4] == 0.2)


def test_bad_parameters():
    with pytest.raises(ValueError, match="do not fit"):
        make_sparse_coding_pairs(10, n_features=6, n_majority=4, n_minority=4)
    with pytest.raises(ValueError, match="imbalance"):
        make_sparse_coding_pairs(10, imbalance=0.5)
    X, _, codes, M, rates = make_sparse_coding_pairs(
        10, n_features=4, n_majority=0, n_minority=0, random_state=0
    )
    assert codes.shape == (10, 4, 0) and M.shape == (4, 0) and rates.shape == (0,)
