"""Tour entry: RobustETGS against vanilla ETGS in a corrupted market.

The policies fit no data, so there is no Pipeline: the confidence scale is
tuned on one set of simulated runs (the market's ``random_state=0``) and the
tuned policy is scored on fresh runs (``random_state=1``), next to vanilla ETGS
on the same fresh runs. The adversary spends a budget ``C`` that fools vanilla
ETGS into a wrong matching; ``RobustETGS`` is told ``C`` and widens its
confidence intervals by it. The score is the maximum over players of the mean
cumulative regret at the horizon: lower is better.
"""

from . import TourEntry
from ._corrupted_market import BUDGET, tune_then_score


def run():
    """Tune ``confidence_scale`` on one seed set, score on another."""
    from sklearn_iclr.bandits import RobustETGS

    return tune_then_score(
        RobustETGS(corruption_budget=BUDGET), {"confidence_scale": [2.0, 6.0]}
    )


ENTRY = TourEntry(
    name="RobustETGS",
    dataset="matching N=K=3, gap .5, C=2000",
    metric="max regret",
    anchor="vanilla ETGS (Kong & Li 2023)",
    run=run,
    gain="the player-optimal matching despite a known corruption budget",
    lower_is_better=True,
    scored_on="fresh simulated runs",
)
