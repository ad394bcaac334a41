"""Tour entry: SmallInitMLPRegressor on a rank-2 ReLU teacher."""

from . import TourEntry, grid_search_score


def run():
    """Tune the initial scale; compare with scikit-learn's MLPRegressor."""
    import numpy as np
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import SmallInitMLPRegressor

    # Two ReLU units of strengths 2 and 1, orthogonal in and out: 10 -> 3.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 10))
    inputs = np.linalg.qr(rng.standard_normal((10, 2)))[0]
    outputs = np.linalg.qr(rng.standard_normal((3, 2)))[0]
    Y = np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T
    data = train_test_split(X, Y, train_size=300, random_state=0)
    net = SmallInitMLPRegressor(
        hidden_layer_sizes=(16, 16),
        learning_rate=0.2,
        max_iter=2000,
        record_every=50,
        random_state=0,
    )
    pipeline = Pipeline([("scale", StandardScaler(with_mean=False)), ("net", net)])
    anchor = Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "mlp",
                MLPRegressor(
                    hidden_layer_sizes=(16, 16), max_iter=2000, random_state=0
                ),
            ),
        ]
    )
    grid = {"net__init_scale": [0.01, 0.1]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="SmallInitMLPRegressor",
    dataset="rank-2 ReLU teacher, 10 -> 3, n=300",
    metric="R^2",
    anchor="MLPRegressor (16, 16), Adam",
    run=run,
    gain="per-layer singular values and the plateaus of the training path",
)
