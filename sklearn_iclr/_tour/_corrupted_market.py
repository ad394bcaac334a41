"""The corrupted matching market that the bandit entries of the tour share."""

HORIZON = 200_000
BUDGET = 2000.0
N_RUNS = 4


def tune_then_score(policy, param_grid, **score_params):
    """Tune ``policy`` on one seed set of the market, score it on another.

    The market (3 players, 3 arms, gap 0.5) is corrupted by an adversary with
    budget ``BUDGET``. Each parameter combination of ``param_grid`` is scored
    on the runs of ``random_state=0``; the best is refitted with
    ``score_params`` and scored on fresh runs (``random_state=1``), next to
    vanilla ETGS on the same runs. The score is the maximum over players of
    the mean cumulative regret at the horizon (lower is better).

    Returns
    -------
    tuned_regret, vanilla_regret, best_params
    """
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from sklearn_iclr.bandits import (
        ETGS,
        MatchingMarket,
        TargetOptimalCorruption,
        simulate,
    )
    from sklearn_iclr.datasets import make_matching_market

    means, arm_preferences, _ = make_matching_market(3, 3, gap=0.5, random_state=2)

    def regret(candidate, seed):
        market = MatchingMarket(
            means,
            arm_preferences,
            corruption=TargetOptimalCorruption(BUDGET),
            random_state=seed,
        )
        result = simulate(market, candidate, HORIZON, n_runs=N_RUNS, n_points=10)
        return float(result.max_regret[-1])

    grid = ParameterGrid(param_grid)
    best = min(grid, key=lambda params: regret(clone(policy).set_params(**params), 0))
    tuned = clone(policy).set_params(**best, **score_params)
    return regret(tuned, 1), regret(ETGS(), 1), best
