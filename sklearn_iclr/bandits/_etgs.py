"""Explore-then-Gale-Shapley (ETGS) and its corruption-robust variant."""

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator

from ..utils._compat import Interval

__all__ = ["ETGS", "RobustETGS"]


class _ETGSPolicy(BaseEstimator):
    """Shared layout: what the simulator needs from an ETGS-type policy."""

    def _corruption_term(self, horizon):
        return 0.0

    def _radius_scale(self, horizon):
        return self.confidence_scale * math.log(horizon)

    def _plan(self, horizon, n_runs):
        """``(layer_weights, layer_seeds, subphase_length, extra)`` of the runs.

        ``layer_weights[l]`` is the probability of drawing layer ``l`` for a
        sub-phase, ``layer_seeds[r]`` seeds run ``r``'s draws and ``extra[l]``
        is the numerator of layer ``l``'s corruption term.
        """
        self._validate_params()
        extra = np.array([self._corruption_term(horizon)])
        return np.ones(1), np.zeros(n_runs, dtype=np.int64), horizon, extra

    def _exploration_rounds(self, horizon, n_arms, gap):
        """Rounds the slowest layer this policy waits for needs, noise-free."""
        return _rounds_to_separate(
            self._radius_scale(horizon), self._corruption_term(horizon), gap, n_arms
        )


def _rounds_to_separate(radius_scale, extra, gap, n_arms):
    """Round-robin rounds until ``2 (sqrt(s / n) + e / n) < gap``, noise-free."""
    if not np.isfinite(gap):
        return n_arms
    # 2 sqrt(s / n) + 2 e / n < gap  <=>  gap x^2 - 2 sqrt(s) x - 2 e > 0, x = sqrt(n)
    x = 2 * math.sqrt(radius_scale) + math.sqrt(4 * radius_scale + 8 * gap * extra)
    x /= 2 * gap
    if not x * x < 1e18:
        return math.inf
    return n_arms * math.ceil(x * x)


class ETGS(_ETGSPolicy):
    """Explore-then-Gale-Shapley: the vanilla learner of Kong & Li (2023).

    Every player explores the arms in round robin (no collisions) until its
    confidence intervals ``mu_hat_ij +- sqrt(c log T / T_ij)`` order its top
    ``min(N + 1, K)`` arms, then all players run decentralised Gale-Shapley
    on the estimated rankings and stay on the matching it reaches. Regret
    ``O(K log T / Delta^2)`` without corruption; it is deterministic given the
    observations, so an adversary spending ``O(log T / Delta)`` on the
    observed rewards makes the learned matching, and the regret, linear
    (Wu, Zuo, Xu & Kong, "Bandit Learning in Matching Markets Robust to
    Adversarial Corruptions", ICLR 2026, OpenReview CoWJc5ofDO; Kong & Li,
    "Player-optimal Stable Regret for Bandit Learning in Matching Markets",
    arXiv:2307.10890).

    The players' communication (index estimation and the collision signals
    that synchronise the end of exploration) is idealised: every player knows
    at once when all have finished exploring; the papers spend
    ``O(N log T)`` extra rounds on it.

    Parameters
    ----------
    confidence_scale : float, default=6.0
        ``c`` in the confidence radius ``sqrt(c log T / T_ij)``.

    See Also
    --------
    RobustETGS : Robust to a known corruption budget.
    MultiLayerETGSRace : Robust to an unknown corruption budget.
    simulate : Run a policy on a market.

    Examples
    --------
    >>> from sklearn_iclr.bandits import ETGS, MatchingMarket, simulate
    >>> market = MatchingMarket([[1.0, 0.2], [1.0, 0.2]], [[1, 0], [1, 0]],
    ...                         noise_std=0.5, random_state=0)
    >>> result = simulate(market, ETGS(), horizon=2000, n_runs=2)
    >>> result.player_optimal.tolist()
    [True, True]
    """

    _parameter_constraints = {
        "confidence_scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, *, confidence_scale=6.0):
        self.confidence_scale = confidence_scale


class RobustETGS(_ETGSPolicy):
    """ETGS with confidence intervals widened by a known corruption budget.

    As :class:`ETGS`, with ``mu_hat_ij +- (sqrt(c log T / T_ij) + C / T_ij)``:
    a corruption of total size ``C`` moves a mean of ``T_ij`` observations by
    at most ``C / T_ij``, so the learned rankings are right whenever the
    uncorrupted intervals are. Regret ``O(K log T / Delta^2 + K C / Delta)``
    (Wu, Zuo, Xu & Kong, "Bandit Learning in Matching Markets Robust to
    Adversarial Corruptions", ICLR 2026, OpenReview CoWJc5ofDO). The price is
    a longer exploration, about ``2 C / Delta`` extra pulls per arm, paid
    whether or not the adversary attacks.

    Parameters
    ----------
    corruption_budget : float
        ``C``, an upper bound on the adversary's total corruption.
    confidence_scale : float, default=6.0
        ``c`` in the confidence radius.

    See Also
    --------
    ETGS : The vanilla learner.
    MultiLayerETGSRace : When ``C`` is unknown.

    Examples
    --------
    >>> from sklearn_iclr.bandits import MatchingMarket, RobustETGS, simulate
    >>> market = MatchingMarket([[1.0, 0.2], [1.0, 0.2]], [[1, 0], [1, 0]],
    ...                         noise_std=0.5, random_state=0)
    >>> result = simulate(market, RobustETGS(50.0), horizon=5000, n_runs=2)
    >>> result.player_optimal.tolist()
    [True, True]
    """

    _parameter_constraints = {
        "corruption_budget": [Interval(Real, 0, None, closed="left")],
        "confidence_scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, corruption_budget, *, confidence_scale=6.0):
        self.corruption_budget = corruption_budget
        self.confidence_scale = confidence_scale

    def _corruption_term(self, horizon):
        if isinstance(self.corruption_budget, Real) and self.corruption_budget < 0:
            raise ValueError(
                f"corruption_budget must be non-negative; got {self.corruption_budget}."
            )
        if not np.isfinite(self.corruption_budget):
            raise ValueError("corruption_budget must be finite.")
        return float(self.corruption_budget)
