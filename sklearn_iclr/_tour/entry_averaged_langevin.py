"""Tour entry: AveragedLangevinRegressor on a k* = 4 single-index model."""

from . import TourEntry, grid_search_score

N_FEATURES = 16
N_TRAIN = 10 * N_FEATURES**2


def run():
    """Tune the link degree; compare with an MLP on the raw features."""
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import AveragedLangevinRegressor
    from sklearn_iclr.datasets import make_single_index

    X, y, _ = make_single_index(
        2 * N_TRAIN, N_FEATURES, information_exponent=4, noise=0.1, random_state=0
    )
    data = train_test_split(X, y, train_size=N_TRAIN, random_state=0)
    pipeline = Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "langevin",
                AveragedLangevinRegressor(information_exponent=4, random_state=0),
            ),
        ]
    )
    anchor = Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "mlp",
                MLPRegressor(
                    hidden_layer_sizes=(64,),
                    max_iter=300,
                    early_stopping=True,
                    random_state=0,
                ),
            ),
        ]
    )
    grid = {"langevin__link_degree": [2, 4, 6]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="AveragedLangevinRegressor",
    dataset="h_4 single index, d=16, n=2560",
    metric="R^2",
    anchor="MLP (64 hidden) on raw features",
    run=run,
)
