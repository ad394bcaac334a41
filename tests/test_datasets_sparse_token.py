"""make_sparse_token: the signal is planted where the mask says."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_sparse_token


def test_make_sparse_token_plants_the_signal_where_the_mask_says():
    X, y, xi, mask = make_sparse_token(
        50, n_tokens=6, token_dim=4, n_signal_tokens=2, signal_strength=3.0,
        positive_fraction=0.2,
        random_state=0,
    )  # fmt: skip
    assert y.sum() == 10
    np.testing.assert_array_equal(mask.sum(axis=1), 2 * y)
    # Removing theta xi from the masked tokens leaves the same noise as a draw
    # with theta = 0 (same seed, same labels and positions).
    X0, y0, _, mask0 = make_sparse_token(
        50, n_tokens=6, token_dim=4, n_signal_tokens=2, signal_strength=0.0,
        positive_fraction=0.2,
        random_state=0,
    )  # fmt: skip
    np.testing.assert_array_equal(y, y0)
    np.testing.assert_array_equal(mask, mask0)
    np.testing.assert_allclose(X - 3.0 * mask[:, :, None] * xi, X0, atol=1e-12)


def test_generator_rejects_more_signal_tokens_than_tokens():
    with pytest.raises(ValueError, match="n_signal_tokens=5 exceeds n_tokens=4"):
        make_sparse_token(10, n_tokens=4, n_signal_tokens=5)
