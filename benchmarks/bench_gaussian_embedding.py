"""Benchmark of GaussianEmbeddingModel: out-of-distribution scores of embeddings.

Digits 0-4 as in-distribution; AUROC of separating held-out 0-4 from digits
5-9 and from the held-out 0-4 scaled by 2, for StandardScaler +
InfoNCEEncoder (MLP or linear) + GaussianEmbeddingModel (GEM, raw or
l2-normalised embeddings) score_samples against EmpiricalCovariance
(Mahalanobis) and IsolationForest on raw features (Betser et al., ICLR 2026:
InfoNCE embeddings are close to Gaussian, so a Gaussian model of them is a
likelihood).

Run ``python -m benchmarks gaussian_embedding`` (about two minutes; ``--quick``
runs one seed, ``--device cuda`` trains the encoders on a GPU).
"""

import numpy as np
from _contrastive import ENCODER, EPOCHS, GAUSSIANITY_ENCODER, GAUSSIANITY_EPOCHS
from _harness import bench_arguments, report
from sklearn.covariance import EmpiricalCovariance
from sklearn.datasets import load_digits
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_iclr import GaussianEmbeddingModel, InfoNCEEncoder


def ood_split(seed):
    """Digits 0-4 split in train/test; OOD sets: digits 5-9 and 2x test."""
    X, y = load_digits(return_X_y=True)
    inlier = y < 5
    X_train, X_test = train_test_split(X[inlier], test_size=0.3, random_state=seed)
    return X_train, X_test, {"digits 5-9": X[~inlier], "scaled x2": 2.0 * X_test}


def auroc(score_in, score_out):
    """AUROC of flagging the OOD rows by a low score."""
    labels = np.r_[np.zeros(len(score_in)), np.ones(len(score_out))]
    return roc_auc_score(labels, -np.r_[score_in, score_out])


def contrastive_model(X_train, params, normalize, seed, device, epochs=EPOCHS):
    """StandardScaler + InfoNCEEncoder(**params) + GaussianEmbeddingModel, fitted."""
    encoder = InfoNCEEncoder(
        max_epochs=epochs, random_state=seed, device=device, **params
    )
    model = GaussianEmbeddingModel(normalize=normalize)
    return make_pipeline(StandardScaler(), encoder, model).fit(X_train)


def table_ood(seeds, device):
    rows = []
    for seed in seeds:
        X_train, X_test, outliers = ood_split(seed)

        methods = {
            "InfoNCE MLP + GEM": contrastive_model(
                X_train, ENCODER, None, seed, device
            ),
            "InfoNCE MLP + GEM(l2)": contrastive_model(
                X_train, ENCODER, "l2", seed, device
            ),
            "InfoNCE linear + GEM": contrastive_model(
                X_train, ENCODER | {"hidden_layer_sizes": ()}, None, seed, device
            ),
            "InfoNCE weak views + GEM(l2)": contrastive_model(
                X_train,
                GAUSSIANITY_ENCODER,
                "l2",
                seed,
                device,
                epochs=GAUSSIANITY_EPOCHS,
            ),
            "EmpiricalCovariance (raw)": EmpiricalCovariance().fit(X_train),
            "IsolationForest (raw)": IsolationForest(random_state=seed).fit(X_train),
        }
        for name, model in methods.items():
            score = (
                (lambda Z, m=model: -m.mahalanobis(Z))
                if isinstance(model, EmpiricalCovariance)
                else model.score_samples
            )
            for ood_name, X_out in outliers.items():
                rows.append(
                    {
                        "seed": seed,
                        "method": name,
                        "ood": ood_name,
                        "auroc": auroc(score(X_test), score(X_out)),
                    }
                )
    summary = []
    for ood_name in ("digits 5-9", "scaled x2"):
        for name in dict.fromkeys(r["method"] for r in rows):
            values = [
                r["auroc"] for r in rows if r["method"] == name and r["ood"] == ood_name
            ]
            summary.append(
                {
                    "ood": ood_name,
                    "method": name,
                    "auroc_mean": float(np.mean(values)),
                    "auroc_std": float(np.std(values)),
                    "seeds": len(values),
                }
            )
    report(
        "gaussian_embedding_ood",
        summary,
        columns=["ood", "method", "auroc_mean", "auroc_std", "seeds"],
        title="OOD detection, in-distribution = digits 0-4 (held-out 30%)",
        meta={
            "encoder": ENCODER,
            "epochs": EPOCHS,
            "weak_views_encoder": GAUSSIANITY_ENCODER,
            "weak_views_epochs": GAUSSIANITY_EPOCHS,
            "per_seed": rows,
        },
    )


def _options(parser):
    parser.add_argument("--device", default="cpu")


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_options)
    table_ood((0,) if args.quick else (0, 1, 2), args.device)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "GaussianEmbeddingModel: out-of-distribution scores of embeddings",
    "estimators": {"GaussianEmbeddingModel": "partly"},
    "claim": """
        Betser, Gofer, Levi and Gilboa (ICLR 2026): InfoNCE embeddings are
        close to Gaussian, so a Gaussian model of them is a likelihood, usable
        as an out-of-distribution score.
    """,
    "findings": """
        * **Unseen classes: partly.** On digits 5-9 against 0-4, the InfoNCE
          embedding with ``GaussianEmbeddingModel`` on the sphere reaches AUROC
          0.855 (the linear encoder 0.83), above ``IsolationForest`` (0.79) but
          below ``EmpiricalCovariance`` on the raw pixels (0.91). The raw
          norm of the MLP embedding is a poor signal (0.64).
        * **Scaled inputs: met.** Unnormalised embeddings score 0.99-0.995
          against 0.98 for ``EmpiricalCovariance``; on the sphere the model
          is blind to scale (0.49), as it must be.
        * **The more Gaussian, the weaker.** The weak-views encoder, whose
          directions pass the Gaussianity tests, is near chance (0.55): points
          spread uniformly on the sphere all have about the same likelihood.
          The encoder's defaults keep the strong views.
    """,
    "sections": [
        {
            "title": "OOD detection, in-distribution digits 0-4",
            "text": """
                Fit on 70 % of the 0-4 images; each row scores the held-out
                30 % against all 5-9 images, or against the held-out images
                times 2. GEM is ``GaussianEmbeddingModel()`` (Ledoit-Wolf) on
                the embeddings after ``StandardScaler`` and ``InfoNCEEncoder``;
                "(l2)" scores the embeddings on the unit sphere. Seeds 0-2.
            """,
            "figures": [
                {
                    "results": "gaussian_embedding_ood",
                    "kind": "bar",
                    "x": "method",
                    "y": "auroc_mean",
                    "by": "ood",
                    "hline": [{"y": 0.5, "label": "chance"}],
                    "xlabel": "",
                    "ylabel": "AUROC (mean of 3 seeds)",
                    "caption": "OOD AUROC against unseen digits and against "
                    "inputs scaled by 2.",
                }
            ],
            "tables": [
                {
                    "results": "gaussian_embedding_ood",
                    "columns": "ood=OOD set; method; auroc_mean=AUROC mean; "
                    "auroc_std=sd",
                }
            ],
        },
    ],
}


if __name__ == "__main__":
    main()
