"""sklearn_iclr.metrics.overlap at magnitudes across the float range."""

import numpy as np
import pytest

from sklearn_iclr.metrics import overlap


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 1e160, 1e300])
def test_overlap_of_tiny_and_huge_vectors_is_that_of_unit_ones(scale):
    # The product of the two norms once overflowed (1e160) or underflowed
    # (1e-160) to inf or 0, and finite vectors were refused as "not finite,
    # non-zero".
    u, v = np.array([3.0, 4.0, 0.0]), np.array([1.0, 2.0, 2.0])
    assert overlap(scale * u, scale * v) == pytest.approx(overlap(u, v), rel=1e-15)
    assert overlap(scale * u, v) == pytest.approx(overlap(u, v), rel=1e-15)


def test_overlap_refuses_zero_and_non_finite_vectors():
    with pytest.raises(ValueError, match="non-zero"):
        overlap([0.0, 0.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        overlap([np.inf, 0.0], [1.0, 0.0])
