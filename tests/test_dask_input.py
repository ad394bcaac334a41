"""Dask input for the sufficient-statistic estimators (issue #28).

The four estimators fit on ``dask.array`` input blockwise and agree with the
in-memory fit up to floating-point rounding (the replicable ones: bit for bit
after rounding, for these seeds); predictions on Dask input stay lazy. The
tests marked ``slow`` run on a real ``LocalCluster`` (2 worker processes, and
1) and check that the package's joblib users run there unchanged.
"""

import subprocess
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from sklearn_iclr import ReplicableCovariance, ReplicableLinearRegressor  # noqa: E402
from sklearn_iclr.covariance import GaussianEmbeddingModel  # noqa: E402
from sklearn_iclr.rl import LSTDQEvaluator  # noqa: E402

# These tests compare dask and numpy fits on a few thousand rows, where
# ReplicableCovariance rightly warns that its matrix is far from the population
# one (tests/test_replicable_covariance.py tests that warning).
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*off the population matrix:UserWarning"
)

N_SAMPLES = 6400
CHUNKINGS = (1, 7, 64)


def _chunked(values, n_chunks):
    rows = -(-len(values) // n_chunks)
    chunks = (rows,) + values.shape[1:]
    return da.from_array(values, chunks=chunks)


def _transitions(seed=0, n=N_SAMPLES, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X_next = 0.5 * X + rng.normal(scale=0.5, size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    X_init = rng.normal(size=(50, d))
    return X, y, X_next, X_init


def _regression(seed=0, n=N_SAMPLES, d=4):
    rng = np.random.default_rng(seed)
    X = rng.standard_t(6, size=(n, d)) + [0.0, 1.0, -2.0, 0.5][:d]
    y = X @ [1.0, -0.5, 0.25, 2.0][:d] + rng.normal(size=n) * (1 + np.abs(X[:, 0]))
    return X, y


def _embeddings(seed=0, n=N_SAMPLES, d=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) @ rng.normal(size=(d, d)) + 1.0


def _assert_close(dask_value, numpy_value, rtol=1e-10):
    scale = np.max(np.abs(numpy_value))
    np.testing.assert_allclose(dask_value, numpy_value, rtol=0, atol=rtol * scale)


# --- numpy input never imports dask ------------------------------------------


def test_numpy_input_never_imports_dask():
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        import sklearn_iclr
        from sklearn_iclr import ReplicableCovariance, ReplicableLinearRegressor
        from sklearn_iclr.covariance import GaussianEmbeddingModel
        from sklearn_iclr.rl import LSTDQEvaluator
        rng = np.random.default_rng(0)
        X = rng.normal(size=(500, 3))
        y = X @ [1.0, 2.0, 3.0] + rng.normal(size=500)
        LSTDQEvaluator(gamma=0.5).fit(X, y, X_next=0.5 * X).predict(X)
        ReplicableLinearRegressor(rho=0.5, random_state=0).fit(X, y).predict(X)
        ReplicableCovariance(rho=0.5, random_state=0).fit(X)
        GaussianEmbeddingModel().fit(X).transform(X)
        loaded = sorted(m for m in sys.modules if m.split(".")[0] == "dask")
        print(loaded)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# --- same statistics as the in-memory fit ------------------------------------


@pytest.mark.parametrize("n_chunks", CHUNKINGS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_lstdq_dask_matches_numpy(n_chunks, fit_intercept):
    X, y, X_next, X_init = _transitions()
    sw = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    params = {"gamma": 0.8, "alpha": 0.1, "fit_intercept": fit_intercept}
    ref = LSTDQEvaluator(**params).fit(X, y, X_next=X_next, sample_weight=sw)
    est = LSTDQEvaluator(**params).fit(
        _chunked(X, n_chunks),
        _chunked(y, n_chunks),
        X_next=_chunked(X_next, n_chunks),
        sample_weight=_chunked(sw, n_chunks),
    )
    for name in ("lstdq_matrix_", "b_", "second_moment_", "coef_"):
        _assert_close(getattr(est, name), getattr(ref, name))
    assert est.n_samples_seen_ == ref.n_samples_seen_
    np.testing.assert_allclose(
        est.estimate_value(X_init, return_std=True),
        ref.estimate_value(X_init, return_std=True),
        rtol=1e-10,
    )
    # score blockwise (one pass, no vector of n values to the client).
    score = est.score(
        _chunked(X, n_chunks),
        _chunked(y, n_chunks),
        X_next=_chunked(X_next, n_chunks),
        sample_weight=_chunked(sw, n_chunks),
    )
    assert score == pytest.approx(
        ref.score(X, y, X_next=X_next, sample_weight=sw), rel=1e-9
    )
    # X_init as a Dask array too.
    assert est.estimate_value(_chunked(X_init, 3)) == pytest.approx(
        ref.estimate_value(X_init), rel=1e-12
    )


def test_lstdq_dask_fit_without_standard_error_reads_the_data_once(monkeypatch):
    # Issue #42: compute_standard_error=False makes the Dask fit one pass
    # over the blocks (an out-of-core source is read once, not twice).
    import dask

    X, y, X_next, X_init = _transitions()
    arrays = [_chunked(a, 7) for a in (X, y, X_next)]
    passes = []
    compute = dask.compute

    def counted(*args, **kwargs):
        passes.append(1)
        return compute(*args, **kwargs)

    monkeypatch.setattr(dask, "compute", counted)
    full = LSTDQEvaluator(gamma=0.8).fit(arrays[0], arrays[1], X_next=arrays[2])
    assert len(passes) == 2
    one_pass = LSTDQEvaluator(gamma=0.8, compute_standard_error=False)
    one_pass.fit(arrays[0], arrays[1], X_next=arrays[2])
    assert len(passes) == 3
    np.testing.assert_array_equal(one_pass.coef_, full.coef_)
    one_pass.accumulate_residuals(arrays[0], arrays[1], X_next=arrays[2])
    assert one_pass.estimate_value(X_init, return_std=True) == (
        full.estimate_value(X_init, return_std=True)
    )


def test_lstdq_accumulate_residuals_checks_its_blocks():
    # fit's own residual pass skips the NaN check its first pass made on the
    # same arrays; accumulate_residuals receives new arrays and checks them.
    X, y, X_next, _ = _transitions()
    est = LSTDQEvaluator(gamma=0.8, compute_standard_error=False)
    est.fit(_chunked(X, 7), _chunked(y, 7), X_next=_chunked(X_next, 7))
    X_next = X_next.copy()
    X_next[-1, 0] = np.inf
    with pytest.raises(ValueError, match="X_next contains NaN or infinity in block 6"):
        est.accumulate_residuals(
            _chunked(X, 7), _chunked(y, 7), X_next=_chunked(X_next, 7)
        )


@pytest.mark.parametrize("n_chunks", CHUNKINGS)
@pytest.mark.parametrize("basis", ["scaled", "standardized"])
def test_replicable_ridge_dask_matches_numpy(n_chunks, basis):
    X, y = _regression()
    params = {"rho": 0.3, "basis": basis, "random_state": 3}
    ref = ReplicableLinearRegressor(**params).fit(X, y)
    est = ReplicableLinearRegressor(**params).fit(
        _chunked(X, n_chunks), _chunked(y, n_chunks)
    )
    _assert_close(est.coef_unrounded_, ref.coef_unrounded_)
    _assert_close(est.coef_stderr_, ref.coef_stderr_)
    assert est.basis_ == ref.basis_
    # The rounding absorbs the summation-order noise: identical bits.
    assert np.array_equal(est.coef_, ref.coef_)
    assert est.intercept_ == ref.intercept_
    assert est.grid_width_ == ref.grid_width_
    # The bound differs only through the histogram estimate of the robust
    # residual scale (see _replicable_ridge_dask).
    assert est.disagreement_bound_ == pytest.approx(ref.disagreement_bound_, abs=1e-4)


@pytest.mark.parametrize("n_chunks", CHUNKINGS)
@pytest.mark.parametrize("assume_centered", [True, False])
def test_replicable_covariance_dask_matches_numpy(n_chunks, assume_centered):
    X = _embeddings()
    params = {"rho": 0.2, "assume_centered": assume_centered, "random_state": 5}
    ref = ReplicableCovariance(**params).fit(X)
    est = ReplicableCovariance(**params).fit(_chunked(X, n_chunks))
    _assert_close(est.covariance_unrounded_, ref.covariance_unrounded_)
    assert np.array_equal(est.covariance_, ref.covariance_)
    assert np.array_equal(est.location_, ref.location_)
    assert est.grid_width_ == ref.grid_width_
    assert est.disagreement_bound_ == pytest.approx(ref.disagreement_bound_, abs=1e-9)


@pytest.mark.parametrize("n_chunks", CHUNKINGS)
@pytest.mark.parametrize("covariance", ["empirical", "ledoit_wolf", "oas"])
@pytest.mark.parametrize("normalize", [None, "l2"])
def test_gaussian_embedding_dask_matches_numpy(n_chunks, covariance, normalize):
    X = _embeddings()
    ref = GaussianEmbeddingModel(covariance, normalize=normalize).fit(X)
    est = GaussianEmbeddingModel(covariance, normalize=normalize).fit(
        _chunked(X, n_chunks)
    )
    _assert_close(est.location_, ref.location_)
    _assert_close(est.covariance_, ref.covariance_)
    shrinkage = getattr(ref.covariance_estimator_, "shrinkage_", None)
    if shrinkage is not None:
        assert est.covariance_estimator_.shrinkage_ == pytest.approx(
            shrinkage, rel=1e-10
        )


def test_gaussian_embedding_dask_refuses_estimator_objects():
    from sklearn.covariance import MinCovDet

    X = _chunked(_embeddings(n=200), 4)
    with pytest.raises(ValueError, match="estimator object"):
        GaussianEmbeddingModel(MinCovDet()).fit(X)


# --- lazy, blockwise predictions ----------------------------------------------


def test_predictions_are_lazy_and_equal_numpy():
    X, y, X_next, _ = _transitions()
    Xd = _chunked(X, 7)
    lstdq = LSTDQEvaluator(gamma=0.5).fit(X, y, X_next=X_next)
    ridge = ReplicableLinearRegressor(rho=0.3, random_state=0).fit(X, y)
    model = GaussianEmbeddingModel().fit(X)
    outputs = {
        "lstdq": (lstdq.predict(Xd), lstdq.predict(X)),
        "ridge": (ridge.predict(Xd), ridge.predict(X)),
        "score_samples": (model.score_samples(Xd), model.score_samples(X)),
        "transform": (model.transform(Xd), model.transform(X)),
    }
    for name, (lazy, eager) in outputs.items():
        assert isinstance(lazy, da.Array), name
        assert lazy.chunks[0] == Xd.chunks[0], name
        np.testing.assert_allclose(lazy.compute(), eager, rtol=1e-12, err_msg=name)


def test_lazy_prediction_names_non_finite_block():
    X, y, X_next, _ = _transitions()
    est = LSTDQEvaluator(gamma=0.5).fit(X, y, X_next=X_next)
    bad = X.copy()
    bad[5000, 1] = np.inf
    lazy = est.predict(_chunked(bad, 7))
    # The rows too, as the fit's message gives them (6400 rows in 7 blocks).
    with pytest.raises(ValueError, match=r"block 5 of 7 \(rows 4575 to 5489\)"):
        lazy.compute()


# --- bad input -----------------------------------------------------------------


class _CountingBlocks:
    """A Dask array whose blocks count how often they are computed."""

    def __init__(self, values, n_chunks):
        self.lock = threading.Lock()
        self.calls = 0
        self.values = values
        base = _chunked(values, n_chunks)
        self.array = base.map_blocks(self._block, dtype=np.float64)
        self.n_blocks = base.numblocks[0]

    def _block(self, block):
        if block.size:  # (not the empty block Dask infers the output type from)
            with self.lock:
                self.calls += 1
        return block


@pytest.mark.parametrize(
    "make, fit",
    [
        (
            lambda: _transitions()[:2],
            lambda X, y: LSTDQEvaluator(gamma=0.0).fit(X, y),
        ),
        (_regression, lambda X, y: ReplicableLinearRegressor().fit(X, y)),
        (
            lambda: (_embeddings(), None),
            lambda X, y: ReplicableCovariance().fit(X),
        ),
        (
            lambda: (_embeddings(), None),
            lambda X, y: GaussianEmbeddingModel().fit(X),
        ),
    ],
    ids=["lstdq", "ridge", "covariance", "gaussian"],
)
def test_nan_block_is_named_after_one_pass(make, fit):
    X, y = make()
    X = X.copy()
    X[3 * 1000 + 17, 0] = np.nan  # in block 3 of 7 (blocks of 915 rows)
    counting = _CountingBlocks(X, 7)
    with dask.config.set(scheduler="threads"):
        with pytest.raises(ValueError, match=r"block 3 of 7 \(rows 2745 to 3659\)"):
            fit(counting.array, y)
    # One pass: every block computed once, none twice.
    assert counting.calls == counting.n_blocks


def test_finiteness_check_survives_an_overflowing_sum():
    # The blocks are checked by their sum first; a sum that overflows must not
    # be mistaken for a non-finite entry, nor hide one.
    from sklearn_iclr.utils._dask import _all_finite

    assert _all_finite(np.array([1e308, 1e308]))
    assert not _all_finite(np.array([1e308, np.nan]))
    assert not _all_finite(np.array([np.inf, -np.inf]))
    assert not _all_finite(np.array([1.0, -np.inf]))


def test_fit_passes_over_the_data():
    """LSTDQ reads every block twice: the sums, then the TD residuals."""
    X, y, X_next, _ = _transitions()
    counting = _CountingBlocks(X, 7)
    with dask.config.set(scheduler="threads"):
        LSTDQEvaluator(gamma=0.5).fit(counting.array, y, X_next=X_next)
    assert counting.calls == 2 * counting.n_blocks


def test_mismatched_chunks_are_rechunked():
    X, y, X_next, _ = _transitions()
    ref = LSTDQEvaluator(gamma=0.8).fit(X, y, X_next=X_next)
    est = LSTDQEvaluator(gamma=0.8).fit(
        _chunked(X, 7), _chunked(y, 3), X_next=_chunked(X_next, 64)
    )
    _assert_close(est.coef_, ref.coef_)
    # numpy y or X_next next to a Dask X are split along X's chunks.
    est = LSTDQEvaluator(gamma=0.8).fit(_chunked(X, 7), y, X_next=X_next)
    _assert_close(est.coef_, ref.coef_)


def test_mismatched_lengths_raise():
    X, y, X_next, _ = _transitions()
    with pytest.raises(ValueError, match="X_next has 6399 rows but X has 6400"):
        LSTDQEvaluator().fit(_chunked(X, 7), y, X_next=_chunked(X_next[:-1], 7))
    with pytest.raises(ValueError, match="y has 6399 rows"):
        ReplicableLinearRegressor().fit(_chunked(X, 7), _chunked(y[:-1], 7))
    with pytest.raises(ValueError, match="X_next has shape"):
        LSTDQEvaluator().fit(_chunked(X, 7), y, X_next=_chunked(X_next[:, :-1], 7))


def test_wrong_feature_count_and_unknown_chunks():
    X, y, X_next, _ = _transitions()
    est = LSTDQEvaluator().fit(_chunked(X, 7), y)
    with pytest.raises(ValueError, match="features"):
        est.predict(_chunked(X[:, :-1], 7))
    unknown = _chunked(X, 7)[_chunked(y, 7) > 0]
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        LSTDQEvaluator().fit(unknown, y[:100])


def test_negative_weight_refused():
    X, y = _regression()
    sw = np.ones(len(y))
    sw[10] = -1
    with pytest.raises(ValueError, match="Negative values"):
        ReplicableLinearRegressor().fit(_chunked(X, 7), y, sample_weight=sw)
    with pytest.raises(ValueError, match="Negative values"):
        LSTDQEvaluator().fit(_chunked(X, 7), y, sample_weight=sw)


def test_all_zero_weights_and_wrong_length_weights_are_named():
    X, y = _regression(n=400)
    zeros = da.zeros(len(y), chunks=50)
    for estimator in (ReplicableLinearRegressor(), LSTDQEvaluator()):
        with pytest.raises(ValueError, match="at least one non-zero"):
            estimator.fit(_chunked(X, 7), y, sample_weight=zeros)
        # A NumPy weight vector of the wrong length: our message, not dask's
        # "Chunks do not add up to shape".
        with pytest.raises(
            ValueError, match="sample_weight has 399 rows but X has 400"
        ):
            estimator.fit(_chunked(X, 7), y, sample_weight=np.ones(len(y) - 1))


# n=400 is too few samples for the replicable covariance's rho (it says so).
@pytest.mark.filterwarnings("ignore:At this sample size:UserWarning")
def test_empty_blocks_are_skipped():
    # Empty chunks (an empty partition of a dask.dataframe) used to reach the
    # block functions, whose max over no rows failed inside numpy.
    X = _embeddings(n=400)
    Xd = da.from_array(X, chunks=((0, 200, 0, 200), (X.shape[1],)))
    for make in (lambda: ReplicableCovariance(random_state=0), GaussianEmbeddingModel):
        fitted = make().fit(Xd)
        np.testing.assert_allclose(
            fitted.covariance_, make().fit(X).covariance_, rtol=1e-12, atol=1e-12
        )
    y = X[:, 0] + X[:, 1]
    _assert_close(LSTDQEvaluator().fit(Xd, y).coef_, LSTDQEvaluator().fit(X, y).coef_)


# The regression is too small for rho=0.5: both fits fall back to the mean.
@pytest.mark.filterwarnings(
    "ignore:ReplicableLinearRegressor.rho=0.5. at n:UserWarning"
)
def test_tiny_magnitudes_fit_without_overflow_warnings():
    X, y = _regression()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fitted = ReplicableLinearRegressor(rho=0.5, random_state=0).fit(
            _chunked(X * 1e-300, 7), y * 1e-300
        )
    reference = ReplicableLinearRegressor(rho=0.5, random_state=0)
    reference.fit(X * 1e-300, y * 1e-300)
    np.testing.assert_array_equal(fitted.coef_, reference.coef_)
    assert fitted.intercept_ == reference.intercept_


def test_dask_dataframe_input():
    dd = pytest.importorskip("dask.dataframe")  # needs pyarrow
    pd = pytest.importorskip("pandas")
    X, y = _regression()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    ddf = dd.from_pandas(frame, npartitions=7)
    ref = ReplicableLinearRegressor(rho=0.3, random_state=0).fit(frame, y)
    est = ReplicableLinearRegressor(rho=0.3, random_state=0).fit(
        ddf, dd.from_pandas(pd.Series(y), npartitions=7)
    )
    assert list(est.feature_names_in_) == ["a", "b", "c", "d"]
    assert np.array_equal(est.coef_, ref.coef_)
    model = GaussianEmbeddingModel().fit(ddf)
    _assert_close(model.covariance_, GaussianEmbeddingModel().fit(frame).covariance_)


# --- a real cluster ---------------------------------------------------------------


@pytest.fixture(scope="module")
def clusters():
    """LocalClusters of 2 and 1 worker processes (one thread each)."""
    distributed = pytest.importorskip("distributed")
    made = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n_workers in (2, 1):
            made[n_workers] = distributed.LocalCluster(
                n_workers=n_workers,
                processes=True,
                threads_per_worker=1,
                dashboard_address=None,
            )
    yield made
    for cluster in made.values():
        cluster.close()


def _on_cluster(cluster, fit):
    from distributed import Client

    with Client(cluster):
        return fit()


def _fitted_statistics(n_chunks):
    """The four estimators' statistics on Dask input with ``n_chunks``."""
    X, y, X_next, _ = _transitions()
    Xr, yr = _regression()
    E = _embeddings()
    lstdq = LSTDQEvaluator(gamma=0.8, alpha=0.1).fit(
        _chunked(X, n_chunks), _chunked(y, n_chunks), X_next=_chunked(X_next, n_chunks)
    )
    ridge = ReplicableLinearRegressor(rho=0.3, random_state=3).fit(
        _chunked(Xr, n_chunks), _chunked(yr, n_chunks)
    )
    cov = ReplicableCovariance(rho=0.2, random_state=5).fit(_chunked(E, n_chunks))
    gauss = GaussianEmbeddingModel().fit(_chunked(E, n_chunks))
    return {
        "lstdq": lstdq.lstdq_matrix_,
        "lstdq_coef": lstdq.coef_,
        "ridge_unrounded": ridge.coef_unrounded_,
        "ridge": np.append(ridge.coef_, ridge.intercept_),
        "covariance_unrounded": cov.covariance_unrounded_,
        "covariance": cov.covariance_,
        "gaussian": gauss.covariance_,
    }


@pytest.mark.slow
def test_four_estimators_on_local_clusters(clusters):
    X, y, X_next, _ = _transitions()
    Xr, yr = _regression()
    E = _embeddings()
    lstdq = LSTDQEvaluator(gamma=0.8, alpha=0.1).fit(X, y, X_next=X_next)
    ridge = ReplicableLinearRegressor(rho=0.3, random_state=3).fit(Xr, yr)
    cov = ReplicableCovariance(rho=0.2, random_state=5).fit(E)
    reference = {
        "lstdq": lstdq.lstdq_matrix_,
        "lstdq_coef": lstdq.coef_,
        "ridge_unrounded": ridge.coef_unrounded_,
        "ridge": np.append(ridge.coef_, ridge.intercept_),
        "covariance_unrounded": cov.covariance_unrounded_,
        "covariance": cov.covariance_,
        "gaussian": GaussianEmbeddingModel().fit(E).covariance_,
    }
    for n_chunks in CHUNKINGS:
        on_two = _on_cluster(clusters[2], lambda n=n_chunks: _fitted_statistics(n))
        on_one = _on_cluster(clusters[1], lambda n=n_chunks: _fitted_statistics(n))
        for name, value in reference.items():
            _assert_close(on_two[name], value)
            # One chunking: the same graph, so the same bits on any cluster.
            assert np.array_equal(on_one[name], on_two[name]), (name, n_chunks)
        # The rounded outputs equal the in-memory fit's.
        assert np.array_equal(on_two["ridge"], reference["ridge"])
        assert np.array_equal(on_two["covariance"], reference["covariance"])


def _sampler(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2000, 3))
    return X, X @ [1.0, 0.0, -1.0] + rng.normal(size=2000)


@pytest.mark.slow
def test_replicability_rate_and_ice_run_on_a_client(clusters):
    import joblib

    from sklearn_iclr.linear_model import ICEClassifier
    from sklearn_iclr.metrics import replicability_rate

    estimator = ReplicableLinearRegressor(rho=0.2)
    local = replicability_rate(estimator, _sampler, n_pairs=16, random_state=0)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(int)
    ice_local = ICEClassifier().fit(X, y)

    def on_client():
        with joblib.parallel_config(backend="dask"):
            rate = replicability_rate(
                estimator, _sampler, n_pairs=16, random_state=0, n_jobs=2
            )
            ice = ICEClassifier(n_jobs=2).fit(X, y)
        return rate, ice

    rate, ice = _on_cluster(clusters[2], on_client)
    assert rate == local
    assert ice.n_errors_ == ice_local.n_errors_
    np.testing.assert_array_equal(ice.predict(X), ice_local.predict(X))


# --- nothing of size n reaches the client ---------------------------------------


def _forbid_gathering(monkeypatch, n_rows):
    """Make every computation that returns an array of ``n_rows`` values fail.

    ``dask.compute`` (what ``reduce_blocks`` calls) and ``dask.base.compute``
    (what ``Array.compute`` and ``np.asarray(dask_array)`` call) are wrapped:
    a result holding an array of ``n_rows`` or more values, a vector of the
    samples' size, is the gathering the blockwise statistics avoid.
    """
    import dask.base

    original = dask.base.compute

    def sizes(value):
        if isinstance(value, np.ndarray):
            yield value.size
        elif isinstance(value, dict):
            for item in value.values():
                yield from sizes(item)
        elif isinstance(value, list | tuple):
            for item in value:
                yield from sizes(item)

    def compute(*args, **kwargs):
        results = original(*args, **kwargs)
        largest = max(sizes(results), default=0)
        if largest >= n_rows:
            raise AssertionError(f"{largest} values gathered to the client")
        return results

    monkeypatch.setattr(dask.base, "compute", compute)
    monkeypatch.setattr(dask, "compute", compute)


@pytest.mark.parametrize(
    "operation",
    [
        "lstdq_fit",
        "lstdq_score",
        "lstdq_value",
        "ridge_fit",
        "ridge_score",
        "covariance_fit",
        "covariance_score",
    ],
)
def test_fit_and_score_never_gather_the_samples(operation, monkeypatch):
    # Issue #42: the ridge's and the covariance's score on Dask arrays
    # computed predict(X) (n values) on the client; every operation below
    # returns one number or d x d statistics from blockwise sums.
    # More rows than any fixed-size statistic (the ridge's residual histogram
    # has 16384 bins).
    n = 40_000
    X, y, X_next, X_init = _transitions(n=n)
    Xr, yr = _regression(n=n)
    E = _embeddings(n=n)
    fitted = {
        "lstdq": LSTDQEvaluator(gamma=0.8).fit(X, y, X_next=X_next),
        "ridge": ReplicableLinearRegressor(rho=0.3, random_state=0).fit(Xr, yr),
        "covariance": ReplicableCovariance(rho=0.3, random_state=0).fit(E),
    }
    Xd, yd, X_next_d = (_chunked(a, 7) for a in (X, y, X_next))
    Xrd, yrd, Ed = _chunked(Xr, 7), _chunked(yr, 7), _chunked(E, 7)
    X_init_d = _chunked(np.repeat(X_init, 200, axis=0), 7)
    calls = {
        "lstdq_fit": lambda: LSTDQEvaluator(gamma=0.8).fit(Xd, yd, X_next=X_next_d),
        "lstdq_score": lambda: fitted["lstdq"].score(Xd, yd, X_next=X_next_d),
        "lstdq_value": lambda: fitted["lstdq"].estimate_value(X_init_d),
        "ridge_fit": lambda: ReplicableLinearRegressor(rho=0.3).fit(Xrd, yrd),
        "ridge_score": lambda: fitted["ridge"].score(Xrd, yrd),
        "covariance_fit": lambda: ReplicableCovariance(rho=0.3).fit(Ed),
        "covariance_score": lambda: fitted["covariance"].score(Ed),
    }
    expected = {
        "lstdq_score": lambda: fitted["lstdq"].score(X, y, X_next=X_next),
        "ridge_score": lambda: fitted["ridge"].score(Xr, yr),
        "covariance_score": lambda: fitted["covariance"].score(E),
    }.get(operation)
    reference = None if expected is None else expected()
    _forbid_gathering(monkeypatch, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        result = calls[operation]()
    if reference is not None:
        assert result == pytest.approx(reference, rel=1e-9)


def test_the_gathering_guard_catches_a_gather(monkeypatch):
    # The guard itself: computing predict(X) to numpy is a gather.
    X, y = _regression()
    est = ReplicableLinearRegressor(rho=0.3, random_state=0).fit(X, y)
    lazy = est.predict(_chunked(X, 7))
    _forbid_gathering(monkeypatch, len(X))
    with pytest.raises(AssertionError, match="gathered to the client"):
        np.asarray(lazy)
