"""BReLUAttentionEncoder: the contrastive encoder of Liao et al. (ICLR 2026)."""

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.preprocessing import StandardScaler

from sklearn_iclr.contrastive import BReLUAttentionEncoder, neuron_alignment
from sklearn_iclr.contrastive import _brelu_attention as brelu_module
from sklearn_iclr.contrastive._brelu_attention import infonce_stopgrad_loss
from sklearn_iclr.contrastive._brelu_kernel import brelu
from sklearn_iclr.datasets import make_sparse_coding_pairs

SMALL = dict(n_neurons=8, max_epochs=3, batch_size=32, init_scale=0.3, brelu_bias=0.02)


@pytest.fixture(scope="module")
def pairs():
    return make_sparse_coding_pairs(
        120, n_tokens=3, n_features=10, n_majority=2, n_minority=2, random_state=0
    )


def _problem(seed, n=6, L=3, d=4, m=5):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((n, L, d)),
        rng.standard_normal((n, L, d)),
        0.5 * rng.standard_normal((d, d)),
        rng.standard_normal((m, d)),
    )


# --- BReLU closed form -------------------------------------------------------


@given(
    st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=20),
    st.floats(0, 1e3),
)
def test_brelu_matches_relu_definition(values, bias):
    s = np.array(values)
    expected = np.maximum(s - bias, 0) - np.maximum(-s - bias, 0)
    np.testing.assert_allclose(brelu(s, bias), expected, rtol=1e-12, atol=1e-9)
    np.testing.assert_array_equal(brelu(-s, bias), -brelu(s, bias))
    assert np.all(brelu(s, bias)[np.abs(s) <= bias] == 0)


# --- Oracles: gradients ------------------------------------------------------


@pytest.mark.parametrize("keep", [None, np.array([True, False, True, True, False])])
def test_gradient_matches_torch_autograd(keep):
    torch = pytest.importorskip("torch")
    anchors, positives, attention, weights = _problem(0)
    bias, tau, alpha = 0.3, 0.7, 0.05
    loss, g_att, g_w = infonce_stopgrad_loss(
        np.stack((anchors, positives)),
        attention,
        weights,
        bias=bias,
        temperature=tau,
        alpha=alpha,
        keep=keep,
    )
    A = torch.tensor(attention, requires_grad=True)
    W = torch.tensor(weights, requires_grad=True)
    mask = (
        torch.ones(5, dtype=torch.float64)
        if keep is None
        else torch.tensor(keep, dtype=torch.float64)
    )

    def encode(tokens):
        T = torch.tensor(tokens)
        probs = torch.softmax(T @ A @ T.transpose(1, 2), dim=-1)
        pre = (probs @ T) @ W.T
        return (torch.relu(pre - bias) - torch.relu(-pre - bias)).sum(dim=1)

    h = encode(anchors)
    # Straight-through mask: masked in the forward value, identity gradient.
    h_masked = h + (h * mask - h).detach()
    targets = encode(positives).detach() * mask
    logits = h_masked @ targets.T / tau
    torch_loss = -torch.diagonal(torch.log_softmax(logits, dim=1)).mean()
    torch_loss = torch_loss + 0.5 * alpha * (A.pow(2).sum() + W.pow(2).sum())
    if keep is not None:
        # The straight-through gradient of a masked neuron is the one it gets
        # with unmasked targets; the autograd graph above gives exactly that
        # for kept neurons only, so compare those rows and the loss.
        torch_loss.backward()
        np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-12)
        np.testing.assert_allclose(g_w[keep], W.grad.numpy()[keep], rtol=1e-9)
        return
    torch_loss.backward()
    np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-12)
    np.testing.assert_allclose(g_att, A.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(g_w, W.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_gradient_matches_finite_differences():
    anchors, positives, attention, weights = _problem(1)
    kw = dict(bias=0.2, temperature=0.5, alpha=0.01)

    def loss_at(A, W):
        # Stop-gradient: the targets stay at the unperturbed parameters.
        from sklearn_iclr.contrastive._brelu_attention import _forward

        h, _ = _forward(anchors, A, W, kw["bias"])
        t, _ = _forward(positives, attention, weights, kw["bias"])
        logits = h @ t.T / kw["temperature"]
        logits -= logits.max(axis=1, keepdims=True)
        log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        return -np.trace(log_p) / len(h) + 0.5 * kw["alpha"] * (
            np.sum(A**2) + np.sum(W**2)
        )

    views = np.stack((anchors, positives))
    _, g_att, g_w = infonce_stopgrad_loss(views, attention, weights, **kw)
    step = 1e-6
    rng = np.random.default_rng(0)
    for _ in range(8):
        dA, dW = (
            rng.standard_normal(attention.shape),
            rng.standard_normal(weights.shape),
        )
        numeric = (
            loss_at(attention + step * dA, weights + step * dW)
            - loss_at(attention - step * dA, weights - step * dW)
        ) / (2 * step)
        analytic = np.sum(g_att * dA) + np.sum(g_w * dW)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-8)


# --- Properties --------------------------------------------------------------


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**16), st.permutations(range(3)))
def test_transform_is_odd_and_token_permutation_invariant(pairs, seed, perm):
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(random_state=seed, **SMALL).fit(X, X_positive=X_pos)
    Z = encoder.transform(X)
    # Scores x_r^T A x_l are even in X, the mixture odd, BReLU odd.
    np.testing.assert_allclose(encoder.transform(-X), -Z, atol=1e-12)
    # Attention then a sum over tokens: the order of the tokens is irrelevant.
    np.testing.assert_allclose(encoder.transform(X[:, list(perm)]), Z, atol=1e-12)


def test_same_seed_same_model_and_2d_fallback(pairs):
    X, X_pos = pairs[0], pairs[1]
    first = BReLUAttentionEncoder(random_state=3, **SMALL).fit(X, X_positive=X_pos)
    again = clone(first).fit(X, X_positive=X_pos)
    np.testing.assert_array_equal(first.neuron_weights_, again.neuron_weights_)
    flat = BReLUAttentionEncoder(random_state=3, token_dim=10, **SMALL).fit(
        X.reshape(len(X), -1), X_positive=X_pos.reshape(len(X), -1)
    )
    np.testing.assert_allclose(flat.neuron_weights_, first.neuron_weights_)
    np.testing.assert_allclose(flat.transform(X), first.transform(X))
    assert first.n_tokens_ == 3 and first.token_dim_ == 10


def test_pruning_masks_smallest_neurons(pairs):
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(random_state=0, prune_ratio=0.3, **SMALL).fit(
        X, X_positive=X_pos
    )
    assert encoder.neuron_mask_.sum() == 8 - 2  # floor(0.3 * 8) = 2 pruned
    norms = np.linalg.norm(encoder.neuron_weights_, axis=1)
    assert norms[~encoder.neuron_mask_].max() <= norms[encoder.neuron_mask_].min()
    Z = encoder.transform(X)
    assert np.all(Z[:, ~encoder.neuron_mask_] == 0)
    assert [entry["epoch"] for entry in encoder.history_] == [0, 1, 2, 3]
    assert encoder.history_[-1]["neuron_weights"].shape == (8, 10)
    np.testing.assert_array_equal(
        encoder.history_[-1]["neuron_mask"], encoder.neuron_mask_
    )
    assert len(encoder.loss_curve_) == encoder.n_iter_ == 3


def test_views_by_augmentation_without_positives(pairs):
    X = pairs[0]
    encoder = BReLUAttentionEncoder(random_state=0, **SMALL).fit(X)
    assert np.all(np.isfinite(encoder.transform(X)))
    # The noise views are drawn from random_state: an int or a RandomState
    # of that seed give the same fit, another seed another one.
    again = BReLUAttentionEncoder(random_state=np.random.RandomState(0), **SMALL)
    other = BReLUAttentionEncoder(random_state=1, **SMALL).fit(X)
    np.testing.assert_array_equal(again.fit(X).attention_, encoder.attention_)
    assert not np.array_equal(other.attention_, encoder.attention_)


# --- Diagnostics ---------------------------------------------------------------


def test_neuron_alignment_counts_specialists_and_mixed(pairs):
    X, X_pos, _, M, _ = pairs
    encoder = BReLUAttentionEncoder(random_state=0, **SMALL).fit(X, X_positive=X_pos)
    w = np.zeros((8, 10))
    w[0] = M[:, 0]  # specialist of feature 0
    w[1] = -2 * M[:, 1]  # specialist of feature 1 (sign and scale do not matter)
    w[2] = M[:, 0] + M[:, 2]  # mixed 0 and 2 (cos 0.71 each)
    w[3] = M[:, 3] + 0.1 * np.linalg.qr(np.c_[M, np.ones(10)])[0][:, -1]
    w[4:] = np.linalg.qr(np.c_[M, np.eye(10)[:, :4]])[0][:, 4:8].T  # pure noise
    encoder.history_ = [
        {"epoch": 0, "neuron_weights": w, "neuron_mask": np.ones(8, dtype=bool)}
    ]
    report = neuron_alignment(encoder, M)
    np.testing.assert_array_equal(report.specialist[0], [0, 1, -1, 3, -1, -1, -1, -1])
    np.testing.assert_array_equal(report.n_specialists[0], [1, 1, 0, 1])
    np.testing.assert_array_equal(report.n_mixed[0], [1, 0, 1, 0])
    np.testing.assert_allclose(report.coef[0, 1, 1], -2)
    np.testing.assert_allclose(report.noise[0, :4], [0, 0, 0, 0.1], atol=1e-12)
    np.testing.assert_allclose(report.noise[0, 4:], 1)
    # A pruned neuron is not counted.
    encoder.history_[0]["neuron_mask"][0] = False
    assert neuron_alignment(encoder, M).n_specialists[0, 0] == 0
    with pytest.raises(ValueError, match="shape"):
        neuron_alignment(encoder, M[:5])
    with pytest.raises(ValueError, match="dependent"):
        neuron_alignment(encoder, np.c_[M[:, :2], M[:, :1]])


# --- Bad input and budget ----------------------------------------------------


def test_bad_input(pairs):
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(**SMALL)
    with pytest.raises(ValueError, match="X_positive has shape"):
        encoder.fit(X, X_positive=X_pos[:10])
    bad = X_pos.copy()
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        encoder.fit(X, X_positive=bad)
    with pytest.raises(ValueError, match="all zeros"):
        encoder.fit(np.zeros_like(X))
    with pytest.raises(ValueError, match="batch_size"):
        BReLUAttentionEncoder(batch_size=500).fit(X)
    with pytest.raises(ValueError, match="token_dim"):
        BReLUAttentionEncoder(token_dim=7).fit(X.reshape(len(X), -1))
    with pytest.raises(ValueError, match="4-D"):
        encoder.fit(X[..., None])
    fitted = encoder.fit(X, X_positive=X_pos)
    with pytest.raises(ValueError, match="dimension"):
        fitted.transform(X[:, :, :5])
    # A constant column (a coordinate equal in every token) is fine.
    X_const = X.copy()
    X_const[:, :, 0] = 3.0
    assert np.all(np.isfinite(encoder.fit(X_const).transform(X_const)))


def test_neuron_alignment_refuses_bad_thresholds_and_other_estimators(pairs):
    from sklearn.decomposition import PCA
    from sklearn.utils._param_validation import InvalidParameterError

    X, X_pos, _, M, _ = pairs
    encoder = BReLUAttentionEncoder(**SMALL, random_state=0).fit(X, X_positive=X_pos)
    # These used to return silently empty counts (no |cos| reaches 1.5, NaN).
    for bad in ({"specialist_threshold": 1.5}, {"mixed_threshold": np.nan}):
        with pytest.raises(InvalidParameterError, match="threshold"):
            neuron_alignment(encoder, M, **bad)
    # A fitted PCA was reported as "not fitted yet".
    flat = X.reshape(len(X), -1)
    with pytest.raises(InvalidParameterError, match="BReLUAttentionEncoder"):
        neuron_alignment(PCA(2).fit(flat), M)


def test_history_memory_refused_up_front(pairs, monkeypatch):
    # Two samples make a million epochs cheap in multiply-adds (within
    # max_work), but a snapshot per epoch would be a 1e6 x 32 x 32 float64
    # weight history (about 8 GiB).
    X = pairs[0][:2]
    encoder = BReLUAttentionEncoder(max_epochs=10**6, max_work=1e15)
    with pytest.raises(ValueError, match="history_ would hold .* GiB"):
        encoder.fit(X)
    assert not hasattr(encoder, "neuron_weights_")
    # The record_every the refusal names fits, one less does not (with room
    # for 50 snapshots, so that the fit runs here).
    m, d = 4, X.shape[2]
    monkeypatch.setattr(brelu_module, "MAX_HISTORY_BYTES", 50 * m * (8 * d + 1))
    encoder = BReLUAttentionEncoder(
        m, max_epochs=490, learning_rate=0.2, random_state=0
    )
    with pytest.raises(ValueError, match="history_") as info:
        encoder.fit(X)
    record_every = int(re.search(r"record_every >= (\d+)", str(info.value)).group(1))
    encoder.set_params(record_every=record_every).fit(X)
    assert len(encoder.history_) <= 50
    encoder.set_params(record_every=record_every - 1)
    with pytest.raises(ValueError, match="history_"):
        encoder.fit(X)


def test_diverging_learning_rate_is_reported(pairs):
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(
        learning_rate=1e6, temperature=1e-3, max_epochs=20, random_state=0
    )
    # Only the clear message: numpy's overflow warnings stay inside the fit.
    with pytest.raises(ValueError, match="learning_rate"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            encoder.fit(X, X_positive=X_pos)


def test_issue_38_divergence_stops_the_fit_at_its_first_sign():
    # learning_rate=1e3 on the paper's data: the loss grew to 1e34 while the
    # fit only warned (ConvergenceWarning) and went on for every epoch.
    X, X_pos, *_ = make_sparse_coding_pairs(200, random_state=0)
    encoder = BReLUAttentionEncoder(learning_rate=1e3, max_epochs=5, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"at epoch 2: .*learning_rate=1e\+03"):
            encoder.fit(X, X_positive=X_pos)
    assert not hasattr(encoder, "attention_")


@pytest.mark.parametrize(
    "name", ["digits", "digits standardised", "breast cancer", "digit rows"]
)
def test_issue_38_default_step_trains_on_sklearn_tables(name):
    # The default learning_rate=0.2 diverged on all four (warned at epoch 1,
    # raised 11-42 epochs later). "auto" takes the step from the data. A
    # table without token_dim is one token per row, and fit says so; "digit
    # rows" cuts each image into its 8 rows of 8 pixels.
    digits, cancer = load_digits().data, load_breast_cancer().data
    X, params = {
        "digits": (digits, {}),
        "digits standardised": (StandardScaler().fit_transform(digits), {}),
        "breast cancer": (cancer, {}),
        "digit rows": (digits, {"token_dim": 8}),
    }[name]
    encoder = BReLUAttentionEncoder(max_epochs=30, random_state=0, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        encoder.fit(X)
    messages = [str(w.message) for w in caught]
    if "token_dim" in params:
        assert messages == []
    else:
        assert len(messages) == 1 and "one token" in messages[0], messages
    assert encoder.loss_curve_[-1] < encoder.loss_curve_[0]
    assert np.all(np.isfinite(encoder.transform(X)))


def test_auto_step_is_the_documented_formula(pairs):
    # AUTO_STEP tau / (L^2 lambda), lambda the largest eigenvalue of the
    # second moment of the mean tokens at unit RMS norm, here by brute force.
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(temperature=0.3, max_epochs=1).fit(
        X, X_positive=X_pos
    )
    tokens = X / np.sqrt(np.mean(np.sum(X**2, axis=-1)))
    mean = tokens.mean(axis=1)
    lam = np.linalg.svd(mean, compute_uv=False)[0] ** 2 / len(mean)
    expected = brelu_module.AUTO_STEP * 0.3 / (X.shape[1] ** 2 * lam)
    np.testing.assert_allclose(encoder.learning_rate_, expected, rtol=1e-10)
    # Equivariant: the step does not depend on the units of X.
    scaled = BReLUAttentionEncoder(temperature=0.3, max_epochs=1).fit(1e-200 * X)
    np.testing.assert_allclose(scaled.learning_rate_, expected, rtol=1e-10)


@pytest.mark.parametrize("scale", [1e155, 1e200, 1e290])
def test_issue_38_huge_inputs_after_a_unit_fit_are_finite(pairs, scale):
    # transform(X * 1e155) was NaN: the attention scores x^T A x overflowed.
    # Scores of any size now give the limit (hard attention), and the
    # outputs are the neurons' readings of the winning tokens.
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(random_state=0, **SMALL).fit(X, X_positive=X_pos)
    Z = encoder.transform(scale * X)
    assert np.all(np.isfinite(Z))
    # Hard attention at that scale: f(sX) = s f_hard(X) up to the bias.
    tokens = X / encoder.token_scale_
    scores = np.einsum("nrd,de,nle->nrl", tokens, encoder.attention_, tokens)
    hard = tokens[np.arange(len(X))[:, None], scores.argmax(axis=-1)]
    expected = np.sum(hard @ encoder.neuron_weights_.T, axis=1)
    np.testing.assert_allclose(Z / scale, expected * encoder.neuron_mask_, rtol=1e-6)


@given(st.integers(0, 2**16), st.sampled_from([1e-3, 1.0, 7.0]))
def test_rescaled_attention_is_the_plain_softmax_to_the_bit(seed, size):
    # Dividing each sample's tokens by a power of two scales its scores by an
    # exact factor: the rescaled path (transform's) equals the plain one
    # (training's) bit for bit, and both equal scipy's softmax.
    from scipy.special import softmax

    tokens, _, attention, _ = _problem(seed)
    tokens = size * tokens
    plain = brelu_module._attention_probs(tokens, attention)
    rescaled = brelu_module._attention_probs(tokens, attention, rescale=True)
    np.testing.assert_array_equal(rescaled, plain)
    scores = np.einsum("nrd,de,nle->nrl", tokens, attention, tokens)
    np.testing.assert_allclose(plain, softmax(scores, axis=-1), rtol=1e-12)


def test_inputs_whose_outputs_overflow_are_refused(pairs):
    X, X_pos = pairs[0], pairs[1]
    encoder = BReLUAttentionEncoder(random_state=0, **SMALL).fit(X, X_positive=X_pos)
    with pytest.raises(ValueError, match="times the training tokens.*Rescale X"):
        encoder.transform(1e305 * X)
    tiny = BReLUAttentionEncoder(random_state=0, **SMALL).fit(1e-300 * X)
    with pytest.raises(ValueError, match="overflow float64"):
        tiny.transform(X)


# --- The paper's claims, small -------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_majority_first_then_minority_with_smaller_coefficients(seed):
    # Liao et al.: majority features are learned first (stage 1), minority
    # features later (stage 2) and with coefficients ~ eps_j / eps_max.
    X, X_pos, _, M, rates = make_sparse_coding_pairs(
        600, noise=0.2, imbalance=10.0, random_state=seed
    )
    minority = rates < rates.max()
    encoder = BReLUAttentionEncoder(
        brelu_bias=0.01,
        init_scale=0.1,
        learning_rate=0.5,
        max_epochs=15,
        random_state=seed,
    ).fit(X, X_positive=X_pos)
    report = neuron_alignment(encoder, M)
    majority_curve = report.best_cosine[:, ~minority].mean(axis=1)
    minority_curve = report.best_cosine[:, minority].mean(axis=1)
    # Seeds 0-2 gave majority rises of 0.32-0.47 by epoch 8 while the
    # minority curve moved by <= 0.03; then the minority curve rose by
    # 0.15-0.19 in the last 7 epochs.
    assert majority_curve[8] - majority_curve[0] > 0.2
    assert abs(minority_curve[8] - minority_curve[0]) < 0.08
    assert minority_curve[-1] - minority_curve[8] > 0.08
    coef = np.abs(report.coef[-1])[report.kept[-1]].max(axis=0)
    # The two rarest features (eps_j / eps_max = 0.18, 0.1): ratios 0.17-0.4
    # of the majority coefficient on seeds 0-2.
    assert coef[-2:].mean() < 0.5 * coef[~minority].mean()
