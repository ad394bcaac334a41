"""ReplicableCovariance: oracles, properties, the paper's claims, trust."""

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


@pytest.fixture(autouse=True)
def _quiet_small_sample_warning():
    # Tiny property-test samples trigger the "not expected to be replicable"
    # warning by design; it has its own test below.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="At this sample size")
        yield


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
