"""load_spurious_digits: the painted patch, seeds, errors."""

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.utils._param_validation import InvalidParameterError

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


def test_generator_is_deterministic():
    c = load_spurious_digits(0.1, random_state=3)
    d = load_spurious_digits(0.1, random_state=3)
    np.testing.assert_array_equal(c[2], d[2])


@pytest.mark.parametrize(
    "call",
    [
        lambda: load_spurious_digits(-0.1),
        lambda: load_spurious_digits(0.1, patch_size=9),
    ],
)
def test_bad_arguments_are_refused(call):
    with pytest.raises(InvalidParameterError):
        call()
