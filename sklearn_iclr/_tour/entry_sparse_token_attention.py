"""Tour entry: SparseTokenAttentionClassifier on digit bags, beta tuned."""

from . import TourEntry, grid_search_score


def _run():
    from sklearn.pipeline import make_pipeline

    from sklearn_iclr.attention import SparseTokenAttentionClassifier
    from sklearn_iclr.attention._baselines import make_pooled_logistic_regression
    from sklearn_iclr.datasets import load_digit_bags

    # Train and test bags are drawn from disjoint images of the digits.
    X_train, y_train = load_digit_bags(
        0, n_tokens=8, n_bags=600, subset="train", return_X_y=True, random_state=0
    )
    X_test, y_test = load_digit_bags(
        0, n_tokens=8, n_bags=600, subset="test", return_X_y=True, random_state=1
    )
    pipeline = make_pipeline(SparseTokenAttentionClassifier(random_state=0))
    anchor = make_pooled_logistic_regression(max_iter=1000)
    return grid_search_score(
        pipeline,
        {"sparsetokenattentionclassifier__beta": [1.0, 3.0, 10.0]},
        anchor,
        (X_train, X_test, y_train, y_test),
    )


ENTRY = TourEntry(
    name="SparseTokenAttentionClassifier",
    dataset="digit bags (8 images, target 0)",
    metric="accuracy",
    anchor="mean-pooled LogisticRegression",
    run=_run,
    gain="per-token attention weights: which token decided",
)
