"""make_long_tailed_sparse_coding: rates and dictionary."""

import numpy as np
import pytest

from sklearn_iclr.datasets import (
    make_long_tailed_sparse_coding,
)


def test_long_tailed_sparse_coding_rates_and_dictionary():
    X, codes, minority = make_long_tailed_sparse_coding(
        20000,
        n_features=16,
        majority_rate=0.3,
        minority_rate=0.02,
        noise=0.0,
        random_state=0,
    )
    rates = codes.mean(axis=0)
    # Binomial standard errors: sqrt(0.3 * 0.7 / 20000) = 0.0032, 0.001.
    np.testing.assert_allclose(rates[~minority], 0.3, atol=0.015)
    np.testing.assert_allclose(rates[minority], 0.02, atol=0.005)
    # Noise-free X = codes @ D with orthonormal rows: least squares recovers D.
    dictionary = np.linalg.lstsq(codes, X, rcond=None)[0]
    np.testing.assert_allclose(dictionary @ dictionary.T, np.eye(8), atol=1e-10)
    with pytest.raises(ValueError, match="do not fit"):
        make_long_tailed_sparse_coding(10, n_features=6, n_majority=4, n_minority=4)
