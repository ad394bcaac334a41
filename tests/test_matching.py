"""Matching-market bandits: Gale-Shapley oracle, ETGS policies, claims, bad input."""

import itertools
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone

from sklearn_iclr.bandits import (
    ETGS,
    MatchingMarket,
    MultiLayerETGSRace,
    RobustETGS,
    TargetOptimalCorruption,
    gale_shapley,
    simulate,
)
from sklearn_iclr.datasets import make_matching_market


def brute_force_stable_matchings(means, arm_preferences):
    """Every stable matching of a small market, by enumerating all of them."""
    n_players, n_arms = means.shape
    arm_rank = np.argsort(arm_preferences, axis=1)
    stable = []
    for arms in itertools.permutations(range(n_arms), n_players):
        holder = {arm: i for i, arm in enumerate(arms)}
        blocked = False
        for i in range(n_players):
            for j in range(n_arms):
                if means[i, j] <= means[i, arms[i]]:
                    continue
                # i prefers j; j blocks if free or prefers i to its partner.
                if j not in holder or arm_rank[j, i] < arm_rank[j, holder[j]]:
                    blocked = True
                    break
            if blocked:
                break
        if not blocked:
            stable.append(np.array(arms))
    return stable


def gap_half_market(corruption=None, random_state=0):
    """N = K = 3, Delta = 0.5: the attack on player 0 costs 1 per cycle."""
    means, arm_preferences, _ = make_matching_market(3, 3, gap=0.5, random_state=2)
    return MatchingMarket(
        means, arm_preferences, corruption=corruption, random_state=random_state
    )


# --- Oracle: Gale-Shapley against brute-force stability -------------------


@settings(max_examples=60)
@given(
    n_players=st.integers(1, 4),
    extra_arms=st.integers(0, 2),
    seed=st.integers(0, 2**31 - 1),
)
def test_gale_shapley_is_the_player_optimal_stable_matching(
    n_players, extra_arms, seed
):
    n_arms = n_players + extra_arms
    rng = np.random.default_rng(seed)
    means = rng.permuted(
        np.tile(np.arange(n_arms, dtype=float), (n_players, 1)), axis=1
    )
    arm_preferences = rng.permuted(np.tile(np.arange(n_players), (n_arms, 1)), axis=1)
    stable = brute_force_stable_matchings(means, arm_preferences)
    assert stable, "a stable matching always exists (Gale & Shapley, 1962)"
    matching = MatchingMarket(means, arm_preferences).optimal_matching()
    assert any(np.array_equal(matching, m) for m in stable)
    # Player-optimal: no stable matching gives any player a better arm.
    rows = np.arange(n_players)
    best = np.max([means[rows, m] for m in stable], axis=0)
    np.testing.assert_array_equal(means[rows, matching], best)


@settings(max_examples=40)
@given(
    n_players=st.integers(1, 6), extra_arms=st.integers(0, 3), seed=st.integers(0, 999)
)
def test_gale_shapley_is_equivariant_to_relabelling(n_players, extra_arms, seed):
    # Renaming players and arms renames the player-optimal stable matching.
    n_arms = n_players + extra_arms
    rng = np.random.default_rng(seed)
    player_rankings = np.array([rng.permutation(n_arms) for _ in range(n_players)])
    arm_rankings = np.array([rng.permutation(n_players) for _ in range(n_arms)])
    matching = gale_shapley(player_rankings, arm_rankings)
    players, arms = rng.permutation(n_players), rng.permutation(n_arms)
    # New player p is old player players[p]; new arm a is old arm arms[a].
    new_player = np.argsort(players)
    new_arm = np.argsort(arms)
    renamed = gale_shapley(
        new_arm[player_rankings[players]], new_player[arm_rankings[arms]]
    )
    np.testing.assert_array_equal(renamed, new_arm[matching[players]])


def test_gale_shapley_known_example():
    # Two players both want arm 0, which prefers player 1.
    np.testing.assert_array_equal(
        gale_shapley([[0, 1], [0, 1]], [[1, 0], [0, 1]]), [1, 0]
    )


# --- Policies: parameter API ----------------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        ETGS(),
        RobustETGS(100.0),
        MultiLayerETGSRace(subphase_length=3, random_state=0),
        TargetOptimalCorruption(10.0, targets=[0]),
        MatchingMarket([[1.0, 0.5]], [[0], [0]], noise_std=0.3, random_state=1),
    ],
)
def test_parameter_api_clone_and_pickle(obj):
    params = obj.get_params()
    twin = clone(obj)
    assert twin is not obj
    assert repr(twin) == repr(obj)
    restored = pickle.loads(pickle.dumps(obj))
    assert repr(restored) == repr(obj)
    assert obj.set_params(**params) is obj


def test_init_only_stores():
    # Invalid values are accepted by __init__ and refused when used.
    policy = RobustETGS(-1.0)
    assert policy.corruption_budget == -1.0
    with pytest.raises(ValueError, match="corruption_budget"):
        simulate(gap_half_market(), policy, 10_000, n_runs=1)


def test_same_seeds_same_result_whatever_n_jobs():
    market = gap_half_market(TargetOptimalCorruption(500.0), random_state=3)
    race = MultiLayerETGSRace(subphase_length=2, random_state=4)
    first = simulate(market, race, 40_000, n_runs=4, n_jobs=1)
    second = simulate(clone(market), clone(race), 40_000, n_runs=4, n_jobs=2)
    np.testing.assert_array_equal(first.regret, second.regret)
    np.testing.assert_array_equal(first.final_matching, second.final_matching)
    other = simulate(market.set_params(random_state=5), race, 40_000, n_runs=4)
    assert not np.array_equal(first.regret, other.regret)


# --- Properties of the simulator ------------------------------------------


@settings(max_examples=15)
@given(
    seed=st.integers(0, 1000),
    budget=st.floats(0, 3000),
    policy_index=st.integers(0, 2),
)
def test_budget_respected_and_regret_consistent(seed, budget, policy_index):
    policy = [ETGS(), RobustETGS(budget), MultiLayerETGSRace(random_state=seed)][
        policy_index
    ]
    means, arm_preferences, _ = make_matching_market(3, 3, gap=0.5, random_state=seed)
    market = MatchingMarket(
        means,
        arm_preferences,
        corruption=TargetOptimalCorruption(budget, targets="all"),
        random_state=seed,
    )
    horizon = 60_000
    result = simulate(market, policy, horizon, n_runs=2, n_points=20)
    assert np.all(result.corruption_spent <= budget + 1e-9)
    assert np.all(np.isfinite(result.regret))
    # Per-round regret of player i lies in [mu_opt - max mu, mu_opt].
    best = means[np.arange(3), result.optimal_matching]
    t = result.times
    increments = np.diff(np.concatenate([np.zeros((2, 3, 1)), result.regret], axis=2))
    steps = np.diff(np.r_[0, t])
    assert np.all(increments <= best[None, :, None] * steps + 1e-9)
    lower = (best - means.max(axis=1))[None, :, None] * steps
    assert np.all(increments >= lower - 1e-9)
    assert t[-1] == horizon


def test_noise_free_exploration_length_matches_closed_form():
    # With noise_std = 0 the intervals separate exactly when
    # 2 (sqrt(6 log T / n) + C / n) < Delta; round robin checks once per cycle.
    means, arm_preferences, _ = make_matching_market(3, 3, gap=0.5, random_state=0)
    horizon = 100_000
    for budget in (0.0, 200.0):
        market = MatchingMarket(means, arm_preferences, noise_std=0.0, random_state=0)
        result = simulate(market, RobustETGS(budget), horizon, n_runs=1)
        n = 1
        while 2 * (math.sqrt(6 * math.log(horizon) / n) + budget / n) >= 0.5:
            n += 1
        assert result.exploration_end[0, 0] == 3 * n
        assert result.player_optimal.all()
        # Exploration regret: each player averages its three arms; then
        # decentralised Gale-Shapley rejects a player at most K - 1 = 2 times.
        best = means[np.arange(3), result.optimal_matching]
        exploration = n * (3 * best - means.sum(axis=1))
        excess = result.regret[0, :, -1] - exploration
        assert np.all(excess >= -1e-9) and np.all(excess <= 2 * best + 1e-9)


# --- The paper's claims, small --------------------------------------------


def test_claim_all_three_reach_the_stable_matching_with_log_regret():
    market = gap_half_market()
    policies = [ETGS(), RobustETGS(0.0), MultiLayerETGSRace(random_state=0)]
    for policy in policies:
        small = simulate(market, policy, 100_000, n_runs=4)
        large = simulate(market, policy, 1_000_000, n_runs=4)
        assert large.player_optimal.all() and small.player_optimal.all()
        slope = math.log(large.max_regret[-1] / small.max_regret[-1]) / math.log(10)
        # ETGS: exploration ~ log T, slope ~0.05; the race adds log^2 T
        # layers; linear regret would give 1.
        assert slope < 0.5, (policy, slope)


def test_claim_corruption_makes_etgs_linear_and_robust_variants_fix_it():
    # C = 2000 buys the swap of player 0's two best arms through ETGS's
    # whole exploration (about 1.3e3 cycles at 1 per cycle).
    # At T = 4e5 the robust variants' longer exploration (about 5e4 rounds
    # for RobustETGS) is paid back.
    horizon = 400_000
    market = gap_half_market(TargetOptimalCorruption(2000.0))
    vanilla = simulate(market, ETGS(), horizon, n_runs=4)
    robust = simulate(market, RobustETGS(2000.0), horizon, n_runs=4)
    race = simulate(market, MultiLayerETGSRace(random_state=0), horizon, n_runs=4)
    assert not vanilla.player_optimal.any()
    assert vanilla.max_regret[-1] >= 0.02 * horizon
    # Linear: the second half costs as much as the first (+-20%).
    half = vanilla.max_regret[len(vanilla.times) // 2 - 1]
    assert vanilla.max_regret[-1] - half == pytest.approx(half, rel=0.2)
    assert robust.player_optimal.all() and race.player_optimal.all()
    assert robust.max_regret[-1] <= 0.25 * vanilla.max_regret[-1]
    assert race.max_regret[-1] <= 0.5 * vanilla.max_regret[-1]


def test_race_slow_layers_override_fooled_fast_layers():
    # C = 5000 fools the race's fastest layers (they see about half and a
    # quarter of the corruption); the slower layers finish correctly and
    # override them, so over the last fifth of T = 4e5 the race loses well
    # under 0.1 per round (about 0.015 measured; 0.26 without the override,
    # when the fooled layer 0 keeps playing its matching half of the time).
    market = gap_half_market(TargetOptimalCorruption(5000.0))
    race = simulate(market, MultiLayerETGSRace(random_state=0), 400_000, n_runs=4)
    assert race.player_optimal.all()
    late = len(race.times) * 4 // 5
    per_round = (race.max_regret[-1] - race.max_regret[late]) / (
        race.times[-1] - race.times[late]
    )
    assert per_round < 0.1, per_round


def test_attack_is_exact_without_noise():
    # Noise-free: the attack on player 0 trades its arms 2 and 1 (means 1.5
    # and 1.0, shift 0.5) on each of its exploration cycles, so ETGS learns
    # the traded ranking as fast as the true one, at a cost of 2 x 0.5 per
    # cycle, and ends on another matching.
    base = gap_half_market()
    horizon = 100_000
    clean = MatchingMarket(base.player_means, base.arm_preferences, noise_std=0.0)
    attacked = clone(clean).set_params(corruption=TargetOptimalCorruption(1e6))
    reference = simulate(clean, ETGS(), horizon, n_runs=1)
    result = simulate(attacked, ETGS(), horizon, n_runs=1)
    end = result.exploration_end[0, 0]
    assert end == reference.exploration_end[0, 0]
    assert result.corruption_spent[0] == pytest.approx(2 * 0.5 * end / 3)
    assert not result.player_optimal[0] and reference.player_optimal[0]
    assert result.final_matching[0, 0] == 1
    # A budget below that cost is spent to the last unit.
    small = clone(clean).set_params(corruption=TargetOptimalCorruption(123.0))
    assert simulate(small, ETGS(), horizon, n_runs=1).corruption_spent[0] == 123.0


# --- Bad input ------------------------------------------------------------


@pytest.mark.parametrize(
    "means, arm_preferences, match",
    [
        ([[1.0, 0.5], [0.3, 0.2]], [[0, 1]], "shape"),
        ([[1.0, 0.5], [0.3, 0.2]], [[0, 1], [0, 0]], "strict preference list"),
        ([[1.0, 0.5], [0.3, 0.2]], [[0, 1], [1, 2]], "strict preference list"),
        ([[1.0, 1.0], [0.3, 0.2]], [[0, 1], [1, 0]], "tied"),
        ([[1.0], [0.5]], [[0, 1]], "at least as many arms"),
        ([[1.0, np.nan], [0.3, 0.2]], [[0, 1], [1, 0]], "finite"),
        ([[1.0, 0.5], [0.3, 0.2]], [[0.0, 1.5], [1, 0]], "integer"),
    ],
)
def test_bad_markets_are_refused(means, arm_preferences, match):
    with pytest.raises(ValueError, match=match):
        simulate(MatchingMarket(means, arm_preferences), ETGS(), 10_000, n_runs=1)


def test_negative_budgets_are_refused():
    market = gap_half_market(TargetOptimalCorruption(-5.0))
    with pytest.raises(ValueError, match="budget"):
        simulate(market, ETGS(), 10_000, n_runs=1)
    with pytest.raises(ValueError, match="corruption_budget"):
        simulate(gap_half_market(), RobustETGS(-1.0), 10_000, n_runs=1)
    with pytest.raises(ValueError, match="targets"):
        simulate(
            gap_half_market(TargetOptimalCorruption(5.0, targets=[7])), ETGS(), 10_000
        )


@pytest.mark.parametrize(
    "policy", [ETGS(), RobustETGS(2000.0), MultiLayerETGSRace(subphase_length=8)]
)
def test_horizon_shorter_than_exploration_is_refused(policy):
    with pytest.raises(ValueError, match="shorter than the exploration phase"):
        simulate(gap_half_market(), policy, 1_000, n_runs=1)


def test_work_budget_refuses_up_front():
    with pytest.raises(ValueError, match="player-rounds"):
        simulate(gap_half_market(), ETGS(), 10**12, n_runs=10)


@pytest.mark.parametrize("scale", [1e-3, 1e3, 1e150, 1e-300])
def test_scaled_rewards(scale):
    # Rescaling means and noise by s rescales the regret by s when the gap
    # still clears the horizon's exploration; otherwise a clear error.
    base = gap_half_market()
    means = np.asarray(base.player_means) * scale
    market = MatchingMarket(
        means, base.arm_preferences, noise_std=scale, random_state=0
    )
    horizon = 100_000
    if scale < 1:
        with pytest.raises(ValueError, match="shorter than the exploration phase"):
            simulate(market, ETGS(), horizon, n_runs=2)
        return
    result = simulate(market, ETGS(confidence_scale=6.0 * scale**2), horizon, n_runs=2)
    reference = simulate(base, ETGS(), horizon, n_runs=2)
    # Sums of +-scale terms that cancel exactly at scale 1 leave rounding
    # residues of order eps * scale * horizon.
    np.testing.assert_allclose(
        result.regret / scale, reference.regret, rtol=1e-9, atol=1e-9 * horizon
    )
    np.testing.assert_array_equal(result.final_matching, reference.final_matching)


def test_overflowing_rewards_are_refused():
    base = gap_half_market()
    market = MatchingMarket(
        np.asarray(base.player_means) * 1e305, base.arm_preferences, random_state=0
    )
    with pytest.raises(ValueError, match="rescale"):
        simulate(market, ETGS(), 100_000, n_runs=1)
