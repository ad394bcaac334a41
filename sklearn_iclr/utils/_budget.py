"""Refuse work that would not finish, before it starts."""


def check_work_budget(work, budget, *, what, seconds_per_unit, parameter, advice=""):
    """Raise a ``ValueError`` when ``work`` exceeds ``budget``, with a time estimate.

    Every estimator whose cost a hyperparameter or the data can blow up (a
    degree, a number of steps, a batch size, a count of candidates) calls this
    before the first expensive line, so that a user gets the reason and an
    estimate at once instead of a hang or an allocator crash.

    Parameters
    ----------
    work : float
        The amount of work the fit would do, in the unit of ``what``.
    budget : float
        The largest amount accepted (usually an estimator parameter).
    what : str
        The unit, in words, e.g. ``"candidate examinations"``.
    seconds_per_unit : float
        Cost of one unit in seconds, for the estimate given in the message.
    parameter : str
        The name of the parameter that sets ``budget``, so the message can
        say how to raise it.
    advice : str, default=""
        A sentence on how to reduce ``work`` instead.

    Examples
    --------
    >>> check_work_budget(10, 100, what="steps", seconds_per_unit=1e-3,
    ...                   parameter="max_steps")
    >>> check_work_budget(1e9, 1e6, what="steps", seconds_per_unit=1e-3,
    ...                   parameter="max_steps")
    Traceback (most recent call last):
    ...
    ValueError: This fit needs 1e+09 steps (about 11.6 days), more than ...
    """
    if work <= budget:
        return
    estimate = _duration(work * seconds_per_unit)
    message = (
        f"This fit needs {work:.3g} {what} (about {estimate}), more than "
        f"{parameter}={budget:.3g} allows. Raise {parameter} to accept it."
    )
    if advice:
        message += " " + advice
    raise ValueError(message)


def _duration(seconds):
    for unit, size in (("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"
