"""Tests of sklearn_iclr.datasets.make_moving_edges."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_moving_edges


def _iwe_variance(events, velocity, shape):
    x = events[:, 0] - velocity[0] * events[:, 2]
    y = events[:, 1] - velocity[1] * events[:, 2]
    h, _, _ = np.histogram2d(y, x, bins=shape, range=[(0, shape[0]), (0, shape[1])])
    return h.var()


def test_shape_range_order_and_seed():
    events = make_moving_edges(3000, shape=(40, 50), random_state=1)
    assert events.shape == (3000, 4)
    assert events[:, 0].min() >= 0 and events[:, 0].max() < 50
    assert events[:, 1].min() >= 0 and events[:, 1].max() < 40
    assert np.all(np.diff(events[:, 2]) >= 0)
    assert set(np.unique(events[:, 3])) <= {-1.0, 1.0}
    np.testing.assert_array_equal(
        events, make_moving_edges(3000, shape=(40, 50), random_state=1)
    )


@pytest.mark.parametrize("velocity", [(20.0, 10.0), (-15.0, 5.0), (0.0, -12.0)])
def test_true_velocity_is_the_sharpest_warp(velocity):
    # The data model: warping by the true velocity undoes the motion, so the
    # image of warped events is sharper there than at nearby velocities.
    events = make_moving_edges(20_000, velocity=velocity, noise=0.0, random_state=0)
    best = _iwe_variance(events, velocity, (64, 64))
    for dv in [(3, 0), (-3, 0), (0, 3), (0, -3)]:
        assert best > _iwe_variance(events, np.add(velocity, dv), (64, 64))


def test_noise_fraction_lowers_contrast():
    clean = make_moving_edges(20_000, noise=0.0, random_state=0)
    noisy = make_moving_edges(20_000, noise=0.5, random_state=0)
    v = (20.0, 10.0)
    assert _iwe_variance(noisy, v, (64, 64)) < 0.6 * _iwe_variance(clean, v, (64, 64))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_events": 0}, "n_events"),
        ({"velocity": (1.0,)}, "velocity"),
        ({"velocity": (np.nan, 1.0)}, "velocity"),
        ({"shape": (2, 64)}, "shape"),
        ({"shape": (64.5, 64)}, "shape"),
        ({"shape": (64,)}, "shape"),
        ({"noise": 1.5}, "noise"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_moving_edges(**kwargs)
