"""GaussianEmbeddingModel and the Gaussianity diagnostics."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.covariance import (
    OAS,
    EmpiricalCovariance,
    LedoitWolf,
    MinCovDet,
    ShrunkCovariance,
    ledoit_wolf,
)
from sklearn.preprocessing import StandardScaler

from sklearn_iclr.covariance import GaussianEmbeddingModel
from sklearn_iclr.covariance import _gaussian_embedding as gaussian_module
from sklearn_iclr.metrics import gaussianity_report, norm_coefficient_of_variation
from sklearn_iclr.testing.strategies import (
    correlated_gaussian_samples,
    orthogonal_matrices,
)


def random_covariance(d, seed):
    A = np.random.RandomState(seed).standard_normal((d, d))
    return A @ A.T + np.eye(d)


def block_mutual_information(cov, d1):
    """Closed form ``(log det S11 + log det S22 - log det S) / 2``."""
    logdet = lambda m: np.linalg.slogdet(m)[1]  # noqa: E731
    return 0.5 * (logdet(cov[:d1, :d1]) + logdet(cov[d1:, d1:]) - logdet(cov))


# ---------------------------------------------------------------- oracles


@pytest.mark.parametrize(
    "covariance, reference",
    [("empirical", EmpiricalCovariance), ("ledoit_wolf", LedoitWolf), ("oas", OAS)],
)
def test_density_and_entropy_match_scipy_on_sklearn_covariance(covariance, reference):
    X = np.random.RandomState(0).multivariate_normal(
        [1.0, -2.0, 0.5], random_covariance(3, 0), size=200
    )
    model = GaussianEmbeddingModel(covariance=covariance).fit(X)
    ref = reference().fit(X)
    np.testing.assert_allclose(model.covariance_, ref.covariance_, rtol=1e-10)
    np.testing.assert_allclose(model.location_, ref.location_)
    np.testing.assert_allclose(
        model.precision_, np.linalg.inv(ref.covariance_), rtol=1e-8
    )
    gaussian = stats.multivariate_normal(ref.location_, ref.covariance_)
    np.testing.assert_allclose(model.score_samples(X[:20]), gaussian.logpdf(X[:20]))
    np.testing.assert_allclose(model.entropy(), gaussian.entropy())
    assert model.score(X) == pytest.approx(gaussian.logpdf(X).mean())


@pytest.mark.parametrize(
    "covariance, reference",
    [("empirical", EmpiricalCovariance), ("ledoit_wolf", LedoitWolf), ("oas", OAS)],
)
@pytest.mark.parametrize(
    "n_samples, n_features, offset",
    [(3000, 16, 0.0), (500, 4, 1e3), (40, 60, 2.0), (300, 1, -7.0)],
)
def test_named_covariances_from_row_blocks_match_sklearn(
    covariance, reference, n_samples, n_features, offset, monkeypatch
):
    # Blocks of 7 rows: the moments are summed over many blocks and a ragged
    # last one. Scikit-learn's estimators, fitted on the whole array, are
    # the oracle (fewer samples than features and one feature included).
    monkeypatch.setattr(gaussian_module, "BLOCK_BYTES", 7 * 8 * n_features)
    rng = np.random.default_rng(n_features)
    mixing = rng.standard_normal((n_features, n_features)) / np.sqrt(n_features)
    X = rng.standard_normal((n_samples, n_features)) @ mixing + offset
    estimator = gaussian_module._named_covariance(
        covariance, n_features, gaussian_module._reduce_rows, X, None
    )
    ref = reference().fit(X)
    np.testing.assert_allclose(estimator.location_, ref.location_, rtol=1e-12)
    np.testing.assert_allclose(estimator.covariance_, ref.covariance_, rtol=1e-12)
    if covariance != "empirical":
        assert estimator.shrinkage_ == pytest.approx(ref.shrinkage_, rel=1e-12)
    if covariance == "ledoit_wolf":
        # LedoitWolf.fit centres X and calls ledoit_wolf(assume_centered=True):
        # the same numbers from the function, on the centred rows.
        cov, shrinkage = ledoit_wolf(X - X.mean(axis=0), assume_centered=True)
        np.testing.assert_allclose(estimator.covariance_, cov, rtol=1e-12)
        assert estimator.shrinkage_ == pytest.approx(shrinkage, rel=1e-12)


@pytest.mark.parametrize("covariance", ["ledoit_wolf", "oas", "empirical"])
def test_fit_makes_no_copy_of_float64_rows(covariance):
    # Scikit-learn's LedoitWolf made centred and squared copies of X: at
    # 1.6e6 rows they made the fit's time grow like n^1.39 (bench_growth).
    import tracemalloc

    X = np.random.default_rng(0).standard_normal((200_000, 16))
    tracemalloc.start()
    try:
        GaussianEmbeddingModel(covariance).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < X.nbytes / 4


def test_estimator_instance_is_cloned_and_used():
    X = np.random.RandomState(1).standard_normal((100, 2))
    robust = MinCovDet(random_state=0)
    model = GaussianEmbeddingModel(covariance=robust).fit(X)
    assert model.covariance_estimator_ is not robust
    assert not hasattr(robust, "covariance_")
    np.testing.assert_allclose(
        model.covariance_, MinCovDet(random_state=0).fit(X).covariance_
    )


def test_entropy_and_mi_match_closed_forms_on_known_gaussian():
    # 5-d Gaussian, n=5000. Over 50 seeds the estimates had standard
    # deviations 0.022 (entropy; theory sqrt(d / 2n) = 0.022) and 0.011 (MI)
    # and biases below 0.002: tolerances are 4 standard deviations.
    cov = random_covariance(5, 123)
    Z = np.random.RandomState(0).multivariate_normal(np.zeros(5), cov, size=5000)
    model = GaussianEmbeddingModel(covariance="empirical").fit(Z)
    entropy = stats.multivariate_normal(np.zeros(5), cov).entropy()
    assert model.entropy() == pytest.approx(entropy, abs=0.09)
    mi = model.mutual_information(Z[:, :2], Z[:, 2:])
    assert mi == pytest.approx(block_mutual_information(cov, 2), abs=0.05)


def test_mi_is_entropy_decomposition_of_the_plugin_gaussians():
    # Exact identity: I = H(Z1) + H(Z2) - H(Z1, Z2) with scipy's entropies of
    # the maximum-likelihood covariances.
    Z = np.random.RandomState(2).multivariate_normal(
        np.zeros(4), random_covariance(4, 2), size=300
    )
    entropy = lambda A: stats.multivariate_normal(  # noqa: E731
        cov=np.atleast_2d(np.cov(A, rowvar=False, bias=True))
    ).entropy()
    expected = entropy(Z[:, :1]) + entropy(Z[:, 1:]) - entropy(Z)
    model = GaussianEmbeddingModel(covariance="empirical")
    assert model.mutual_information(Z[:, :1], Z[:, 1:]) == pytest.approx(expected)


def test_independent_blocks_have_near_zero_mi():
    # Wilks: 2 n I is chi-square with d1 * d2 = 6 degrees of freedom under
    # independence, so I < 30 / (2n) except with probability ~1e-5.
    Z = np.random.RandomState(3).standard_normal((2000, 5))
    mi = GaussianEmbeddingModel(covariance="empirical").mutual_information(
        Z[:, :2], Z[:, 2:]
    )
    assert 0.0 <= mi < 30 / (2 * 2000)


# ------------------------------------------------------------- properties


@settings(max_examples=25)
@given(correlated_gaussian_samples())
def test_whitening_gives_identity_covariance(X):
    model = GaussianEmbeddingModel(covariance="empirical").fit(X)
    W = model.transform(X)
    np.testing.assert_allclose(W.mean(axis=0), 0.0, atol=1e-8)
    np.testing.assert_allclose(
        np.atleast_2d(np.cov(W, rowvar=False, bias=True)), np.eye(X.shape[1]), atol=1e-7
    )
    np.testing.assert_allclose(model.whitening_, model.whitening_.T, atol=1e-10)


@settings(max_examples=25)
@given(correlated_gaussian_samples(), st.data())
def test_log_density_is_affine_equivariant(X, data):
    # x -> x Q diag(s) + b maps the maximum-likelihood Gaussian to the fitted
    # Gaussian of the image; densities change by the Jacobian -log|det|.
    d = X.shape[1]
    Q = data.draw(orthogonal_matrices(d))
    scale = data.draw(st.lists(st.floats(0.5, 2.0), min_size=d, max_size=d))
    A = Q * np.array(scale)
    b = np.arange(d, dtype=float)
    before = GaussianEmbeddingModel(covariance="empirical").fit(X)
    after = GaussianEmbeddingModel(covariance="empirical").fit(X @ A + b)
    jacobian = np.log(np.abs(np.linalg.det(A)))
    np.testing.assert_allclose(
        after.score_samples(X @ A + b), before.score_samples(X) - jacobian, atol=1e-7
    )
    assert after.entropy() == pytest.approx(before.entropy() + jacobian, abs=1e-7)


@settings(max_examples=25)
@given(correlated_gaussian_samples(max_features=5), st.data())
def test_mi_is_symmetric_and_invariant_to_block_linear_maps(X, data):
    d = X.shape[1]
    assume(d >= 2)  # two non-empty blocks
    d1 = data.draw(st.integers(1, d - 1))
    Z1, Z2 = X[:, :d1], X[:, d1:]
    model = GaussianEmbeddingModel(covariance="empirical")
    mi = model.mutual_information(Z1, Z2)
    assert mi >= 0.0
    assert model.mutual_information(Z2, Z1) == pytest.approx(mi, abs=1e-8)
    Q1 = data.draw(orthogonal_matrices(d1))
    transformed = model.mutual_information(3.0 * Z1 @ Q1 - 1.0, Z2)
    assert transformed == pytest.approx(mi, abs=1e-7)


@settings(max_examples=20)
@given(correlated_gaussian_samples(), st.randoms(use_true_random=False))
def test_fit_is_row_permutation_invariant(X, rnd):
    order = np.array(rnd.sample(range(len(X)), len(X)))
    a = GaussianEmbeddingModel().fit(X)
    b = GaussianEmbeddingModel().fit(X[order])
    np.testing.assert_allclose(a.score_samples(X), b.score_samples(X), atol=1e-8)


def test_l2_normalize_scores_only_directions():
    X = np.random.RandomState(4).standard_normal((100, 3)) + [2.0, 0.0, 0.0]
    model = GaussianEmbeddingModel(normalize="l2").fit(X)
    np.testing.assert_allclose(model.score_samples(5.0 * X), model.score_samples(X))
    assert model.gaussianity_report(X, n_projections=0)["norm_cv"] == pytest.approx(0.0)


# ------------------------------------------------------ Gaussianity report


def test_report_passes_gaussian_and_fails_heavy_tails():
    rng = np.random.RandomState(0)
    gauss = gaussianity_report(rng.standard_normal((2000, 40)), random_state=0)
    # Each test has level 5%: with 40 + 64 marginals, pass fractions below
    # 0.8 would be a > 4-sigma binomial deviation from 0.95.
    for key in [
        "ad_pass_fraction",
        "dagostino_pass_fraction",
        "projection_ad_pass_fraction",
        "projection_dagostino_pass_fraction",
    ]:
        assert gauss[key] >= 0.8, key
    laplace = gaussianity_report(rng.laplace(size=(2000, 40)), random_state=0)
    assert laplace["ad_pass_fraction"] == 0.0
    assert laplace["dagostino_pass_fraction"] == 0.0
    # Random projections of 40 independent Laplace coordinates are close to
    # Gaussian (central limit theorem): the projections pass much more often.
    assert laplace["projection_ad_pass_fraction"] > 0.5


def test_report_constant_column_fails_and_norm_cv():
    Z = np.random.RandomState(0).standard_normal((50, 3))
    Z[:, 1] = 2.0
    report = gaussianity_report(Z, n_projections=0)
    assert report["ad_statistic"][1] == np.inf
    assert report["dagostino_pvalue"][1] == 0.0
    assert np.isnan(report["projection_ad_pass_fraction"])
    assert norm_coefficient_of_variation([[3.0, 4.0], [6.0, 8.0]]) == pytest.approx(
        1 / 3
    )


# -------------------------------------------------------------- bad input


def test_bad_inputs_raise_clear_errors():
    X = np.random.RandomState(0).standard_normal((30, 3))
    with pytest.raises(ValueError, match="NaN"):
        GaussianEmbeddingModel().fit(np.where(X > 1.5, np.nan, X))
    with pytest.raises(ValueError, match="minimum of 2"):
        GaussianEmbeddingModel().fit(X[:1])
    with pytest.raises(ValueError, match="singular.*ledoit_wolf"):
        GaussianEmbeddingModel(covariance="empirical").fit(X[:2])
    with pytest.raises(ValueError, match="covariance"):
        GaussianEmbeddingModel(covariance="median").fit(X)
    with pytest.raises(ValueError, match="row of zeros"):
        GaussianEmbeddingModel(normalize="l2").fit(np.vstack([X, np.zeros(3)]))
    with pytest.raises(ValueError, match="paired samples"):
        GaussianEmbeddingModel().mutual_information(X[:10], X[:12])
    with pytest.raises(ValueError, match="'covariance' parameter"):
        GaussianEmbeddingModel(covariance="median").mutual_information(X, X)
    with pytest.raises(ValueError, match="'normalize' parameter"):
        GaussianEmbeddingModel(normalize="l3").mutual_information(X, X)
    with pytest.raises(ValueError, match="minimum of 20"):
        gaussianity_report(X[:10])
    with pytest.raises(ValueError, match="n_projections"):
        gaussianity_report(X, n_projections=-1)
    model = GaussianEmbeddingModel().fit(X)
    with pytest.raises(ValueError, match="3 features"):
        model.score_samples(X[:, :2])


def test_pickle_and_pandas_roundtrip():
    pd = pytest.importorskip("pandas")
    X = np.random.RandomState(0).standard_normal((40, 3))
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    model = GaussianEmbeddingModel().set_output(transform="pandas").fit(df)
    out = model.transform(df)
    assert list(out.columns) == ["a", "b", "c"]
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.score_samples(df), model.score_samples(df))
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])


# ------------------------------------------------------- issue #25 regressions


def test_docstring_example_shrunk_covariance_works():
    # The docstring suggested ShrunkCovariance(0.2), a TypeError (keyword-only).
    assert "ShrunkCovariance(0.2)" not in GaussianEmbeddingModel.__doc__
    assert "ShrunkCovariance(shrinkage=0.2)" in GaussianEmbeddingModel.__doc__
    X = np.random.RandomState(0).standard_normal((50, 3))
    model = GaussianEmbeddingModel(covariance=ShrunkCovariance(shrinkage=0.2)).fit(X)
    assert model.covariance_estimator_.shrinkage == 0.2


def test_estimator_without_covariance_is_named():
    X = np.random.RandomState(0).standard_normal((50, 3))
    with pytest.raises(TypeError, match=r"StandardScaler\(\) has no covariance_"):
        GaussianEmbeddingModel(covariance=StandardScaler()).fit(X)


@pytest.mark.parametrize("scale", [1e-170, 1e-300, 1e170, 1e300])
def test_l2_normalize_handles_tiny_and_huge_rows(scale):
    # Rows of norm 1e-170 were called "a row of zeros"; 1e200 gave NaN.
    X = np.random.RandomState(0).standard_normal((50, 3))
    base = GaussianEmbeddingModel(normalize="l2").fit(X)
    model = GaussianEmbeddingModel(normalize="l2").fit(X * scale)
    np.testing.assert_allclose(model.covariance_, base.covariance_, rtol=1e-12)
    np.testing.assert_allclose(
        model.score_samples(X * scale), base.score_samples(X), rtol=1e-10
    )


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-160, 1e-300])
def test_magnitudes_outside_float_range_are_refused_naming_the_magnitude(scale):
    X = np.random.RandomState(0).standard_normal((50, 3)) * scale
    with pytest.raises(ValueError, match=r"magnitude at most \d.*e[+-]\d+"):
        GaussianEmbeddingModel().fit(X)


@pytest.mark.parametrize("scale", [1e-300, 1e-100, 1e100, 1e300])
def test_mutual_information_is_invariant_to_huge_and_tiny_units(scale):
    rng = np.random.RandomState(0)
    Z = rng.multivariate_normal([0, 0], [[1.0, 0.8], [0.8, 1.0]], size=500)
    model = GaussianEmbeddingModel(covariance="empirical")
    base = model.mutual_information(Z[:, :1], Z[:, 1:])
    moved = model.mutual_information(Z[:, :1] * scale, Z[:, 1:])
    assert moved == pytest.approx(base, rel=1e-10)


@pytest.mark.parametrize("scale", [1e154, 1e200, 1e300])
def test_issue_38_huge_rows_after_a_unit_fit_score_minus_inf(scale):
    # score_samples(X * 1e200) was NaN (inf - inf in the quadratic form; at
    # 1e154, 452 of 500 rows were NaN). A row whose squared distance leaves
    # float64 has a log-density of -inf; whitening it gives signed infinities.
    rng = np.random.RandomState(0)
    Z = rng.standard_normal((500, 8)) @ rng.standard_normal((8, 8))
    model = GaussianEmbeddingModel().fit(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = model.score_samples(Z * scale)
        white = model.transform(Z * scale)
    assert not np.isnan(scores).any() and not np.isnan(white).any()
    if scale > 1e160:
        assert np.all(scores == -np.inf)
    # (Z s - mu) W / s is Z W up to mu / s: the whitened rows scale with s.
    reference = Z @ model.whitening_
    finite = np.isfinite(white)
    np.testing.assert_allclose(white[finite] / scale, reference[finite], rtol=1e-9)
    assert np.all(np.sign(white) == np.sign(reference))


def test_scores_of_far_rows_follow_the_quadratic_form():
    # Below the overflow the log-density is the formula, at any distance.
    rng = np.random.RandomState(0)
    Z = rng.standard_normal((300, 4))
    model = GaussianEmbeddingModel(covariance="empirical").fit(Z)
    far = Z[:5] * 1e100
    centred = far - model.location_
    expected = -0.5 * (
        4 * np.log(2 * np.pi)
        + np.linalg.slogdet(model.covariance_)[1]
        + np.einsum("ij,jk,ik->i", centred, model.precision_, centred)
    )
    np.testing.assert_allclose(model.score_samples(far), expected, rtol=1e-10)


def test_shrinkage_over_features_of_many_scales_warns():
    # Raw breast cancer: variances spanning 4.6e10 made Ledoit-Wolf's density
    # score -117.9 held out against EmpiricalCovariance's 29.4, silently.
    from sklearn.datasets import load_breast_cancer

    X = load_breast_cancer().data
    with pytest.warns(UserWarning, match="variances span a factor"):
        GaussianEmbeddingModel().fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GaussianEmbeddingModel().fit(StandardScaler().fit_transform(X))
        GaussianEmbeddingModel(covariance="empirical").fit(X)


def test_the_variance_warning_is_given_on_dask_input_too():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 3)) * np.array([1e-3, 1.0, 1e3])
    with pytest.warns(UserWarning, match="variances span a factor"):
        GaussianEmbeddingModel().fit(da.from_array(X, chunks=100))
