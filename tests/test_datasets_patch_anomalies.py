"""make_patch_anomalies: the data model and inconsistent sizes."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_iclr.datasets import make_patch_anomalies


def test_generator_follows_the_data_model():
    data = make_patch_anomalies(n_train=30, n_test=20, random_state=0)
    features = data.features
    assert_allclose(features @ features.T, np.eye(24), atol=1e-12)
    # Noise is 0.01 per coordinate: a clean patch is within 0.01 * (sqrt(24)
    # + 6) < 0.11 of its feature (chi tail, 6 sd); other features are > 1.3 away.
    coefficients = data.X_train @ features.T
    nearest = np.argmax(coefficients, axis=2)
    assert_array_equal(nearest[:, :10], np.broadcast_to(np.arange(10), (30, 10)))
    assert np.all(nearest[:, 10:] >= 10)
    assert np.all(data.frequencies[:10] == 0)
    assert data.frequencies.sum() == pytest.approx(1.0)
    # Semantic anomalies: the first 4 patches are occasional features.
    semantic = np.argmax(data.X_semantic[:, :4] @ features.T, axis=2)
    assert np.all(semantic >= 10)
    # Non-semantic: N(0, I_24) patches, squared norm 24 on average (sd ~7).
    norms = (data.X_non_semantic[:, :4] ** 2).sum(axis=2)
    assert 15 < norms.mean() < 33


def test_generator_rejects_inconsistent_sizes():
    with pytest.raises(ValueError, match="n_always_present=24 must be smaller"):
        make_patch_anomalies(patch_dim=24, n_always_present=24)
    with pytest.raises(ValueError, match="n_replaced=5 must not exceed"):
        make_patch_anomalies(n_always_present=4, n_replaced=5)
