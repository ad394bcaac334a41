"""The tour: every estimator on its own data, tuned, next to its anchor.

Each estimator contributes one module ``sklearn_iclr/_tour/entry_<name>.py``
(``<name>``: the stem of the estimator's private module) that defines
``ENTRY``, a :class:`TourEntry`. Nothing else has to be edited:
:func:`tour_entries` discovers the modules.
"""

import importlib
import importlib.util
import math
import pkgutil
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..utils import CompileTimer


@dataclass(frozen=True)
class TourEntry:
    """One line of the tour.

    Parameters
    ----------
    name : str
        The class the entry shows (what ``--only`` matches).
    dataset : str
        A short description of the data.
    metric : str
        What the scores measure, e.g. ``"accuracy"`` or ``"|beta-beta*|"``.
    anchor : str
        The method the estimator is compared with: a real alternative that a
        user would otherwise reach for.
    run : callable
        ``run() -> (score, anchor_score)`` or ``(score, anchor_score, chosen)``
        with ``chosen`` a dict of the hyperparameters the search picked. It
        builds a ``Pipeline`` around the estimator, tunes one hyperparameter
        with ``GridSearchCV``, fits the anchor on the same data and returns
        both scores (:func:`grid_search_score` does all of it).
    gain : str
        One short clause on what the estimator gives that its anchor does not
        (a certificate, replicability, a readable model), printed with every
        result, so that a tie or a loss says what it buys.
    lower_is_better : bool, default=False
        Whether a smaller score is better (an error rather than a score).
    scored_on : str, default="held-out data"
        What the score is computed against: held-out data, or the true
        parameter of a simulation (then the score is an error).
    """

    name: str
    dataset: str
    metric: str
    anchor: str
    run: Callable[[], tuple]
    gain: str = ""
    lower_is_better: bool = False
    scored_on: str = "held-out data"


def tour_entries():
    """Return the registered tour entries, sorted by name.

    Returns
    -------
    entries : list of TourEntry
    """
    entries = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("entry_"):
            module = importlib.import_module(f"{__name__}.{info.name}")
            entries.append(module.ENTRY)
    return sorted(entries, key=lambda e: e.name)


def grid_search_score(pipeline, param_grid, anchor, data, cv=3, scoring=None):
    """Tune ``pipeline`` over ``param_grid``, fit ``anchor``, score both on test.

    A fit that fails inside the search raises (``error_score="raise"``): the
    tour shows failures, and a missing optional dependency reaches the tour as
    the ``ImportError`` that names the extra.

    Parameters
    ----------
    pipeline : estimator
        A ``Pipeline`` that ends with the tour's estimator.
    param_grid : dict
        A grid over one hyperparameter of the estimator.
    anchor : estimator
        The comparison method, fitted as is.
    data : tuple
        ``(X_train, X_test, y_train, y_test)``.
    cv : int, default=3
        Folds of the grid search.
    scoring : str or callable, default=None
        Scorer for both; ``None`` uses the estimators' ``score``.

    Returns
    -------
    score, anchor_score : float
        Held-out scores of the tuned pipeline and of the anchor.
    chosen : dict
        The hyperparameters the search picked, without the step prefix.
    """
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import GridSearchCV

    X_train, X_test, y_train, y_test = data
    search = GridSearchCV(
        pipeline, param_grid, cv=cv, scoring=scoring, error_score="raise"
    )
    search.fit(X_train, y_train)
    anchor.fit(X_train, y_train)
    scorer = check_scoring(anchor, scoring=scoring)
    score, anchor_score = scorer(search, X_test, y_test), scorer(anchor, X_test, y_test)
    return score, anchor_score, chosen_params(search)


def chosen_params(search):
    """The hyperparameters a fitted search picked, without the step prefixes."""
    return {k.split("__")[-1]: v for k, v in search.best_params_.items()}


# The optional extras and the modules they install.
EXTRAS = {"torch": ("torch", "skorch"), "dask": ("dask",)}
_WIDTH = 100
_COMPILE_NOTE_S = 0.5  # compilation shorter than this is not worth a line


def format_number(value):
    """Four significant digits, the one number format of the tour.

    Fixed notation from 1e-3 to 1e6 (trailing zeros kept, so that 1 reads
    ``1.000``), scientific notation outside.

    Parameters
    ----------
    value : float

    Returns
    -------
    text : str
    """
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0.000"
    if not 1e-3 <= abs(value) < 1e6:
        return f"{value:.3e}"
    decimals = max(0, 3 - math.floor(math.log10(abs(value))))
    return f"{value:.{decimals}f}"


def _format_chosen(chosen):
    def value(v):
        return f"{v:g}" if isinstance(v, float) else str(v)

    return ", ".join(f"{k}={value(v)}" for k, v in chosen.items())


def missing_extra(exc):
    """The extra whose absence raised ``exc``, or None for any other error.

    ``exc`` is the ``ImportError`` of a missing module, the one that
    ``sklearn_iclr.utils.import_torch`` raises, or a ``ValueError`` of
    scikit-learn's model selection that wraps it ("All the fits failed",
    with the failures' messages in its text).
    """
    missing = (getattr(exc, "name", None) or "").split(".")[0]
    text = str(exc)
    for extra, modules in EXTRAS.items():
        for module in modules:
            named = f"needs {module}," in text or f"No module named '{module}'" in text
            if missing == module or named:
                return extra
    return None


def _run_entry(entry):
    """``(result, seconds, compile_seconds)`` of one entry."""
    start = time.perf_counter()
    with CompileTimer() as timer:
        result = entry.run()
    total = time.perf_counter() - start
    return result, total - timer.seconds, timer.seconds


def _verdict(entry, score, anchor_score):
    """``"beats"``, ``"ties"`` or ``"below"`` its anchor, as printed."""
    if format_number(score) == format_number(anchor_score):
        return "ties"
    better = score < anchor_score if entry.lower_is_better else score > anchor_score
    return "beats" if better else "below"


def run_tour(only=None, stream=print):
    """Run the tour entries and print one table, readable in 100 columns.

    Each entry takes a line of numbers, then what the score measures (on
    held-out data, or as an error against the truth of a simulation), the
    data and the hyperparameters the grid search chose, and what the
    estimator adds to its anchor. Times are wall seconds without numba's
    one-time compilation, which is reported on its own line when it happens
    (the first run in a fresh environment; later runs load numba's on-disk
    cache). An entry whose optional dependencies are missing is skipped with
    the extra that would enable it.

    Parameters
    ----------
    only : list of str, default=None
        Names of the entries to run; ``None`` runs them all.
    stream : callable, default=print
        Where the lines go.

    Returns
    -------
    rows : list of dict
        One row per entry that ran.
    """
    entries = tour_entries()
    if only:
        known = {e.name for e in entries}
        unknown = sorted(set(only) - known)
        if unknown:
            raise ValueError(f"Unknown tour entries {unknown}; known: {sorted(known)}")
        entries = [e for e in entries if e.name in only]
    if not entries:
        stream("No estimator is registered in the tour yet.")
        return []
    stream(
        "Each estimator is tuned over one hyperparameter and scored next to its "
        "anchor on the same data."
    )
    stream(
        "s: wall seconds of search, refit and anchor, without numba's one-time "
        "compilation."
    )
    stream(f"{'estimator':<31} {'metric':<24} {'score':>12} {'anchor':>12} {'s':>7}")
    stream("-" * _WIDTH)
    rows, skipped = [], []
    for entry in entries:
        try:
            result, seconds, compile_seconds = _run_entry(entry)
        except (ImportError, ValueError) as exc:
            extra = missing_extra(exc)
            if extra is None:
                raise
            skipped.append((entry.name, extra))
            continue
        score, anchor_score, *rest = result
        chosen = rest[0] if rest else {}
        verdict = _verdict(entry, score, anchor_score)
        rows.append(
            {
                "estimator": entry.name,
                "data": entry.dataset,
                "metric": entry.metric,
                "scored_on": entry.scored_on,
                "lower_is_better": entry.lower_is_better,
                "score": float(score),
                "anchor": entry.anchor,
                "anchor_score": float(anchor_score),
                "verdict": verdict,
                "chosen": chosen,
                "seconds": seconds,
                "compile_seconds": compile_seconds,
            }
        )
        stream(
            f"{entry.name:<31} {entry.metric[:24]:<24} {format_number(score):>12} "
            f"{format_number(anchor_score):>12} {seconds:>7.1f}"
        )
        better = "lower" if entry.lower_is_better else "higher"
        details = [
            f"measures: {entry.metric} on {entry.scored_on}; {better} is better",
            f"anchor: {entry.anchor}",
            f"data: {entry.dataset}",
        ]
        if chosen:
            details.append(f"tuned: {_format_chosen(chosen)}")
        if entry.gain:
            details.append(f"{verdict} its anchor; adds: {entry.gain}")
        if compile_seconds >= _COMPILE_NOTE_S:
            details.append(
                f"plus {compile_seconds:.1f} s of one-time numba compilation "
                "(cached on disk for later runs)"
            )
        for detail in details:
            for line in textwrap.wrap(detail, _WIDTH - 4):
                stream("    " + line)
    for name, extra in skipped:
        modules = ", ".join(EXTRAS[extra])
        stream(f"{name:<31} skipped: needs the [{extra}] extra ({modules})")
    return rows
