"""make_regular_coupling: a simple, symmetric, regular graph."""

import numpy as np
import pytest

from sklearn_iclr.datasets import (
    make_regular_coupling,
)


@pytest.mark.parametrize("signed", [False, True])
def test_regular_coupling_is_simple_symmetric_and_regular(signed):
    A = make_regular_coupling(
        101 if not signed else 100, 4, signed=signed, random_state=3
    )
    dense = A.toarray()
    assert np.array_equal(dense, dense.T) and np.all(np.diag(dense) == 0)
    assert np.all((dense != 0).sum(axis=1) == 4)
    assert set(np.unique(np.abs(dense[dense != 0]))) == {0.25}
    assert (dense < 0).any() == signed
    np.testing.assert_array_equal(
        dense,
        make_regular_coupling(A.shape[0], 4, signed=signed, random_state=3).toarray(),
    )
