"""The tour: every estimator on its own data, tuned, next to its anchor.

Each estimator contributes one module ``sklearn_iclr/_tour/entry_<name>.py``
that defines ``ENTRY``, a :class:`TourEntry`. Nothing else has to be edited:
:func:`tour_entries` discovers the modules.
"""

import importlib
import pkgutil
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
        What the scores measure, e.g. ``"accuracy"`` or ``"R^2"``.
    anchor : str
        The method the estimator is compared with.
    run : callable
        ``run() -> (score, anchor_score)``. It builds a ``Pipeline`` around the
        estimator, tunes one hyperparameter with ``GridSearchCV``, fits the
        anchor on the same data and returns both scores (higher is better
        unless ``metric`` says otherwise).
    """

    name: str
    dataset: str
    metric: str
    anchor: str
    run: Callable[[], tuple]


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
    """
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import GridSearchCV

    X_train, X_test, y_train, y_test = data
    search = GridSearchCV(pipeline, param_grid, cv=cv, scoring=scoring)
    search.fit(X_train, y_train)
    anchor.fit(X_train, y_train)
    scorer = check_scoring(anchor, scoring=scoring)
    return scorer(search, X_test, y_test), scorer(anchor, X_test, y_test)


def run_tour(only=None, stream=print):
    """Run the tour entries and print one table.

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
    header = f"{'estimator':<31} {'data':<36} {'metric':<17} {'score':>8}  "
    header += f"{'anchor':<34} {'anchor score':>12} {'seconds':>8}"
    stream(header)
    stream("-" * len(header))
    rows = []
    for entry in entries:
        start = time.perf_counter()
        score, anchor_score = entry.run()
        seconds = time.perf_counter() - start
        rows.append(
            {
                "estimator": entry.name,
                "data": entry.dataset,
                "metric": entry.metric,
                "score": float(score),
                "anchor": entry.anchor,
                "anchor_score": float(anchor_score),
                "seconds": seconds,
            }
        )
        stream(
            f"{entry.name:<31} {entry.dataset:<36} {entry.metric:<17} "
            f"{score:>8.4f}  {entry.anchor:<34} {anchor_score:>12.4f} {seconds:>8.1f}"
        )
    return rows
