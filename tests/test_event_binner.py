"""Tests of EventFrameBinner."""

import numpy as np
import pytest
from _event_packets import BAD_SHAPES, SHAPE, packets
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.events import EventFrameBinner


def test_binner_rect_equals_numpy_histogramdd_per_packet():
    # Oracle: numpy.histogramdd over (t, y, x) per packet and polarity.
    X = packets([(5.0, 0.0), (0.0, -5.0)], n_events=2000)
    binner = EventFrameBinner(shape=SHAPE, n_time_bins=3, polarity="split")
    frames = binner.fit_transform(X).reshape(2, 2, 3, *SHAPE)
    for k, pid in enumerate([0.0, 10.0]):
        e = X[X[:, 4] == pid]
        t_range = (e[:, 2].min(), e[:, 2].max())
        for c, on in enumerate([True, False]):
            sel = e[(e[:, 3] > 0) == on]
            h, _ = np.histogramdd(
                sel[:, [2, 1, 0]],
                bins=(3, *SHAPE),
                range=[t_range, (0, SHAPE[0]), (0, SHAPE[1])],
            )
            np.testing.assert_array_equal(frames[k, c], h)


def test_binner_linear_is_bilinear_splatting_and_sum_polarity():
    rng = np.random.default_rng(0)
    X = np.c_[
        rng.uniform(0, 6, (200, 2)), rng.uniform(0, 1, 200), rng.choice([0, 1], 200)
    ]
    frame = EventFrameBinner(shape=(6, 6), kernel="linear").fit_transform(X)
    centres = np.arange(6) + 0.5
    kx = np.clip(1 - np.abs(X[:, :1] - centres), 0, None)
    ky = np.clip(1 - np.abs(X[:, 1:2] - centres), 0, None)
    sign = np.where(X[:, 3] > 0, 1.0, -1.0)
    expected = np.einsum("n,ni,nj->ij", sign, ky, kx)
    np.testing.assert_allclose(frame.reshape(6, 6), expected, atol=1e-12)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 200))
def test_binner_mass_and_event_order_invariance(seed, n):
    rng = np.random.default_rng(seed)
    X = np.c_[rng.uniform(-2, 10, (n, 2)), rng.uniform(0, 1, n), rng.choice([-1, 1], n)]
    binner = EventFrameBinner(shape=(8, 8), polarity="split", n_time_bins=2).fit(X)
    frames = binner.transform(X)
    inside = ((X[:, :2] >= 0) & (X[:, :2] < 8)).all(1)
    assert frames.sum() == inside.sum()
    assert binner.n_dropped_ == (~inside).sum()
    np.testing.assert_array_equal(frames, binner.transform(X[rng.permutation(n)]))
    normed = EventFrameBinner(shape=(8, 8), normalize="max").fit_transform(X)
    assert np.abs(normed).max() in (0.0, 1.0)


def test_binner_feature_names_and_shape_inference():
    X = np.array([[0.5, 2.5, 0.0, 1.0], [3.2, 0.1, 1.0, 1.0]])
    binner = EventFrameBinner().fit(X)
    assert binner.shape_ == (3, 4)
    assert binner.get_feature_names_out().shape == (12,)


@pytest.mark.parametrize("shape", BAD_SHAPES, ids=repr)
def test_shape_contents_are_validated(shape):
    # Regression (#38): (0, 8) returned frames of 0 columns, (-3, 8) failed
    # in np.bincount, (8,) raised an IndexError, (8, 8, 8), (nan, 8) and
    # ('a', 'b') Python-internal messages.
    X = np.array([[0.5, 0.5, 0.0, 1.0], [1.5, 2.5, 1.0, -1.0]])
    with pytest.raises(ValueError, match=r"shape must be None or the sensor size"):
        EventFrameBinner(shape=shape).fit(X)
