"""The cost table: what one unit of each kind of work costs, in reference seconds.

Every budget check of the package (``check_work_budget``,
``check_count_budget``) counts the work a fit would do in the units below
(multiply-adds, sampled tokens, candidate-hyperplane examinations...) and turns
the counts into an estimate with this one table. ``max_work`` parameters bound
that estimate.

The unit of the estimate is the **reference second**: one second of a core that
runs a float64 matrix product of 256 x 256 matrices, on one thread, at
``REFERENCE_MULTIPLY_ADDS_PER_SECOND`` multiply-adds per second. A real core
runs the same work in about ``reference seconds * that rate / its own rate``,
so an estimate carries over between machines through one ratio that anyone can
measure, and a fit is accepted or refused identically on every machine.

Calibration. ``benchmarks/bench_cost.py`` runs, for each entry, the workload
named in its ``calibration`` field (a real fit or call of the estimator that
counts this unit), reads the fit's count from the refusal at a tiny budget,
and times the fit in CPU seconds. In the same run it times the reference
matrix product before and after each workload, so that each entry is measured
as a ratio, CPU seconds per unit over CPU seconds per reference multiply-add,
which the load of a shared machine largely cancels. An entry's ``seconds``
is that ratio divided by ``REFERENCE_MULTIPLY_ADDS_PER_SECOND``, rounded to one
significant digit: estimates are for refusing work that would not finish, and
the workloads' own spread is wider than that rounding. The benchmark prints,
and writes to ``benchmarks/results/cost.json``, the measured seconds next to
the table's, so a stale entry shows as a ratio far from 1 (rerun it after a
change to an estimator's inner loop).
"""

from dataclasses import dataclass
from numbers import Real

from ._compat import Interval, validate_params

# The reference core's float64 matrix-product rate (256 x 256, one thread).
REFERENCE_MULTIPLY_ADDS_PER_SECOND = 2.5e10


@dataclass(frozen=True)
class UnitCost:
    """The cost of one unit of work.

    Parameters
    ----------
    seconds : float
        Reference seconds per unit.
    what : str
        The unit in words, plural, as a refusal message names it.
    calibration : str
        The workload of ``benchmarks/bench_cost.py`` that measures it.
    """

    seconds: float
    what: str
    calibration: str


COSTS = {
    "multiply_add": UnitCost(
        seconds=1e-10,
        what="multiply-adds",
        calibration=(
            "full-batch numpy gradient training of small dense networks and of "
            "attention and embedding layers"
        ),
    ),
    "controller_step": UnitCost(
        seconds=5e-5,
        what="steps",
        calibration=(
            "the numpy loop of an online controller on a three-state system (per-step "
            "overhead)"
        ),
    ),
    "torch_multiply_add": UnitCost(
        seconds=1e-10,
        what="multiply-adds",
        calibration=(
            "torch minibatch training of a one-hidden-layer network through "
            "skorch, its optimiser steps counted apart"
        ),
    ),
    "torch_step": UnitCost(
        seconds=6e-4,
        what="optimiser steps",
        calibration=(
            "skorch training of a linear model at batch size 8, where the per-step "
            "overhead dominates"
        ),
    ),
    "coordinate_update": UnitCost(
        seconds=1e-9,
        what="coordinate updates",
        calibration="the compiled population gradient descent of phase retrieval",
    ),
    "sgd_coordinate_update": UnitCost(
        seconds=5e-9,
        what="coordinate updates",
        calibration="the compiled one-pass SGD of phase retrieval",
    ),
    "langevin_coordinate": UnitCost(
        seconds=1e-8,
        what="gradient-evaluation coordinates",
        calibration=(
            "averaged Langevin chains of single-index regression (per gradient "
            "evaluation and feature)"
        ),
    ),
    "sampled_token": UnitCost(
        seconds=1e-6,
        what="sampled tokens",
        calibration=(
            "the sampling and RL updates of a next-token model over bit sequences"
        ),
    ),
    "event_warp": UnitCost(
        seconds=1e-6,
        what="event warps",
        calibration=(
            "one event warped and binned at one iteration of contrast maximisation"
        ),
    ),
    "frame_pixel": UnitCost(
        seconds=6e-10,
        what="frame pixels",
        calibration="one pixel of one packet's event frame",
    ),
    "player_round": UnitCost(
        seconds=9e-9,
        what="player-rounds",
        calibration="one player-round of a simulated matching-bandit policy",
    ),
    "hyperplane_examination": UnitCost(
        seconds=2e-8,
        what="candidate-hyperplane examinations",
        calibration="the compiled, pruned sweep of the exact 0-1 loss search",
    ),
    "lp_entry": UnitCost(
        seconds=3e-8,
        what="linear-program entries (samples x features^2)",
        calibration=(
            "HiGHS on the dense separating linear program of the 0-1 loss search"
        ),
    ),
    "unit_evaluation": UnitCost(
        seconds=1e-8,
        what="unit evaluations",
        calibration="one quantized unit on one distinct input, for the pattern table",
    ),
    "node_input": UnitCost(
        seconds=2e-9,
        what="node-input evaluations",
        calibration=(
            "one node of the quantized network's branch search, bounded on one input"
        ),
    ),
    "eigh_cube": UnitCost(
        seconds=1e-10,
        what="cubed matrix sizes",
        calibration="scipy.linalg.eigh of a dense symmetric matrix",
    ),
}


@validate_params({"work": [dict]}, prefer_skip_nested_validation=True)
def estimate_seconds(work):
    """Estimate the reference seconds of some work from the cost table.

    Parameters
    ----------
    work : dict of str to float
        Counts of work, keyed by the units of the cost table
        (``"multiply_add"``, ``"sampled_token"``, ...).

    Returns
    -------
    seconds : float
        The estimate, in seconds of the reference core.

    Examples
    --------
    >>> from sklearn_iclr.utils import estimate_seconds
    >>> estimate_seconds({"multiply_add": 1e12}) > estimate_seconds(
    ...     {"multiply_add": 1e9}
    ... )
    True
    """
    unknown = sorted(set(work) - set(COSTS))
    if unknown:
        raise ValueError(
            f"Unknown units of work {unknown}; the cost table has {sorted(COSTS)}."
        )
    return float(sum(float(n) * COSTS[unit].seconds for unit, n in work.items()))


@validate_params(
    {"seconds": [Interval(Real, 0, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def format_duration(seconds):
    """Write a duration in the largest unit it fills (seconds to days).

    Parameters
    ----------
    seconds : float
        The duration.

    Returns
    -------
    text : str
        The duration with three significant digits and its unit.

    Examples
    --------
    >>> from sklearn_iclr.utils import format_duration
    >>> format_duration(90.0), format_duration(86400.0), format_duration(0.5)
    ('1.5 minutes', '1 day', '0.5 s')
    """
    for unit, size in (("day", 86400.0), ("hour", 3600.0), ("minute", 60.0)):
        if seconds >= size:
            value = f"{seconds / size:.3g}"
            return f"{value} {unit}" + ("" if value == "1" else "s")
    return f"{seconds:.3g} s"
