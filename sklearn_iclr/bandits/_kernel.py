"""The per-round loop of the explore-then-Gale-Shapley policies (numba).

One run of a multi-layer ETGS race; vanilla and robust ETGS are the race with a
single layer. Each layer keeps its own reward sums and counts, explores the arms
in round robin (player ``i`` pulls arm ``(i + s) mod K`` at its ``s``-th
exploration round, so explorers never collide) until every player's confidence
intervals order its top ``min(N + 1, K)`` arms, and then runs decentralised
Gale-Shapley on the estimated rankings: each player pulls the arm its pointer
shows and moves the pointer down its list when rejected.

:func:`run_race_reference` is the same process in plain numpy, one round at a
time: the oracle of the kernel's tests (which also run with
``NUMBA_DISABLE_JIT=1``). Arms with equal estimates are ranked by index (a
stable sort) in both.
"""

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _separated(sums, counts, n_players, n_arms, n_pairs, radius_scale, extra):
    """True when every player's top arms are ordered by disjoint intervals."""
    for i in range(n_players):
        n = counts[i, 0]
        if n == 0:
            return False
        width = math.sqrt(radius_scale / n) + extra / n
        est = sums[i] / counts[i]
        order = np.argsort(-est, kind="mergesort")
        for k in range(n_pairs):
            if est[order[k]] - width <= est[order[k + 1]] + width:
                return False
    return True


@njit(cache=True, nogil=True)
def run_race(
    means,
    arm_rank,
    optimal,
    noise_std,
    horizon,
    n_layers,
    layer_sequence,
    subphase_length,
    radius_scale,
    extra,
    is_target,
    boosted,
    shift,
    budget,
    record_times,
    seed,
):
    """Simulate one run; return regret trace, final arms, layer ends, spent.

    ``arm_rank[j, i]`` is player ``i``'s position in arm ``j``'s list;
    ``layer_sequence[s]`` the layer played in sub-phase ``s``; ``extra[l]``
    the corruption term numerator of layer ``l``'s confidence radius;
    ``boosted[i]`` the arm whose rewards the adversary raises for player ``i``
    (-1: none) and ``shift[i]`` the size of one corruption.
    """
    # numba's per-thread RNG, seeded per run: reproducible whatever the workers.
    np.random.seed(seed)  # noqa: NPY002
    n_players, n_arms = means.shape
    n_pairs = min(n_players, n_arms - 1)
    sums = np.zeros((n_layers, n_players, n_arms))
    counts = np.zeros((n_layers, n_players, n_arms))
    exploring = np.ones(n_layers, dtype=np.bool_)
    steps = np.zeros(n_layers, dtype=np.int64)
    rankings = np.zeros((n_layers, n_players, n_arms), dtype=np.int64)
    pointer = np.zeros((n_layers, n_players), dtype=np.int64)
    finish = np.full(n_layers, -1, dtype=np.int64)
    regret = np.zeros(n_players)
    trace = np.zeros((n_players, record_times.size))
    best_mean = np.empty(n_players)
    for i in range(n_players):
        best_mean[i] = means[i, optimal[i]]
    pulls = np.empty(n_players, dtype=np.int64)
    holder = np.empty(n_arms, dtype=np.int64)
    left = budget
    next_record = 0
    layer = 0
    for t in range(horizon):
        if t % subphase_length == 0:
            layer = layer_sequence[t // subphase_length]
        if exploring[layer]:
            for i in range(n_players):
                pulls[i] = (i + steps[layer]) % n_arms
        else:
            for i in range(n_players):
                pulls[i] = rankings[layer, i, pointer[layer, i]]
        holder[:] = -1
        for i in range(n_players):
            a = pulls[i]
            if holder[a] < 0 or arm_rank[a, i] < arm_rank[a, holder[a]]:
                holder[a] = i
        for i in range(n_players):
            a = pulls[i]
            if holder[a] != i:
                regret[i] += best_mean[i]
                if not exploring[layer] and pointer[layer, i] < n_arms - 1:
                    pointer[layer, i] += 1
                continue
            regret[i] += best_mean[i] - means[i, a]
            if exploring[layer]:
                reward = means[i, a] + noise_std * np.random.standard_normal()  # noqa: NPY002
                if is_target[i] and left > 0.0:
                    if a == optimal[i]:
                        c = min(shift[i], left)
                        reward -= c
                        left -= c
                    elif a == boosted[i]:
                        c = min(shift[i], left)
                        reward += c
                        left -= c
                sums[layer, i, a] += reward
                counts[layer, i, a] += 1.0
        if exploring[layer]:
            steps[layer] += 1
            if steps[layer] % n_arms == 0 and _separated(
                sums[layer],
                counts[layer],
                n_players,
                n_arms,
                n_pairs,
                radius_scale,
                extra[layer],
            ):
                finish[layer] = t + 1
                for i in range(n_players):
                    est = sums[layer, i] / counts[layer, i]
                    rankings[layer, i] = np.argsort(-est, kind="mergesort")
                # This layer's rankings override every faster layer.
                for fast in range(layer + 1):
                    exploring[fast] = False
                    rankings[fast] = rankings[layer]
                    pointer[fast] = 0
        while next_record < record_times.size and record_times[next_record] == t + 1:
            trace[:, next_record] = regret
            next_record += 1
    # The committed matching: that of the slowest layer done exploring.
    final = np.full(n_players, -1, dtype=np.int64)
    for committed in range(n_layers - 1, -1, -1):
        if not exploring[committed]:
            for i in range(n_players):
                final[i] = rankings[committed, i, pointer[committed, i]]
            break
    return trace, final, finish, budget - left


def _separated_reference(sums, counts, n_pairs, radius_scale, extra):
    """:func:`_separated`, vectorised over players."""
    n = counts[:, 0]
    if np.any(n == 0):
        return False
    width = np.sqrt(radius_scale / n) + extra / n
    est = np.sort(sums / counts, axis=1)[:, ::-1]
    width = width[:, None]
    return bool(np.all(est[:, :n_pairs] - width > est[:, 1 : n_pairs + 1] + width))


def run_race_reference(
    means,
    arm_rank,
    optimal,
    noise_std,
    horizon,
    n_layers,
    layer_sequence,
    subphase_length,
    radius_scale,
    extra,
    is_target,
    boosted,
    shift,
    budget,
    record_times,
    seed,
):
    """:func:`run_race` in plain numpy, one round at a time (its test oracle).

    The same arguments and outputs; the reward noise comes from
    ``numpy.random.RandomState(seed)``, whose stream numba's seeded generator
    reproduces, drawn in the same order (accepted explorers, by player).
    """
    rng = np.random.RandomState(seed)
    n_players, n_arms = means.shape
    players = np.arange(n_players)
    n_pairs = min(n_players, n_arms - 1)
    sums = np.zeros((n_layers, n_players, n_arms))
    counts = np.zeros((n_layers, n_players, n_arms))
    exploring = np.ones(n_layers, dtype=bool)
    steps = np.zeros(n_layers, dtype=np.int64)
    rankings = np.zeros((n_layers, n_players, n_arms), dtype=np.int64)
    pointer = np.zeros((n_layers, n_players), dtype=np.int64)
    finish = np.full(n_layers, -1, dtype=np.int64)
    regret = np.zeros(n_players)
    trace = np.zeros((n_players, record_times.size))
    best_mean = means[players, optimal]
    left = budget
    for t in range(horizon):
        layer = layer_sequence[t // subphase_length]
        if exploring[layer]:
            pulls = (players + steps[layer]) % n_arms
        else:
            pulls = rankings[layer, players, pointer[layer]]
        # every arm keeps the proposer it ranks first
        accepted = np.zeros(n_players, dtype=bool)
        for arm in np.unique(pulls):
            proposers = players[pulls == arm]
            accepted[proposers[np.argmin(arm_rank[arm, proposers])]] = True
        regret += best_mean - np.where(accepted, means[players, pulls], 0.0)
        if not exploring[layer]:
            moved = ~accepted & (pointer[layer] < n_arms - 1)
            pointer[layer, moved] += 1
        else:
            for i in players[accepted]:
                arm = pulls[i]
                reward = means[i, arm] + noise_std * rng.standard_normal()
                if is_target[i] and left > 0.0 and arm in (optimal[i], boosted[i]):
                    c = min(shift[i], left)
                    reward += -c if arm == optimal[i] else c
                    left -= c
                sums[layer, i, arm] += reward
                counts[layer, i, arm] += 1.0
            steps[layer] += 1
            if steps[layer] % n_arms == 0 and _separated_reference(
                sums[layer], counts[layer], n_pairs, radius_scale, extra[layer]
            ):
                finish[layer] = t + 1
                estimates = sums[layer] / counts[layer]
                rankings[layer] = np.argsort(-estimates, axis=1, kind="stable")
                # this layer's rankings override every faster layer
                exploring[: layer + 1] = False
                rankings[: layer + 1] = rankings[layer]
                pointer[: layer + 1] = 0
        trace[:, record_times == t + 1] = regret[:, None]
    final = np.full(n_players, -1, dtype=np.int64)
    done = np.flatnonzero(~exploring)
    if done.size:
        committed = done[-1]
        final = rankings[committed, players, pointer[committed]]
    return trace, final, finish, budget - left
