"""The tour: every estimator on its own data, tuned, next to its anchor.

Each estimator contributes one module ``sklearn_iclr/_tour/entry_<name>.py``
that defines ``ENTRY``, a :class:`TourEntry`. Nothing else has to be edited:
:func:`tour_entries` discovers the modules.
"""

import importlib
import pkgutil
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class TourEntry:
    """One line of the tour.

    Parameters
    ----------
    name : str
        The estimator's class name (what ``--only`` matches).
    dataset : str
        A short description of the data.
    metric : str
        What the scores measure, e.g. ``"accuracy"`` or ``"R^2"``. Scores are
        held-out unless ``metric`` says otherwise.
    anchor : str
        The method the estimator is compared with.
    run : callable
        ``run() -> (score, anchor_score)`` or ``(score, anchor_score, chosen)``
        with ``chosen`` a dict of the hyperparameters the search picked. It
        builds a ``Pipeline`` around the estimator, tunes one hyperparameter
        with ``GridSearchCV``, fits the anchor on the same data and returns
        both scores (:func:`grid_search_score` does all of it).
    lower_is_better : bool, default=False
        Whether a smaller score is better (an error rather than a score).
    gain : str, default=""
        For an estimator that may score below its anchor: one short clause on
        what it gives in exchange (a certificate, replicability, exactness).
    """

    name: str
    dataset: str
    metric: str
    anchor: str
    run: Callable[[], tuple]
    lower_is_better: bool = False
    gain: str = ""


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
    search = GridSearchCV(pipeline, param_grid, cv=cv, scoring=scoring)
    search.fit(X_train, y_train)
    anchor.fit(X_train, y_train)
    scorer = check_scoring(anchor, scoring=scoring)
    score, anchor_score = scorer(search, X_test, y_test), scorer(anchor, X_test, y_test)
    return score, anchor_score, chosen_params(search)


def chosen_params(search):
    """The hyperparameters a fitted search picked, without the step prefixes."""
    return {k.split("__")[-1]: v for k, v in search.best_params_.items()}


_MISSING_EXTRAS = {"torch": "torch", "skorch": "torch", "dask": "dask"}
_WIDTH = 100


def _format_chosen(chosen):
    def value(v):
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    return ", ".join(f"{k}={value(v)}" for k, v in chosen.items())


def _missing_extra(exc):
    """The extra whose absence raised ``exc``, or None for any other error."""
    missing = (getattr(exc, "name", None) or "").split(".")[0]
    if missing in _MISSING_EXTRAS:
        return _MISSING_EXTRAS[missing]
    for module, extra in _MISSING_EXTRAS.items():
        if f"needs {module}," in str(exc):
            return extra
    return None


def run_tour(only=None, stream=print):
    """Run the tour entries and print one table, readable in 100 columns.

    Each entry takes two or three lines: the scores (held-out, with the
    direction of the metric), then the data and the hyperparameters the grid
    search chose, then, for an estimator that scores below its anchor, what it
    gives in exchange. An entry whose optional dependencies are missing is
    skipped with the extra that would enable it.

    Parameters
    ----------
    only : list of str, default=None
        Names of the estimators to run; ``None`` runs them all.
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
    stream("Scores are on held-out data; each entry says which direction is better.")
    stream(f"{'estimator':<31} {'metric':<24} {'score':>12} {'anchor':>12} {'sec':>7}")
    stream("-" * _WIDTH)
    rows, skipped = [], []
    for entry in entries:
        start = time.perf_counter()
        try:
            score, anchor_score, *rest = entry.run()
        except ImportError as exc:
            extra = _missing_extra(exc)
            if extra is None:
                raise
            skipped.append((entry.name, extra))
            continue
        seconds = time.perf_counter() - start
        chosen = rest[0] if rest else {}
        rows.append(
            {
                "estimator": entry.name,
                "data": entry.dataset,
                "metric": entry.metric,
                "lower_is_better": entry.lower_is_better,
                "score": float(score),
                "anchor": entry.anchor,
                "anchor_score": float(anchor_score),
                "chosen": chosen,
                "seconds": seconds,
            }
        )
        stream(
            f"{entry.name:<31} {entry.metric[:24]:<24} {score:>12.4g} "
            f"{anchor_score:>12.4g} {seconds:>7.1f}"
        )
        better = "lower" if entry.lower_is_better else "higher"
        details = [
            f"{better} is better; anchor: {entry.anchor}",
            f"data: {entry.dataset}",
        ]
        if chosen:
            details.append(f"tuned: {_format_chosen(chosen)}")
        loses = score > anchor_score if entry.lower_is_better else score < anchor_score
        if loses and entry.gain:
            details.append(f"below its anchor; gains: {entry.gain}")
        for detail in details:
            for line in textwrap.wrap(detail, _WIDTH - 4):
                stream("    " + line)
    for name, extra in skipped:
        stream(
            f"{name:<30} skipped: needs the [{extra}] extra "
            f'(pip install "sklearn-iclr[{extra}]")'
        )
    return rows
