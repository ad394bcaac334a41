"""Tour entry: ChainOfThoughtClassifier on 8-bit parity with rare demonstrations."""

from . import TourEntry, chosen_params

N_BITS = 8
N_TRAIN = 1200


def run():
    """Tune the number of STaR rounds; compare with logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import MaxAbsScaler

    from sklearn_iclr.datasets import make_cot_parity
    from sklearn_iclr.sequence import ChainOfThoughtClassifier

    X, y, seqs = make_cot_parity(N_TRAIN, N_BITS, p_cot=0.25, random_state=0)
    X_test, y_test, _ = make_cot_parity(1000, N_BITS, p_cot=0.25, random_state=1)
    # MaxAbsScaler keeps bits in {-1, +1}, as the demonstrations require.
    pipeline = Pipeline(
        [
            ("scale", MaxAbsScaler()),
            ("cot", ChainOfThoughtClassifier(rl="star", random_state=0)),
        ]
    )
    search = GridSearchCV(pipeline, {"cot__n_rl_rounds": [0, 2]}, cv=2)
    # `sequences` is split with the rows of every fold.
    search.fit(X, y, cot__sequences=seqs)
    anchor = LogisticRegression().fit(X, y)
    return (
        search.score(X_test, y_test),
        anchor.score(X_test, y_test),
        chosen_params(search),
    )


ENTRY = TourEntry(
    name="ChainOfThoughtClassifier",
    dataset="8-bit parity, p_cot=0.25, n=1200",
    metric="accuracy",
    anchor="LogisticRegression (one-token)",
    run=run,
    gain="learns parity, out of reach of a one-token linear model",
)
