"""Tests of the group-robustness metrics and the worst-group scorer."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold

from sklearn_iclr import SpuriousRobustSGD
from sklearn_iclr.datasets import make_spurious_correlation
from sklearn_iclr.metrics import (
    group_accuracy_report,
    make_worst_group_scorer,
    worst_group_accuracy,
)
from sklearn_iclr.testing.strategies import group_predictions


@settings(max_examples=100, deadline=None)
@given(group_predictions())
def test_worst_group_accuracy_matches_a_pandas_groupby(draw):
    y_true, y_pred, groups = draw
    frame = pd.DataFrame({"correct": y_true == y_pred, "group": groups})
    per_group = frame.groupby("group")["correct"].mean()
    assert worst_group_accuracy(y_true, y_pred, groups) == pytest.approx(
        per_group.min(), abs=1e-12
    )
    report = group_accuracy_report(y_true, y_pred, groups)
    assert report["groups"].keys() == set(per_group.index)
    for group, accuracy in per_group.items():
        assert report["groups"][group]["accuracy"] == pytest.approx(accuracy)
        assert report["groups"][group]["n_samples"] == int((groups == group).sum())
    assert report["mean_group_accuracy"] == pytest.approx(per_group.mean())


@settings(max_examples=100, deadline=None)
@given(group_predictions(n_classes=3, max_groups=5))
def test_worst_group_accuracy_bounds_and_invariances(draw):
    y_true, y_pred, groups = draw
    wga = worst_group_accuracy(y_true, y_pred, groups)
    report = group_accuracy_report(y_true, y_pred, groups)
    # the overall accuracy and the mean group accuracy are averages of the
    # group accuracies, so neither can fall below their minimum
    assert wga <= report["accuracy"] + 1e-12
    assert wga <= report["mean_group_accuracy"] + 1e-12
    assert report["groups"][report["worst_group"]]["accuracy"] == wga
    renamed = np.array([f"g{9 - g}" for g in groups])
    assert worst_group_accuracy(y_true, y_pred, renamed) == wga
    order = np.arange(len(groups))[::-1]
    assert worst_group_accuracy(y_true[order], y_pred[order], groups[order]) == wga


def test_metrics_refuse_missing_or_misaligned_groups():
    with pytest.raises(ValueError, match="groups is required"):
        worst_group_accuracy([0, 1], [0, 1], None)
    with pytest.raises(ValueError, match="same length; got 2, 2 and 3"):
        group_accuracy_report([0, 1], [0, 1], [0, 0, 1])


def test_scorer_needs_metadata_routing():
    with pytest.raises(ValueError, match="enable_metadata_routing=True"):
        make_worst_group_scorer()


def test_grid_search_selects_by_worst_group_accuracy():
    X, y, groups = make_spurious_correlation(
        300, minority_fraction=0.1, n_noise_features=3, noise=0.5, random_state=0
    )
    grid = {"C": [1e-3, 1e-1, 1e3]}
    cv = KFold(3, shuffle=True, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            LogisticRegression(), grid, cv=cv, scoring=make_worst_group_scorer()
        ).fit(X, y, groups=groups)
    # oracle: the same folds scored by hand
    expected = {}
    for C in grid["C"]:
        scores = []
        for train, test in cv.split(X):
            model = LogisticRegression(C=C).fit(X[train], y[train])
            scores.append(
                worst_group_accuracy(y[test], model.predict(X[test]), groups[test])
            )
        expected[C] = np.mean(scores)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], [expected[C] for C in grid["C"]]
    )
    assert search.best_params_["C"] == max(expected, key=expected.get)


def test_grid_search_routes_groups_to_spurious_robust_sgd():
    X, y, groups = make_spurious_correlation(120, minority_fraction=0.1, random_state=0)
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = SpuriousRobustSGD(max_epochs=2, random_state=0)
        estimator.set_fit_request(groups=True, sample_weight=False)
        search = GridSearchCV(
            estimator,
            {"batch_size": [8, "full"]},
            cv=2,
            scoring=make_worst_group_scorer(),
        ).fit(X, y, groups=groups)
    history = search.best_estimator_.history_
    assert "worst_group_accuracy" in history[-1]  # groups reached fit too
    assert 0.0 <= search.best_score_ <= 1.0
