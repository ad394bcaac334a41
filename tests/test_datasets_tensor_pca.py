"""make_tensor_pca: the noise level."""

import numpy as np

from sklearn_iclr.datasets import make_tensor_pca


def test_make_tensor_pca_noise_level():
    T, theta = make_tensor_pca(6, order=3, n_samples=400, random_state=0)
    noise = T - np.einsum("a,b,c->abc", theta, theta, theta)
    assert abs(noise.std() * np.sqrt(400) - 1) < 0.1
