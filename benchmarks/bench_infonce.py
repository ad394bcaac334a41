"""Benchmark of InfoNCEEncoder: Gaussian contrastive embeddings, imbalance, time.

Three tables, all measured in this process:

1. gaussianity: on Laplace inputs (64-d) and on the scikit-learn digits, the
   coefficient of variation of the embedding norm |z| and the fractions of
   coordinates (and of random projections) of the directions z / |z| (what
   InfoNCE's cosine similarity shapes) passing Anderson-Darling
   (AD < 0.752) and D'Agostino-Pearson (p > 0.05), with the AD pass of the
   raw coordinates of z, for the same MLP at initialisation, after InfoNCE
   and after supervised (cross-entropy) training, over seeds, next to
   points drawn uniformly on the sphere (Betser et al., ICLR 2026);
2. imbalance: long-tailed sparse-coding data; mean linear-probe AUROC of the
   minority (and majority) feature indicators on the embeddings of the
   standard and of a small encoder, prune_ratio 0 vs 0.3, over seeds (Liao
   et al., ICLR 2026), with a raw-input probe;
3. time: InfoNCE fit time per epoch next to the supervised baseline's.

The Gaussian model of the embeddings (OOD scores) is benchmarked in
``bench_gaussian_embedding.py``, the paper model of Liao et al. in
``bench_brelu_attention.py``.

Run ``python -m benchmarks infonce`` (a few minutes on a busy 2-core machine;
``--quick`` is a smoke run with one seed and few epochs,
``--tables gaussianity,time`` runs a subset, ``--device cuda`` trains on a
GPU: untested, none was available).
"""

import time

import numpy as np
from _contrastive import (
    ENCODER,
    EPOCHS,
    GAUSSIANITY_ENCODER,
    GAUSSIANITY_EPOCHS,
    probe_aurocs,
)
from _harness import bench_arguments, ratio, report
from sklearn.datasets import load_digits
from sklearn.preprocessing import StandardScaler

from sklearn_iclr import InfoNCEEncoder
from sklearn_iclr.contrastive._baselines import fit_supervised_encoder
from sklearn_iclr.datasets import (
    make_laplace_classification,
    make_long_tailed_sparse_coding,
)
from sklearn_iclr.metrics import gaussianity_report
from sklearn_iclr.utils import module_outputs

# Noisy data (at noise 0.3 every probe, raw or embedded, had AUROC ~0.97:
# no room for an effect); the small encoder (8 outputs for 8 dictionary
# features) has to choose what to keep.
IMBALANCE_ENCODERS = {
    "MLP (256,)->32": ENCODER,
    "MLP (64,)->8": dict(n_components=8, hidden_layer_sizes=(64,), temperature=0.1),
}
IMBALANCE_DATA = dict(
    n_majority=4, n_minority=4, majority_rate=0.3, minority_rate=0.02, noise=0.5
)
PASS_FRACTION_KEYS = (
    "ad_pass_fraction",
    "dagostino_pass_fraction",
    "projection_ad_pass_fraction",
    "projection_dagostino_pass_fraction",
)


def gaussianity_datasets():
    """Laplace inputs (2000 x 64) and standardised digits, with labels."""
    X_lap, y_lap = make_laplace_classification(2000, n_features=64, random_state=0)
    X_dig, y_dig = load_digits(return_X_y=True)
    return {
        "laplace-64": (X_lap, y_lap),
        "digits": (StandardScaler().fit_transform(X_dig), y_dig),
    }


def l2_normalize(Z):
    """Rows of ``Z`` scaled to unit norm: the directions InfoNCE's cosine sees."""
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


def uniform_sphere(n_samples, n_dims, seed):
    """Points drawn uniformly on the unit sphere of ``R^n_dims``."""
    Z = np.random.default_rng(seed).standard_normal((n_samples, n_dims))
    return l2_normalize(Z)


def gaussianity_row(Z, seed):
    """Norm CV and AD pass of ``Z``; every test pass fraction of ``Z / |Z|``."""
    raw = gaussianity_report(Z, random_state=seed)
    directions = gaussianity_report(l2_normalize(Z), random_state=seed)
    return {
        "norm_cv": raw["norm_cv"],
        "raw_ad_pass_fraction": raw["ad_pass_fraction"],
    } | {k: directions[k] for k in PASS_FRACTION_KEYS}


def table_gaussianity(seeds, device, epochs=GAUSSIANITY_EPOCHS):
    rows = []
    n_components = GAUSSIANITY_ENCODER["n_components"]
    for data_name, (X, y) in gaussianity_datasets().items():
        for seed in seeds:
            init = InfoNCEEncoder(
                max_epochs=0, random_state=seed, **GAUSSIANITY_ENCODER
            )
            infonce = InfoNCEEncoder(
                max_epochs=epochs,
                random_state=seed,
                device=device,
                **GAUSSIANITY_ENCODER,
            )
            supervised = fit_supervised_encoder(
                X,
                y,
                n_components=n_components,
                hidden_layer_sizes=GAUSSIANITY_ENCODER["hidden_layer_sizes"],
                max_epochs=epochs,
                random_state=seed,
            )
            embeddings = {
                "init": init.fit_transform(X),
                "infonce": infonce.fit_transform(X),
                "supervised": module_outputs(supervised, X),
                "uniform sphere": uniform_sphere(len(X), n_components, seed),
            }
            for encoder, Z in embeddings.items():
                rows.append(
                    {"data": data_name, "seed": seed, "encoder": encoder}
                    | gaussianity_row(Z, seed)
                )
    summary = []
    for data_name in gaussianity_datasets():
        for encoder in ("init", "infonce", "supervised", "uniform sphere"):
            picked = [
                r for r in rows if r["data"] == data_name and r["encoder"] == encoder
            ]
            summary.append(
                {"data": data_name, "encoder": encoder, "seeds": len(picked)}
                | {
                    f"{k}_mean": float(np.mean([r[k] for r in picked]))
                    for k in ("norm_cv", "raw_ad_pass_fraction", *PASS_FRACTION_KEYS)
                }
                | {"ad_pass_min": float(min(r["ad_pass_fraction"] for r in picked))}
            )
    report(
        "infonce_gaussianity",
        summary,
        columns=[
            "data",
            "encoder",
            "seeds",
            "norm_cv_mean",
            "raw_ad_pass_fraction_mean",
            "ad_pass_fraction_mean",
            "ad_pass_min",
            "dagostino_pass_fraction_mean",
            "projection_ad_pass_fraction_mean",
            "projection_dagostino_pass_fraction_mean",
        ],
        title=(
            f"Gaussianity of {n_components}-d embeddings, MLP "
            f"{GAUSSIANITY_ENCODER['hidden_layer_sizes']}, {epochs} "
            "epochs, mean over seeds; norm CV and raw AD on z, the other "
            "columns on z / |z|"
        ),
        meta={
            "encoder": GAUSSIANITY_ENCODER,
            "epochs": epochs,
            "per_seed": rows,
        },
    )


def table_imbalance(seeds, device, epochs=EPOCHS):
    rows = []
    for seed in seeds:
        X, codes, minority = make_long_tailed_sparse_coding(
            4000, n_features=64, **IMBALANCE_DATA, random_state=seed
        )
        embeddings = {("-", "raw input"): X}
        for encoder_name, params in IMBALANCE_ENCODERS.items():
            for prune_ratio in (0.0, 0.3):
                encoder = InfoNCEEncoder(
                    prune_ratio=prune_ratio,
                    max_epochs=epochs,
                    random_state=seed,
                    device=device,
                    **params,
                )
                key = (encoder_name, f"prune_ratio={prune_ratio}")
                embeddings[key] = encoder.fit_transform(X)
        for (encoder_name, name), Z in embeddings.items():
            aurocs = probe_aurocs(Z, codes, seed)
            rows.append(
                {
                    "seed": seed,
                    "encoder": encoder_name,
                    "embedding": name,
                    "minority_auroc": float(aurocs[minority].mean()),
                    "majority_auroc": float(aurocs[~minority].mean()),
                }
            )
    summary = []
    for key in dict.fromkeys((r["encoder"], r["embedding"]) for r in rows):
        picked = [r for r in rows if (r["encoder"], r["embedding"]) == key]
        minority_values = [r["minority_auroc"] for r in picked]
        summary.append(
            {
                "encoder": key[0],
                "embedding": key[1],
                "minority_auroc_mean": float(np.mean(minority_values)),
                "minority_auroc_std": float(np.std(minority_values)),
                "majority_auroc_mean": float(
                    np.mean([r["majority_auroc"] for r in picked])
                ),
                "seeds": len(picked),
            }
        )
    wins = {}
    for encoder_name in IMBALANCE_ENCODERS:
        by_prune = {
            name: [
                r["minority_auroc"]
                for r in rows
                if r["encoder"] == encoder_name and r["embedding"] == name
            ]
            for name in ("prune_ratio=0.0", "prune_ratio=0.3")
        }
        better = np.array(by_prune["prune_ratio=0.3"]) > np.array(
            by_prune["prune_ratio=0.0"]
        )
        wins[encoder_name] = f"{int(better.sum())}/{len(better)}"
    report(
        "infonce_imbalance",
        summary,
        columns=[
            "encoder",
            "embedding",
            "minority_auroc_mean",
            "minority_auroc_std",
            "majority_auroc_mean",
            "seeds",
        ],
        title=(
            "Linear probes on long-tailed sparse coding (4 majority features at "
            "rate 0.3, 4 minority at 0.02, noise 0.5); seeds where pruning beats "
            f"no pruning on minority features: {wins}"
        ),
        meta={
            "encoders": {k: str(v) for k, v in IMBALANCE_ENCODERS.items()},
            "data": IMBALANCE_DATA,
            "epochs": epochs,
            "per_seed": rows,
            "wins": wins,
        },
    )


def table_time(device, epochs=20):
    X, y = make_laplace_classification(2000, n_features=64, random_state=0)
    start = time.perf_counter()
    encoder = InfoNCEEncoder(
        max_epochs=epochs, random_state=0, device=device, **ENCODER
    ).fit(X)
    infonce_total = time.perf_counter() - start
    start = time.perf_counter()
    fit_supervised_encoder(
        X,
        y,
        n_components=ENCODER["n_components"],
        hidden_layer_sizes=ENCODER["hidden_layer_sizes"],
        max_epochs=epochs,
        random_state=0,
    )
    supervised_total = time.perf_counter() - start
    per_epoch = float(np.median([record["dur"] for record in encoder.history_]))
    rows = [
        {
            "data": "laplace 2000x64",
            "device": device,
            "infonce_s_per_epoch": per_epoch,
            "infonce_fit_s": infonce_total,
            "supervised_fit_s": supervised_total,
            "infonce/supervised": ratio(infonce_total, supervised_total),
        }
    ]
    report(
        "infonce_time",
        rows,
        title=(
            f"Fit time, MLP (256,) -> 32, batch 256, {epochs} epochs, one torch thread"
        ),
        meta={"encoder": ENCODER, "epochs": epochs},
    )


TABLES = ("gaussianity", "imbalance", "time")


def _options(parser):
    parser.add_argument("--device", default="cpu")


def main(argv=None):
    args = bench_arguments(
        __doc__.splitlines()[0], argv, configure=_options, tables=TABLES
    )
    seeds = (0,) if args.quick else tuple(range(5))
    if "gaussianity" in args.tables:
        epochs = 5 if args.quick else GAUSSIANITY_EPOCHS
        table_gaussianity(seeds, args.device, epochs)
    if "imbalance" in args.tables:
        table_imbalance(seeds, args.device, 3 if args.quick else EPOCHS)
    if "time" in args.tables:
        table_time(args.device, 3 if args.quick else 20)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "InfoNCEEncoder: Gaussian contrastive embeddings",
    "estimators": {"InfoNCEEncoder": "met"},
    "claim": """
        Betser, Gofer, Levi and Gilboa (ICLR 2026): InfoNCE training makes the
        directions of the embedding close to Gaussian, while the same network
        trained with a supervised loss does not; a Gaussian model of the
        embeddings then gives likelihoods (OOD scores, on the
        GaussianEmbeddingModel page), entropy and mutual information in
        closed form.
    """,
    "findings": """
        * **Gaussianity: met.** With near-identical views, 93 % (Laplace-64)
          and 92.5 % (digits) of the coordinates of ``z / |z|`` pass
          Anderson-Darling, in every seed at least 91 %; the supervised
          network's pass 0 %. Raw digits coordinates pass 6 %: the norm is not
          a thin shell.
        * **Imbalance (Liao et al.'s setting, the MLP).** On long-tailed sparse
          coding the embeddings probe the minority features below the raw
          input (AUROC 0.83 and 0.70 against 0.86); pruning 0.3 changes them
          by +0.002 and -0.013. The paper's own model is on the
          BReLUAttentionEncoder page.
        * **Time.** An InfoNCE fit costs 1.7 times the same network's
          supervised fit (20 epochs, one torch thread).
    """,
    "sections": [
        {
            "title": "Gaussianity of the embedding",
            "figures": [
                {
                    "results": "infonce_gaussianity",
                    "kind": "bar",
                    "x": "encoder",
                    "y": "ad_pass_fraction_mean",
                    "by": "data",
                    "ylabel": "share passing Anderson-Darling",
                    "xlabel": "",
                    "caption": "Share of the coordinates of z / norm(z) that pass "
                    "Anderson-Darling.",
                }
            ],
            "tables": [
                {
                    "results": "infonce_gaussianity",
                    "columns": "data; encoder; norm_cv_mean=norm CV of z; "
                    "raw_ad_pass_fraction_mean=raw AD pass; "
                    "ad_pass_fraction_mean=AD pass; ad_pass_min=AD pass (min seed); "
                    "dagostino_pass_fraction_mean=D'Agostino pass",
                }
            ],
        },
        {
            "title": "Imbalanced features and pruning",
            "tables": [
                {
                    "results": "infonce_imbalance",
                    "columns": "encoder; embedding; "
                    "minority_auroc_mean=minority AUROC; minority_auroc_std=sd; "
                    "majority_auroc_mean=majority AUROC",
                },
            ],
        },
        {
            "title": "Fit time",
            "tables": [{"results": "infonce_time"}],
        },
    ],
}


if __name__ == "__main__":
    main()
