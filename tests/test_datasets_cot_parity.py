"""make_cot_parity: the mixture D(p_cot) of short answers and prefix-parity chains."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_cot_parity


def test_labels_chains_and_short_answers():
    X, y, seqs = make_cot_parity(500, 7, p_cot=0.3, random_state=0)
    assert X.shape == (500, 7) and y.shape == (500,) and seqs.shape == (500, 7)
    assert set(np.unique(X)) == {-1.0, 1.0}
    np.testing.assert_array_equal(y, np.prod(X, axis=1))
    lengths = (seqs != 0).sum(axis=1)
    assert set(np.unique(lengths)) == {1, 7}
    long = lengths == 7
    np.testing.assert_array_equal(seqs[long], np.cumprod(X[long], axis=1))
    np.testing.assert_array_equal(seqs[~long, 0], y[~long])
    assert np.all(seqs[~long, 1:] == 0)


def test_share_of_long_demonstrations_is_binomial():
    # Long demonstrations ~ Binomial(n, p): 4 standard deviations.
    n, p = 20000, 0.25
    _, _, seqs = make_cot_parity(n, 5, p_cot=p, random_state=1)
    share = np.mean((seqs != 0).sum(axis=1) == 5)
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_bits_uniform_and_parity_balanced():
    X, y, _ = make_cot_parity(20000, 10, p_cot=0.5, random_state=2)
    assert np.all(np.abs(X.mean(axis=0)) < 4 / np.sqrt(20000))
    assert abs(y.mean()) < 4 / np.sqrt(20000)


@pytest.mark.parametrize("p_cot, expected", [(0.0, 1), (1.0, 6)])
def test_extreme_shares(p_cot, expected):
    _, _, seqs = make_cot_parity(50, 6, p_cot=p_cot, random_state=0)
    assert np.all((seqs != 0).sum(axis=1) == expected)


def test_reproducible():
    a = make_cot_parity(30, 4, p_cot=0.5, random_state=3)
    b = make_cot_parity(30, 4, p_cot=0.5, random_state=3)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("p_cot", [-0.1, 1.5, np.nan])
def test_p_cot_outside_unit_interval_is_refused(p_cot):
    with pytest.raises(ValueError, match="p_cot"):
        make_cot_parity(10, 3, p_cot=p_cot)


@pytest.mark.parametrize("kwargs", [{"n_samples": 0}, {"n_bits": 0}])
def test_sizes_must_be_positive(kwargs):
    with pytest.raises(ValueError):
        make_cot_parity(**{"n_samples": 5, "n_bits": 3, **kwargs})
