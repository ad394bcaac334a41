"""ChainOfThoughtClassifier: the paper's claims, oracles, properties, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_iclr import ChainOfThoughtClassifier
from sklearn_iclr.datasets import make_cot_parity

D = 10


@pytest.fixture(scope="module")
def parity_data():
    """d = 10: training mixture at p = 0.25 and a held-out set."""
    train = make_cot_parity(4000, D, p_cot=0.25, random_state=0)
    test = make_cot_parity(2000, D, p_cot=0.25, random_state=1)
    return train, test


def _features(x, y_prev):
    """The documented features [1, x, y_prev, y_prev x] of one position."""
    x1 = np.concatenate([[1.0], x])
    return np.concatenate([x1, y_prev * x1])


# --- the paper's claims, small -------------------------------------------


def test_claim_pretraining_answers_short_and_star_learns_parity(parity_data):
    # Tsilivis et al., Thm 1 and 2 at d = 10, p = 0.25 < 1/3: greedy decoding
    # of the pretrained model stops after x_1 (chance accuracy, length 1);
    # STaR doubles the odds of a long answer every round, so greedy turns long
    # after log2((1 - p) / (2 p)) ~ 0.6 rounds. Accuracy bounds: a held-out
    # set of 2000 has standard deviation 0.011 around 0.5; the extra 0.09
    # covers the prompts whose noisy continuation logit crosses 0 (0.52-0.56
    # in seeded runs).
    (X, y, seqs), (X_test, y_test, _) = parity_data
    pre = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    assert 0.4 <= pre.score(X_test, y_test) <= 0.6
    assert np.median((pre.generate(X_test) != 0).sum(axis=1)) == 1
    star = ChainOfThoughtClassifier(rl="star", n_rl_rounds=3, random_state=0)
    star.fit(X, y, sequences=seqs)
    assert star.score(X_test, y_test) >= 0.95
    assert np.median((star.generate(X_test) != 0).sum(axis=1)) == D
    assert [h["round"] for h in star.history_] == [0, 1, 2, 3]
    assert star.history_[0]["median_length"] == 1
    assert star.history_[-1]["median_length"] == D


def test_claim_above_one_third_pretraining_alone_suffices():
    X, y, seqs = make_cot_parity(4000, D, p_cot=0.4, random_state=2)
    X_test, y_test, _ = make_cot_parity(2000, D, p_cot=0.4, random_state=3)
    pre = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    assert pre.score(X_test, y_test) >= 0.95


def test_claim_length_calibration_and_star_odds_doubling():
    # Exact population optimum on D(p): P(first = x_1) = (1 + p) / 2, then
    # P(continue | x_1) = 2 p / (1 + p), so P(long) = p. One STaR round at
    # temperature 1 keeps D(p') with p' = 2 p / (1 + p) (odds doubled). With
    # d = 4 (9 features per block) and n = 20000 the estimates have standard
    # errors below 0.005: tolerance 0.02.
    p = 0.2
    X, y, seqs = make_cot_parity(20000, 4, p_cot=p, random_state=4)
    est = ChainOfThoughtClassifier(rl="star", n_rl_rounds=1, random_state=0)
    est.fit(X, y, sequences=seqs)
    share = np.mean((seqs != 0).sum(axis=1) == 4)
    assert abs(est.history_[0]["long_share"] - share) < 0.02
    kept_share = 2 * share / (1 + share)
    assert abs(est.history_[1]["long_share"] - kept_share) < 0.02


# --- oracles -------------------------------------------------------------


def test_position_fit_matches_sklearn_multinomial_logistic_regression():
    # Position 2 sees all three tokens. Its penalised likelihood,
    # mean cross-entropy + alpha/2 ||W||^2, is scikit-learn's multinomial
    # LogisticRegression (no intercept, a column of ones) with C = 1/(n alpha).
    X, y, seqs = make_cot_parity(600, 4, p_cot=0.3, random_state=5)
    alpha = 1e-2
    est = ChainOfThoughtClassifier(rl=None, alpha=alpha).fit(X, y, sequences=seqs)
    phi = np.array([_features(x, s[0]) for x, s in zip(X, seqs, strict=True)])
    target = np.where(seqs[:, 1] == 0, 2, (seqs[:, 1] > 0).astype(int))
    ref = LogisticRegression(
        C=1 / (len(X) * alpha), fit_intercept=False, tol=1e-12, max_iter=10_000
    ).fit(phi, target)
    np.testing.assert_allclose(est.chain_coef_[1], ref.coef_, atol=2e-4)


def test_response_proba_matches_enumeration_of_all_responses():
    # Brute force over every response (2 + 4 + 8 + 16 of them at d = 4), each
    # scored with the documented features and an explicit softmax.
    X, y, seqs = make_cot_parity(300, 4, p_cot=0.5, random_state=6)
    est = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    tau = 1.7
    proba = est.response_proba(X[:5], temperature=tau)
    for i in range(5):
        expected = np.zeros((4, 2))
        for length in range(1, 5):
            for tokens in np.ndindex(*(2,) * length):
                seq = 2 * np.array(tokens) - 1
                prob, prev = 1.0, 0.0
                for k in range(length + (length < 4)):
                    z = est.chain_coef_[k] @ _features(X[i], prev) / tau
                    if k == 0:
                        z[2] = -np.inf
                    p = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
                    prob *= p[2] if k == length else p[(seq[k] + 1) // 2]
                    prev = seq[k] if k < length else prev
                expected[length - 1, (seq[-1] + 1) // 2] += prob
        np.testing.assert_allclose(proba[i], expected, atol=1e-12)
        assert abs(proba[i].sum() - 1) < 1e-12


def test_policy_tables_are_each_positions_softmax():
    # The tables take the logits of several positions in one product: at
    # d = 11 (positions in more than one product, the last one short) every
    # cell's law is the explicit softmax of its position's documented
    # features, and its greedy token that law's argmax.
    from sklearn_iclr.sequence._chain_of_thought import _policy_tables, _Record

    X, y, seqs = make_cot_parity(200, 11, p_cot=0.5, random_state=3)
    est = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    X1T = np.vstack([np.ones(5), X[:5].T])
    greedy, proba, _ = _policy_tables(X1T, est.chain_coef_, 1.3)
    for t, s, j in np.ndindex(11, 2, 5):
        z = est.chain_coef_[t] @ _features(X[j], 0.0 if t == 0 else 2 * s - 1)
        if t == 0:
            z[2] = -np.inf
        expected = np.exp((z - z.max()) / 1.3) / np.exp((z - z.max()) / 1.3).sum()
        np.testing.assert_allclose(proba[t, :, s, j], expected, rtol=1e-12)
        assert greedy[t, s, j] == np.argmax(z)
    # the record normalises the tables as they are normalised without it
    record = _Record(np.ones(5, np.int8), 11)
    recorded = _policy_tables(X1T, est.chain_coef_, 1.3, record=record)
    np.testing.assert_array_equal(recorded[0], greedy)
    np.testing.assert_array_equal(recorded[1], proba)


def test_history_reads_response_proba_and_the_greedy_responses():
    # history_ is built position by position inside the fit; it must agree
    # with the exact law of response_proba and with generate on the same
    # prompts.
    X, y, seqs = make_cot_parity(500, 6, p_cot=0.3, random_state=7)
    est = ChainOfThoughtClassifier(
        rl="reinforce", n_rl_rounds=2, temperature=1.3, random_state=0
    ).fit(X, y, sequences=seqs)
    law = est.response_proba(X, temperature=1.3)
    answer = (y == est.classes_[1]).astype(int)
    record = est.history_[-1]
    reward = law[np.arange(len(X)), :, answer].sum(axis=1).mean()
    # (the fit's tables take float32 odds: 6e-8 relative in a probability)
    np.testing.assert_allclose(record["expected_reward"], reward, rtol=1e-6)
    long_share = 1 - law[:, 0].sum(axis=1).mean()
    np.testing.assert_allclose(record["long_share"], long_share, rtol=1e-6)
    assert record["greedy_accuracy"] == est.score(X, y)
    assert record["median_length"] == np.median((est.generate(X) != 0).sum(axis=1))


def test_sampled_responses_follow_response_proba():
    # Chi-square goodness of fit of 40000 samples of one prompt against the
    # exact (length, answer) distribution; 0.1% critical value of chi2(7).
    X, y, seqs = make_cot_parity(1000, 4, p_cot=0.5, random_state=7)
    est = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    prompt = np.repeat(X[:1], 40000, axis=0)
    samples = est.generate(prompt, temperature=1.0, random_state=0)
    lengths = (samples != 0).sum(axis=1)
    answers = samples[np.arange(len(samples)), lengths - 1]
    counts = np.zeros((4, 2))
    np.add.at(counts, (lengths - 1, (answers + 1) // 2), 1)
    expected = 40000 * est.response_proba(X[:1])[0]
    keep = expected > 5
    chi2 = ((counts - expected)[keep] ** 2 / expected[keep]).sum()
    assert chi2 < 24.3, (counts, expected)


# --- properties ----------------------------------------------------------


@settings(max_examples=8)
@given(seed=st.integers(0, 2**16), d=st.integers(3, 6), p=st.floats(0.0, 1.0))
def test_pretraining_is_deterministic_and_row_order_free(seed, d, p):
    X, y, seqs = make_cot_parity(200, d, p_cot=p, random_state=seed)
    order = np.random.default_rng(seed).permutation(len(X))
    a = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    b = ChainOfThoughtClassifier(rl=None).fit(X[order], y[order], sequences=seqs[order])
    # L-BFGS stops at a projected gradient ~1e-7 (or a relative decrease of
    # 1e-10); the objective is alpha-strongly convex (alpha = 1e-4), so two
    # runs from differently ordered rows agree to ~1e-3 in the weights.
    np.testing.assert_allclose(a.chain_coef_, b.chain_coef_, atol=1e-2)
    np.testing.assert_allclose(
        a.response_proba(X[:20]), b.response_proba(X[:20]), atol=1e-3
    )
    proba = a.response_proba(X[:20], temperature=0.5)
    assert np.all(proba >= 0)
    np.testing.assert_allclose(proba.sum(axis=(1, 2)), 1.0)


@settings(max_examples=6)
@given(seed=st.integers(0, 2**16), rl=st.sampled_from(["star", "reinforce", "grpo"]))
def test_same_seed_same_model_and_predict_reads_greedy_answers(seed, rl):
    X, y, seqs = make_cot_parity(150, 5, p_cot=0.3, random_state=seed)
    est = ChainOfThoughtClassifier(rl=rl, n_rl_rounds=2, random_state=seed)
    est.fit(X, y, sequences=seqs)
    twin = clone(est).fit(X, y, sequences=seqs)
    np.testing.assert_array_equal(est.chain_coef_, twin.chain_coef_)
    responses = est.generate(X)
    lengths = (responses != 0).sum(axis=1)
    assert np.all(lengths >= 1) and np.all(lengths <= 5)
    # zeros only after the last token
    assert np.all((responses != 0) == (np.arange(5) < lengths[:, None]))
    np.testing.assert_array_equal(
        est.predict(X), responses[np.arange(len(X)), lengths - 1]
    )


@settings(max_examples=6)
@given(seed=st.integers(0, 2**16))
def test_relabelling_classes_relabels_predictions(seed):
    X, y, seqs = make_cot_parity(200, 5, p_cot=0.5, random_state=seed)
    names = np.where(y > 0, "odd", "even")  # "even" < "odd": -1 stays -1
    a = ChainOfThoughtClassifier(rl="star", n_rl_rounds=1, random_state=0)
    b = clone(a)
    pred = a.fit(X, y, sequences=seqs).predict(X)
    pred_names = b.fit(X, names, sequences=seqs).predict(X)
    np.testing.assert_array_equal(np.where(pred > 0, "odd", "even"), pred_names)


@pytest.mark.parametrize("factor", [1e-300, 1e-3, 1e3, 1e150])
def test_plain_classifier_is_scale_equivariant(factor):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :6]
    est = ChainOfThoughtClassifier(rl=None).fit(X, y)
    scaled = clone(est).fit(X * factor, y)
    np.testing.assert_array_equal(est.predict(X), scaled.predict(X * factor))
    np.testing.assert_allclose(
        scaled.chain_coef_, est.chain_coef_, rtol=1e-6, atol=1e-8
    )


def test_constant_and_zero_columns_give_finite_models():
    X, y = load_breast_cancer(return_X_y=True)
    X = np.hstack([X[:, :4], np.full((len(X), 1), 7.0), np.zeros((len(X), 1))])
    est = ChainOfThoughtClassifier(n_rl_rounds=2, random_state=0).fit(X, y)
    assert np.all(np.isfinite(est.chain_coef_))
    assert est.score(X, y) > 0.8


def test_stranger_plain_classifier_next_to_logistic_regression():
    # Without demonstrations it is a linear one-token classifier: on a
    # linearly separable-ish toy set it scores like LogisticRegression.
    X, y = load_breast_cancer(return_X_y=True)
    ours = cross_val_score(
        make_pipeline(StandardScaler(), ChainOfThoughtClassifier(random_state=0)),
        X,
        y,
        cv=3,
    ).mean()
    anchor = cross_val_score(
        make_pipeline(StandardScaler(), LogisticRegression()), X, y, cv=3
    ).mean()
    assert ours > anchor - 0.03, (ours, anchor)


def test_without_demonstrations_parity_stays_at_chance():
    # p_cot = 0: no long answer is ever demonstrated, RL cannot find one.
    X, y, _ = make_cot_parity(2000, 8, p_cot=0.0, random_state=8)
    X_test, y_test, _ = make_cot_parity(2000, 8, p_cot=0.0, random_state=9)
    est = ChainOfThoughtClassifier(n_rl_rounds=3, random_state=0).fit(X, y)
    assert abs(est.score(X_test, y_test) - 0.5) < 0.06


# --- bad input -----------------------------------------------------------


@pytest.fixture
def small():
    return make_cot_parity(50, 4, p_cot=0.5, random_state=0)


def test_sequences_with_wrong_number_of_rows(small):
    X, y, seqs = small
    with pytest.raises(ValueError, match="49 demonstrations but X has 50"):
        ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs[:49])


def test_sequences_longer_than_the_bits(small):
    X, y, seqs = small
    with pytest.raises(ValueError, match="at most n_features"):
        ChainOfThoughtClassifier(rl=None).fit(X[:, :3], y, sequences=seqs)


@pytest.mark.parametrize(
    "row, match",
    [([2, 0, 0, 0], "token 2"), ([1, 0, 1, 0], "broken"), ([0, 0, 0, 0], "empty")],
)
def test_sequences_with_bad_tokens(small, row, match):
    X, y, seqs = small
    seqs = seqs.copy()
    seqs[3] = row
    with pytest.raises(ValueError, match=match):
        ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)


def test_sequences_first_faulty_row_is_reported(small):
    # all rows are checked at once; the message names the first faulty row,
    # in an array as in a ragged list
    X, y, seqs = small
    seqs = seqs.copy()
    seqs[7] = [2, 0, 0, 0]
    seqs[3] = [1, 0, 1, 0]
    for demos in (seqs, [s[: 1 + np.flatnonzero(s).max()] for s in seqs]):
        with pytest.raises(ValueError, match=r"sequences\[3\] is broken"):
            ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=demos)
    seqs[3] = [1, 0, 0, 0]
    with pytest.raises(ValueError, match=r"sequences\[7\] holds the token 2;"):
        ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=list(seqs))


def test_sequences_whose_answer_is_not_the_label(small):
    X, y, seqs = small
    with pytest.raises(ValueError, match="not their label"):
        ChainOfThoughtClassifier(rl=None).fit(X, -y, sequences=seqs)


def test_sequences_as_ragged_list(small):
    X, y, seqs = small
    ragged = [s[s != 0].tolist() for s in seqs]
    a = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=ragged)
    b = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    np.testing.assert_array_equal(a.chain_coef_, b.chain_coef_)


def test_bits_required_with_sequences(small):
    X, y, seqs = small
    with pytest.raises(ValueError, match="must hold bits"):
        ChainOfThoughtClassifier(rl=None).fit(X * 0.5, y, sequences=seqs)
    # {0, 1} bits are accepted and give the same greedy answers
    ours = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    zero_one = ChainOfThoughtClassifier(rl=None).fit((1 - X) / 2, y, sequences=seqs)
    np.testing.assert_array_equal(ours.predict(X), zero_one.predict((1 - X) / 2))


def test_multiclass_is_refused():
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ValueError, match="Only binary classification"):
        ChainOfThoughtClassifier().fit(X, np.arange(30) % 3)


def test_budget_refuses_absurd_sampling_up_front(small):
    X, y, seqs = small
    est = ChainOfThoughtClassifier(samples_per_prompt=10**9)
    with pytest.raises(ValueError, match="sampled tokens.*max_sampled_tokens"):
        est.fit(X, y, sequences=seqs)


def test_generate_and_response_proba_refuse_bad_temperature(small):
    X, y, seqs = small
    est = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    with pytest.raises(ValueError, match="temperature"):
        est.generate(X, temperature=-1.0)
    with pytest.raises(ValueError, match="temperature"):
        est.response_proba(X, temperature=0.0)


def test_sequences_as_dataframe(small):
    pd = pytest.importorskip("pandas")
    X, y, seqs = small
    a = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=pd.DataFrame(seqs))
    b = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    np.testing.assert_array_equal(a.chain_coef_, b.chain_coef_)
