"""Tour entry: QuantizedReLUClassifier on iris quantised to Z_3."""

from . import TourEntry, grid_search_score


def run():
    """Tune the width of the exact quantized net; compare with a real MLP."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import QuantizedReLUClassifier

    X, y = load_iris(return_X_y=True)
    y = (y == 1).astype(int)  # versicolor, the middle class, against the rest
    data = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    pipeline = Pipeline(
        [("quantized", QuantizedReLUClassifier(domain_size=3, random_state=0))]
    )
    anchor = Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "mlp",
                MLPClassifier(
                    hidden_layer_sizes=(2,),
                    solver="lbfgs",
                    max_iter=5000,
                    random_state=0,
                ),
            ),
        ]
    )
    grid = {"quantized__hidden_layer_sizes": [(1,), (2,)]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="QuantizedReLUClassifier",
    dataset="iris versicolor vs rest, 4 features on Z_3",
    metric="accuracy",
    anchor="MLPClassifier (2 hidden, real weights, scaled)",
    run=run,
    gain="a certified minimum training error of the quantized network",
)
