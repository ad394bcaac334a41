"""Tour entry: BReLUAttentionEncoder + a linear probe for a rare feature."""

from . import TourEntry, grid_search_score


def run():
    """Tune the pruning ratio; compare with a probe on the raw tokens."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    from sklearn_iclr import BReLUAttentionEncoder
    from sklearn_iclr.attention import flatten_tokens
    from sklearn_iclr.datasets import make_sparse_coding_pairs

    X, _, codes, _, _ = make_sparse_coding_pairs(
        400, noise=0.2, imbalance=10.0, random_state=0
    )
    # Label: the most frequent minority feature occurs with a positive sign.
    y = codes[:, :, 4].sum(axis=1) > 0
    data = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    probe = LogisticRegression(max_iter=1000)
    pipeline = Pipeline(
        [
            (
                "encoder",
                BReLUAttentionEncoder(learning_rate=0.5, max_epochs=5, random_state=0),
            ),
            ("scale", StandardScaler()),
            ("probe", probe),
        ]
    )
    anchor = Pipeline(
        [
            ("flatten", FunctionTransformer(flatten_tokens)),
            ("scale", StandardScaler()),
            ("probe", probe),
        ]
    )
    grid = {"encoder__prune_ratio": [0.0, 0.3]}
    return grid_search_score(pipeline, grid, anchor, data, scoring="roc_auc")


ENTRY = TourEntry(
    name="BReLUAttentionEncoder",
    dataset="sparse-coding tokens, rho=10, minority feature",
    metric="AUROC",
    anchor="raw tokens + probe",
    run=run,
    gain="neurons that read one dictionary feature each (neuron_alignment)",
)
