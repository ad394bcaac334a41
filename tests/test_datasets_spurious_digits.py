"""load_spurious_digits: the patch is painted exactly."""

import numpy as np
from sklearn.datasets import load_digits

from sklearn_iclr.datasets import load_spurious_digits


def test_spurious_digits_paint_exactly_the_patch():
    X, y, groups = load_spurious_digits(0.05, patch_size=2, random_state=0)
    digits = load_digits()
    np.testing.assert_array_equal(y, digits.target >= 5)
    images, original = X.reshape(-1, 8, 8), digits.data.reshape(-1, 8, 8)
    has_patch = groups % 2 == 1
    np.testing.assert_array_equal(images[has_patch, :2, :2], 16.0)
    np.testing.assert_array_equal(images[~has_patch], original[~has_patch])
    outside = np.ones((8, 8), dtype=bool)
    outside[:2, :2] = False
    np.testing.assert_array_equal(images[:, outside], original[:, outside])
    assert (has_patch != (y == 1)).sum() == round(0.05 * len(y))
