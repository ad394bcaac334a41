"""make_heavy_tailed_regression and its population ridge solution."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.linear_model import LinearRegression, Ridge

from sklearn_iclr.datasets import (
    heavy_tailed_population_ridge,
    make_heavy_tailed_regression,
)


@settings(max_examples=20)
@given(n=st.integers(1, 200), d=st.integers(1, 6), seed=st.integers(0, 2**31 - 1))
def test_shapes_dtypes_and_seeding(n, d, seed):
    X, y = make_heavy_tailed_regression(n, d, random_state=seed)
    assert X.shape == (n, d) and y.shape == (n,)
    assert X.dtype == np.float64 and np.all(np.isfinite(X)) and np.all(np.isfinite(y))
    X2, y2 = make_heavy_tailed_regression(n, d, random_state=seed)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_features_are_standardised_student_t():
    # Oracle: scipy's Student-t law, rescaled to unit variance (KS test), and
    # the kurtosis 3 + 6 / (df - 4) stated in the docstring.
    df, scales = 10.0, np.array([1.0, 3.0])
    X, _ = make_heavy_tailed_regression(40000, 2, df=df, scales=scales, random_state=0)
    unit = X / scales
    law = stats.t(df, scale=1 / np.sqrt(df / (df - 2)))
    for j in range(2):
        assert stats.kstest(unit[:, j], law.cdf).pvalue > 1e-3
    np.testing.assert_allclose(X.std(axis=0), scales, rtol=0.03)
    kurtosis = stats.kurtosis(unit, axis=0, fisher=False)
    np.testing.assert_allclose(kurtosis, 3 + 6 / (df - 4), rtol=0.15)


def test_least_squares_converges_to_the_population_solution():
    # The interaction is uncorrelated with every feature, so least squares on
    # a large sample recovers the population coefficients (alpha = 0).
    scales = np.array([0.5, 1.0, 2.0, 4.0])
    X, y = make_heavy_tailed_regression(
        200000, 4, scales=scales, intercept=-2.0, random_state=1
    )
    coef, intercept = heavy_tailed_population_ridge(
        0.0, 200000, 4, scales=scales, intercept=-2.0
    )
    fit = LinearRegression().fit(X, y)
    np.testing.assert_allclose(fit.coef_ * scales, coef * scales, atol=0.01)
    assert fit.intercept_ == pytest.approx(intercept, abs=0.01)


def test_population_ridge_shrinks_as_ridge_does():
    # w_j = s_j^2 c_j / (s_j^2 + alpha / n): Ridge on a large sample agrees.
    n, alpha, scales = 100000, 50000.0, np.array([0.5, 1.0, 2.0])
    X, y = make_heavy_tailed_regression(n, 3, scales=scales, random_state=2)
    coef, _ = heavy_tailed_population_ridge(alpha, n, 3, scales=scales)
    shrink = (
        heavy_tailed_population_ridge(alpha, n, 3, scales=scales)[0]
        / (heavy_tailed_population_ridge(0.0, n, 3, scales=scales)[0])
    )
    np.testing.assert_allclose(shrink, scales**2 / (scales**2 + alpha / n))
    np.testing.assert_allclose(Ridge(alpha=alpha).fit(X, y).coef_, coef, atol=0.02)


def test_df_at_most_two_is_refused():
    with pytest.raises(ValueError, match=r"'df' parameter .* range \(2"):
        make_heavy_tailed_regression(10, 2, df=2.0)
