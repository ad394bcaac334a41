"""phase_retrieval_dynamics: oracles, the paper's phases, properties, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.polynomial.hermite_e import hermegauss
from scipy import stats
from scipy.special import gamma

from sklearn_iclr.datasets import make_power_law_phase_retrieval, power_law_spectrum
from sklearn_iclr.single_index import (
    escape_rate,
    phase_retrieval_dynamics,
    phase_three_decay,
)


def planted(d, decay, seed):
    _, _, w_star = make_power_law_phase_retrieval(1, d, decay=decay, random_state=seed)
    return power_law_spectrum(d, decay), w_star


def quadrature_loss(w, lam, w_star):
    """E[((x.w)^2 - (x.w*)^2)^2], x ~ N(0, diag(lam)), by Gauss-Hermite.

    (x.w, x.w*) is a centred 2-D Gaussian; 5 nodes per axis integrate its
    degree-4 polynomial exactly.
    """
    cov = np.array(
        [
            [np.sum(lam * w * w), np.sum(lam * w * w_star)],
            [np.sum(lam * w * w_star), np.sum(lam * w_star * w_star)],
        ]
    )
    nodes, weights = hermegauss(5)
    weights = weights / weights.sum()
    g1, g2 = np.meshgrid(nodes, nodes, indexing="ij")
    chol = np.linalg.cholesky(cov + 1e-300 * np.eye(2))
    p = chol[0, 0] * g1
    t = chol[1, 0] * g1 + chol[1, 1] * g2
    return np.sum(np.outer(weights, weights) * (p * p - t * t) ** 2)


def test_oracle_population_step_is_gradient_descent_on_the_quadrature_loss():
    # One population step must be w - lr grad L, with L from Gauss-Hermite
    # quadrature and its gradient by central differences (nothing of the
    # paper's closed form).
    rng = np.random.default_rng(0)
    lam, w_star = planted(4, 1.5, 0)
    w0 = rng.standard_normal(4)
    h = 1e-6
    grad = np.array(
        [
            (
                quadrature_loss(w0 + h * e, lam, w_star)
                - quadrature_loss(w0 - h * e, lam, w_star)
            )
            / (2 * h)
            for e in np.eye(4)
        ]
    )
    lr = 0.01
    run = phase_retrieval_dynamics(lam, w_star, 1, lr, w0=w0)
    np.testing.assert_allclose(run.coef, w0 - lr * grad, rtol=1e-7, atol=1e-9)
    # The recorded statistics are those of the iterates.
    assert run.u[0] == pytest.approx(np.sum(lam * w0 * w_star))
    assert run.s[0] == pytest.approx(np.sum(lam * w0 * w0))
    assert run.mse[0] == pytest.approx(
        min(np.sum((w0 - w_star) ** 2), np.sum((w0 + w_star) ** 2)) / 4
    )


def test_oracle_phase_one_growth_rate_is_the_volterra_root():
    # From a tiny start the flow is linear in w: u grows like exp(rho t) with
    # rho the root of 1 = 8 sum w*_i^2 lambda_i^2 / (rho - 4 lambda_i). The
    # Euler step lr gives log(1 + lr rho) / lr, 0.3% below rho here.
    lam, w_star = planted(50, 2.0, 1)
    rng = np.random.default_rng(1)
    w0 = 1e-9 * rng.standard_normal(50)
    lr = 1e-3
    run = phase_retrieval_dynamics(lam, w_star, 6000, lr, w0=w0, n_records=400)
    window = (np.abs(run.u) > 1e-7) & (np.abs(run.u) < 1e-4)
    assert window.sum() > 20
    slope = np.polyfit(run.time[window], np.log(np.abs(run.u[window])), 1)[0]
    rho = escape_rate(lam, w_star)
    assert rho > 4 * lam.max()
    assert slope == pytest.approx(np.log1p(lr * rho) / lr, rel=0.01)


def test_oracle_phase_three_factor_middle_regime():
    # S_d(tau) = (1/d) sum exp(-16 lambda_i tau) against the paper's
    # middle-regime asymptotic 1 - S_d ~ Gamma(1 - 1/a) (beta tau)^(1/a) / d,
    # beta = 16 / H_{d,a}: within 5% where 30 <= (beta tau)^(1/a) <= d / 30.
    d, a = 200_000, 2.0
    lam = power_law_spectrum(d, a)
    harmonic = np.sum(np.arange(1, d + 1) ** -a)
    x = np.array([30.0, 300.0, d / 30])
    tau = x**a * harmonic / 16
    drop = 1 - phase_three_decay(lam, tau)
    np.testing.assert_allclose(drop, gamma(1 - 1 / a) * x / d, rtol=0.05)
    assert phase_three_decay(lam, 0.0) == 1.0


@pytest.mark.slow
def test_claim_phase_one_time_linear_in_log_d_and_faster_for_larger_a():
    # T1 (first |u| >= 0.1 s*) over d in {250, ..., 2000}, mean of 60 draws
    # of (w*, w0); the same seeds at every d (common random numbers), as in
    # the benchmark. R^2 was 1.00, 0.99, 0.96 for a = 1.5, 2, 3 (30 draws gave
    # 0.93 for a = 3: the 0.95 needs the 60). Deterministic (seeded).
    dims = [250, 500, 1000, 2000]
    means = {}
    for a in (1.5, 2.0, 3.0):
        means[a] = []
        for d in dims:
            times = []
            for seed in range(60):
                lam, w_star = planted(d, a, seed)
                run = phase_retrieval_dynamics(
                    lam, w_star, 4000, 0.01, n_records=2, random_state=1000 + seed
                )
                times.append(run.phase_times["T1"])
            means[a].append(np.mean(times))
        fit = stats.linregress(np.log(dims), means[a])
        assert fit.slope > 0 and fit.rvalue**2 >= 0.95, (a, means[a])
    assert np.all(np.array(means[1.5]) > np.array(means[2.0])), means
    assert np.all(np.array(means[2.0]) > np.array(means[3.0])), means


def drop_slope(a, d, lr, seed, epsilon=0.1):
    """Log-log slope of 1 - MSE(T2 + tau) / MSE(T2) over the middle regime."""
    lam, w_star = planted(d, a, seed)
    first = phase_retrieval_dynamics(
        lam, w_star, 10**5, lr, epsilon=epsilon, n_records=2, random_state=seed
    )
    t2 = first.phase_steps["T2"]
    at_t2 = phase_retrieval_dynamics(
        lam, w_star, t2, lr, n_records=2, random_state=seed
    ).coef
    harmonic = np.sum(np.arange(1, d + 1) ** -float(a))
    index_t2 = (16 * t2 * lr / harmonic) ** (1 / a)
    lo, hi = max(5.0, 3 * index_t2), d / 8
    tau_max = hi**a * harmonic / 16
    run = phase_retrieval_dynamics(
        lam, w_star, int(tau_max / lr) + 1, lr, w0=at_t2, n_records=300
    )
    index = (16 * run.time / harmonic) ** (1 / a)
    window = (index >= lo) & (index <= hi)
    drop = 1 - run.mse[window] / run.mse[0]
    return np.polyfit(np.log(run.time[window]), np.log(drop), 1)[0]


def test_claim_phase_three_drop_grows_like_tau_to_the_one_over_a():
    # a = 2, d = 1000: the MSE drop after T2 (u >= 0.9) grows like tau^(1/2)
    # in the middle regime. Seeds 0-1 gave 0.51 and 0.47; the tolerance
    # is 20%.
    slopes = [drop_slope(2.0, 1000, 0.05, seed) for seed in (0, 1)]
    assert np.all(np.abs(np.array(slopes) - 0.5) <= 0.2 * 0.5), slopes


def test_online_sgd_follows_the_population_flow_and_has_three_phases():
    # With a small step, one-pass SGD tracks the population flow (its mean
    # step is the population gradient): it passes the three phases, escapes
    # and crosses s* / 3 at the flow's times, and ends at the flow's error.
    # T2 is a first hitting time of a level the flow approaches slowly, so
    # SGD's fluctuations reach it earlier (0.8-1.0 vs 1.7 in time units at
    # d = 50, lr = 2e-4): only its existence is compared.
    d, lr, n_steps = 200, 5e-4, 80_000
    lam, w_star = planted(d, 2.0, 3)
    rng = np.random.default_rng(3)
    w0 = np.ones(d)
    while abs(np.sum(lam * w0 * w_star)) > 0.02:  # a start far from escape
        w0 = rng.standard_normal(d)
        w0 /= np.linalg.norm(w0)
    common = dict(w0=w0, n_records=50)
    population = phase_retrieval_dynamics(lam, w_star, n_steps, lr, **common)
    online = phase_retrieval_dynamics(
        lam,
        w_star,
        n_steps,
        lr,
        method="online_sgd",
        noise=0.05,
        random_state=0,
        **common,
    )
    for name in ("T1", "T1_prime"):
        assert online.phase_times[name] == pytest.approx(
            population.phase_times[name], rel=0.15
        ), name
    assert 0 < online.phase_steps["T1"] <= online.phase_steps["T1_prime"]
    assert online.phase_steps["T2"] is not None
    assert online.mse[-1] == pytest.approx(population.mse[-1], rel=0.05)
    assert online.mse[-1] < 0.9 * online.mse[0]


@settings(max_examples=20)
@given(seed=st.integers(0, 2**31 - 1), flip=st.booleans())
def test_coordinate_permutation_and_sign_invariance(seed, flip):
    # Relabelling the coordinates permutes the iterates and flipping w*
    # flips u; the MSE, s and the phases do not change.
    rng = np.random.default_rng(seed)
    d = 12
    lam = rng.uniform(0.01, 1.0, d)
    w_star = rng.standard_normal(d)
    w_star /= np.sqrt(np.sum(lam * w_star**2))
    w0 = rng.standard_normal(d) * 0.2
    order = rng.permutation(d)
    sign = -1.0 if flip else 1.0
    kw = dict(max_iter=300, learning_rate=0.05, n_records=30)  # stable: < 1 / 12
    base = phase_retrieval_dynamics(lam, w_star, w0=w0, **kw)
    moved = phase_retrieval_dynamics(
        lam[order], sign * w_star[order], w0=w0[order], **kw
    )
    np.testing.assert_allclose(moved.mse, base.mse, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(moved.s, base.s, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(moved.u, sign * base.u, rtol=1e-7, atol=1e-12)
    assert moved.phase_steps == base.phase_steps


@settings(max_examples=30)
@given(n_steps=st.integers(1, 10**7), n_records=st.integers(2, 3000))
def test_record_grid(n_steps, n_records):
    lam, w_star = planted(3, 2.0, 0)
    run = phase_retrieval_dynamics(
        lam, w_star, n_steps, 1e-9, n_records=n_records, random_state=0
    )
    assert run.step[0] == 0 and run.step[-1] == n_steps
    assert np.all(np.diff(run.step) > 0)
    assert len(run.step) <= n_records + 1
    assert np.all(np.isfinite(run.mse))


def test_phase_order_and_random_state():
    lam, w_star = planted(1000, 2.0, 0)
    kw = dict(max_iter=20_000, learning_rate=0.01, random_state=7)
    run = phase_retrieval_dynamics(lam, w_star, **kw)
    steps = run.phase_steps
    assert 0 < steps["T1"] <= steps["T1_prime"] <= steps["T2"]
    assert run.phase_times["T2"] == pytest.approx(steps["T2"] * 0.01)
    again = phase_retrieval_dynamics(lam, w_star, **kw)
    np.testing.assert_array_equal(again.mse, run.mse)
    short = phase_retrieval_dynamics(lam, w_star, 5, 0.01, random_state=7)
    assert short.phase_steps["T2"] is None and np.isnan(short.phase_times["T2"])


def test_bad_input_errors():
    lam, w_star = planted(5, 2.0, 0)
    with pytest.raises(ValueError, match="positive eigenvalues"):
        phase_retrieval_dynamics(-lam, w_star, 10, 0.01)
    with pytest.raises(ValueError, match="positive eigenvalues"):
        phase_retrieval_dynamics(np.where(lam > 0.1, np.nan, lam), w_star, 10, 0.01)
    with pytest.raises(ValueError, match="must match spectrum"):
        phase_retrieval_dynamics(lam, w_star[:3], 10, 0.01)
    with pytest.raises(ValueError, match="nonzero"):
        phase_retrieval_dynamics(lam, 0 * w_star, 10, 0.01)
    with pytest.raises(ValueError, match="w0"):
        phase_retrieval_dynamics(lam, w_star, 10, 0.01, w0=np.ones(3))
    with pytest.raises(ValueError, match="online_sgd"):
        phase_retrieval_dynamics(lam, w_star, 10, 0.01, noise=0.1)
    with pytest.raises(ValueError, match="overflowed.*Lower learning_rate"):
        phase_retrieval_dynamics(lam, w_star, 1000, 50.0, w0=10 * w_star)
    with pytest.raises(ValueError, match="method"):
        phase_retrieval_dynamics(lam, w_star, 10, 0.01, method="flow")


def test_budget_refused_up_front():
    lam, w_star = planted(1000, 2.0, 0)
    with pytest.raises(ValueError, match=r"coordinate updates.*about.*max_work"):
        phase_retrieval_dynamics(lam, w_star, 10**12, 0.01)
    with pytest.raises(ValueError, match="max_work"):
        phase_retrieval_dynamics(lam, w_star, 10**10, 0.01, method="online_sgd")
