"""Tour entry: GaussianEmbeddingModel on a PCA embedding of the digits.

The score is the held-out mean Gaussian log-density of the embedded digits;
the grid chooses the covariance estimator (empirical, Ledoit-Wolf, OAS). The
anchor is scikit-learn's EmpiricalCovariance on the same embedding.
"""

from . import TourEntry, grid_search_score


def _run():
    from sklearn.covariance import EmpiricalCovariance
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import GaussianEmbeddingModel

    X, _ = load_digits(return_X_y=True)
    X_train, X_test = train_test_split(X, test_size=0.3, random_state=0)
    embed = [StandardScaler(), PCA(n_components=16, random_state=0)]
    pipeline = make_pipeline(*embed, GaussianEmbeddingModel())
    grid = {"gaussianembeddingmodel__covariance": ["empirical", "ledoit_wolf", "oas"]}
    anchor = make_pipeline(*embed, EmpiricalCovariance())
    return grid_search_score(pipeline, grid, anchor, (X_train, X_test, None, None))


ENTRY = TourEntry(
    name="GaussianEmbeddingModel",
    dataset="digits, 16-d PCA embedding",
    metric="log-lik",
    anchor="EmpiricalCovariance",
    run=_run,
)
