"""ReplicableCovariance: oracles, properties, the paper's claims, trust."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from sklearn.covariance import EmpiricalCovariance

from sklearn_iclr import ReplicableCovariance
from sklearn_iclr._replicable._lattice import shifted_lattice
from sklearn_iclr.metrics import replicability_rate
from sklearn_iclr.testing.strategies import feature_matrices

PROPERTY = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# Tiny property-test samples trigger the "not expected to be replicable"
# warning by design, and the default rho the accuracy warning ("off the
# population matrix"); each has its own test with pytest.warns. (A filter set
# in an autouse fixture is undone before the test body runs: the marks are
# what pytest applies to it.)
pytestmark = [
    pytest.mark.filterwarnings("ignore:At this sample size:UserWarning"),
    pytest.mark.filterwarnings("ignore:.*off the population matrix:UserWarning"),
]


def test_covariance_unrounded_is_empirical_covariance():
    X = np.random.default_rng(0).normal(size=(100, 3)) + 2.0
    for centered in (True, False):
        est = ReplicableCovariance(assume_centered=centered, random_state=0).fit(X)
        ref = EmpiricalCovariance(assume_centered=True).fit(X - est.location_)
        np.testing.assert_allclose(est.covariance_unrounded_, ref.covariance_)


def test_covariance_within_half_a_cell_of_second_moment():
    # Oracle: E[x x^T] = cov for centred Gaussians. Rounding moves each entry
    # by at most width/2, the PSD projection moves it no further from the PSD
    # truth (in Frobenius norm), estimation adds <= 4.5 standard errors.
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    X = np.random.default_rng(3).multivariate_normal(np.zeros(3), cov, size=20000)
    est = ReplicableCovariance(rho=0.2, random_state=0).fit(X)
    se = np.sqrt((np.einsum("ij,ik->ijk", X, X).var(axis=0)) / len(X))
    half_cell = np.full((3, 3), est.grid_width_ / 2)
    assert np.linalg.norm(est.covariance_ - cov) <= np.linalg.norm(half_cell + 4.5 * se)


@PROPERTY
@given(feature_matrices(), st.booleans(), st.integers(0, 2**31 - 1))
def test_covariance_is_symmetric_positive_semidefinite(X, centered, seed):
    est = ReplicableCovariance(assume_centered=centered, random_state=seed).fit(X)
    cov = est.covariance_
    assert np.array_equal(cov, cov.T)
    tol = 1e-10 * max(1.0, np.abs(cov).max())
    assert np.linalg.eigvalsh(cov).min() >= -tol


def test_covariance_score_and_mahalanobis_follow_empirical_covariance():
    X = np.random.default_rng(0).normal(size=(5000, 2))
    est = ReplicableCovariance(grid_width=1e-9, random_state=0).fit(X)
    ref = EmpiricalCovariance(assume_centered=True).fit(X)
    assert est.score(X) == pytest.approx(ref.score(X), rel=1e-6)
    np.testing.assert_allclose(
        est.mahalanobis(X[:5]), ref.mahalanobis(X[:5]), rtol=1e-6
    )


def test_covariance_replicable_over_independent_samples():
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])

    def sampler(seed):
        return np.random.default_rng(seed).multivariate_normal([0, 0], cov, 4000)

    result = replicability_rate(
        ReplicableCovariance(rho=0.2),
        sampler,
        n_pairs=40,
        attributes=("covariance_",),
        random_state=0,
    )
    # Designed for >= 0.8; P[Binomial(40, 0.8) < 24] < 1e-3.
    assert binom.cdf(23, 40, 0.8) < 1e-3
    assert result.n_identical >= 24


def test_covariance_extreme_magnitudes_are_rescaled_or_refused():
    X = np.random.default_rng(0).normal(size=(5000, 3))
    ref = ReplicableCovariance(rho=0.2, random_state=0).fit(X)
    for scale in (1e150, 1e-150):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            est = ReplicableCovariance(rho=0.2, random_state=0).fit(X * scale)
        cov = est.covariance_ / scale**2
        assert np.all(np.isfinite(cov)) and np.isfinite(est.disagreement_bound_)
        np.testing.assert_allclose(cov, np.eye(3), atol=3 * ref.grid_width_)
    with pytest.raises(ValueError, match=r"magnitude up to [0-9.]+e\+300.*exceed"):
        ReplicableCovariance().fit(X * 1e300)


def test_covariance_memory_is_blocks_of_rows():
    # 2000 x 200: the per-sample products would be a 2000 x 20100 array
    # (320 MB); by blocks the fit needs a few copies of X (3.2 MB each) and
    # d x d matrices.
    import tracemalloc

    X = np.random.default_rng(0).normal(size=(2000, 200))
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ReplicableCovariance(random_state=0).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 80e6


def test_covariance_bound_does_not_depend_on_blas_threads():
    # The weighted sums of the width terms are BLAS dot products, whose
    # summation order follows the thread count: the fit runs BLAS on one
    # thread, so every attribute has the same bits under 1 and 2 threads.
    from threadpoolctl import threadpool_limits

    X = np.random.default_rng(1).standard_t(5, size=(20000, 30)) + 1.0
    fits = []
    for threads in (1, 2):
        with threadpool_limits(threads):
            fits.append(
                ReplicableCovariance(assume_centered=False, random_state=0).fit(X)
            )
    a, b = fits
    assert a.disagreement_bound_ == b.disagreement_bound_
    assert np.array_equal(a.covariance_, b.covariance_)
    assert np.array_equal(a.location_, b.location_)


def test_covariance_rounds_on_the_shifted_lattice():
    # The upper triangle (m = 6 entries for d = 3) is rounded jointly on the
    # A6* lattice: two fits with one seed differ by a lattice vector.
    est = ReplicableCovariance(grid_width=0.1, random_state=3)
    upper = np.triu_indices(3)
    a = est.fit(np.random.default_rng(0).normal(size=(500, 3))).covariance_[upper]
    b = est.fit(np.random.default_rng(1).normal(size=(500, 3))).covariance_[upper]
    lattice = shifted_lattice(6, "lattice")
    diff = a - b
    on = lattice.round(diff, 0.1, np.zeros(6))
    np.testing.assert_allclose(on, diff, atol=1e-12)
    # Not the cube: some entry moved by a non-multiple of the width.
    assert not np.allclose(diff / 0.1, np.rint(diff / 0.1))


# --- issue #38: no wild matrices without a warning; singular and huge inputs


def _gaussian(seed, n, cov):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, len(cov))) @ np.linalg.cholesky(cov).T


def _fit_recording(est, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return [str(w.message) for w in caught if "tolerance" in str(w.message)]


@pytest.mark.parametrize("n_features", [5, 30])
def test_default_is_within_tolerance_of_the_population_or_warns(n_features):
    # Before: at d = 30, n = 1e5 the entries were off by up to 78 (grid width
    # 77: the width of m = d (d + 1) / 2 jointly rounded entries grows like
    # m / rho) and at d = 5 by 0.72, without a warning. Identity data: the
    # spherical matrix is the structure of least expected error.
    cov = np.eye(n_features)
    est = ReplicableCovariance(random_state=0)
    warned = _fit_recording(est, _gaussian(0, 100_000, cov))
    relative = np.linalg.norm(est.covariance_ - cov) / np.linalg.norm(cov)
    assert relative <= 0.1
    assert not warned
    assert est.covariance_type_ == "spherical"


def test_structure_follows_the_data():
    # Oracle by construction: equal variances and no correlation (spherical),
    # variances 1 to 100 (diagonal), correlation 0.5 with many samples (full).
    cases = {
        "spherical": (np.eye(4), 100_000),
        "diag": (np.diag(np.logspace(0, 2, 4)), 100_000),
        "full": (0.5 * np.eye(4) + 0.5, 2_000_000),
    }
    for expected, (cov, n) in cases.items():
        est = ReplicableCovariance(rho=0.1, random_state=0).fit(_gaussian(1, n, cov))
        assert est.covariance_type_ == expected


def test_a_forced_structure_is_kept():
    X = _gaussian(0, 20_000, np.eye(3))
    for structure in ("full", "diag", "spherical"):
        est = ReplicableCovariance(covariance_type=structure, random_state=0).fit(X)
        assert est.covariance_type_ == structure
        off = est.covariance_[~np.eye(3, dtype=bool)]
        assert (structure == "full") or not np.any(off)
    # A fixed grid width rounds the full matrix, as before.
    est = ReplicableCovariance(grid_width=0.5, random_state=0).fit(X)
    assert est.covariance_type_ == "full"


def test_breast_cancer_standardized_warns_with_the_n_needed():
    # Before: diagonal entries 1.8e3 to 5.1e3 (the truth is 1), no warning.
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X = StandardScaler().fit_transform(load_breast_cancer().data)
    est = ReplicableCovariance(random_state=0)
    warned = _fit_recording(est, X)
    assert len(warned) == 1
    assert re.search(r"n >= [0-9.e+]+ samples would bring the full matrix", warned[0])
    assert np.abs(np.diag(est.covariance_)).max() < 10


def test_the_n_named_by_the_warning_brings_the_full_matrix_within_tolerance():
    # The warning's n is where the expected error of the full matrix is 0.1
    # ||S||_F: refits at that n have a root mean square relative error of at
    # most 0.1 (measured 0.087 over 20 seeds; 12 seeds here, bound 0.12).
    cov = np.array([[1.0, 0.5], [0.5, 2.0]])
    est = ReplicableCovariance(rho=0.2, covariance_type="full", random_state=0)
    (message,) = _fit_recording(est, _gaussian(0, 5000, cov))
    needed = int(float(re.search(r"n >= ([0-9.e+]+)", message).group(1)))
    errors = []
    for seed in range(12):
        est.set_params(random_state=seed).fit(_gaussian(100 + seed, needed, cov))
        errors.append(np.linalg.norm(est.covariance_ - cov) / np.linalg.norm(cov))
    assert np.sqrt(np.mean(np.square(errors))) <= 0.12


def test_the_choice_of_structure_is_replicable():
    # Equicorrelated d = 8 at n = 2e4: the diagonal and spherical losses tie
    # (both are the off-diagonal bias), so the shared offsets decide; the
    # choice's cost is in the budget. Designed for >= 0.8 (measured 0.91 over
    # 100 pairs); P[Binomial(60, 0.8) < 38] < 1e-3.
    cov = 0.5 * np.eye(8) + 0.5

    def sampler(seed):
        return _gaussian(seed, 20_000, cov)

    result = replicability_rate(
        ReplicableCovariance(rho=0.2),
        sampler,
        n_pairs=60,
        attributes=("covariance_",),
        random_state=0,
    )
    assert binom.cdf(37, 60, 0.8) < 1e-3
    assert result.n_identical >= 38


def test_all_zero_data_give_a_singular_fit_without_nan():
    # Before: grid width 7e-313 (subnormal), precision_ inf and NaN scores.
    X = np.zeros((100, 3))
    for centered in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            est = ReplicableCovariance(assume_centered=centered, random_state=0).fit(X)
            assert est.grid_width_ == 0.0
            assert np.array_equal(est.covariance_, np.zeros((3, 3)))
            assert np.all(np.isfinite(est.precision_))
            assert est.score(X) == -np.inf
            assert np.all(np.isfinite(est.mahalanobis(X)))


def test_tiny_rho_fits_and_warns_instead_of_a_scipy_error():
    # Before: rho=1e-20 rounded the budget to 0, an infinite grid and scipy's
    # "array must not contain infs or NaNs".
    X = _gaussian(0, 1000, np.eye(3))
    with pytest.warns(UserWarning, match="raise rho"):
        est = ReplicableCovariance(rho=1e-20, random_state=0).fit(X)
    assert np.all(np.isfinite(est.covariance_)) and np.isfinite(est.grid_width_)
    with pytest.raises(ValueError, match="overflows float64: rho is too small"):
        ReplicableCovariance(rho=1e-320, random_state=0).fit(X)


def test_error_norm_refuses_a_matrix_of_another_shape():
    est = ReplicableCovariance(random_state=0).fit(_gaussian(0, 1000, np.eye(3)))
    with pytest.raises(ValueError, match=r"comp_cov has shape \(2, 2\).*\(3, 3\)"):
        est.error_norm(np.eye(2))
    assert est.error_norm(est.covariance_) == 0.0


@pytest.mark.parametrize("scale", [1.0, 1e150, 1e300])
def test_huge_inputs_give_inf_distances_and_minus_inf_scores_never_nan(scale):
    # Before: mahalanobis at 1e300 gave [inf, inf, nan] and score nan.
    X = _gaussian(0, 100_000, np.eye(3))
    est = ReplicableCovariance(rho=0.2, random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        dist = est.mahalanobis(X[:50] * scale)
        score = est.score(X[:50] * scale)
    assert not np.any(np.isnan(dist)) and not np.isnan(score)
    if scale == 1e300:
        assert np.all(dist == np.inf) and score == -np.inf
    else:
        # Equivariant: the distances scale with scale^2.
        np.testing.assert_allclose(dist, est.mahalanobis(X[:50]) * scale**2)
        assert np.isfinite(score)
