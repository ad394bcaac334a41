"""Run a learning policy on a matching market, many independent runs."""

from numbers import Integral

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.utils import Bunch, check_random_state

from ..utils import check_count_budget
from ..utils._compat import Interval, validate_params
from ._etgs import _ETGSPolicy
from ._kernel import run_race
from ._market import MatchingMarket

__all__ = ["simulate"]


def _layer_sequence(weights, seed, n_subphases):
    """The leader's draws of one run: the layer of every sub-phase."""
    if weights.size == 1:
        return np.zeros(1, dtype=np.int8)
    rng = np.random.default_rng(seed)
    return rng.choice(weights.size, size=n_subphases, p=weights).astype(np.int8)


def _run_chunk(args, runs, seeds, layer_weights, layer_seeds):
    horizon, subphase = args[4], args[6]
    n_subphases = -(-horizon // subphase)
    out = []
    for r, seed, layer_seed in zip(runs, seeds, layer_seeds, strict=True):
        sequence = _layer_sequence(layer_weights, layer_seed, n_subphases)
        out.append((r, *run_race(*args[:6], sequence, *args[6:], seed)))
    return out


@validate_params(
    {
        "market": [MatchingMarket],
        "policy": [_ETGSPolicy],
        "horizon": [Interval(Integral, 1, None, closed="left")],
        "n_runs": [Interval(Integral, 1, None, closed="left")],
        "n_points": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "max_player_rounds": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def simulate(
    market,
    policy,
    horizon,
    *,
    n_runs=10,
    n_points=200,
    n_jobs=None,
    max_player_rounds=10**10,
    verbose=0,
):
    """Run ``policy`` on ``market`` for ``horizon`` rounds, ``n_runs`` times.

    Each run draws fresh reward noise (from ``market.random_state``) and, for
    :class:`MultiLayerETGSRace`, fresh layer draws (from the policy's
    ``random_state``); runs are independent and reproducible whatever
    ``n_jobs``. The per-round loop is compiled with numba (it releases the
    GIL); runs are split among ``n_jobs`` joblib workers, threads by default
    (``joblib.parallel_config`` can choose processes or dask).

    Parameters
    ----------
    market : MatchingMarket
        The market, with its noise, corruption and seed.
    policy : ETGS, RobustETGS or MultiLayerETGSRace
        The learning policy all players run.
    horizon : int
        ``T``, the number of rounds.
    n_runs : int, default=10
        Independent runs.
    n_points : int, default=200
        Number of rounds (evenly spaced, the last is ``horizon``; at most
        ``horizon``) at which the cumulative regret is recorded.
    n_jobs : int, default=None
        Number of joblib workers over runs; ``None`` means 1.
    max_player_rounds : int, default=10**10
        Refuse ``n_runs * horizon * n_players`` above this, before starting.
    verbose : int, default=0
        When positive, joblib reports the runs as they finish.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With keys

        - ``times``: ndarray of shape (n_points,), the recorded rounds;
        - ``regret``: ndarray of shape (n_runs, n_players, n_points), each
          player's cumulative player-optimal stable (pseudo-)regret
          ``t mu_{i m*(i)} - sum_s E[reward]`` (a rejected pull earns 0);
        - ``max_regret``: ndarray of shape (n_points,), the largest over
          players of the mean over runs (the papers' figure);
        - ``final_matching``: ndarray of shape (n_runs, n_players), the
          matching the policy has committed to at the end (for the race, that
          of the slowest layer done exploring); -1 while still exploring;
        - ``player_optimal``: ndarray of shape (n_runs,), whether that is
          the player-optimal stable matching ``optimal_matching``;
        - ``optimal_matching``: ndarray of shape (n_players,);
        - ``exploration_end``: ndarray of shape (n_runs, n_layers), the round
          at which each layer finished exploring (-1: never);
        - ``corruption_spent``: ndarray of shape (n_runs,).

    Examples
    --------
    >>> from sklearn_iclr.bandits import ETGS, MatchingMarket, simulate
    >>> from sklearn_iclr.datasets import make_matching_market
    >>> means, arm_prefs, _ = make_matching_market(3, 3, gap=0.5, random_state=0)
    >>> market = MatchingMarket(means, arm_prefs, random_state=0)
    >>> result = simulate(market, ETGS(), horizon=20_000, n_runs=4)
    >>> bool(result.player_optimal.all())
    True
    >>> result.regret.shape
    (4, 3, 200)
    """
    means, arm_rankings = market._validated()
    n_players, n_arms = means.shape
    optimal = market.optimal_matching()
    if market.corruption is None:
        is_target, budget = np.zeros(n_players, dtype=np.bool_), 0.0
        shift = np.zeros(n_players)
        boosted = np.full(n_players, -1, dtype=np.int64)
    else:
        is_target, boosted, shift, budget = market.corruption._arrays(
            means, arm_rankings, optimal
        )
    scale = np.max(np.abs(means)) + 10.0 * market.noise_std + budget
    if not scale <= 1e300 / horizon:
        raise ValueError(
            f"Rewards of size up to {scale:.3g} summed over horizon={horizon} "
            "rounds overflow float64; rescale player_means, noise_std and the "
            "corruption budget."
        )
    player_rounds = float(n_runs) * horizon * n_players
    check_count_budget(
        player_rounds,
        max_player_rounds,
        what="player-rounds",
        work={"player_round": player_rounds},
        parameter="max_player_rounds",
        advice="Lower horizon or n_runs.",
    )
    layer_weights, layer_seeds, subphase, extra = policy._plan(horizon, n_runs)
    n_layers = layer_weights.size
    gap = market.gap()
    needed = policy._exploration_rounds(horizon, n_arms, gap)
    if horizon < needed:
        raise ValueError(
            f"horizon={horizon} is shorter than the exploration phase of "
            f"{type(policy).__name__}: with gap {gap:.3g} its confidence "
            f"intervals separate after about {needed:.3g} rounds even without "
            "noise, so it would explore throughout. Raise horizon (or lower "
            "the corruption budget of a RobustETGS)."
        )
    arm_rank = np.argsort(arm_rankings, axis=1).astype(np.int64)
    times = np.linspace(1, horizon, min(n_points, horizon)).round().astype(np.int64)
    times = np.unique(times)
    rng = check_random_state(market.random_state)
    seeds = rng.randint(0, 2**31 - 1, size=n_runs)
    args = (
        means,
        arm_rank,
        optimal,
        float(market.noise_std),
        int(horizon),
        int(n_layers),
        int(subphase),
        float(policy._radius_scale(horizon)),
        extra,
        is_target,
        boosted,
        shift,
        budget,
        times,
    )
    # One task per run when reporting progress, else one per worker.
    n_chunks = n_runs if verbose else min(n_runs, effective_n_jobs(n_jobs))
    chunks = np.array_split(np.arange(n_runs), n_chunks)
    outputs = Parallel(n_jobs=n_jobs, prefer="threads", verbose=verbose)(
        delayed(_run_chunk)(
            args, chunk, seeds[chunk], layer_weights, layer_seeds[chunk]
        )
        for chunk in chunks
    )
    regret = np.empty((n_runs, n_players, times.size))
    final = np.empty((n_runs, n_players), dtype=np.int64)
    finish = np.empty((n_runs, n_layers), dtype=np.int64)
    spent = np.empty(n_runs)
    for chunk_out in outputs:
        for r, trace, last, end, used in chunk_out:
            regret[r], final[r], finish[r], spent[r] = trace, last, end, used
    return Bunch(
        times=times,
        regret=regret,
        max_regret=regret.mean(axis=0).max(axis=0),
        final_matching=final,
        player_optimal=np.all(final == optimal, axis=1),
        optimal_matching=optimal,
        exploration_end=finish,
        corruption_spent=spent,
    )
