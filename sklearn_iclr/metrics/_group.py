"""Group-robustness metrics: worst-group accuracy and a per-group report.

A *group* is any per-sample label a user wants accuracy to hold on, typically
(label, spurious attribute) pairs as returned by
:func:`sklearn_iclr.datasets.make_spurious_correlation`. Worst-group accuracy
(WGA) is the headline metric of the group-robustness literature, e.g.
Mirzaie et al., "Implicit Regularization of SGD Reduces Shortcut Learning"
(ICLR 2026).
"""

import numpy as np
from sklearn.metrics import make_scorer
from sklearn.utils import column_or_1d

from ..utils._compat import validate_params

# groups may be None so that a scorer called without them says how to pass them.
_CONSTRAINTS = {
    "y_true": ["array-like"],
    "y_pred": ["array-like"],
    "groups": ["array-like", None],
}


def _per_group_accuracy(y_true, y_pred, groups):
    y_true = column_or_1d(y_true)
    y_pred = column_or_1d(y_pred)
    if groups is None:
        raise ValueError(
            "groups is required: pass one group label per sample (with "
            "GridSearchCV, enable metadata routing and pass groups=...)."
        )
    groups = column_or_1d(groups)
    if not (len(y_true) == len(y_pred) == len(groups)):
        raise ValueError(
            f"y_true, y_pred and groups must have the same length; got "
            f"{len(y_true)}, {len(y_pred)} and {len(groups)}."
        )
    if len(groups) == 0:
        raise ValueError("Worst-group accuracy needs at least one sample.")
    labels, inverse = np.unique(groups, return_inverse=True)
    correct = (y_true == y_pred).astype(np.float64)
    counts = np.bincount(inverse, minlength=len(labels))
    accuracies = np.bincount(inverse, weights=correct, minlength=len(labels)) / counts
    return labels, accuracies, counts, correct


@validate_params(_CONSTRAINTS, prefer_skip_nested_validation=True)
def worst_group_accuracy(y_true, y_pred, groups):
    """Accuracy on the group where the classifier does worst.

    ``WGA = min_g (1/|g|) sum_{i in g} 1[y_pred_i = y_true_i]`` over the
    groups present in ``groups``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    groups : array-like of shape (n_samples,)
        Group label of every sample (any hashable values).

    Returns
    -------
    wga : float
        The smallest per-group accuracy, in [0, 1].

    Raises
    ------
    ValueError
        If ``groups`` is missing or the three arrays differ in length.

    Examples
    --------
    >>> from sklearn_iclr.metrics import worst_group_accuracy
    >>> worst_group_accuracy([0, 0, 1, 1], [0, 1, 1, 1], groups=[0, 0, 1, 1])
    0.5
    """
    _, accuracies, _, _ = _per_group_accuracy(y_true, y_pred, groups)
    return float(accuracies.min())


@validate_params(_CONSTRAINTS, prefer_skip_nested_validation=True)
def group_accuracy_report(y_true, y_pred, groups):
    """Accuracy per group, the worst group, and the averages.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.
    y_pred : array-like of shape (n_samples,)
        Predicted labels.
    groups : array-like of shape (n_samples,)
        Group label of every sample.

    Returns
    -------
    report : dict
        ``"groups"``: ``{group: {"accuracy": float, "n_samples": int}}``;
        ``"worst_group"``: the group with the lowest accuracy (the first in
        sorted order on ties); ``"worst_group_accuracy"``;
        ``"mean_group_accuracy"`` (unweighted mean over groups) and
        ``"accuracy"`` (over all samples).

    Examples
    --------
    >>> from sklearn_iclr.metrics import group_accuracy_report
    >>> report = group_accuracy_report([0, 0, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1])
    >>> report["worst_group"], report["worst_group_accuracy"], report["accuracy"]
    (0, 0.5, 0.75)
    """
    labels, accuracies, counts, correct = _per_group_accuracy(y_true, y_pred, groups)
    worst = int(np.argmin(accuracies))
    return {
        "groups": {
            label.item(): {"accuracy": float(acc), "n_samples": int(count)}
            for label, acc, count in zip(labels, accuracies, counts, strict=True)
        },
        "worst_group": labels[worst].item(),
        "worst_group_accuracy": float(accuracies[worst]),
        "mean_group_accuracy": float(accuracies.mean()),
        "accuracy": float(correct.mean()),
    }


def make_worst_group_scorer():
    """Return a scorer of worst-group accuracy that requests ``groups``.

    The scorer asks for ``groups`` through scikit-learn's metadata routing,
    so ``GridSearchCV(..., scoring=make_worst_group_scorer()).fit(X, y,
    groups=groups)`` scores every test fold by its worst-group accuracy. It
    must be created and used with metadata routing enabled
    (``sklearn.set_config(enable_metadata_routing=True)`` or inside
    ``sklearn.config_context(enable_metadata_routing=True)``). Note that
    an estimator whose ``fit`` also accepts ``groups`` must state whether it
    wants them, e.g. ``est.set_fit_request(groups=False)``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, groups=...)``, higher is better.

    Raises
    ------
    ValueError
        If metadata routing is not enabled.

    Examples
    --------
    >>> import sklearn
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_iclr.metrics import make_worst_group_scorer
    >>> X, y = make_classification(100, random_state=0)
    >>> groups = 2 * y + (X[:, 0] > 0)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     search = GridSearchCV(LogisticRegression(), {"C": [0.1, 1.0]},
    ...                           scoring=make_worst_group_scorer())
    ...     search = search.fit(X, y, groups=groups)
    >>> bool(0.0 <= search.best_score_ <= 1.0)
    True
    """
    import sklearn

    if not sklearn.get_config()["enable_metadata_routing"]:
        raise ValueError(
            "make_worst_group_scorer needs scikit-learn's metadata routing to "
            "pass groups to the scorer; call it (and fit the search) inside "
            "sklearn.config_context(enable_metadata_routing=True)."
        )
    return make_scorer(worst_group_accuracy).set_score_request(groups=True)
