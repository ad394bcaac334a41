"""Tests of LQRController, GPCController and OnlineSpectralController."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import solve_discrete_are
from sklearn.base import clone

from sklearn_iclr.datasets import make_lds
from sklearn_iclr.dynamical import (
    GPCController,
    LQRController,
    OnlineSpectralController,
)
from sklearn_iclr.dynamical._controllers import (
    _LastDisturbances,
    _LinearDisturbanceLearner,
    _SpectralDisturbances,
)
from sklearn_iclr.dynamical._hankel import spectral_filters

CONTROLLERS = (LQRController, GPCController, OnlineSpectralController)


def small_controller(cls, A, B, **params):
    if cls is GPCController:
        params.setdefault("memory", 8)
    if cls is OnlineSpectralController:
        params.setdefault("n_filters", 4)
        params.setdefault("memory", 16)
    if cls is not LQRController:
        params.setdefault("random_state", 0)
        params.setdefault("learning_rate", 1e-2)
    return cls(A, B, **params)


# --------------------------------------------------------------------- oracles


def test_lqr_gain_matches_riccati_value_iteration():
    # Iterate the Riccati recursion to its fixed point (no scipy DARE).
    lds = make_lds(10, 4, input_dim=2, spectral_radius=1.05, random_state=0)
    A, B, Q, R = lds.A, lds.B, np.eye(4), np.eye(2)
    P = Q.copy()
    for _ in range(5000):
        gain = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
        P = Q + A.T @ P @ (A - B @ gain)
    controller = LQRController(A, B)
    controller.run(np.zeros((3, 4)))
    np.testing.assert_allclose(controller.gain_, gain, rtol=1e-8)


def test_lqr_mean_cost_is_trace_p_sigma():
    # Under i.i.d. N(0, I) disturbances the long-run mean cost of LQR is
    # trace(P); over 40000 steps the standard error is ~1% (mixing time ~20).
    lds = make_lds(40_000, 3, input_dim=1, spectral_radius=0.9, random_state=1)
    P = solve_discrete_are(lds.A, lds.B, np.eye(3), np.eye(1))
    result = LQRController(lds.A, lds.B).run(lds.disturbances)
    assert result.costs[100:].mean() == pytest.approx(np.trace(P), rel=0.05)


@pytest.mark.parametrize("kind", ["gpc", "spectral"])
def test_counterfactual_gradient_matches_brute_force(kind):
    # The recursions give the cost of the state the current M would have
    # reached had it been played from t = 0; brute force re-simulates it.
    rng = np.random.default_rng(0)
    d, n, steps = 3, 2, 25
    A = np.diag([0.9, 0.5, -0.3])
    B = rng.normal(size=(d, n))
    Q, R = np.diag([1.0, 2.0, 0.5]), np.array([[1.0, 0.2], [0.2, 0.7]])
    K = 0.1 * rng.normal(size=(n, d))
    if kind == "gpc":
        n_features, make_map = 4, lambda: _LastDisturbances(4, d)
    else:
        sigma, phi = spectral_filters(6, 3, kind="control", stability_margin=0.1)
        n_features, make_map = 3, lambda: _SpectralDisturbances(6, d, sigma, phi)
    learner = _LinearDisturbanceLearner(
        A, B, Q, R, K, n_features, make_map(), 0.0, 1.0, np.random.RandomState(0)
    )
    W = rng.normal(size=(steps, d))
    for t in range(steps):
        learner.observe(W[t], None, None)
    M = rng.normal(size=learner.M.shape)
    learner.M = M

    def brute_cost(M):
        features, x = make_map(), np.zeros(d)
        for t in range(steps + 1):
            u = -K @ x + np.einsum("pnd,pd->n", M, features.current())
            if t == steps:
                return x @ Q @ x + u @ R @ u
            x = A @ x + B @ u + W[t]
            features.push(W[t])

    loss, grad = learner.loss_and_gradient()
    assert loss == pytest.approx(brute_cost(M), rel=1e-10)
    numeric = np.zeros_like(M)
    for index in np.ndindex(M.shape):
        step = np.zeros_like(M)
        step[index] = 1e-6
        numeric[index] = (brute_cost(M + step) - brute_cost(M - step)) / 2e-6
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_fixed_weights_give_the_stated_control_law():
    lds = make_lds(60, 3, input_dim=1, random_state=0)
    gpc = GPCController(lds.A, lds.B, memory=5, learning_rate=0.0, random_state=3)
    result = gpc.run(lds.disturbances)
    W = np.vstack([np.zeros((5, 3)), lds.disturbances])
    for t in range(60):
        past = W[t : t + 5][::-1]  # w_{t-1}, ..., w_{t-5}
        expected = -gpc.gain_ @ result.states[t] + np.einsum(
            "jnd,jd->n", gpc.weights_, past
        )
        np.testing.assert_allclose(result.controls[t], expected, atol=1e-12)


# ------------------------------------------------------------- paper's claim


def test_paper_claim_spectral_matches_gpc_below_lqr_on_sinusoids():
    # Paper setting, scaled: d = 10, n = 1, A diagonal in [0.475, 0.95],
    # sinusoidal disturbances, Adam lr 1e-4, mean cost of the last 100 steps.
    for seed in (0, 1):
        lds = make_lds(
            2000,
            10,
            input_dim=1,
            spectral_radius=0.95,
            disturbance="sinusoidal",
            random_state=seed,
        )
        lqr = LQRController(lds.A, lds.B).run(lds.disturbances).costs[-100:].mean()
        gpc = GPCController(lds.A, lds.B, random_state=0)
        osc = OnlineSpectralController(lds.A, lds.B, random_state=0)
        gpc_cost = gpc.run(lds.disturbances).costs[-100:].mean()
        osc_cost = osc.run(lds.disturbances).costs[-100:].mean()
        assert osc_cost <= 1.1 * gpc_cost
        assert osc_cost < lqr and gpc_cost < lqr
        assert osc.n_parameters_ == 15 * 10 and gpc.n_parameters_ == 50 * 10


def test_no_learner_beats_lqr_on_iid_noise():
    # LQR is optimal for i.i.d. disturbances: a learner may only match it.
    lds = make_lds(3000, 4, input_dim=1, disturbance="gaussian", random_state=2)
    lqr = LQRController(lds.A, lds.B).run(lds.disturbances).costs[500:].mean()
    osc = OnlineSpectralController(lds.A, lds.B, random_state=0).run(lds.disturbances)
    assert osc.costs[500:].mean() >= 0.97 * lqr


# ------------------------------------------------------------------ properties


@pytest.mark.parametrize("cls", CONTROLLERS)
def test_clone_pickle_and_determinism(cls):
    lds = make_lds(80, 3, input_dim=2, disturbance="rademacher", random_state=0)
    controller = small_controller(cls, lds.A, lds.B)
    first = controller.run(lds.disturbances)
    again = clone(controller).run(lds.disturbances)
    unpickled = pickle.loads(pickle.dumps(controller)).run(lds.disturbances)
    for other in (again, unpickled):
        np.testing.assert_array_equal(first.costs, other.costs)
        np.testing.assert_array_equal(first.controls, other.controls)
    assert set(controller.get_params()) >= {"A", "B", "Q", "R"}


def test_random_state_changes_only_the_start():
    lds = make_lds(300, 3, input_dim=1, disturbance="sinusoidal", random_state=0)
    a = small_controller(GPCController, lds.A, lds.B, random_state=0).run(
        lds.disturbances
    )
    b = small_controller(GPCController, lds.A, lds.B, random_state=1).run(
        lds.disturbances
    )
    assert not np.array_equal(a.controls, b.controls)
    np.testing.assert_allclose(a.costs.mean(), b.costs.mean(), rtol=0.05)


@settings(max_examples=15, deadline=None)
@given(
    cls=st.sampled_from(CONTROLLERS),
    scale=st.sampled_from([1e-3, 1e3, 1e150, 1e-300]),
    seed=st.integers(0, 100),
)
def test_scale_equivariance(cls, scale, seed):
    # The policies are linear in the disturbances and Adam is scale-free:
    # states and controls scale with w, costs with w^2.
    lds = make_lds(60, 3, input_dim=1, disturbance="gaussian", random_state=seed)
    base = small_controller(cls, lds.A, lds.B).run(lds.disturbances)
    scaled = small_controller(cls, lds.A, lds.B).run(lds.disturbances * scale)
    for key in ("states", "controls"):
        np.testing.assert_allclose(
            scaled[key] / scale, base[key], rtol=1e-9, atol=1e-300
        )
    if scale**2 > 1e-290:
        np.testing.assert_allclose(scaled.costs / scale**2, base.costs, rtol=1e-9)
    else:  # below float64's range: correctly rounded to 0 or subnormal
        assert np.all(np.isfinite(scaled.costs)) and np.all(scaled.costs >= 0)


@pytest.mark.parametrize("cls", CONTROLLERS)
def test_zero_disturbances_cost_nothing(cls):
    lds = make_lds(50, 3, input_dim=1, random_state=0)
    result = small_controller(cls, lds.A, lds.B).run(np.zeros((50, 3)))
    assert np.all(result.states == 0) and np.all(result.costs == 0)


def test_spectral_memory_and_gamma_from_the_closed_loop():
    lds = make_lds(1000, 4, input_dim=1, spectral_radius=0.99, random_state=0)
    osc = OnlineSpectralController(lds.A, lds.B, base_gain=None, random_state=0)
    osc.run(lds.disturbances[:1000])
    assert osc.stability_margin_ == pytest.approx(0.01)
    assert osc.memory_ == int(np.ceil(np.log(1000) / 0.01))
    assert osc.filters_.shape == (osc.memory_, 15)
    assert osc.n_parameters_ == 15 * 4


# ------------------------------------------------------------------- bad input


@pytest.mark.parametrize("cls", CONTROLLERS)
def test_bad_systems_are_refused(cls):
    W = np.zeros((10, 2))
    with pytest.raises(ValueError, match="A must be square"):
        cls(np.ones((2, 3)), np.ones((2, 1))).run(W)
    with pytest.raises(ValueError, match="B must have as many rows as A"):
        cls(np.eye(2), np.ones((3, 1))).run(W)
    with pytest.raises(
        ValueError, match=r"disturbances must have shape \(n_steps, 2\)"
    ):
        cls(0.5 * np.eye(2), np.ones((2, 1))).run(np.zeros((10, 3)))
    bad = np.zeros((10, 2))
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls(0.5 * np.eye(2), np.ones((2, 1))).run(bad)
    with pytest.raises(ValueError, match="stabilisable"):
        cls(np.diag([1.5, 0.5]), np.array([[0.0], [1.0]])).run(W)
    with pytest.raises(ValueError, match="R must be positive definite"):
        cls(0.5 * np.eye(2), np.ones((2, 1)), R=np.zeros((1, 1))).run(W)


@pytest.mark.parametrize("cls", [GPCController, OnlineSpectralController])
def test_unstable_system_needs_the_base_gain(cls):
    A, B = np.diag([1.2, 0.5]), np.eye(2)
    W = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(ValueError, match="spectral radius 1.2 >= 1.*base_gain='lqr'"):
        cls(A, B, base_gain=None).run(W)
    result = small_controller(cls, A, B).run(W)  # stabilised by LQR
    assert np.abs(result.states).max() < 20


def test_memory_shorter_than_the_filters_is_refused():
    osc = OnlineSpectralController(0.5 * np.eye(2), np.eye(2), memory=4, n_filters=6)
    with pytest.raises(ValueError, match="memory=4 is shorter than n_filters=6"):
        osc.run(np.zeros((10, 2)))


def test_gamma_larger_than_the_margin_warns():
    A, B = np.diag([0.99, 0.5]), np.ones((2, 1))
    osc = OnlineSpectralController(
        A, B, stability_margin=0.2, base_gain=None, n_filters=3
    )
    with pytest.warns(
        UserWarning, match="stability_margin=0.2 assumes a spectral radius at most 0.8"
    ):
        osc.run(np.zeros((20, 2)))


@pytest.mark.parametrize(
    "cls, params",
    [
        (GPCController, {"memory": 5000}),
        (OnlineSpectralController, {"memory": 4000, "n_filters": 200}),
    ],
)
def test_huge_run_is_refused_up_front(cls, params):
    controller = cls(0.5 * np.eye(10), np.ones((10, 1)), max_work=60.0, **params)
    with pytest.raises(
        ValueError, match=r"needs 1.*e\+12 multiply-adds .*\(about .*max_work"
    ):
        controller.run(np.zeros((200_000, 10)))
