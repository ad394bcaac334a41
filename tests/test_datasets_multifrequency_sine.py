"""make_multifrequency_sine: the target's spectrum, sampling, noise and seeds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import trapezoid

from sklearn_iclr.datasets import make_multifrequency_sine


def test_the_spectrum_is_the_papers_three_sines():
    # Oracle: project the target on sin and cos at each frequency by
    # numerical quadrature (trapezoid on a fine grid, independent of the
    # generator's formula). u has amplitudes 1/3, 2/3, 1 and phases -1, -2, -3.
    X, y, frequencies = make_multifrequency_sine(20001)
    x = X[:, 0]
    np.testing.assert_allclose(frequencies / np.pi, [3, 5, 7])
    for k, w in enumerate(frequencies, start=1):
        s = trapezoid(y * np.sin(w * x), x)  # = a cos(phase) over [-1, 1]
        c = trapezoid(y * np.cos(w * x), x)  # = a sin(phase)
        assert np.hypot(s, c) == pytest.approx(k / 3, abs=1e-6)
        assert np.arctan2(c, s) == pytest.approx(-k, abs=1e-6)


def test_grid_sampling_is_equispaced_and_includes_the_ends():
    X, _, _ = make_multifrequency_sine(5)
    np.testing.assert_array_equal(X[:, 0], [-1.0, -0.5, 0.0, 0.5, 1.0])


@settings(max_examples=20)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**31 - 1))
def test_uniform_sampling_is_sorted_in_range_and_seeded(n, seed):
    X, y, _ = make_multifrequency_sine(n, sampling="uniform", random_state=seed)
    assert X.shape == (n, 1) and y.shape == (n,)
    assert np.all(np.diff(X[:, 0]) >= 0) and np.all(np.abs(X) <= 1)
    X2, y2, _ = make_multifrequency_sine(n, sampling="uniform", random_state=seed)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_noise_has_the_requested_standard_deviation():
    _, clean, _ = make_multifrequency_sine(20000)
    _, noisy, _ = make_multifrequency_sine(20000, noise=0.3, random_state=0)
    residual = noisy - clean
    assert residual.std() == pytest.approx(0.3, rel=0.03)
    assert abs(residual.mean()) < 4 * 0.3 / np.sqrt(20000)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="sampling"):
        make_multifrequency_sine(10, sampling="random")
    with pytest.raises(ValueError, match="noise"):
        make_multifrequency_sine(10, noise=-1.0)
