"""make_matching_market: shapes, gaps, reproducibility, the stable matching."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.datasets import make_matching_market


def is_stable(matching, means, arm_preferences):
    """No player and arm both prefer each other to their partners."""
    arm_rank = np.argsort(arm_preferences, axis=1)
    holder = {arm: i for i, arm in enumerate(matching)}
    for i, j in itertools.product(range(means.shape[0]), range(means.shape[1])):
        if means[i, j] > means[i, matching[i]] and (
            j not in holder or arm_rank[j, i] < arm_rank[j, holder[j]]
        ):
            return False
    return True


@settings(max_examples=40)
@given(
    n_players=st.integers(1, 4),
    extra_arms=st.integers(0, 2),
    gap=st.floats(1e-3, 10),
    seed=st.integers(0, 2**31 - 1),
)
def test_market_structure_and_player_optimal_matching(n_players, extra_arms, gap, seed):
    n_arms = n_players + extra_arms
    means, arm_preferences, matching = make_matching_market(
        n_players, n_arms, gap=gap, random_state=seed
    )
    assert means.shape == (n_players, n_arms)
    assert arm_preferences.shape == (n_arms, n_players)
    # Every player's sorted means are gap * (K, K - 1, ..., 1).
    expected = gap * np.arange(n_arms, 0, -1)
    np.testing.assert_allclose(
        -np.sort(-means, axis=1), np.tile(expected, (n_players, 1))
    )
    for row in arm_preferences:
        assert sorted(row) == list(range(n_players))
    assert len(set(matching)) == n_players
    # Oracle: brute force over all matchings. The returned one is stable and
    # gives every player its best arm among all stable matchings.
    stable = [
        np.array(arms)
        for arms in itertools.permutations(range(n_arms), n_players)
        if is_stable(arms, means, arm_preferences)
    ]
    assert is_stable(matching, means, arm_preferences)
    rows = np.arange(n_players)
    best = np.max([means[rows, m] for m in stable], axis=0)
    np.testing.assert_array_equal(means[rows, matching], best)


def test_reproducible_and_seed_dependent():
    first = make_matching_market(5, 5, gap=0.2, random_state=0)
    second = make_matching_market(5, 5, gap=0.2, random_state=0)
    other = make_matching_market(5, 5, gap=0.2, random_state=1)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_defaults_are_the_papers_market():
    means, arm_preferences, matching = make_matching_market(random_state=0)
    assert means.shape == (5, 5)
    np.testing.assert_allclose(np.sort(means[0]), [0.2, 0.4, 0.6, 0.8, 1.0])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"n_players": 3, "n_arms": 2}, "at least as many arms"),
        ({"gap": 0.0}, "gap"),
        ({"gap": -1.0}, "gap"),
        ({"n_players": 0}, "n_players"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_matching_market(**kwargs)
