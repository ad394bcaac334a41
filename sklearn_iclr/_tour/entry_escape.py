"""Tour entry: EscapeDirection on data from a rank-2 ReLU teacher."""

from . import TourEntry, grid_search_score


def run():
    """Tune the depth by held-out escape speed; anchor: all layers rank 1."""
    import numpy as np
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import EscapeDirection

    # Two ReLU units of strengths 2 and 1, orthogonal in and out: 10 -> 3.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((400, 10))
    inputs = np.linalg.qr(rng.standard_normal((10, 2)))[0]
    outputs = np.linalg.qr(rng.standard_normal((3, 2)))[0]
    Y = np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T
    data = train_test_split(X, Y, train_size=200, random_state=0)
    search = dict(width=10, n_restarts=2, max_iter=300, random_state=0)
    pipeline = Pipeline(
        [
            ("scale", StandardScaler(with_mean=False)),
            ("escape", EscapeDirection(**search)),
        ]
    )
    anchor = Pipeline(
        [
            ("scale", StandardScaler(with_mean=False)),
            ("escape", EscapeDirection(depth=3, max_rank=1, **search)),
        ]
    )
    grid = {"escape__depth": [2, 3, 4]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="EscapeDirection",
    dataset="rank-2 ReLU teacher, 10 -> 3, n=200",
    metric="held-out mean speed",
    anchor="same search, all layers rank 1",
    run=run,
    gain="the per-layer ranks of the fastest escape, not only its speed",
)
