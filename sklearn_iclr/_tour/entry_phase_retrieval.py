"""Tour entry: PhaseRetrievalRegressor on power-law phase-retrieval data."""

from . import TourEntry, grid_search_score

N_FEATURES = 20
N_TRAIN = 10 * N_FEATURES


def run():
    """Tune the solver; compare with an MLP on the standardised features."""
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import PhaseRetrievalRegressor
    from sklearn_iclr.datasets import make_power_law_phase_retrieval

    X, y, _ = make_power_law_phase_retrieval(
        N_TRAIN + 2000, N_FEATURES, decay=2.0, noise=0.1, random_state=0
    )
    data = train_test_split(X, y, train_size=N_TRAIN, random_state=0)
    # Scaling without centring keeps y = <x, w>^2 a phase-retrieval model.
    pipeline = Pipeline(
        [
            ("scale", StandardScaler(with_mean=False)),
            ("phase", PhaseRetrievalRegressor()),
        ]
    )
    anchor = Pipeline(
        [
            ("scale", StandardScaler()),
            ("mlp", MLPRegressor(max_iter=1000, early_stopping=True, random_state=0)),
        ]
    )
    grid = {"phase__solver": ["lbfgs", "gd", "sgd"]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="PhaseRetrievalRegressor",
    dataset="y=<x,w>^2+noise, a=2, d=20, n=200",
    metric="R^2",
    anchor="MLP (100 hidden) + StandardScaler",
    run=run,
    gain="the signal w itself (up to sign), not only predictions",
)
