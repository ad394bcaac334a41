"""The orthonormal probabilists' Hermite basis shared by the single-index code."""

import math

import numpy as np
from numpy.polynomial import hermite_e

from sklearn_iclr.single_index._hermite import hermite_basis, hermite_design


def test_hermite_basis_matches_numpy_hermite_e():
    # Oracle: numpy's probabilists' Hermite series He_k, divided by sqrt(k!).
    z = np.linspace(-4, 4, 41)
    basis = hermite_basis(z, 7)
    assert len(basis) == 8
    for k, values in enumerate(basis):
        coef = np.zeros(k + 1)
        coef[k] = 1.0
        expected = hermite_e.hermeval(z, coef) / math.sqrt(math.factorial(k))
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=1e-12)


def test_hermite_basis_is_orthonormal_under_gauss_hermite_quadrature():
    nodes, weights = hermite_e.hermegauss(30)
    design = hermite_design(nodes, 8)
    gram = design.T @ (design * (weights / math.sqrt(2 * math.pi))[:, None])
    np.testing.assert_allclose(gram, np.eye(9), atol=1e-10)
