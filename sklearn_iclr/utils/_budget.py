"""Refuse work that would not finish, before it starts."""

from numbers import Real

from ._compat import Interval, validate_params
from ._cost import COSTS, estimate_seconds, format_duration


class WorkBudgetError(ValueError):
    """A fit refused before it started, because its work exceeds a budget.

    Parameters
    ----------
    message : str
        The refusal, with the count, the estimate and the parameter to raise.
    work : dict of str to float
        The counts of work the fit would do, keyed by the units of the cost
        table.
    seconds : float
        Their estimate in reference seconds (``estimate_seconds(work)``).

    Attributes
    ----------
    work : dict of str to float
        As given.
    seconds : float
        As given.
    """

    def __init__(self, message, *, work, seconds):
        super().__init__(message)
        self.work = dict(work)
        self.seconds = seconds


@validate_params(
    {
        "work": [dict],
        "max_work": [Interval(Real, 0, None, closed="left")],
        "parameter": [str],
        "advice": [str],
        "detail": [str],
    },
    prefer_skip_nested_validation=True,
)
def check_work_budget(work, max_work, *, parameter="max_work", advice="", detail=""):
    """Refuse work whose estimated reference seconds exceed ``max_work``.

    Every estimator whose cost a hyperparameter or the data can blow up (a
    depth, a number of epochs, a vocabulary) counts the work of its fit in the
    units of the cost table and calls this before the first expensive line, so
    that a user gets the reason and an estimate at once instead of a hang or
    an allocator crash. ``max_work`` has one meaning across the package:
    seconds of the reference core (see ``estimate_seconds``).

    Parameters
    ----------
    work : dict of str to float
        Counts of work, keyed by the units of the cost table.
    max_work : float
        The largest estimate accepted, in reference seconds.
    parameter : str, default="max_work"
        The name of the parameter that sets ``max_work``, so the message can
        say how to raise it.
    advice : str, default=""
        A sentence on how to reduce the work instead.
    detail : str, default=""
        Words on what is counted, written after the counts.

    Returns
    -------
    seconds : float
        The estimate, when it is within ``max_work``.

    Raises
    ------
    WorkBudgetError
        A ``ValueError`` with the counts, the estimate and the parameter.

    Examples
    --------
    >>> from sklearn_iclr.utils import check_work_budget
    >>> seconds = check_work_budget({"multiply_add": 1e9}, 3600.0)
    >>> check_work_budget({"multiply_add": 1e16}, 3600.0)
    Traceback (most recent call last):
    ...
    sklearn_iclr.utils._budget.WorkBudgetError: This fit needs 1e+16 multiply-adds ...
    """
    seconds = estimate_seconds(work)
    if seconds <= max_work:
        return seconds
    counts = " and ".join(
        f"{float(count):.3g} {COSTS[unit].what}" for unit, count in work.items()
    )
    _refuse(
        f"{counts} {detail}".strip(),
        seconds,
        f"{parameter}={max_work:.3g} ({format_duration(max_work)})",
        parameter,
        advice,
        work,
    )


@validate_params(
    {
        "count": [Interval(Real, 0, None, closed="left")],
        "limit": [Interval(Real, 0, None, closed="left")],
        "what": [str],
        "work": [dict],
        "parameter": [str],
        "advice": [str],
    },
    prefer_skip_nested_validation=True,
)
def check_count_budget(count, limit, *, what, work, parameter, advice=""):
    """Refuse a fit whose count of some operation exceeds ``limit``.

    For budgets counted in the operation a user reasons about (sampled tokens,
    player-rounds, candidate examinations, whose count may also drive the fit,
    as ICE's heuristic budget does) rather than in reference seconds. The
    message still estimates the time, from ``work`` and the cost table.

    Parameters
    ----------
    count : float
        The fit's count, in the unit of ``limit``.
    limit : float
        The largest count accepted.
    what : str
        The counted operation in words, plural (``"sampled tokens"``).
    work : dict of str to float
        The same work in the units of the cost table, for the estimate.
    parameter : str
        The name of the parameter that sets ``limit``.
    advice : str, default=""
        A sentence on how to reduce the work instead.

    Raises
    ------
    WorkBudgetError
        A ``ValueError`` with the count, the estimate and the parameter.

    Examples
    --------
    >>> from sklearn_iclr.utils import check_count_budget
    >>> check_count_budget(
    ...     1e12, 1e9, what="sampled tokens", work={"sampled_token": 1e12},
    ...     parameter="max_sampled_tokens",
    ... )
    Traceback (most recent call last):
    ...
    sklearn_iclr.utils._budget.WorkBudgetError: This fit needs 1e+12 sampled tokens ...
    """
    if count <= limit:
        return
    _refuse(
        f"{float(count):.3g} {what}",
        estimate_seconds(work),
        f"{parameter}={limit:.3g}",
        parameter,
        advice,
        work,
    )


def _refuse(counts, seconds, budget, parameter, advice, work):
    message = (
        f"This fit needs {counts} (about {format_duration(seconds)} of a "
        f"reference core), more than {budget} allows. Raise {parameter} to "
        "accept it."
    )
    if advice:
        message += " " + advice
    raise WorkBudgetError(message, work=work, seconds=seconds)
