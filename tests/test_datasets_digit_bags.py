"""load_digit_bags: the target digit sits where the mask says; loader API; errors."""

import numpy as np
import pytest

from sklearn_iclr.datasets import load_digit_bags


def test_digit_bags_hold_the_target_exactly_where_the_mask_says():
    from sklearn.datasets import load_digits

    digits = load_digits()
    images = digits.data / 16.0
    label_of = {
        img.tobytes(): label for img, label in zip(images, digits.target, strict=True)
    }
    bags = load_digit_bags(7, n_tokens=5, n_bags=40, random_state=0)
    labels = np.array([[label_of[img.tobytes()] for img in bag] for bag in bags.data])
    np.testing.assert_array_equal(labels == 7, bags.target_mask)
    np.testing.assert_array_equal(bags.target_mask.any(axis=1), bags.target == 1)
    common = dict(n_tokens=5, n_bags=200, return_X_y=True, random_state=0)
    train, _ = load_digit_bags(7, subset="train", **common)
    test, _ = load_digit_bags(7, subset="test", **common)
    train_images = {img.tobytes() for img in train.reshape(-1, 64)}
    assert not train_images & {img.tobytes() for img in test.reshape(-1, 64)}


def test_issue_38_return_x_y_like_the_other_loaders():
    # load_digit_bags(return_X_y=True) was a TypeError; scikit-learn's loaders
    # (and this package's UCI loaders) return a Bunch, or (data, target).
    bags = load_digit_bags(2, n_bags=30, random_state=0)
    assert sorted(bags) == ["DESCR", "data", "target", "target_mask"]
    X, y = load_digit_bags(2, n_bags=30, return_X_y=True, random_state=0)
    np.testing.assert_array_equal(X, bags.data)
    np.testing.assert_array_equal(y, bags.target)


def test_loader_rejects_more_target_tokens_than_tokens():
    with pytest.raises(ValueError, match="n_target_tokens=5 exceeds n_tokens=4"):
        load_digit_bags(n_tokens=4, n_target_tokens=5)


def test_optional_parameters_are_keyword_only():
    with pytest.raises(TypeError, match="positional"):
        load_digit_bags(0, 8)
