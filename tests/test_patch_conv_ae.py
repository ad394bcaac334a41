"""Tests of PatchConvAEDetector and make_patch_anomalies."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.decomposition import TruncatedSVD
from sklearn.metrics import roc_auc_score

from sklearn_iclr import PatchConvAEDetector
from sklearn_iclr.datasets import make_patch_anomalies
from sklearn_iclr.testing.strategies import patch_data


def auroc(normal_scores, anomaly_scores):
    """AUROC of ``score_samples`` with the normal samples as positives."""
    labels = np.r_[np.ones(len(normal_scores)), np.zeros(len(anomaly_scores))]
    return roc_auc_score(labels, np.r_[normal_scores, anomaly_scores])


# ---------------------------------------------------------------- generator


# ---------------------------------------------------------------- the claim


@pytest.fixture(scope="module")
def synthetic():
    data = make_patch_anomalies(n_train=100, n_test=100, random_state=0)
    detector = PatchConvAEDetector(n_kernels=28, max_epochs=300, random_state=0)
    return data, detector.fit(data.X_train)


@pytest.mark.slow
def test_detects_non_semantic_anomalies_better_than_semantic(synthetic):
    data, detector = synthetic
    normal = detector.score_samples(data.X_normal)
    non_semantic = detector.score_samples(data.X_non_semantic)
    semantic = detector.score_samples(data.X_semantic)
    # The thresholds (P=20, d=24, C=28, 10 always-present features).
    assert auroc(normal, non_semantic) >= 0.95
    assert non_semantic.mean() <= 3 * normal.mean()  # scores are -errors
    # Semantic anomalies only swap 4 always-present patches for known
    # features: their error grows by < 4 (the missing reconstructions),
    # against ~4 * 24 for the random patches (5 seeds: ratio 1.6-1.7 vs 16-18).
    assert semantic.mean() > 2 * normal.mean()
    assert auroc(normal, semantic) < auroc(normal, non_semantic)


@pytest.mark.slow
def test_kernels_absorb_every_always_present_feature(synthetic):
    data, detector = synthetic
    alignment = detector.kernel_alignment(data.features[data.always_present])
    assert alignment.min() >= 0.9


@pytest.mark.slow
def test_absorbed_features_only_grow_during_training():
    """Theorem 1: once a kernel sits in the cone of an always-present feature,
    it stays there, so the set of absorbed features (cosine >= 0.9) only grows.

    Only the always-present features: with 60 samples, the kernel of the rare
    occasional feature 14 (frequency 0.046) drifts from 0.93 to 0.83 here.
    """
    data = make_patch_anomalies(n_train=60, n_test=1, random_state=1)
    detector = PatchConvAEDetector(n_kernels=28, random_state=1)
    absorbed_per_epoch = []
    for _ in range(250):
        detector.partial_fit(data.X_train)
        alignment = detector.kernel_alignment(data.features[data.always_present])
        absorbed_per_epoch.append(set(np.flatnonzero(alignment >= 0.9)))
    for before, after in itertools.pairwise(absorbed_per_epoch):
        assert before <= after
    # Not vacuous: the set went from empty to most always-present features.
    assert absorbed_per_epoch[0] == set()
    assert len(absorbed_per_epoch[-1]) >= 8


# ---------------------------------------------------------------- oracle


def test_single_kernel_on_single_patches_finds_the_top_singular_vector():
    """One kernel, one patch per row: x_hat = sigma(w.x) w is (up to the tiny
    smoothing of sigma) a rank-one tied linear autoencoder, whose minimiser is
    the top right singular vector of X (Eckart-Young), found by sklearn's
    TruncatedSVD (uncentred)."""
    rng = np.random.RandomState(0)
    X = np.abs(rng.standard_normal((200, 5))) * [3.0, 2.0, 1.0, 1.0, 0.5] + 1.0
    detector = PatchConvAEDetector(n_kernels=1, max_epochs=400, random_state=0)
    kernel = detector.fit(X).kernels_[0]
    top = TruncatedSVD(n_components=1, algorithm="arpack").fit(X).components_[0]
    cosine = abs(kernel @ top) / np.linalg.norm(kernel)
    # The smoothing width (1% of the RMS norm) moves the optimum by O(1e-2)
    # of the norm: 0.9999 measured; 0.999 leaves room.
    assert cosine > 0.999
    # The optimal tied rank-one map w w^T is a projection: ||w|| = 1, up to
    # the smoothing shift sigma(z) = z - 0.005 (relative effect ~1e-2).
    assert np.linalg.norm(kernel) == pytest.approx(1.0, rel=0.02)


# ---------------------------------------------------------------- properties


@settings(max_examples=20, deadline=None)
@given(X=patch_data(), data=st.data())
def test_scores_do_not_depend_on_the_order_of_patches(X, data):
    detector = PatchConvAEDetector(max_epochs=20, random_state=0).fit(X)
    order = data.draw(st.permutations(range(X.shape[1])))
    assert_allclose(
        detector.score_samples(X[:, order]), detector.score_samples(X), rtol=1e-10
    )


@settings(max_examples=15, deadline=None)
@given(X=patch_data(), exponent=st.integers(-6, 6))
def test_rescaling_the_data_keeps_kernels_and_rescales_scores(X, exponent):
    factor = 2.0**exponent  # a power of 2 keeps every float operation exact
    detector = PatchConvAEDetector(max_epochs=20, random_state=0).fit(X)
    scaled = PatchConvAEDetector(max_epochs=20, random_state=0).fit(factor * X)
    assert_allclose(scaled.kernels_, detector.kernels_, rtol=1e-12)
    assert_allclose(
        scaled.score_samples(factor * X),
        factor**2 * detector.score_samples(X),
        rtol=1e-9,
        atol=1e-12 * factor**2,
    )


def test_fit_equals_repeated_partial_fit():
    X = make_patch_anomalies(n_train=40, n_test=1, random_state=0).X_train
    fitted = PatchConvAEDetector(max_epochs=30, random_state=3).fit(X)
    stepped = PatchConvAEDetector(random_state=3)
    for _ in range(30):
        stepped.partial_fit(X)
    assert stepped.n_iter_ == fitted.n_iter_ == 30
    assert_allclose(stepped.kernels_, fitted.kernels_, rtol=1e-6)
    assert_allclose(stepped.loss_curve_, fitted.loss_curve_, rtol=1e-6)


def test_reconstruction_follows_the_decoder_formula():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((6, 4, 3))
    detector = PatchConvAEDetector(n_kernels=5, max_epochs=50, random_state=0).fit(X)
    X_hat = detector.reconstruct(X)
    expected = np.zeros_like(X)
    W, width = detector.kernels_, 0.01
    for n in range(len(X)):
        for w in W:
            responses = X[n] / detector.x_scale_ @ w
            i = np.argmax(responses)
            z = responses[i]
            sigma = (
                0.0 if z <= 0 else (z * z / (2 * width) if z < width else z - width / 2)
            )
            expected[n, i] += sigma * w * detector.x_scale_
    assert_allclose(X_hat, expected, rtol=1e-9, atol=1e-12)
    errors = ((X - X_hat) ** 2).sum(axis=(1, 2))
    assert_allclose(detector.score_samples(X), -errors, rtol=1e-9)


# ---------------------------------------------------------------- API


def test_two_dimensional_inputs_are_cut_into_patches():
    rng = np.random.RandomState(0)
    images = rng.uniform(size=(10, 64))
    blocks = PatchConvAEDetector(patch_shape=(4, 4), max_epochs=3).fit(images)
    assert (blocks.n_patches_, blocks.patch_dim_, blocks.n_features_in_) == (4, 16, 64)
    X_hat = blocks.reconstruct(images)
    assert X_hat.shape == (10, 4, 16)
    windows = PatchConvAEDetector(patch_shape=8, max_epochs=3).fit(images)
    assert (windows.n_patches_, windows.patch_dim_) == (8, 8)
    rows = PatchConvAEDetector(max_epochs=3).fit(images)
    assert (rows.n_patches_, rows.patch_dim_) == (1, 64)
    # Cutting by hand and passing 3-D gives the same model.
    cut = images.reshape(10, 2, 4, 2, 4).transpose(0, 1, 3, 2, 4).reshape(10, 4, 16)
    by_hand = PatchConvAEDetector(max_epochs=3, random_state=0).fit(cut)
    by_shape = PatchConvAEDetector(patch_shape=(4, 4), max_epochs=3, random_state=0)
    assert_allclose(by_shape.fit(images).kernels_, by_hand.kernels_)
    assert_allclose(by_shape.score_samples(images), by_hand.score_samples(cut))


def test_predict_flags_the_contamination_fraction_of_training_data():
    X = make_patch_anomalies(n_train=200, n_test=1, random_state=0).X_train
    detector = PatchConvAEDetector(contamination=0.1, max_epochs=50, random_state=0)
    labels = detector.fit_predict(X)
    assert set(np.unique(labels)) == {-1, 1}
    assert np.mean(labels == -1) == pytest.approx(0.1, abs=0.01)
    assert_allclose(
        detector.decision_function(X), detector.score_samples(X) - detector.offset_
    )


def test_random_state_determinism_and_pickle():
    X = make_patch_anomalies(n_train=40, n_test=1, random_state=0).X_train
    first = PatchConvAEDetector(max_epochs=20, random_state=7).fit(X)
    second = PatchConvAEDetector(max_epochs=20, random_state=7).fit(X)
    other = PatchConvAEDetector(max_epochs=20, random_state=8).fit(X)
    assert_array_equal(first.kernels_, second.kernels_)
    assert not np.allclose(first.kernels_, other.kernels_)
    restored = pickle.loads(pickle.dumps(first))
    assert isinstance(restored.kernels_, np.ndarray)
    assert_array_equal(restored.score_samples(X), first.score_samples(X))


def test_fit_leaves_the_global_torch_random_state_alone():
    import torch

    X = make_patch_anomalies(n_train=10, n_test=1, random_state=0).X_train
    before = torch.random.get_rng_state()
    PatchConvAEDetector(max_epochs=2, random_state=0).fit(X)
    assert torch.equal(torch.random.get_rng_state(), before)


def test_pandas_input_with_patch_shape():
    rng = np.random.RandomState(0)
    frame = pd.DataFrame(
        rng.uniform(size=(12, 16)), columns=[f"p{i}" for i in range(16)]
    )
    params = dict(patch_shape=(2, 2), max_epochs=5, random_state=0)
    detector = PatchConvAEDetector(**params).fit(frame)
    assert list(detector.feature_names_in_) == list(frame.columns)
    on_array = PatchConvAEDetector(**params).fit(frame.to_numpy())
    assert_allclose(
        detector.score_samples(frame), on_array.score_samples(frame.to_numpy())
    )


def test_verbose_reports_the_loss(capsys):
    X = make_patch_anomalies(n_train=10, n_test=1, random_state=0).X_train
    PatchConvAEDetector(max_epochs=20, verbose=1).fit(X)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10
    assert lines[0].startswith("PatchConvAEDetector: epoch 1, loss ")


# ---------------------------------------------------------------- bad input


def test_nan_is_rejected():
    X = np.ones((5, 3, 2))
    X[2, 1, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PatchConvAEDetector().fit(X)
    with pytest.raises(ValueError, match="NaN"):
        PatchConvAEDetector().fit(X.reshape(5, 6))


def test_patch_shape_must_divide_the_features():
    X = np.ones((4, 10))
    with pytest.raises(ValueError, match="patch_shape=3 does not divide the 10"):
        PatchConvAEDetector(patch_shape=3).fit(X)
    with pytest.raises(ValueError, match="square images"):
        PatchConvAEDetector(patch_shape=(2, 2)).fit(X)
    with pytest.raises(ValueError, match="square images"):
        PatchConvAEDetector(patch_shape=(3, 3)).fit(np.ones((4, 16)))
    with pytest.raises(ValueError, match="pair of positive ints"):
        PatchConvAEDetector(patch_shape=(2, 2, 2)).fit(np.ones((4, 16)))
    with pytest.raises(ValueError, match="but X is 3-D"):
        PatchConvAEDetector(patch_shape=2).fit(np.ones((4, 2, 2)))


@pytest.mark.parametrize("contamination", [0.0, -0.1, 0.6])
def test_contamination_outside_the_range_is_rejected(contamination):
    with pytest.raises(ValueError, match="contamination"):
        PatchConvAEDetector(contamination=contamination).fit(np.ones((4, 2, 2)))


def test_layout_mismatch_and_bad_features_are_rejected():
    detector = PatchConvAEDetector(max_epochs=2).fit(np.ones((4, 3, 2)))
    with pytest.raises(ValueError, match="fitted on 3 patches of dimension 2"):
        detector.score_samples(np.ones((4, 2, 3)))
    with pytest.raises(ValueError, match=r"shape \(n_directions, 2\)"):
        detector.kernel_alignment(np.ones((3, 3)))
    with pytest.raises(ValueError, match="zero vector"):
        detector.kernel_alignment(np.zeros((1, 2)))


def test_divergence_is_reported():
    X = make_patch_anomalies(n_train=20, n_test=1, random_state=0).X_train
    with pytest.raises(ValueError, match="lower learning_rate"):
        PatchConvAEDetector(learning_rate=1e3, max_epochs=200).fit(X)


# ------------------------------------------------------- issue #25 regressions


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-160, 1e-300])
def test_magnitudes_outside_float_range_are_refused_naming_them(scale):
    X = np.random.RandomState(0).normal(size=(40, 16)) * scale
    with pytest.raises(ValueError, match=r"magnitude at most \d.*e[+-]\d+"):
        PatchConvAEDetector(max_epochs=2, random_state=0).fit(X)


def test_empty_three_dimensional_input_says_zero_samples():
    # It ended in a reshape error.
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        PatchConvAEDetector().fit(np.zeros((0, 3, 4)))
