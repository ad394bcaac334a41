"""Tour entry: OnlineSpectralController against GPC on a disturbed system.

Controllers fit no data, so there is no Pipeline: the Adam step is tuned on
one sinusoidal disturbance sequence (``random_state=0``) and the tuned
controller is scored on a fresh one (``random_state=1``), next to the GPC
controller (memory 50) on the same fresh sequence. The score is the mean cost
``x^T Q x + u^T R u`` of the last 500 steps: lower is better.
"""

from . import TourEntry

N_STEPS = 3000
STATE_DIM = 5
LAST = 500


def run():
    """Tune ``learning_rate`` on one disturbance sequence, score on another."""
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from sklearn_iclr.datasets import make_lds
    from sklearn_iclr.dynamical import GPCController, OnlineSpectralController

    def system(seed):
        return make_lds(N_STEPS, STATE_DIM, disturbance="sinusoidal", random_state=seed)

    def cost(controller, lds):
        controller = clone(controller).set_params(A=lds.A, B=lds.B)
        return float(controller.run(lds.disturbances).costs[-LAST:].mean())

    tuning, fresh = system(0), system(1)
    spectral = OnlineSpectralController(None, None, random_state=0)
    grid = ParameterGrid({"learning_rate": [1e-4, 1e-3]})
    best = min(grid, key=lambda p: cost(clone(spectral).set_params(**p), tuning))
    tuned = clone(spectral).set_params(**best)
    anchor = GPCController(None, None, random_state=0)
    return cost(tuned, fresh), cost(anchor, fresh), best


ENTRY = TourEntry(
    name="OnlineSpectralController",
    dataset=f"LDS d={STATE_DIM}, sinusoidal disturbances, T={N_STEPS}",
    metric=f"cost, last {LAST} steps",
    anchor="GPCController (memory 50)",
    run=run,
    gain="long memory from 15 filters: 75 weights where GPC needs 250",
    lower_is_better=True,
    scored_on="a fresh disturbance sequence",
)
