"""Benchmark of InfoNCEEncoder and GaussianEmbeddingModel.

Four tables, all measured in this process:

1. gaussianity: on Laplace inputs (64-d) and on the scikit-learn digits, the
   coefficient of variation of the embedding norm |z| and the fractions of
   coordinates (and of random projections) of the directions z / |z| (what
   InfoNCE's cosine similarity shapes) passing Anderson-Darling
   (AD < 0.752) and D'Agostino-Pearson (p > 0.05), with the AD pass of the
   raw coordinates of z, for the same MLP at initialisation, after InfoNCE
   and after supervised (cross-entropy) training, over seeds, next to
   points drawn uniformly on the sphere (Betser et al., ICLR 2026);
2. ood: digits 0-4 as in-distribution; AUROC of separating held-out 0-4
   from digits 5-9 and from the held-out 0-4 scaled by 2, for
   StandardScaler + InfoNCEEncoder (MLP or linear) +
   GaussianEmbeddingModel (GEM, raw or l2-normalised embeddings)
   score_samples against EmpiricalCovariance (Mahalanobis) and
   IsolationForest on raw features;
3. imbalance: long-tailed sparse-coding data; mean linear-probe AUROC of the
   minority (and majority) feature indicators on the embeddings of the
   standard and of a small encoder, prune_ratio 0 vs 0.3, over seeds (Liao
   et al., ICLR 2026), with a raw-input probe;
4. time: InfoNCE fit time per epoch next to the supervised baseline's;
5. brelu_stages, brelu_scaling, brelu_pruning: the paper's own model
   (BReLUAttentionEncoder) on its own data (make_sparse_coding_pairs): the
   epochs at which majority and minority features are learned and the noise
   part of the neurons over training; the slope of the minority
   coefficients against eps_j / eps_max on log-log axes; pruning 0.3 vs 0
   at rho = 10 and rho = 1 (minority specialists, probe AUROCs), with the
   MLP InfoNCEEncoder on the same data side by side (Liao et al., ICLR 2026).

Run ``python -m benchmarks infonce`` (a few minutes on a busy 2-core
machine; ``--quick`` is a smoke run of the imbalance and time tables with one
seed, ``--tables ood,time`` runs a subset, ``--tables
brelu_stages,brelu_scaling,brelu_pruning`` the paper-model tables (about
8 minutes CPU), ``--device cuda`` trains on a GPU: untested, none was
available).
"""

import time

import numpy as np
from _harness import bench_arguments, ratio, report
from sklearn.covariance import EmpiricalCovariance
from sklearn.datasets import load_digits
from sklearn.ensemble import IsolationForest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_iclr import BReLUAttentionEncoder, GaussianEmbeddingModel, InfoNCEEncoder
from sklearn_iclr.contrastive import neuron_alignment
from sklearn_iclr.contrastive._baselines import fit_supervised_encoder
from sklearn_iclr.datasets import (
    make_laplace_classification,
    make_long_tailed_sparse_coding,
    make_sparse_coding_pairs,
)
from sklearn_iclr.metrics import gaussianity_report
from sklearn_iclr.utils import module_outputs

ENCODER = dict(n_components=32, hidden_layer_sizes=(256,), temperature=0.1)
EPOCHS = 60
# The Gaussianity table's encoder. Weak augmentation (noise only, 0.075
# feature sd) makes the two views nearly identical, so InfoNCE's uniformity
# term dominates and the directions z / |z| spread over the sphere instead
# of forming class clusters; 128 components because a coordinate of 1797
# points uniform on the sphere passes AD ~93% of the time at 128 dimensions
# (the "uniform sphere" rows), ~91% at 64 and ~88% at 32 (seeds 0-4).
GAUSSIANITY_ENCODER = dict(
    n_components=128,
    hidden_layer_sizes=(512,),
    temperature=0.1,
    augmentation="noise",
    noise_scale=0.075,
)
GAUSSIANITY_EPOCHS = 100
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
    X_lap, y_lap = make_laplace_classification(2000, 64, random_state=0)
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


def table_gaussianity(seeds, device):
    rows = []
    n_components = GAUSSIANITY_ENCODER["n_components"]
    for data_name, (X, y) in gaussianity_datasets().items():
        for seed in seeds:
            init = InfoNCEEncoder(
                max_epochs=0, random_state=seed, **GAUSSIANITY_ENCODER
            )
            infonce = InfoNCEEncoder(
                max_epochs=GAUSSIANITY_EPOCHS,
                random_state=seed,
                device=device,
                **GAUSSIANITY_ENCODER,
            )
            supervised = fit_supervised_encoder(
                X,
                y,
                n_components=n_components,
                hidden_layer_sizes=GAUSSIANITY_ENCODER["hidden_layer_sizes"],
                max_epochs=GAUSSIANITY_EPOCHS,
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
            f"{GAUSSIANITY_ENCODER['hidden_layer_sizes']}, {GAUSSIANITY_EPOCHS} "
            "epochs, mean over seeds; norm CV and raw AD on z, the other "
            "columns on z / |z|"
        ),
        meta={
            "encoder": GAUSSIANITY_ENCODER,
            "epochs": GAUSSIANITY_EPOCHS,
            "per_seed": rows,
        },
    )


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
        "infonce_ood",
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


def probe_aurocs(Z, codes, seed):
    """Test AUROC of a logistic-regression probe for each feature's presence."""
    present = codes != 0
    train, test = train_test_split(np.arange(len(Z)), test_size=0.5, random_state=seed)
    scaler = StandardScaler().fit(Z[train])
    Z_train, Z_test = scaler.transform(Z[train]), scaler.transform(Z[test])
    aurocs = []
    for k in range(codes.shape[1]):
        probe = LogisticRegression(max_iter=1000).fit(Z_train, present[train, k])
        aurocs.append(roc_auc_score(present[test, k], probe.decision_function(Z_test)))
    return np.array(aurocs)


def table_imbalance(seeds, device):
    rows = []
    for seed in seeds:
        X, codes, minority = make_long_tailed_sparse_coding(
            4000, 64, **IMBALANCE_DATA, random_state=seed
        )
        embeddings = {("-", "raw input"): X}
        for encoder_name, params in IMBALANCE_ENCODERS.items():
            for prune_ratio in (0.0, 0.3):
                encoder = InfoNCEEncoder(
                    prune_ratio=prune_ratio,
                    max_epochs=EPOCHS,
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
            "epochs": EPOCHS,
            "per_seed": rows,
            "wins": wins,
        },
    )


def table_time(device):
    X, y = make_laplace_classification(2000, 64, random_state=0)
    epochs = 20
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


# --- The paper's own model (Liao et al.): BReLU attention encoder ------------

# Tokens of 32 dimensions, 4 per sample; 4 majority features at rate 0.2 and 4
# minority ones with geometric rates down to 0.2 / rho; noise 0.2 per
# coordinate (at 0.1 every probe had AUROC ~1.0; at 0.3 the small-init
# neurons stayed below the BReLU threshold).
BRELU_DATA = dict(
    n_tokens=4,
    n_features=32,
    n_majority=4,
    n_minority=4,
    majority_rate=0.2,
    noise=0.2,
)
BRELU_SAMPLES = 1500
BRELU_ENCODER = dict(
    n_neurons=32,
    brelu_bias=0.01,
    temperature=0.5,
    init_scale=0.1,
    learning_rate=0.5,
    l2_regularization=1e-3,
)
BRELU_EPOCHS = 25
# The MLP InfoNCEEncoder on the flattened tokens (its own augmentation: it
# cannot take the paired views).
BRELU_MLP = dict(n_components=32, hidden_layer_sizes=(64,), temperature=0.1)
BRELU_RHOS = (10.0, 1.0)
PRUNE_RATIOS = (0.0, 0.3)
SCALING_EPOCHS = (1, 2, 3, 5, 10, 15, 20, 25)


def signed_presence(codes):
    """Probe labels: feature ``j`` present with a positive net sign in a sample.

    The BReLU is odd, so a feature of random sign moves the embedding both
    ways; the positive occurrences are what a linear probe can read.
    """
    return codes.sum(axis=1) > 0


def probe_auroc_labels(Z, labels, seed):
    """Test AUROC of a logistic-regression probe for every label column."""
    return probe_aurocs(Z, labels.astype(float), seed)


def mlp_alignment(encoder, dictionary, n_tokens, threshold=0.8):
    """Specialists and noise part of the first hidden layer of an MLP on tokens.

    A hidden neuron's weight is cut into its ``n_tokens`` blocks and the
    blocks are summed (a neuron that detects feature ``j`` in any token
    carries ``M_j`` in every block); the cosine of that sum with ``M_j``
    decides as in :func:`neuron_alignment`. Returns the specialists per
    feature and the mean noise part ``sqrt(1 - sum_j cos^2)`` of the kept
    neurons.
    """
    first = (
        next(layer for layer in encoder.module_ if hasattr(layer, "weight"))
        .weight.detach()
        .numpy()
        .astype(np.float64)
    )
    pooled = first.reshape(len(first), n_tokens, -1).sum(axis=1)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    keep = encoder.neuron_mask_[0] & (norms[:, 0] > 0)
    cosine = (pooled / np.where(norms > 0, norms, 1.0)) @ dictionary
    strong = (np.abs(cosine) >= threshold) & keep[:, None]
    single = strong.sum(axis=1) == 1
    specialists = np.array(
        [int(np.sum(single & strong[:, j])) for j in range(dictionary.shape[1])]
    )
    noise = np.sqrt(np.clip(1 - np.sum(cosine**2, axis=1), 0, None))[keep]
    return specialists, float(noise.mean())


def stage_epoch(curve, epochs, fraction=0.9):
    """First epoch at which ``curve`` has made ``fraction`` of its total rise."""
    rise = curve - curve[0]
    total = rise[-1]
    if total <= 0:
        return float("nan")
    return float(epochs[np.argmax(rise >= fraction * total)])


def brelu_curves(report, minority):
    """Majority, minority alignment and noise fraction at every snapshot."""
    kept = report.kept
    cos2 = np.sum(report.cosine**2, axis=-1)
    noise_fraction = np.sqrt(np.clip(1 - cos2, 0, None))
    noise = np.array([noise_fraction[t][kept[t]].mean() for t in range(len(kept))])
    return {
        "majority": report.best_cosine[:, ~minority].mean(axis=1),
        "minority": report.best_cosine[:, minority].mean(axis=1),
        "noise": noise,
    }


def brelu_runs(seeds, quick=False, device="cpu"):
    """Fit both encoders at every (seed, rho, prune_ratio) once; keep the measures."""
    epochs = 5 if quick else BRELU_EPOCHS
    n_samples = 400 if quick else BRELU_SAMPLES
    runs = []
    for seed in seeds:
        for rho in BRELU_RHOS:
            X, X_pos, codes, M, rates = make_sparse_coding_pairs(
                n_samples, imbalance=rho, random_state=seed, **BRELU_DATA
            )
            minority = np.arange(len(rates)) >= BRELU_DATA["n_majority"]
            labels = signed_presence(codes)
            flat = X.reshape(len(X), -1)
            raw = probe_auroc_labels(flat, labels, seed)
            for prune_ratio in PRUNE_RATIOS:
                start = time.process_time()
                brelu = BReLUAttentionEncoder(
                    prune_ratio=prune_ratio,
                    max_epochs=epochs,
                    random_state=seed,
                    **BRELU_ENCODER,
                ).fit(X, X_positive=X_pos)
                brelu_cpu = time.process_time() - start
                report = neuron_alignment(brelu, M)
                start = time.process_time()
                mlp = InfoNCEEncoder(
                    prune_ratio=prune_ratio,
                    max_epochs=epochs,
                    random_state=seed,
                    device=device,
                    **BRELU_MLP,
                ).fit(flat)
                mlp_cpu = time.process_time() - start
                curves = brelu_curves(report, minority)
                mlp_specialists, mlp_noise = mlp_alignment(
                    mlp, M, BRELU_DATA["n_tokens"]
                )
                for name, Z, specialists, noise, cpu in (
                    (
                        "BReLU attention",
                        brelu.transform(X),
                        report.n_specialists[-1],
                        float(curves["noise"][-1]),
                        brelu_cpu,
                    ),
                    (
                        "MLP InfoNCEEncoder",
                        mlp.transform(flat),
                        mlp_specialists,
                        mlp_noise,
                        mlp_cpu,
                    ),
                ):
                    aurocs = probe_auroc_labels(Z, labels, seed)
                    runs.append(
                        {
                            "seed": seed,
                            "rho": rho,
                            "prune_ratio": prune_ratio,
                            "encoder": name,
                            "cpu_s": cpu,
                            "minority_specialists": int(specialists[minority].sum()),
                            "majority_specialists": int(specialists[~minority].sum()),
                            "noise_part": noise,
                            "minority_auroc": float(aurocs[minority].mean()),
                            "majority_auroc": float(aurocs[~minority].mean()),
                            "raw_minority_auroc": float(raw[minority].mean()),
                            "raw_majority_auroc": float(raw[~minority].mean()),
                            "curves": (
                                {k: v.tolist() for k, v in curves.items()}
                                | {"epochs": report.epochs.tolist()}
                                if name == "BReLU attention"
                                else None
                            ),
                            # Per snapshot and feature: max_i |w_i . M_j|
                            # over the kept neurons.
                            "coef": (
                                np.where(
                                    report.kept[..., None], np.abs(report.coef), 0.0
                                )
                                .max(axis=1)
                                .tolist()
                                if name == "BReLU attention"
                                else None
                            ),
                            "rates": rates.tolist(),
                        }
                    )
    return runs


def mean_se(values):
    """Mean and standard error (0 for a single value)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return float("nan"), float("nan")
    se = values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean()), float(se)


def _pick(runs, **where):
    return [r for r in runs if all(r[k] == v for k, v in where.items())]


def table_brelu_stages(runs):
    picked = _pick(runs, encoder="BReLU attention", rho=10.0, prune_ratio=0.0)
    per_seed = []
    for run in picked:
        curves = {k: np.asarray(v) for k, v in run["curves"].items()}
        epochs = curves.pop("epochs")
        noise = curves["noise"]
        per_seed.append(
            {
                "seed": run["seed"],
                "majority": stage_epoch(curves["majority"], epochs),
                "minority": stage_epoch(curves["minority"], epochs),
                # The noise part falls while the features are learned; its
                # stage ends when it has made 90% of its total fall.
                "noise": stage_epoch(-noise, epochs),
                "majority_final": float(curves["majority"][-1]),
                "minority_final": float(curves["minority"][-1]),
                "noise_start": float(noise[0]),
                "noise_final": float(noise[-1]),
            }
        )
    rows = []
    for key, label in (
        ("majority", "majority alignment: 90% of its rise"),
        ("minority", "minority alignment: 90% of its rise"),
        ("noise", "noise part: 90% of its fall"),
    ):
        mean, se = mean_se([r[key] for r in per_seed])
        rows.append({"stage_end": label, "epoch_mean": mean, "epoch_se": se})
    diff = [r["minority"] - r["majority"] for r in per_seed]
    mean, se = mean_se(diff)
    rows.append(
        {
            "stage_end": "minority - majority (paired)",
            "epoch_mean": mean,
            "epoch_se": se,
        }
    )
    finals = {
        k: mean_se([r[k] for r in per_seed])
        for k in ("majority_final", "minority_final", "noise_start", "noise_final")
    }
    report(
        "infonce_brelu_stages",
        rows,
        columns=["stage_end", "epoch_mean", "epoch_se"],
        title=(
            f"Stages of training, BReLU attention encoder, rho = 10, "
            f"{len(per_seed)} seeds, {len(picked[0]['curves']['epochs']) - 1} "
            "epochs; final best |cos| "
            f"majority {finals['majority_final'][0]:.3f}, minority "
            f"{finals['minority_final'][0]:.3f}; noise part "
            f"{finals['noise_start'][0]:.3f} -> {finals['noise_final'][0]:.3f}"
        ),
        meta={
            "data": BRELU_DATA,
            "n_samples": BRELU_SAMPLES,
            "encoder": BRELU_ENCODER,
            "per_seed": per_seed,
            "finals": finals,
            "curves": [r["curves"] | {"seed": r["seed"]} for r in picked],
        },
    )


def table_brelu_scaling(runs):
    picked = _pick(runs, encoder="BReLU attention", rho=10.0, prune_ratio=0.0)
    minority = slice(BRELU_DATA["n_majority"], None)
    rates = np.asarray(picked[0]["rates"])
    ratios = rates[minority] / rates.max()
    epochs = np.asarray(picked[0]["curves"]["epochs"])
    checkpoints = [e for e in SCALING_EPOCHS if e <= epochs[-1]]
    rows, slopes = [], {}
    for epoch in checkpoints:
        index = int(np.flatnonzero(epochs == epoch)[0])
        points, slopes[epoch] = [], []
        for run in picked:
            coef = np.asarray(run["coef"])[index]
            reference = coef[: BRELU_DATA["n_majority"]].mean()
            y = np.log(coef[minority] / reference)
            slopes[epoch].append(float(np.polyfit(np.log(ratios), y, 1)[0]))
            points.append(np.exp(y))
        points = np.asarray(points)
        slope, slope_se = mean_se(slopes[epoch])
        row = {"epoch": epoch, "slope_mean": slope, "slope_se": slope_se}
        for k, ratio_k in enumerate(ratios):
            row[f"ratio_at_{ratio_k:.3g}"] = mean_se(points[:, k])[0]
        rows.append(row)
    report(
        "infonce_brelu_scaling",
        rows,
        title=(
            "Minority coefficient max_i |w_i . M_j| (kept neurons) over the mean "
            "majority one, against eps_j / eps_max (columns ratio_at_*), and the "
            f"log-log slope (the paper: 1), BReLU attention encoder, rho = 10, "
            f"{len(picked)} seeds, mean and se over seeds"
        ),
        meta={
            "slopes": {str(k): v for k, v in slopes.items()},
            "ratios": ratios.tolist(),
        },
    )


def table_brelu_pruning(runs):
    rows = []
    for encoder in ("BReLU attention", "MLP InfoNCEEncoder"):
        for rho in BRELU_RHOS:
            base = _pick(runs, encoder=encoder, rho=rho, prune_ratio=0.0)
            pruned = _pick(runs, encoder=encoder, rho=rho, prune_ratio=0.3)
            row = {"encoder": encoder, "rho": rho, "seeds": len(base)}
            for key in (
                "minority_specialists",
                "minority_auroc",
                "majority_auroc",
                "noise_part",
            ):
                a = np.array([r[key] for r in base], dtype=float)
                b = np.array([r[key] for r in pruned], dtype=float)
                row[f"{key}_0"] = float(a.mean())
                row[f"{key}_0.3"] = float(b.mean())
                row[f"{key}_diff"], row[f"{key}_diff_se"] = mean_se(b - a)
            row["raw_minority_auroc"] = float(
                np.mean([r["raw_minority_auroc"] for r in base])
            )
            row["cpu_s_per_fit"] = float(np.mean([r["cpu_s"] for r in base + pruned]))
            rows.append(row)
    report(
        "infonce_brelu_pruning",
        rows,
        columns=[
            "encoder",
            "rho",
            "minority_specialists_0",
            "minority_specialists_0.3",
            "minority_specialists_diff",
            "minority_specialists_diff_se",
            "minority_auroc_0",
            "minority_auroc_0.3",
            "minority_auroc_diff",
            "minority_auroc_diff_se",
            "majority_auroc_diff",
            "majority_auroc_diff_se",
            "noise_part_0",
            "noise_part_0.3",
            "noise_part_diff",
            "noise_part_diff_se",
            "raw_minority_auroc",
            "cpu_s_per_fit",
        ],
        title=(
            "Pruning 0.3 vs 0, paired over seeds (diff = pruned - unpruned, se "
            "of the paired differences), make_sparse_coding_pairs "
            f"({BRELU_SAMPLES} x 4 tokens x 32, noise 0.2), {BRELU_EPOCHS} "
            "epochs; probes: logistic regression for 'feature j present with a "
            "positive sign', test AUROC; noise_part: mean sqrt(1 - sum_j "
            "cos^2(w_i, M_j)) over the kept neurons (the MLP: first layer, "
            "token blocks summed); CPU seconds per fit (process time, "
            "2 shared cores, loaded machine)"
        ),
        meta={
            "data": BRELU_DATA,
            "brelu_encoder": BRELU_ENCODER,
            "mlp_encoder": {k: str(v) for k, v in BRELU_MLP.items()},
            "per_run": [{k: v for k, v in r.items() if k != "curves"} for r in runs],
        },
    )


BRELU_TABLES = {
    "brelu_stages": table_brelu_stages,
    "brelu_scaling": table_brelu_scaling,
    "brelu_pruning": table_brelu_pruning,
}


def _options(parser):
    parser.add_argument(
        "--tables",
        default=None,
        help="comma-separated subset of gaussianity, ood, imbalance, time, "
        "brelu_stages, brelu_scaling, brelu_pruning (default: all; with "
        "--quick: imbalance,time)",
    )
    parser.add_argument("--device", default="cpu")


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_options)
    default = (
        "imbalance,time"
        if args.quick
        else "gaussianity,ood,imbalance,time," + ",".join(BRELU_TABLES)
    )
    tables = set((args.tables or default).split(","))
    if "gaussianity" in tables:
        table_gaussianity((0,) if args.quick else tuple(range(5)), args.device)
    if "ood" in tables:
        table_ood((0,) if args.quick else (0, 1, 2), args.device)
    if "imbalance" in tables:
        table_imbalance((0,) if args.quick else tuple(range(5)), args.device)
    if "time" in tables:
        table_time(args.device)
    brelu = [name for name in BRELU_TABLES if name in tables]
    if brelu:
        seeds = (0,) if args.quick else tuple(range(5))
        runs = brelu_runs(seeds, quick=args.quick, device=args.device)
        for name in brelu:
            BRELU_TABLES[name](runs)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "InfoNCEEncoder, GaussianEmbeddingModel and BReLUAttentionEncoder: "
    "contrastive embeddings",
    "estimators": {
        "InfoNCEEncoder": "met",
        "GaussianEmbeddingModel": "partly",
        "BReLUAttentionEncoder": "partly",
    },
    "claim": """
        Betser, Gofer, Levi and Gilboa (ICLR 2026): InfoNCE training makes the
        directions of the embedding close to Gaussian, while the same network
        trained with a supervised loss does not; a Gaussian model of the
        embeddings then gives likelihoods (OOD scores), entropy and mutual
        information in closed form. Liao et al. (ICLR 2026): under imbalance
        the paper's attention-BReLU model learns the majority features first
        and the minority ones later, with coefficients scaling like
        ``eps_j / eps_max`` in between; magnitude pruning of neurons helps the
        minority features.
    """,
    "findings": """
        * **Gaussianity: met.** With near-identical views, 93 % (Laplace-64)
          and 92.5 % (digits) of the coordinates of ``z / |z|`` pass
          Anderson-Darling, in every seed; the supervised network's pass 0 %.
          Raw digits coordinates pass 6 %: the norm is not a thin shell.
        * **OOD with the Gaussian model: partly.** On digits 5-9 against 0-4
          the InfoNCE embedding with ``GaussianEmbeddingModel`` reaches AUROC
          0.86, below ``EmpiricalCovariance`` on the raw pixels (0.91); on
          scaled inputs both reach 0.98-0.99.
        * **Three stages: met.** The minority features are learned 14.6 +- 1.6
          epochs after the majority ones (5 seeds).
        * **Coefficient scaling: partly.** Slope 1.10 +- 0.05 between the
          stages (the paper: 1), 0.28 at the end of training.
        * **Pruning: missed.** Pruning 0.3 at ``rho = 10`` raises the minority
          AUROC by 0.005 +- 0.002 (target +0.02); the MLP ``InfoNCEEncoder``
          loses 0.03 with pruning.
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
            "title": "OOD detection with the Gaussian model",
            "tables": [
                {
                    "results": "infonce_ood",
                    "columns": "ood=OOD set; method; auroc_mean=AUROC mean; "
                    "auroc_std=sd",
                }
            ],
        },
        {
            "title": "Imbalance: the paper's BReLU attention model",
            "figures": [
                {
                    "results": "infonce_brelu_scaling",
                    "x": "epoch",
                    "y": "slope_mean",
                    "hline": [{"y": 1.0, "label": "the paper: slope 1"}],
                    "xlabel": "epoch",
                    "ylabel": "log-log slope against eps_j / eps_max",
                    "caption": "Scaling of the minority coefficients over training.",
                }
            ],
            "tables": [
                {
                    "results": "infonce_brelu_stages",
                    "columns": "stage_end=stage ends when; epoch_mean=epoch (mean); "
                    "epoch_se=se",
                },
                {"results": "infonce_brelu_scaling"},
                {"results": "infonce_brelu_pruning"},
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
