"""make_laplace_classification: unit variance, heavy tails."""

import numpy as np

from sklearn_iclr.datasets import (
    make_laplace_classification,
)


def test_laplace_inputs_are_unit_variance_and_heavy_tailed():
    X, y = make_laplace_classification(20000, n_features=8, n_classes=3, random_state=0)
    np.testing.assert_allclose(X.var(axis=0), 1.0, atol=0.05)
    # Laplace excess kurtosis is 3; over 200 draws of n = 20000 the sample
    # value had sd 0.24, so 8 columns within 1.0 (4 sd) of 3.
    from scipy import stats

    np.testing.assert_allclose(stats.kurtosis(X, axis=0), 3.0, atol=1.0)
    assert set(np.unique(y)) == {0, 1, 2}
