"""replicability_rate: Wilson interval oracle, controls, parallel determinism."""

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.covariance import EmpiricalCovariance
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import Ridge

from sklearn_iclr import ReplicableCovariance, ReplicableLinearRegressor
from sklearn_iclr.datasets import make_heavy_tailed_regression
from sklearn_iclr.metrics import (
    ReplicabilityResult,
    replicability_rate,
    wilson_interval,
)


def _sampler(seed):
    return make_heavy_tailed_regression(3000, 3, random_state=seed)


@pytest.mark.parametrize("k, n", [(0, 10), (7, 10), (10, 10), (181, 200), (3, 250)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_interval_matches_scipy(k, n, confidence):
    ref = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    np.testing.assert_allclose(
        wilson_interval(k, n, confidence), (ref.low, ref.high), atol=1e-12
    )


def test_a_deterministic_estimator_on_fixed_data_always_replicates():
    X, y = _sampler(0)
    result = replicability_rate(
        DummyRegressor(), lambda seed: (X, y), n_pairs=15, attributes=("constant_",)
    )
    assert isinstance(result, ReplicabilityResult)
    assert (result.rate, result.n_identical, result.n_pairs) == (1.0, 15, 15)
    assert result.ci_high == 1.0


def test_plain_ridge_never_replicates():
    result = replicability_rate(Ridge(), _sampler, n_pairs=30, random_state=0)
    assert result.n_identical == 0
    assert result.ci_low == 0.0


def test_parallel_result_equals_sequential():
    est = ReplicableLinearRegressor(rho=0.3)
    one = replicability_rate(est, _sampler, n_pairs=12, random_state=1, n_jobs=1)
    two = replicability_rate(est, _sampler, n_pairs=12, random_state=1, n_jobs=2)
    assert one == two


def test_unsupervised_sampler_returning_only_X():
    def sampler(seed):
        return np.random.default_rng(seed).normal(size=(4000, 2))

    result = replicability_rate(
        ReplicableCovariance(rho=0.3),
        sampler,
        n_pairs=10,
        attributes=("covariance_",),
        random_state=0,
    )
    # Designed to replicate with probability >= 1 - rho = 0.7 (measured 7-9
    # of 10 over random_state 0-3); P[Binomial(10, 0.7) <= 2] < 2e-3.
    assert result.n_pairs == 10 and result.n_identical >= 3
    # Control: the plain empirical covariance of fresh samples never repeats.
    control = replicability_rate(
        EmpiricalCovariance(), sampler, n_pairs=10, attributes=("covariance_",)
    )
    assert control.n_identical == 0


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError, match="n_pairs"):
        replicability_rate(Ridge(), _sampler, n_pairs=0)
    with pytest.raises(ValueError, match="sampler"):
        replicability_rate(Ridge(), "not callable")
