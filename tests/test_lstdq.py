"""LSTDQEvaluator: exact MDP oracles, ridge at gamma=0, streaming, the interval,
the coverage-error law of Amortila et al. (ICLR 2026), bad input, API glue."""

import pickle
import tracemalloc

import numpy as np
import pytest
import sklearn
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_iclr import LSTDQEvaluator
from sklearn_iclr.datasets import make_linear_mdp_dataset, make_tabular_mdp
from sklearn_iclr.rl._baselines import fitted_q_evaluation
from sklearn_iclr.testing.strategies import transition_data

SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def population_data(mdp):
    """The behaviour distribution itself as a weighted data set.

    One row per (s, a, s') with weight mu(s, a) P(s' | s, a): the weighted
    averages LSTDQ takes are then the population A, b and Sigma, exactly.
    """
    n_states, n_actions = mdp.reward.shape
    features = mdp.features.reshape(n_states, n_actions, -1)
    target_features = np.einsum("sa,sad->sd", mdp.target_policy, features)
    s, a, s_next = np.meshgrid(
        np.arange(n_states), np.arange(n_actions), np.arange(n_states), indexing="ij"
    )
    s, a, s_next = s.ravel(), a.ravel(), s_next.ravel()
    weight = mdp.data_distribution[s, a] * mdp.transition[s, a, s_next]
    X_init = (mdp.initial_distribution @ target_features)[None, :]
    return features[s, a], mdp.reward[s, a], target_features[s_next], X_init, weight


# --------------------------------------------------------------------------
# Oracles: the Bellman linear system, sklearn's Ridge


@pytest.mark.parametrize("shift", [0.0, 0.5, 0.9])
def test_tabular_population_recovers_exact_q_value_and_chi2_coverage(shift):
    *_, mdp = make_tabular_mdp(
        1, n_states=4, n_actions=3, gamma=0.9, behaviour_shift=shift,
        random_state=0, return_mdp=True,
    )  # fmt: skip
    X, y, X_next, X_init, w = population_data(mdp)
    est = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next, sample_weight=w)
    # One-hot features: coef_ is Q^pi, solved exactly from (I - gamma P^pi) Q = R.
    np.testing.assert_allclose(est.coef_, mdp.q_values.ravel(), rtol=1e-9)
    assert est.estimate_value(X_init) == pytest.approx(mdp.value, rel=1e-10)
    # 1 + chi^2(d^pi || mu) = sum (d^pi)^2 / mu, from the exact occupancies.
    chi2 = np.sum((mdp.occupancy - mdp.data_distribution) ** 2 / mdp.data_distribution)
    assert est.coverage(X_init) == pytest.approx(1 + chi2, rel=1e-8)
    if shift == 0.0:  # on-policy data: d^pi = mu
        assert est.coverage(X_init) == pytest.approx(1.0, rel=1e-8)


def test_linear_mdp_population_coverage_is_classic_linear_coverage():
    # The low-rank MDP is Bellman complete, where the feature-dynamics coverage
    # reduces to E_{d^pi}[phi]^T Sigma^{-1} E_{d^pi}[phi] (computed from the
    # exact occupancy, without A).
    *_, mdp = make_linear_mdp_dataset(
        1, n_features=4, n_states=12, gamma=0.8, behaviour_shift=0.7,
        random_state=1, return_mdp=True,
    )  # fmt: skip
    X, y, X_next, X_init, w = population_data(mdp)
    est = LSTDQEvaluator(gamma=0.8).fit(X, y, X_next=X_next, sample_weight=w)
    assert est.estimate_value(X_init) == pytest.approx(mdp.value, rel=1e-9)
    np.testing.assert_allclose(
        mdp.features @ est.coef_, mdp.q_values.ravel(), rtol=1e-8
    )
    assert est.coverage(X_init) == pytest.approx(mdp.linear_coverage, rel=1e-8)
    assert mdp.linear_coverage > 1.5  # off-policy: a non-trivial check


def test_tabular_estimate_converges_to_exact_value():
    # The error should fall like 1/sqrt(n); 4 standard errors is a 6e-5 event.
    errors = []
    for n in (1_000, 10_000, 100_000):
        X, y, X_next, X_init, value, _ = make_tabular_mdp(
            n, n_states=4, gamma=0.9, random_state=n, mdp_random_state=3
        )
        est = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
        J, se = est.estimate_value(X_init, return_std=True)
        assert abs(J - value) < 4 * se
        errors.append(abs(J - value))
    assert errors[-1] < 0.02 * abs(value)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 0.3, 10.0])
def test_gamma_zero_is_sklearn_ridge(alpha, fit_intercept):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 5))
    y = X @ rng.normal(size=5) + 2.0 + rng.normal(size=80)
    w = rng.uniform(0.5, 2.0, size=80)
    ridge = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
    # X_next is ignored at gamma = 0 and absent means no discounted term.
    for X_next in (None, rng.normal(size=X.shape)):
        est = LSTDQEvaluator(gamma=0.0, alpha=alpha, fit_intercept=fit_intercept)
        est.fit(X, y, X_next=X_next, sample_weight=w)
        np.testing.assert_allclose(est.coef_, ridge.coef_, rtol=1e-9, atol=1e-12)
        assert est.intercept_ == pytest.approx(ridge.intercept_, abs=1e-9)
        np.testing.assert_allclose(est.predict(X), ridge.predict(X), rtol=1e-9)
    assert est.score(X, y) == pytest.approx(ridge.score(X, y), rel=1e-9)


def test_gamma_zero_coverage_is_on_policy_coverage():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(50, 3))
    X_init = rng.normal(size=(7, 3))
    est = LSTDQEvaluator(gamma=0.0).fit(X, rng.normal(size=50))
    phibar = X_init.mean(axis=0)
    expected = phibar @ np.linalg.solve(X.T @ X / 50, phibar)
    assert est.coverage(X_init) == pytest.approx(expected, rel=1e-10)


def test_fitted_q_evaluation_converges_to_ridge_lstdq():
    # On-policy data: the FQE iteration contracts, and its fixed point is the
    # ridge LSTDQ solution with the same alpha.
    X, y, X_next, X_init, _, _ = make_linear_mdp_dataset(
        2000, n_features=4, gamma=0.7, behaviour_shift=0.0, random_state=0
    )
    J_fqe, theta = fitted_q_evaluation(X, y, X_next, X_init, gamma=0.7, alpha=2.0)
    est = LSTDQEvaluator(gamma=0.7, alpha=2.0).fit(X, y, X_next=X_next)
    np.testing.assert_allclose(theta, est.coef_, rtol=1e-8)
    assert J_fqe == pytest.approx(est.estimate_value(X_init), rel=1e-8)


# --------------------------------------------------------------------------
# Streaming


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_partial_fit_over_chunks_equals_fit(fit_intercept):
    X, y, X_next, X_init, _, _ = make_linear_mdp_dataset(
        1000, n_features=4, gamma=0.9, random_state=0
    )
    w = np.random.RandomState(0).uniform(0, 2, size=len(y))
    full = LSTDQEvaluator(gamma=0.9, alpha=0.1, fit_intercept=fit_intercept)
    full.fit(X, y, X_next=X_next, sample_weight=w)
    streamed = LSTDQEvaluator(gamma=0.9, alpha=0.1, fit_intercept=fit_intercept)
    chunks = np.array_split(np.arange(len(y)), 7)
    for idx in chunks:
        streamed.partial_fit(X[idx], y[idx], X_next=X_next[idx], sample_weight=w[idx])
    for name in ("coef_", "lstdq_matrix_", "b_", "second_moment_"):
        np.testing.assert_allclose(getattr(streamed, name), getattr(full, name))
    assert streamed.n_samples_seen_ == full.n_samples_seen_ == 1000
    with pytest.raises(ValueError, match="accumulate_residuals"):
        streamed.estimate_value(X_init, return_std=True)
    for idx in chunks:
        streamed.accumulate_residuals(
            X[idx], y[idx], X_next=X_next[idx], sample_weight=w[idx]
        )
    np.testing.assert_allclose(
        streamed.estimate_value(X_init, return_std=True),
        full.estimate_value(X_init, return_std=True),
    )
    assert streamed.coverage(X_init) == pytest.approx(full.coverage(X_init))


def test_fit_without_standard_error_makes_one_pass_and_can_add_it():
    # Issue #42: the standard error's pass reads an out-of-core source a
    # second time; compute_standard_error=False skips it, and
    # accumulate_residuals adds it later, to the same result.
    X, y, X_next, X_init, _, _ = make_linear_mdp_dataset(
        1000, n_features=4, gamma=0.9, random_state=0
    )
    full = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
    one_pass = LSTDQEvaluator(gamma=0.9, compute_standard_error=False)
    one_pass.fit(X, y, X_next=X_next)
    np.testing.assert_array_equal(one_pass.coef_, full.coef_)
    assert one_pass.estimate_value(X_init) == full.estimate_value(X_init)
    with pytest.raises(ValueError, match="compute_standard_error=False"):
        one_pass.estimate_value(X_init, return_std=True)
    one_pass.accumulate_residuals(X, y, X_next=X_next)
    assert one_pass.estimate_value(X_init, return_std=True) == (
        full.estimate_value(X_init, return_std=True)
    )


def test_partial_fit_warns_while_singular_then_recovers():
    X, y, X_next, X_init, _, _ = make_tabular_mdp(
        400, n_states=4, gamma=0.5, random_state=0
    )
    est = LSTDQEvaluator(gamma=0.5)
    with pytest.warns(UserWarning, match="minimum-norm.*alpha > 0"):
        est.partial_fit(X[:2], y[:2], X_next=X_next[:2])  # 2 of 8 pairs seen
    assert est.rank_ < X.shape[1]
    assert np.isfinite(est.predict(X)).all()
    est.partial_fit(X[2:], y[2:], X_next=X_next[2:])
    ref = LSTDQEvaluator(gamma=0.5).fit(X, y, X_next=X_next)
    np.testing.assert_allclose(est.coef_, ref.coef_)
    assert est.rank_ == ref.rank_ == X.shape[1]


def test_partial_fit_agrees_with_fit_to_the_stated_rounding_tolerance():
    # Issue #25: the Notes promised bit-for-bit equality, which a different
    # summation order cannot give. They now state the tolerance; check it.
    doc = " ".join(LSTDQEvaluator.__doc__.split())
    assert "exactly what" not in doc
    assert "up to floating-point rounding" in doc
    X, y, X_next, _, _, _ = make_linear_mdp_dataset(
        5000, n_features=6, gamma=0.9, random_state=1
    )
    full = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
    streamed = LSTDQEvaluator(gamma=0.9)
    for idx in np.array_split(np.arange(len(y)), 13):
        streamed.partial_fit(X[idx], y[idx], X_next=X_next[idx])
    eps = np.finfo(float).eps
    abs_sums = np.abs(X).T @ np.abs(X) / len(y)
    assert np.all(
        np.abs(streamed.second_moment_ - full.second_moment_) <= 10 * eps * abs_sums
    )
    tol = 10 * eps * full.condition_number_ * np.linalg.norm(full.coef_)
    assert np.linalg.norm(streamed.coef_ - full.coef_) <= tol


# --------------------------------------------------------------------------
# The paper's claims, small


def test_95_percent_interval_covers_true_value():
    # 200 data sets from one MDP. The coverage rate has binomial sd
    # sqrt(0.95 * 0.05 / 200) = 0.015; [0.90, 0.99] is about +-3 sd.
    hits = 0
    for rep in range(200):
        X, y, X_next, X_init, value, _ = make_tabular_mdp(
            2000, n_states=3, gamma=0.8, random_state=rep, mdp_random_state=0
        )
        est = LSTDQEvaluator(gamma=0.8).fit(X, y, X_next=X_next)
        J, se = est.estimate_value(X_init, return_std=True)
        hits += abs(J - value) <= 1.96 * se
    assert 0.90 <= hits / 200 <= 0.99


def test_error_grows_with_coverage_as_sqrt_c_over_n():
    # Theorem 1 shape: |J_hat - J| ~ sqrt(C / n). Behaviour farther from the
    # target raises C (1 -> ~5 here) and the error with it, while
    # RMSE * sqrt(n / C) stays put. With 100 repetitions an RMSE has relative
    # sd ~ 1/sqrt(200) = 7%; measured spread of the band: 0.64-0.77 (seed 0).
    n, rmse, coverage = 3000, [], []
    for shift in (0.0, 0.4, 0.7, 0.85):
        errors = []
        for rep in range(100):
            X, y, X_next, X_init, value, _, mdp = make_tabular_mdp(
                n, n_states=3, gamma=0.8, behaviour_shift=shift, random_state=rep,
                mdp_random_state=0, return_mdp=True,
            )  # fmt: skip
            est = LSTDQEvaluator(gamma=0.8).fit(X, y, X_next=X_next)
            errors.append(est.estimate_value(X_init) - value)
        rmse.append(np.sqrt(np.mean(np.square(errors))))
        coverage.append(mdp.linear_coverage)
    assert np.all(np.diff(coverage) > 0) and coverage[-1] > 4
    assert np.all(np.diff(rmse) > 0)
    band = np.array(rmse) * np.sqrt(n / np.array(coverage))
    assert band.max() / band.min() < 1.4


# --------------------------------------------------------------------------
# Properties


@SETTINGS
@given(transition_data(), st.floats(0.0, 0.9), st.integers(0, 2**31 - 1))
def test_value_and_coverage_invariant_to_linear_feature_maps(data, gamma, seed):
    X, y, X_next = data
    d = X.shape[1]
    rng = np.random.RandomState(seed)
    B = rng.normal(size=(d, d)) + 3 * np.eye(d)
    assume(np.linalg.cond(B) < 1e3)
    X_init = X[:5]
    est = LSTDQEvaluator(gamma=gamma).fit(X, y, X_next=X_next)
    assume(est.condition_number_ < 1e6)
    mapped = LSTDQEvaluator(gamma=gamma).fit(X @ B, y, X_next=X_next @ B)
    # phi -> B^T phi: theta -> B^{-1} theta, Q, J and C unchanged.
    tol = dict(rel=1e-6, abs=1e-6 * (1 + np.abs(est.coef_).max()))
    assert mapped.estimate_value(X_init @ B) == pytest.approx(
        est.estimate_value(X_init), **tol
    )
    assert mapped.coverage(X_init @ B) == pytest.approx(est.coverage(X_init), rel=1e-6)
    np.testing.assert_allclose(
        mapped.predict(X @ B), est.predict(X), rtol=1e-6, atol=tol["abs"]
    )


@SETTINGS
@given(transition_data(), st.floats(0.0, 0.9), st.randoms(use_true_random=False))
def test_row_order_and_chunking_do_not_matter(data, gamma, rnd):
    X, y, X_next = data
    est = LSTDQEvaluator(gamma=gamma, alpha=1.0).fit(X, y, X_next=X_next)
    perm = np.array(rnd.sample(range(len(y)), len(y)))
    cut = rnd.randint(1, len(y) - 1)
    streamed = LSTDQEvaluator(gamma=gamma, alpha=1.0)
    for idx in (perm[:cut], perm[cut:]):
        streamed.partial_fit(X[idx], y[idx], X_next=X_next[idx])
    np.testing.assert_allclose(
        streamed.lstdq_matrix_, est.lstdq_matrix_, rtol=1e-9, atol=1e-9
    )
    np.testing.assert_allclose(streamed.coef_, est.coef_, rtol=1e-7, atol=1e-9)


@SETTINGS
@given(transition_data(max_samples=30), st.floats(0.0, 0.9), st.data())
def test_integer_weights_equal_repeated_transitions(data, gamma, draw):
    X, y, X_next = data
    w = np.array(
        draw.draw(st.lists(st.integers(1, 3), min_size=len(y), max_size=len(y)))
    )
    weighted = LSTDQEvaluator(gamma=gamma, alpha=0.5)
    weighted.fit(X, y, X_next=X_next, sample_weight=w)
    idx = np.repeat(np.arange(len(y)), w)
    repeated = LSTDQEvaluator(gamma=gamma, alpha=0.5).fit(
        X[idx], y[idx], X_next=X_next[idx]
    )
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(
        weighted.estimate_value(X, return_std=True),
        repeated.estimate_value(X, return_std=True),
        rtol=1e-6,
        atol=1e-9,
    )


@SETTINGS
@given(st.integers(0, 2**31 - 1), st.floats(0.0, 0.95))
def test_tabular_coverage_is_at_least_one(seed, gamma):
    # Cauchy-Schwarz: sum d^2 / mu >= (sum d)^2 / sum mu = 1 for the empirical
    # occupancy too, as long as every pair is seen.
    X, y, X_next, X_init, _, _ = make_tabular_mdp(
        300, n_states=3, gamma=gamma, behaviour_shift=0.3, random_state=seed
    )
    assume(np.all(X.sum(axis=0) > 0))
    est = LSTDQEvaluator(gamma=gamma).fit(X, y, X_next=X_next)
    assert est.coverage(X_init) >= 1 - 1e-9


# --------------------------------------------------------------------------
# Bad input


def test_singular_A_gives_minimum_norm_solution_with_warning_and_rank():
    # Issue #25: like LinearRegression, a rank-deficient system gets the
    # minimum-norm least-squares solution (with a warning), not a refusal.
    X, y, X_next, X_init, _, _ = make_linear_mdp_dataset(
        100, n_features=3, random_state=0
    )
    ref = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
    X2, X_next2 = np.hstack([X, X]), np.hstack([X_next, X_next])  # duplicated
    with pytest.warns(UserWarning, match=r"condition number.*rank 3 < 6.*alpha > 0"):
        est = LSTDQEvaluator(gamma=0.9).fit(X2, y, X_next=X_next2)
    assert est.rank_ == 3 and ref.rank_ == 3
    # Minimum norm splits each weight evenly over the two copies.
    np.testing.assert_allclose(est.coef_, np.tile(ref.coef_ / 2, 2), rtol=1e-8)
    np.testing.assert_allclose(est.predict(X2), ref.predict(X), rtol=1e-8)
    X_init2 = np.hstack([X_init, X_init])
    assert est.estimate_value(X_init2) == pytest.approx(ref.estimate_value(X_init))
    assert est.coverage(X_init2) == pytest.approx(ref.coverage(X_init))
    LSTDQEvaluator(gamma=0.9, alpha=1.0).fit(X2, y, X_next=X_next2)  # no warning


def test_gamma_zero_rank_deficient_is_sklearn_linear_regression():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 3))
    X = np.hstack([X, X[:, :1] + X[:, 1:2]])  # rank 3 of 4
    y = rng.normal(size=20)
    with pytest.warns(UserWarning, match="minimum-norm"):
        est = LSTDQEvaluator(gamma=0.0).fit(X, y)
    ref = LinearRegression(fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-8, atol=1e-12)
    assert est.rank_ == ref.rank_ == 3


@pytest.mark.parametrize("scale", [1e160, 1e300])
@pytest.mark.parametrize("where", ["X", "X_next", "y"])
def test_huge_magnitudes_are_refused_naming_the_magnitude(scale, where):
    # Issue #25: 1e150-1e300 gave NaN or "Input contains NaN".
    X, y, X_next, _, _, _ = make_linear_mdp_dataset(100, n_features=3, random_state=0)
    data = {"X": X, "y": y, "X_next": X_next}
    data[where] = data[where] * scale
    with pytest.raises(ValueError, match=rf"{where} holds values of magnitude .*e\+"):
        LSTDQEvaluator(gamma=0.9).fit(data["X"], data["y"], X_next=data["X_next"])


def test_tiny_feature_column_is_refused():
    X, y, X_next, _, _, _ = make_linear_mdp_dataset(100, n_features=3, random_state=0)
    X, X_next = X.copy(), X_next.copy()
    X[:, 1] *= 1e-200
    X_next[:, 1] *= 1e-200
    with pytest.raises(ValueError, match=r"Column 1 of X has magnitude .*e-"):
        LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)


@pytest.mark.parametrize("gamma", [1.0, -0.1, 1.5])
def test_gamma_outside_unit_interval(gamma):
    X, y, X_next, _, _, _ = make_tabular_mdp(50, random_state=0)
    with pytest.raises(InvalidParameterError, match=r"'gamma'.*range \[0.0, 1.0\)"):
        LSTDQEvaluator(gamma=gamma).fit(X, y, X_next=X_next)


def test_shape_mismatch_between_X_and_X_next():
    X, y, X_next, _, _, _ = make_tabular_mdp(50, random_state=0)
    with pytest.raises(ValueError, match=r"X_next has shape \(49, 10\) but X has"):
        LSTDQEvaluator().fit(X, y, X_next=X_next[:-1])
    with pytest.raises(ValueError, match=r"X_next has shape \(50, 9\)"):
        LSTDQEvaluator().fit(X, y, X_next=X_next[:, :-1])


@pytest.mark.parametrize("where", ["X", "X_next", "y"])
def test_nan_input_is_refused(where):
    X, y, X_next, _, _, _ = make_tabular_mdp(50, random_state=0)
    arrays = {"X": X.copy(), "X_next": X_next.copy(), "y": y.copy()}
    arrays[where].flat[3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LSTDQEvaluator().fit(arrays["X"], arrays["y"], X_next=arrays["X_next"])


def test_X_next_columns_must_match_X():
    pd = pytest.importorskip("pandas")
    X, y, X_next, _, _, _ = make_tabular_mdp(60, random_state=0)
    cols = [f"f{i}" for i in range(X.shape[1])]
    with pytest.raises(ValueError, match="X_next has different columns"):
        LSTDQEvaluator(gamma=0.5).fit(
            pd.DataFrame(X, columns=cols),
            y,
            X_next=pd.DataFrame(X_next, columns=cols[::-1]),
        )


# --------------------------------------------------------------------------
# API glue: pandas, pickle, GridSearchCV with metadata routing


def test_pandas_input_and_pickle_round_trip():
    pd = pytest.importorskip("pandas")
    X, y, X_next, X_init, _, _ = make_tabular_mdp(500, random_state=0)
    cols = [f"pair_{i}" for i in range(X.shape[1])]
    est = LSTDQEvaluator(gamma=0.9).fit(
        pd.DataFrame(X, columns=cols),
        pd.Series(y),
        X_next=pd.DataFrame(X_next, columns=cols),
    )
    np.testing.assert_array_equal(est.feature_names_in_, cols)
    ref = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
    np.testing.assert_allclose(est.coef_, ref.coef_)
    X_init_df = pd.DataFrame(X_init, columns=cols)
    restored = pickle.loads(pickle.dumps(est))
    assert restored.estimate_value(X_init_df, return_std=True) == est.estimate_value(
        X_init_df, return_std=True
    )


def test_score_is_r2_against_bellman_targets():
    X, y, X_next, _, _, _ = make_tabular_mdp(500, random_state=0)
    est = LSTDQEvaluator(gamma=0.9).fit(X, y, X_next=X_next)
    expected = r2_score(y + 0.9 * est.predict(X_next), est.predict(X))
    assert est.score(X, y, X_next=X_next) == pytest.approx(expected)


def test_grid_search_routes_X_next_to_fit_and_score():
    X, y, X_next, X_init, value, _ = make_linear_mdp_dataset(
        3000, n_features=5, gamma=0.9, random_state=0
    )
    with sklearn.config_context(enable_metadata_routing=True):
        est = LSTDQEvaluator(gamma=0.9).set_fit_request(X_next=True)
        est.set_score_request(X_next=True)
        search = GridSearchCV(
            Pipeline([("lstdq", est)]), {"lstdq__alpha": [0.0, 1.0]}, cv=3
        )
        search.fit(X, y, X_next=X_next)
    best = search.best_estimator_[-1]
    ref = LSTDQEvaluator(gamma=0.9, alpha=best.alpha).fit(X, y, X_next=X_next)
    np.testing.assert_allclose(best.coef_, ref.coef_)  # X_next reached the refit
    # The CV scores used X_next too: they differ from R^2 on rewards alone.
    fold = LSTDQEvaluator(gamma=0.9).fit(X[1000:], y[1000:], X_next=X_next[1000:])
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(
        fold.score(X[:1000], y[:1000], X_next=X_next[:1000])
    )


# --------------------------------------------------------------------------
# The data generators


def test_partial_fit_refuses_a_changed_intercept_setting():
    X, y, X_next, _, _, _ = make_tabular_mdp(200, random_state=0)
    est = LSTDQEvaluator(gamma=0.5, alpha=1.0).partial_fit(X, y, X_next=X_next)
    est.set_params(fit_intercept=True)
    with pytest.raises(ValueError, match="fit_intercept changed"):
        est.partial_fit(X, y, X_next=X_next)


# --------------------------------------------------------------------------
# Defaults that agree with the package's own generators (issue #38)


@pytest.mark.parametrize("make", [make_linear_mdp_dataset, make_tabular_mdp])
def test_default_evaluator_recovers_the_default_generators_value(make):
    # Before: make_linear_mdp_dataset(4000, random_state=0) has value 4.80
    # (gamma = 0.9) and LSTDQEvaluator() (gamma = 0.99) returned 47.8 +- 0.21.
    data = make(4000, random_state=0)
    X, y, X_next, X_init, value = data[:5]
    J, se = (
        LSTDQEvaluator()
        .fit(X, y, X_next=X_next)
        .estimate_value(X_init, return_std=True)
    )
    assert abs(J - value) < 4 * se + 0.02 * abs(value)


@pytest.mark.parametrize("make", [make_linear_mdp_dataset, make_tabular_mdp])
def test_generators_return_the_discount_of_their_value(make):
    import inspect

    default = inspect.signature(make).parameters["gamma"].default
    assert default == LSTDQEvaluator().gamma
    assert default == inspect.signature(fitted_q_evaluation).parameters["gamma"].default
    *_, gamma = make(10, gamma=0.7, random_state=0)
    assert gamma == 0.7
    *_, gamma, mdp = make(10, gamma=0.7, random_state=0, return_mdp=True)
    assert gamma == mdp.gamma == 0.7


def test_rewards_whose_products_with_the_features_underflow_are_refused():
    # check_invariants found it at X * 2**-167 and y * 2**-961: the sums
    # X * y underflowed to 0 and coef_ was 0, silently.
    rng = np.random.default_rng(0)
    X, y = rng.random((200, 3)), rng.random(200)
    with pytest.raises(ValueError, match="Multiply y by a constant"):
        LSTDQEvaluator().fit(X * 2.0**-167, y * 2.0**-961, X_next=X[::-1] * 2.0**-167)
    coef = LSTDQEvaluator().fit(X, y, X_next=X[::-1]).coef_
    small = LSTDQEvaluator().fit(
        X * 2.0**-167, y * 2.0**-700, X_next=X[::-1] * 2.0**-167
    )
    np.testing.assert_allclose(small.coef_ * 2.0**-167 / 2.0**-700, coef, rtol=1e-9)


def test_fit_allocates_no_temporary_of_the_data_size():
    # Issue #42: the residual pass formed sqrt(w) |eps| phi for all rows at
    # once, an n x p temporary as large as X (and as slow to fault in as the
    # pass itself); it is now formed slab by slab.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 32))
    X_next = 0.5 * X
    y = rng.normal(size=len(X))
    tracemalloc.start()
    try:
        LSTDQEvaluator(gamma=0.5).fit(X, y, X_next=X_next)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 4
