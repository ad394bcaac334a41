"""make_power_law_phase_retrieval and power_law_spectrum."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.datasets import make_power_law_phase_retrieval, power_law_spectrum


@settings(max_examples=30)
@given(d=st.integers(1, 500), decay=st.floats(0.0, 6.0))
def test_spectrum_is_a_decreasing_power_law_of_trace_one(d, decay):
    lam = power_law_spectrum(d, decay)
    assert lam.shape == (d,)
    assert lam.sum() == pytest.approx(1.0)
    assert np.all(lam > 0) and np.all(np.diff(lam) <= 0)
    if d >= 2:
        assert lam[0] / lam[1] == pytest.approx(2.0**decay)


def test_isotropic_when_decay_is_zero():
    np.testing.assert_allclose(power_law_spectrum(4, 0), np.full(4, 0.25))


@settings(max_examples=20)
@given(
    n=st.integers(1, 50),
    d=st.integers(1, 30),
    decay=st.floats(0.0, 4.0),
    seed=st.integers(0, 2**31 - 1),
)
def test_shapes_normalisation_and_noiseless_model(n, d, decay, seed):
    X, y, coef = make_power_law_phase_retrieval(n, d, decay=decay, random_state=seed)
    assert X.shape == (n, d) and y.shape == (n,) and coef.shape == (d,)
    # w* = g / ||Q^(1/2) g||: s* = w*^T Q w* = 1 exactly.
    assert np.sum(power_law_spectrum(d, decay) * coef**2) == pytest.approx(1.0)
    np.testing.assert_allclose(y, (X @ coef) ** 2)


def test_moments_match_the_model():
    # Column variances are lambda_i, E[y] = s* = 1, Var[y] = 2 s*^2 = 2 and
    # the noise adds its variance; tolerances are 5 standard errors.
    n, d = 200_000, 5
    lam = power_law_spectrum(d, 2.0)
    X, y, _ = make_power_law_phase_retrieval(n, d, decay=2.0, random_state=0)
    np.testing.assert_allclose(X.var(axis=0), lam, rtol=5 * np.sqrt(2 / n))
    assert y.mean() == pytest.approx(1.0, abs=5 * np.sqrt(2 / n))
    assert y.var() == pytest.approx(2.0, abs=5 * np.sqrt(96 / n))
    _, y_noisy, _ = make_power_law_phase_retrieval(
        n, d, decay=2.0, noise=0.5, random_state=0
    )
    assert np.var(y_noisy - y) == pytest.approx(0.25, rel=5 * np.sqrt(2 / n))
    assert (y_noisy < 0).any() and (y >= 0).all()


def test_random_state():
    a = make_power_law_phase_retrieval(10, 3, random_state=1)
    b = make_power_law_phase_retrieval(10, 3, random_state=1)
    c = make_power_law_phase_retrieval(10, 3, random_state=2)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n_samples": 0},
        {"n_features": 0},
        {"decay": -1.0},
        {"noise": -0.1},
        {"random_state": "seed"},
    ],
)
def test_invalid_parameters(kwargs):
    with pytest.raises(ValueError):
        make_power_law_phase_retrieval(**kwargs)
