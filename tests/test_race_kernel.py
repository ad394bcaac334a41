"""The ETGS race kernel (``bandits/_kernel.py``) against its numpy reference;
also run with ``NUMBA_DISABLE_JIT=1``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sklearn_iclr.bandits import gale_shapley
from sklearn_iclr.bandits._kernel import run_race, run_race_reference

pytestmark = pytest.mark.kernel


@st.composite
def race_arguments(draw):
    """Small markets with corruption, several layers and short horizons."""
    n_players = draw(st.integers(1, 4))
    n_arms = draw(st.integers(n_players, 5))
    rng = np.random.RandomState(draw(st.integers(0, 2**31 - 1)))
    means = rng.uniform(0, 1, (n_players, n_arms)).round(draw(st.sampled_from([1, 6])))
    arm_rankings = np.array([rng.permutation(n_players) for _ in range(n_arms)])
    optimal = gale_shapley(np.argsort(-means, axis=1, kind="stable"), arm_rankings)
    horizon = draw(st.integers(1, 200))
    n_layers = draw(st.integers(1, 3))
    subphase_length = draw(st.integers(1, 20))
    n_subphases = -(-horizon // subphase_length)
    is_target = rng.random_sample(n_players) < 0.5
    boosted = np.where(is_target, rng.randint(n_arms, size=n_players), -1)
    record_times = np.unique(rng.randint(1, horizon + 1, size=draw(st.integers(1, 8))))
    return (
        means,
        np.argsort(arm_rankings, axis=1).astype(np.int64),
        optimal,
        draw(st.sampled_from([0.0, 0.1, 1.0])),
        horizon,
        n_layers,
        rng.randint(n_layers, size=n_subphases).astype(np.int8),
        subphase_length,
        draw(st.sampled_from([1e-4, 0.01, 0.5])),
        rng.uniform(0, 2, n_layers),
        is_target,
        boosted.astype(np.int64),
        rng.uniform(0, 0.5, n_players),
        draw(st.sampled_from([0.0, 1.0, 50.0])),
        record_times.astype(np.int64),
        draw(st.integers(0, 2**31 - 1)),
    )


@settings(max_examples=100)
@given(args=race_arguments())
def test_kernel_equals_the_reference(args):
    trace, final, finish, spent = run_race(*args)
    ref_trace, ref_final, ref_finish, ref_spent = run_race_reference(*args)
    np.testing.assert_array_equal(final, ref_final)
    np.testing.assert_array_equal(finish, ref_finish)
    np.testing.assert_allclose(trace, ref_trace, rtol=1e-12, atol=1e-12)
    assert spent == ref_spent


def test_reference_without_noise_commits_to_the_player_optimal_matching():
    # Oracle by hand: noise-free rewards, one layer: exploration ends at the
    # first full cycle whose estimates (the means) are separated, then
    # decentralised Gale-Shapley settles on the player-optimal matching.
    means = np.array([[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]])
    arm_rankings = np.array([[1, 0], [0, 1], [0, 1]])
    optimal = gale_shapley(np.argsort(-means, axis=1), arm_rankings)
    args = (
        means,
        np.argsort(arm_rankings, axis=1).astype(np.int64),
        optimal,
        0.0,
        30,
        1,
        np.zeros(1, dtype=np.int8),
        30,
        1e-4,
        np.zeros(1),
        np.zeros(2, dtype=bool),
        np.full(2, -1, dtype=np.int64),
        np.zeros(2),
        0.0,
        np.array([30]),
        0,
    )
    trace, final, finish, spent = run_race_reference(*args)
    np.testing.assert_array_equal(final, optimal)
    assert finish[0] == 3 and spent == 0.0
    np.testing.assert_array_equal(final, run_race(*args)[1])
