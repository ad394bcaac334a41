"""make_spurious_correlation: the four-point model, noise scales, seeds, errors."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_iclr.datasets import make_spurious_correlation


@pytest.mark.parametrize("minority_fraction", [0.0, 0.05, 0.3])
def test_four_point_model_structure(minority_fraction):
    X, y, groups = make_spurious_correlation(
        500,
        minority_fraction=minority_fraction,
        spurious_scale=3.0,
        n_noise_features=4,
        random_state=0,
    )
    assert X.shape == (500, 6)
    signed = 2 * y - 1
    np.testing.assert_array_equal(X[:, 0], signed)  # noise=0: the core feature
    z = X[:, 1] / 3.0
    np.testing.assert_array_equal(np.abs(z), 1.0)
    np.testing.assert_array_equal(groups, 2 * y + (z > 0))
    minority = z != signed
    assert minority.sum() == round(minority_fraction * 500)
    np.testing.assert_array_equal(np.isin(groups, [1, 2]), minority)


def test_noise_and_noise_features_have_the_stated_scale():
    X, y, _ = make_spurious_correlation(
        20_000, minority_fraction=0.5, noise=0.5, n_noise_features=2, random_state=0
    )
    # sd of 20000 draws is within 2% of the truth (about 4 standard errors)
    assert np.std(X[:, 0] - (2 * y - 1)) == pytest.approx(0.5, rel=0.02)
    assert np.std(X[:, 2:]) == pytest.approx(1.0, rel=0.02)


def test_generator_is_deterministic():
    a = make_spurious_correlation(100, noise=1.0, n_noise_features=2, random_state=3)
    b = make_spurious_correlation(100, noise=1.0, n_noise_features=2, random_state=3)
    for left, right in zip(a, b, strict=True):
        np.testing.assert_array_equal(left, right)


@pytest.mark.parametrize(
    "call",
    [
        lambda: make_spurious_correlation(100, minority_fraction=1.5),
        lambda: make_spurious_correlation(2),
        lambda: make_spurious_correlation(100, noise=-1.0),
    ],
)
def test_bad_arguments_are_refused(call):
    with pytest.raises(InvalidParameterError):
        call()
