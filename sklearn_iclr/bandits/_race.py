"""The multi-layer ETGS race: robust to an unknown corruption budget."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._compat import Interval
from ._etgs import _ETGSPolicy, _rounds_to_separate

__all__ = ["MultiLayerETGSRace"]


class MultiLayerETGSRace(_ETGSPolicy):
    """Multi-layer ETGS race for an unknown corruption budget.

    ``L = ceil(log2 T)`` copies ("layers") of ETGS share the rounds. Time is
    cut into sub-phases of ``d`` rounds; before each, a leader draws layer
    ``l`` with probability proportional to ``2^-l`` and all players play that
    layer's ETGS for the sub-phase, updating only its statistics. A layer
    drawn with probability below ``1 / C`` sees, with high probability, at
    most about ``d log T`` of the corruption, so layer ``l`` uses the radius
    ``sqrt(c log T / T^l_ij) + 2 d log T / T^l_ij``. Fast layers finish early
    but may be fooled; when a slower layer finishes, its rankings (hence its
    matching) override every faster layer. Regret
    ``O(K log^1.5 T (log T + C) / Delta^2 + K log^2 T (log T + C) / Delta)``
    with ``d = O(sqrt(log T))`` (Wu, Zuo, Xu & Kong, "Bandit Learning in
    Matching Markets Robust to Adversarial Corruptions", ICLR 2026,
    OpenReview CoWJc5ofDO).

    The leader's broadcast of the drawn layer (``O(log log T)`` signalling
    rounds per sub-phase in the paper) is idealised: every player knows the
    layer at once.

    Parameters
    ----------
    subphase_length : int, default=None
        ``d``, rounds per sub-phase. ``None`` uses ``round(sqrt(log2 T))``
        (4 for ``T`` from about 5e3 to 1.2e6).
    confidence_scale : float, default=6.0
        ``c`` in the confidence radius.
    random_state : int, RandomState instance or None, default=None
        Seeds the leader's draws of layers.

    See Also
    --------
    RobustETGS : When the corruption budget is known.
    ETGS : The vanilla learner.

    Examples
    --------
    >>> from sklearn_iclr.bandits import MatchingMarket, MultiLayerETGSRace
    >>> from sklearn_iclr.bandits import simulate
    >>> market = MatchingMarket([[1.0, 0.2], [1.0, 0.2]], [[1, 0], [1, 0]],
    ...                         noise_std=0.5, random_state=0)
    >>> race = MultiLayerETGSRace(subphase_length=2, random_state=0)
    >>> result = simulate(market, race, horizon=5000, n_runs=2)
    >>> result.player_optimal.tolist()
    [True, True]
    """

    _parameter_constraints = {
        "subphase_length": [Interval(Integral, 1, None, closed="left"), None],
        "confidence_scale": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self, *, subphase_length=None, confidence_scale=6.0, random_state=None
    ):
        self.subphase_length = subphase_length
        self.confidence_scale = confidence_scale
        self.random_state = random_state

    def _subphase_length(self, horizon):
        if self.subphase_length is None:
            return max(1, round(math.sqrt(math.log2(horizon))))
        return int(self.subphase_length)

    @staticmethod
    def _n_layers(horizon):
        return max(1, math.ceil(math.log2(horizon)))

    def _corruption_term(self, horizon):
        return 2.0 * self._subphase_length(horizon) * math.log(horizon)

    def _plan(self, horizon, n_runs):
        self._validate_params()
        d = self._subphase_length(horizon)
        n_layers = self._n_layers(horizon)
        weights = 0.5 ** np.arange(1, n_layers + 1)
        weights /= weights.sum()
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, 2**31 - 1, size=n_runs)
        extra = np.full(n_layers, self._corruption_term(horizon))
        return weights, seeds, d, extra

    def _exploration_rounds(self, horizon, n_arms, gap):
        # The fastest layer gets about half the rounds; the race cannot commit
        # to any matching before that layer finishes.
        n_layers = self._n_layers(horizon)
        share = 0.5 / (1 - 0.5**n_layers)
        rounds = _rounds_to_separate(
            self._radius_scale(horizon), self._corruption_term(horizon), gap, n_arms
        )
        return math.ceil(rounds / share) if math.isfinite(rounds) else rounds
