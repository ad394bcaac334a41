"""load_digit_bags: the target digit sits where the mask says; errors."""

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
    X, y, mask = load_digit_bags(7, n_tokens=5, n_bags=40, random_state=0)
    labels = np.array([[label_of[img.tobytes()] for img in bag] for bag in X])
    np.testing.assert_array_equal(labels == 7, mask)
    np.testing.assert_array_equal(mask.any(axis=1), y == 1)
    train, _, _ = load_digit_bags(7, 5, 200, subset="train", random_state=0)
    test, _, _ = load_digit_bags(7, 5, 200, subset="test", random_state=0)
    train_images = {img.tobytes() for img in train.reshape(-1, 64)}
    assert not train_images & {img.tobytes() for img in test.reshape(-1, 64)}


def test_loader_rejects_more_target_tokens_than_tokens():
    with pytest.raises(ValueError, match="n_target_tokens=5 exceeds n_tokens=4"):
        load_digit_bags(n_tokens=4, n_target_tokens=5)
