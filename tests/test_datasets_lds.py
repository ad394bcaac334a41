"""Tests of sklearn_iclr.datasets.make_lds."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_lds


def test_shapes_spectrum_and_recursion():
    lds = make_lds(
        300, 5, input_dim=2, spectral_radius=0.97, observation_noise=0.5, random_state=0
    )
    assert lds.A.shape == (5, 5) and lds.B.shape == (5, 2)
    assert lds.disturbances.shape == lds.states.shape == lds.outputs.shape == (300, 5)
    assert lds.inputs.shape == (300, 2)
    np.testing.assert_array_equal(lds.A, np.diag(np.diag(lds.A)))
    eig = np.diag(lds.A)
    assert eig.max() == 0.97 and eig.min() >= 0.97 / 2
    # states[t] = x_{t+1} = A x_t + B u_t + w_t from x_0 = 0.
    x = np.zeros(5)
    for t in range(300):
        x = lds.A @ x + lds.B @ lds.inputs[t] + lds.disturbances[t]
        np.testing.assert_allclose(lds.states[t], x, rtol=1e-12, atol=1e-12)
    residual = lds.outputs - lds.states
    assert residual.std() == pytest.approx(0.5, rel=0.1)


def test_disturbance_kinds():
    g = make_lds(
        4000, 3, disturbance="gaussian", noise=2.0, random_state=0
    ).disturbances
    r = make_lds(
        4000, 3, disturbance="rademacher", noise=2.0, random_state=0
    ).disturbances
    s = make_lds(
        4000, 3, disturbance="sinusoidal", noise=2.0, random_state=0
    ).disturbances
    assert g.std() == pytest.approx(2.0, rel=0.05)
    assert set(np.unique(r)) == {-2.0, 2.0}
    assert np.abs(s).max() <= 2.0 and s.std() == pytest.approx(2 / np.sqrt(2), rel=0.1)
    # A sinusoid obeys w_t = 2 cos(omega) w_{t-1} - w_{t-2} exactly.
    c = (s[2:, 0] + s[:-2, 0]) / s[1:-1, 0]
    assert np.ptp(c[np.abs(s[1:-1, 0]) > 0.5]) < 1e-8


def test_seeded_and_noise_free():
    a = make_lds(50, 2, random_state=3)
    b = make_lds(50, 2, random_state=3)
    np.testing.assert_array_equal(a.states, b.states)
    quiet = make_lds(50, 2, noise=0.0, random_state=3)
    assert np.all(quiet.disturbances == 0)
    np.testing.assert_array_equal(quiet.outputs, quiet.states)


def test_bad_parameters():
    with pytest.raises(ValueError, match="disturbance"):
        make_lds(10, disturbance="uniform")
    with pytest.raises(ValueError, match="n_steps"):
        make_lds(0)
    with pytest.raises(ValueError, match="spectral_radius"):
        make_lds(10, spectral_radius=-1.0)
