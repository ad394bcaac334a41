"""Tour entry: MultiLayerETGSRace against vanilla ETGS in a corrupted market.

The policies fit no data, so there is no Pipeline: the sub-phase length ``d``
is tuned on one set of simulated runs (the market's ``random_state=0``) and
the tuned race is scored on fresh runs (``random_state=1``), next to vanilla
ETGS on the same fresh runs. The score is the maximum over players of the
mean cumulative regret at the horizon: lower is better.
"""

from . import TourEntry
from ._corrupted_market import tune_then_score


def run():
    """Tune ``subphase_length`` on one seed set, score on another."""
    from sklearn_iclr.bandits import MultiLayerETGSRace

    return tune_then_score(
        MultiLayerETGSRace(random_state=0),
        {"subphase_length": [1, 2, 4, 8]},
        random_state=1,
    )


ENTRY = TourEntry(
    name="MultiLayerETGSRace",
    dataset="matching N=K=3, gap .5, C=2000",
    metric="max regret",
    anchor="vanilla ETGS (Kong & Li 2023)",
    run=run,
    lower_is_better=True,
    gain="robustness to a corruption budget it is not told",
    scored_on="fresh simulated runs",
)
