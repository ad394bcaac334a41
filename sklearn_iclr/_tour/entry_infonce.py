"""Tour entry: InfoNCEEncoder + GaussianEmbeddingModel as a linear probe on digits."""

from . import TourEntry, grid_search_score

N_COMPONENTS = 32


def run():
    """Tune the InfoNCE temperature; compare with PCA to the same dimension."""
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    from sklearn_iclr import GaussianEmbeddingModel, InfoNCEEncoder

    X, y = load_digits(return_X_y=True)
    data = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    probe = LogisticRegression(max_iter=2000)
    pipeline = Pipeline(
        [
            ("scale", StandardScaler()),
            (
                "infonce",
                InfoNCEEncoder(
                    n_components=N_COMPONENTS, max_epochs=20, random_state=0
                ),
            ),
            ("whiten", GaussianEmbeddingModel()),
            ("probe", probe),
        ]
    )
    anchor = Pipeline(
        [
            ("scale", StandardScaler()),
            ("pca", PCA(n_components=N_COMPONENTS, whiten=True, random_state=0)),
            ("probe", probe),
        ]
    )
    grid = {"infonce__temperature": [0.1, 0.5]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="InfoNCEEncoder",
    dataset="digits, 32-d embedding + probe",
    metric="accuracy",
    anchor="PCA(32, whiten) + probe",
    run=run,
    gain="an encoder trained without labels, with near-Gaussian directions",
)
