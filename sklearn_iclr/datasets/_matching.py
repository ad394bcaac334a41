"""Random two-sided matching markets with a fixed preference gap."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..bandits import gale_shapley
from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_players": [Interval(Integral, 1, None, closed="left")],
        "n_arms": [Interval(Integral, 1, None, closed="left")],
        "gap": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_matching_market(n_players=5, n_arms=5, *, gap=0.2, random_state=None):
    """A random matching market whose players' adjacent arms differ by ``gap``.

    Each player ranks the arms by an independent uniformly random permutation
    and gets mean ``gap * (n_arms - r)`` from its ``r``-th ranked arm
    (``r = 0, ..., n_arms - 1``), so every gap between consecutively ranked
    arms, and the market's ``Delta``, equals ``gap``; each arm ranks the
    players by an independent random permutation. This is the simulation
    market of Wu, Zuo, Xu & Kong (ICLR 2026) and Kong & Li (2023,
    arXiv:2307.10890): ``n_players = n_arms = 5``, ``gap = 0.2`` gives means
    1.0, 0.8, ..., 0.2. The player-optimal stable matching (unique by
    definition) is computed by Gale-Shapley.

    Parameters
    ----------
    n_players : int, default=5
        Number of players.
    n_arms : int, default=5
        Number of arms, at least ``n_players``.
    gap : float, default=0.2
        The difference between a player's means of consecutively ranked arms.
    random_state : int, RandomState instance or None, default=None
        Seeds the preferences.

    Returns
    -------
    player_means : ndarray of shape (n_players, n_arms)
        The players' expected rewards.
    arm_preferences : ndarray of shape (n_arms, n_players)
        Each arm's players, most preferred first.
    optimal_matching : ndarray of shape (n_players,)
        The player-optimal stable matching: ``optimal_matching[i]`` is player
        ``i``'s arm.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_matching_market
    >>> means, arm_prefs, matching = make_matching_market(3, 3, gap=0.2, random_state=0)
    >>> means.shape, arm_prefs.shape, matching.shape
    ((3, 3), (3, 3), (3,))
    """
    if n_players > n_arms:
        raise ValueError(
            f"n_players={n_players} > n_arms={n_arms}: the market needs at least "
            "as many arms as players."
        )
    rng = check_random_state(random_state)
    player_rankings = np.array([rng.permutation(n_arms) for _ in range(n_players)])
    arm_preferences = np.array([rng.permutation(n_players) for _ in range(n_arms)])
    player_means = np.empty((n_players, n_arms))
    levels = gap * np.arange(n_arms, 0, -1, dtype=np.float64)
    for i, ranking in enumerate(player_rankings):
        player_means[i, ranking] = levels
    return player_means, arm_preferences, gale_shapley(player_rankings, arm_preferences)
