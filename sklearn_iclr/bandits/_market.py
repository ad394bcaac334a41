"""Two-sided matching markets with bandit feedback, and their stable matchings."""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator

from ..utils._compat import Interval, StrOptions, validate_params

__all__ = ["MatchingMarket", "TargetOptimalCorruption", "gale_shapley"]


def _check_rankings(rankings, n_rows, n_cols, what):
    """``rankings`` as an int array whose rows are permutations of ``n_cols``."""
    rankings = np.asarray(rankings)
    if rankings.ndim != 2 or rankings.shape != (n_rows, n_cols):
        raise ValueError(
            f"{what} must have shape ({n_rows}, {n_cols}), one complete "
            f"preference list per row; got shape {rankings.shape}."
        )
    if not np.issubdtype(rankings.dtype, np.integer):
        if not np.all(np.isfinite(rankings)) or np.any(rankings != np.round(rankings)):
            raise ValueError(f"{what} must hold integer indices.")
        rankings = rankings.astype(np.int64)
    expected = np.arange(n_cols)
    for row, ranking in enumerate(rankings):
        if not np.array_equal(np.sort(ranking), expected):
            raise ValueError(
                f"Row {row} of {what} is not a strict preference list: it must "
                f"list each of the {n_cols} indices 0..{n_cols - 1} exactly once "
                f"(ties, repeats and missing entries are not allowed); got "
                f"{ranking.tolist()}."
            )
    return rankings.astype(np.int64)


@validate_params(
    {"player_rankings": ["array-like"], "arm_rankings": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def gale_shapley(player_rankings, arm_rankings):
    """Player-proposing deferred acceptance (Gale-Shapley).

    Returns the player-optimal stable matching: every player gets the best arm
    it has in any stable matching (Gale & Shapley, 1962). Every player and every
    arm find all partners acceptable and ``n_players <= n_arms``, so every player
    is matched.

    Parameters
    ----------
    player_rankings : array-like of shape (n_players, n_arms)
        ``player_rankings[i]`` lists the arms from player ``i``'s most
        preferred to its least preferred.
    arm_rankings : array-like of shape (n_arms, n_players)
        ``arm_rankings[j]`` lists the players from arm ``j``'s most preferred
        to its least preferred.

    Returns
    -------
    matching : ndarray of shape (n_players,)
        ``matching[i]`` is the arm of player ``i``.

    Examples
    --------
    >>> from sklearn_iclr.bandits import gale_shapley
    >>> gale_shapley([[0, 1], [0, 1]], [[1, 0], [0, 1]])
    array([1, 0])
    """
    player_rankings = np.asarray(player_rankings)
    if player_rankings.ndim != 2:
        raise ValueError("player_rankings must be a 2-d array.")
    n_players, n_arms = player_rankings.shape
    if n_players > n_arms:
        raise ValueError(
            f"n_players={n_players} > n_arms={n_arms}: this market model needs "
            "at least as many arms as players."
        )
    player_rankings = _check_rankings(
        player_rankings, n_players, n_arms, "player_rankings"
    )
    arm_rankings = _check_rankings(arm_rankings, n_arms, n_players, "arm_rankings")
    # arm_rank[j, i]: position of player i in arm j's list (lower is better).
    arm_rank = np.argsort(arm_rankings, axis=1)
    holder = np.full(n_arms, -1)
    next_choice = np.zeros(n_players, dtype=np.int64)
    free = list(range(n_players))
    while free:
        i = free.pop()
        arm = player_rankings[i, next_choice[i]]
        next_choice[i] += 1
        current = holder[arm]
        if current < 0:
            holder[arm] = i
        elif arm_rank[arm, i] < arm_rank[arm, current]:
            holder[arm] = i
            free.append(current)
        else:
            free.append(i)
    matching = np.empty(n_players, dtype=np.int64)
    for arm, i in enumerate(holder):
        if i >= 0:
            matching[i] = arm
    return matching


class TargetOptimalCorruption(BaseEstimator):
    """Make each targeted player's optimal stable arm look worse than another.

    For a targeted player ``i`` with optimal stable arm ``m*(i)``, let
    ``a(i)`` be the arm Gale-Shapley gives ``i`` when ``i`` ranks ``m*(i)``
    last (the partner the attack steers ``i`` to). Every time ``i`` is
    accepted by ``m*(i)``, the adversary lowers the reward ``i`` observes by
    ``shift``; with ``boost_alternative=True`` it also raises by ``shift``
    the rewards ``i`` observes from ``a(i)``. Each change costs its size,
    until the total budget is spent (the last change may be smaller). With
    the default ``shift = mu_{i m*(i)} - mu_{i a(i)}`` the two arms trade
    places in expectation, so a deterministic explore-then-commit learner
    such as :class:`ETGS` learns the traded ranking, and keeps a wrong
    matching for the rest of the horizon, once the adversary can pay that
    price on every exploration cycle until exploration ends. Players for
    whom ``a(i) = m*(i)`` (no swap changes their partner) are not attacked.
    The expected rewards, and hence the regret, are unchanged; only
    observations are corrupted, and only those a learner records
    (exploration rounds): the policies ignore rewards once they commit, so
    corrupting those would waste the budget.

    Parameters
    ----------
    budget : float
        The total corruption ``C = sum_t sum_i |c_t(i)|`` the adversary may
        spend, over all players and rounds.
    shift : float, default=None
        The size of one corruption; ``None`` uses
        ``mu_{i m*(i)} - mu_{i a(i)}`` for each player.
    boost_alternative : bool, default=True
        Also raise ``a(i)``; ``False`` only pushes ``m*(i)`` down.
    targets : {"cheapest", "all"} or array-like of int, default="cheapest"
        The players attacked. ``"cheapest"`` attacks the one player whose
        default shift is smallest (a budget-limited adversary's best bet;
        ties go to the lowest index), ``"all"`` every player (the budget is
        then shared, first come first served).

    See Also
    --------
    MatchingMarket : The market whose rewards are corrupted.

    Examples
    --------
    >>> from sklearn_iclr.bandits import TargetOptimalCorruption
    >>> TargetOptimalCorruption(2000.0, targets="all")
    TargetOptimalCorruption(budget=2000.0, targets='all')
    """

    _parameter_constraints = {
        "budget": [Interval(Real, 0, None, closed="left")],
        "shift": [Interval(Real, 0, None, closed="neither"), None],
        "boost_alternative": ["boolean"],
        "targets": [StrOptions({"cheapest", "all"}), "array-like"],
    }

    def __init__(
        self, budget, *, shift=None, boost_alternative=True, targets="cheapest"
    ):
        self.budget = budget
        self.shift = shift
        self.boost_alternative = boost_alternative
        self.targets = targets

    def _arrays(self, means, arm_rankings, optimal):
        """``(is_target, boosted_arm, shift, budget)`` for the simulator."""
        if isinstance(self.budget, Real) and self.budget < 0:
            raise ValueError(
                f"The corruption budget must be non-negative; got {self.budget}."
            )
        self._validate_params()
        if not np.isfinite(self.budget) or (
            self.shift is not None and not np.isfinite(self.shift)
        ):
            raise ValueError("budget and shift must be finite.")
        n_players, n_arms = means.shape
        is_target = np.zeros(n_players, dtype=np.bool_)
        if isinstance(self.targets, str):
            is_target[:] = True
        else:
            targets = np.asarray(self.targets).ravel()
            if targets.size and (
                not np.issubdtype(targets.dtype, np.integer)
                or targets.min() < 0
                or targets.max() >= n_players
            ):
                raise ValueError(
                    f"targets must be player indices in [0, {n_players}); got "
                    f"{targets.tolist()}."
                )
            is_target[targets] = True
        rankings = np.argsort(-means, axis=1, kind="stable")
        alternative = attack_alternatives(rankings, arm_rankings, optimal)
        is_target &= alternative != optimal
        rows = np.arange(n_players)
        natural = means[rows, optimal] - means[rows, alternative]
        if isinstance(self.targets, str) and self.targets == "cheapest":
            if is_target.any():
                cheapest = np.argmin(np.where(is_target, natural, np.inf))
                is_target[:] = False
                is_target[cheapest] = True
        if self.shift is None:
            shift = natural
        else:
            shift = np.full(n_players, float(self.shift))
        boosted = np.where(is_target & self.boost_alternative, alternative, -1)
        return is_target, boosted.astype(np.int64), shift, float(self.budget)


def attack_alternatives(player_rankings, arm_rankings, optimal):
    """Each player's Gale-Shapley partner when it ranks its optimal arm last.

    Parameters
    ----------
    player_rankings : ndarray of shape (n_players, n_arms)
    arm_rankings : ndarray of shape (n_arms, n_players)
    optimal : ndarray of shape (n_players,)
        The player-optimal stable matching.

    Returns
    -------
    alternative : ndarray of shape (n_players,)
    """
    alternative = np.empty_like(optimal)
    for i, ranking in enumerate(player_rankings):
        demoted = player_rankings.copy()
        demoted[i] = np.r_[ranking[ranking != optimal[i]], optimal[i]]
        alternative[i] = gale_shapley(demoted, arm_rankings)[i]
    return alternative


class MatchingMarket(BaseEstimator):
    """A two-sided matching market where players learn from noisy rewards.

    ``n_players`` players and ``n_arms >= n_players`` arms. Each round every
    player pulls an arm; an arm pulled by several players accepts the one it
    prefers (its preferences are known and fixed), the others are rejected
    and get reward 0. An accepted player ``i`` on arm ``j`` observes
    ``mu_ij + noise_std * eps`` with standard Gaussian ``eps``, possibly
    corrupted by an adversary. The benchmark of the regret is the
    player-optimal stable matching ``m*`` of the true preferences:
    ``R_i(T) = T mu_{i m*(i)} - sum_t E[reward of i at t]``.

    This is the model of Wu, Zuo, Xu & Kong, "Bandit Learning in Matching
    Markets Robust to Adversarial Corruptions", ICLR 2026 (OpenReview
    CoWJc5ofDO), after Kong & Li (2023, arXiv:2307.10890).

    Parameters
    ----------
    player_means : array-like of shape (n_players, n_arms)
        Expected reward of each player on each arm; each row must have
        distinct values (strict preferences).
    arm_preferences : array-like of shape (n_arms, n_players)
        ``arm_preferences[j]`` lists the players from arm ``j``'s most
        preferred to least preferred (each player exactly once).
    noise_std : float, default=1.0
        Standard deviation of the Gaussian reward noise.
    corruption : object, default=None
        An adversary such as :class:`TargetOptimalCorruption`; ``None`` for
        uncorrupted rewards.
    random_state : int, RandomState instance or None, default=None
        Seeds the reward noise of :func:`simulate`.

    See Also
    --------
    simulate : Run a policy on this market.
    sklearn_iclr.datasets.make_matching_market : A random market.

    Examples
    --------
    >>> from sklearn_iclr.bandits import MatchingMarket
    >>> market = MatchingMarket([[1.0, 0.5], [0.8, 0.2]], [[1, 0], [0, 1]])
    >>> market.optimal_matching()
    array([1, 0])
    >>> market.gap()
    0.5
    """

    _parameter_constraints = {
        "player_means": ["array-like"],
        "arm_preferences": ["array-like"],
        "noise_std": [Interval(Real, 0, None, closed="left")],
        "corruption": [None, TargetOptimalCorruption],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        player_means,
        arm_preferences,
        *,
        noise_std=1.0,
        corruption=None,
        random_state=None,
    ):
        self.player_means = player_means
        self.arm_preferences = arm_preferences
        self.noise_std = noise_std
        self.corruption = corruption
        self.random_state = random_state

    def _validated(self):
        """``(means, arm_rankings)`` after checking the market is well formed."""
        self._validate_params()
        means = np.asarray(self.player_means, dtype=np.float64)
        if means.ndim != 2 or means.size == 0:
            raise ValueError(
                "player_means must be a non-empty 2-d array of shape "
                f"(n_players, n_arms); got shape {means.shape}."
            )
        if not np.all(np.isfinite(means)):
            raise ValueError("player_means must be finite (no NaN or inf).")
        n_players, n_arms = means.shape
        if n_players > n_arms:
            raise ValueError(
                f"player_means has n_players={n_players} > n_arms={n_arms}; the "
                "market needs at least as many arms as players."
            )
        arm_shape = np.shape(self.arm_preferences)
        if arm_shape != (n_arms, n_players):
            raise ValueError(
                f"arm_preferences must have shape (n_arms, n_players) = "
                f"({n_arms}, {n_players}) to match player_means; got {arm_shape}."
            )
        arm_rankings = _check_rankings(
            self.arm_preferences, n_arms, n_players, "arm_preferences"
        )
        for i, row in enumerate(means):
            if np.unique(row).size < n_arms:
                raise ValueError(
                    f"player_means row {i} has tied means {row.tolist()}; players "
                    "need strict preferences (distinct means)."
                )
        if not np.isfinite(self.noise_std):
            raise ValueError("noise_std must be finite.")
        return means, arm_rankings

    def player_rankings(self):
        """Each player's arms from most to least preferred (by mean).

        Returns
        -------
        rankings : ndarray of shape (n_players, n_arms)
            ``rankings[i]`` lists player ``i``'s arms, best first.
        """
        means, _ = self._validated()
        return np.argsort(-means, axis=1, kind="stable")

    def optimal_matching(self):
        """The player-optimal stable matching, by Gale-Shapley.

        Returns
        -------
        matching : ndarray of shape (n_players,)
            ``matching[i]`` is player ``i``'s arm.
        """
        means, arm_rankings = self._validated()
        return gale_shapley(np.argsort(-means, axis=1, kind="stable"), arm_rankings)

    def gap(self):
        """The market's preference gap ``Delta`` (Kong & Li, 2023).

        The smallest difference between the means of consecutively ranked
        arms among any player's top ``min(n_players + 1, n_arms)`` arms.

        Returns
        -------
        gap : float
            ``Delta``; ``inf`` with a single arm.
        """
        means, _ = self._validated()
        n_players, n_arms = means.shape
        if n_arms == 1:
            return np.inf
        ordered = -np.sort(-means, axis=1)[:, : min(n_players + 1, n_arms)]
        return float(np.min(ordered[:, :-1] - ordered[:, 1:]))
