"""Tour entry: GaussianEmbeddingModel on a PCA embedding of few digits.

The score is the held-out mean Gaussian log-density of the embedded digits.
With 150 training images in a 40-d embedding the maximum-likelihood covariance
overfits; the grid chooses between the shrinkage estimators (Ledoit-Wolf, OAS)
that the model offers. The anchor is scikit-learn's EmpiricalCovariance on the
same embedding, the Gaussian model a user would otherwise write.
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
    X_train, X_test = train_test_split(X, train_size=150, random_state=0)
    embed = [StandardScaler(), PCA(n_components=40, random_state=0)]
    pipeline = make_pipeline(*embed, GaussianEmbeddingModel())
    grid = {"gaussianembeddingmodel__covariance": ["ledoit_wolf", "oas"]}
    anchor = make_pipeline(*embed, EmpiricalCovariance())
    return grid_search_score(pipeline, grid, anchor, (X_train, X_test, None, None))


ENTRY = TourEntry(
    name="GaussianEmbeddingModel",
    dataset="150 digits, 40-d PCA embedding",
    metric="log-lik",
    anchor="EmpiricalCovariance",
    run=_run,
    gain="whitening, entropy and a Gaussianity report from the same fit",
)
