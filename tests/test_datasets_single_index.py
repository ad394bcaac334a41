"""make_single_index: the planted Hermite coefficient."""

import numpy as np

from sklearn_iclr.datasets import make_single_index


def test_make_single_index_has_the_planted_hermite_coefficient():
    X, y, theta = make_single_index(200000, 5, information_exponent=3, random_state=0)
    # E[y h_3(theta . x)] = 1 and E[y x] = 0 for y = h_3(theta . x);
    # standard errors are about sqrt(Var / n) < 0.02.
    z = X @ theta
    assert abs(np.mean(y * (z**3 - 3 * z) / np.sqrt(6)) - 1) < 0.05
    assert np.abs(X.T @ y / len(y)).max() < 0.02
