"""Tour entry: RandomEmbeddingRecallClassifier on key-value recall sequences."""

from . import TourEntry, grid_search_score


def run():
    """Tune the embedding dimension; compare with one-hot logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import OneHotEncoder

    from sklearn_iclr import RandomEmbeddingRecallClassifier
    from sklearn_iclr.datasets import make_token_recall

    X, y = make_token_recall(2500, vocab_size=32, seq_len=8, random_state=0)
    data = train_test_split(X, y, train_size=1500, random_state=0)
    pipeline = Pipeline([("recall", RandomEmbeddingRecallClassifier(random_state=0))])
    anchor = Pipeline(
        [
            ("onehot", OneHotEncoder(handle_unknown="ignore")),
            ("logreg", LogisticRegression(max_iter=300)),
        ]
    )
    grid = {"recall__embedding_dim": [16, 32, 64]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="RandomEmbeddingRecallClassifier",
    dataset="make_token_recall V=32, L=8, n=1500",
    metric="accuracy",
    anchor="one-hot tokens + LogisticRegression",
    run=run,
    gain="attention weights that show which token was recalled",
)
