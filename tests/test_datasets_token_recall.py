"""make_token_recall: format, facts, reproducibility."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.datasets import make_token_recall


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 50),
    vocab=st.integers(2, 30),
    seq_len=st.integers(2, 12),
    seed=st.integers(0, 2**16),
)
def test_format_and_facts(n, vocab, seq_len, seed):
    X, y, perm = make_token_recall(
        n,
        vocab_size=vocab,
        seq_len=seq_len,
        return_permutation=True,
        random_state=seed,
    )
    assert X.shape == (n, seq_len) and y.shape == (n,)
    assert X.min() >= 0 and X.max() <= vocab
    is_trigger = X == 0
    assert np.all(is_trigger.sum(axis=1) == 1)
    assert not is_trigger[:, -1].any()
    key = X[np.arange(n), np.argmax(is_trigger, axis=1) + 1]
    assert np.all(key >= 1)
    np.testing.assert_array_equal(perm[key], y)
    assert perm[0] == -1
    np.testing.assert_array_equal(np.sort(perm[1:]), np.arange(vocab))


def test_seed_reproducible_and_varies():
    a = make_token_recall(20, vocab_size=8, seq_len=5, random_state=3)
    b = make_token_recall(20, vocab_size=8, seq_len=5, random_state=3)
    c = make_token_recall(20, vocab_size=8, seq_len=5, random_state=4)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_trigger_position_and_noise_are_uniform():
    X, _ = make_token_recall(20000, vocab_size=10, seq_len=5, random_state=0)
    pos = np.argmax(X == 0, axis=1)
    # 4 possible positions, 5000 expected each: 5 sigma is about 300.
    assert np.all(np.abs(np.bincount(pos, minlength=4) - 5000) < 300)
    noise = X[X != 0]
    counts = np.bincount(noise, minlength=11)[1:]
    assert np.all(np.abs(counts / counts.mean() - 1) < 0.05)


@pytest.mark.parametrize(
    "kwargs", [dict(vocab_size=1), dict(seq_len=1), dict(n_samples=0)]
)
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        make_token_recall(**kwargs)
