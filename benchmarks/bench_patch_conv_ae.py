"""Benchmark PatchConvAEDetector (Chen & Liu, ICLR 2026).

Two tables:

1. ``anomaly_synthetic``: the paper's patch model (P=20, d=24, C=28, 10
   always-present features). AUROC of normal vs non-semantic and vs semantic
   anomalies, the error ratios, the alignment of the always-present features
   with the kernels, and Theorem 1 measured: the set of absorbed features
   (cosine >= 0.9) recorded after every epoch, with whether it only grew.
2. ``anomaly_digits``: scikit-learn digits, one class as normal (half of it
   to train), the other half and all other classes to score; 8x8 images cut
   into four 4x4 patches (and, for comparison, one 8x8 patch). AUROC and
   fit time against IsolationForest, LocalOutlierFactor(novelty=True),
   OneClassSVM and PCA reconstruction error, over classes and seeds.

Run: ``python -m benchmarks patch_conv_ae [--quick]``.
"""

import time

import numpy as np
from _harness import bench_arguments, report
from sklearn.datasets import load_digits
from sklearn.decomposition import PCA
from sklearn.ensemble import IsolationForest
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import LocalOutlierFactor
from sklearn.svm import OneClassSVM

from sklearn_iclr import PatchConvAEDetector
from sklearn_iclr.datasets import make_patch_anomalies

ABSORBED = 0.9  # cosine of a feature with its best kernel


def auroc(normal_scores, anomaly_scores):
    """AUROC with normal samples as positives and higher score = more normal."""
    labels = np.r_[np.ones(len(normal_scores)), np.zeros(len(anomaly_scores))]
    return roc_auc_score(labels, np.r_[normal_scores, anomaly_scores])


def only_grows(sets):
    return all(a <= b for a, b in zip(sets, sets[1:], strict=False))


def synthetic_row(seed, n_train, n_epochs):
    data = make_patch_anomalies(n_train=n_train, n_test=300, random_state=seed)
    detector = PatchConvAEDetector(n_kernels=28, random_state=seed)
    always = set(data.always_present.tolist())
    absorbed, first_all = [], None
    start = time.perf_counter()
    for epoch in range(1, n_epochs + 1):
        detector.partial_fit(data.X_train)
        alignment = detector.kernel_alignment(data.features)
        absorbed.append(set(np.flatnonzero(alignment >= ABSORBED).tolist()))
        if first_all is None and always <= absorbed[-1]:
            first_all = epoch
    seconds = time.perf_counter() - start
    normal, non_semantic, semantic = (
        detector.score_samples(X)
        for X in (data.X_normal, data.X_non_semantic, data.X_semantic)
    )
    auc_ns, auc_s = auroc(normal, non_semantic), auroc(normal, semantic)
    return {
        "seed": seed,
        "auroc_non_semantic": auc_ns,
        "auroc_semantic": auc_s,
        "gap": auc_ns - auc_s,
        "err_ratio_non_semantic": non_semantic.mean() / normal.mean(),
        "err_ratio_semantic": semantic.mean() / normal.mean(),
        "min_cos_always": alignment[data.always_present].min(),
        "always_absorbed": len(always & absorbed[-1]),
        "epoch_all_absorbed": first_all if first_all is not None else "never",
        "grows_always": only_grows([s & always for s in absorbed]),
        "grows_all": only_grows(absorbed),
        "n_absorbed": len(absorbed[-1]),
        "fit_s": seconds,
    }, [sorted(s) for s in absorbed]


def pca_scores(pca, X):
    return -((X - pca.inverse_transform(pca.transform(X))) ** 2).sum(axis=1)


def digits_methods(seed):
    """name -> (make estimator, score function)."""
    return {
        "PatchConvAE 4x4": (
            lambda: PatchConvAEDetector(patch_shape=(4, 4), random_state=seed),
            lambda est, X: est.score_samples(X),
        ),
        "PatchConvAE 8x8": (
            lambda: PatchConvAEDetector(patch_shape=(8, 8), random_state=seed),
            lambda est, X: est.score_samples(X),
        ),
        "IsolationForest": (
            lambda: IsolationForest(random_state=seed),
            lambda est, X: est.score_samples(X),
        ),
        "LOF": (
            lambda: LocalOutlierFactor(novelty=True),
            lambda est, X: est.score_samples(X),
        ),
        "OneClassSVM": (
            lambda: OneClassSVM(gamma="scale", nu=0.1),
            lambda est, X: est.score_samples(X),
        ),
        "PCA(0.9)": (lambda: PCA(n_components=0.9), pca_scores),
    }


def digits_rows(classes, seeds):
    X, y = load_digits(return_X_y=True)
    aucs, times = {}, {}
    for seed in seeds:
        rng = np.random.RandomState(seed)
        for digit in classes:
            own = rng.permutation(np.flatnonzero(y == digit))
            train, held_out = own[: len(own) // 2], own[len(own) // 2 :]
            test = np.r_[held_out, np.flatnonzero(y != digit)]
            is_normal = np.r_[np.ones(len(held_out)), np.zeros(np.sum(y != digit))]
            for name, (make, score) in digits_methods(seed).items():
                start = time.perf_counter()
                est = make().fit(X[train])
                times.setdefault(name, []).append(time.perf_counter() - start)
                auc = roc_auc_score(is_normal, score(est, X[test]))
                aucs.setdefault(name, {}).setdefault(digit, []).append(auc)
    rows = []
    for name, per_class in aucs.items():
        row = {"method": name}
        row.update({f"d{k}": np.mean(v) for k, v in per_class.items()})
        every = np.concatenate(list(per_class.values()))
        row["mean"], row["sd_seeds"] = every.mean(), _sd_over_seeds(per_class)
        row["fit_s"] = np.median(times[name])
        rows.append(row)
    return rows


def _sd_over_seeds(per_class):
    """Standard deviation over seeds of the class-averaged AUROC."""
    by_seed = np.array(list(per_class.values())).mean(axis=0)
    return by_seed.std(ddof=1) if len(by_seed) > 1 else 0.0


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv)
    seeds = range(1) if args.quick else range(5)
    n_epochs = 50 if args.quick else 1000
    rows, trajectories = [], {}
    for seed in seeds:
        row, absorbed = synthetic_row(seed, n_train=200, n_epochs=n_epochs)
        rows.append(row)
        trajectories[seed] = absorbed
    report(
        "patch_conv_ae_synthetic",
        rows,
        title=(
            f"Synthetic patches: P=20, d=24, C=28, 10 always-present, n_train=200, "
            f"{n_epochs} epochs (lr 0.2); AUROC on 300 normal vs 300 anomalous"
        ),
        meta={"n_epochs": n_epochs, "absorbed_per_epoch": trajectories},
    )
    digit_seeds = range(1) if args.quick else range(3)
    digit_classes = range(2) if args.quick else range(10)
    report(
        "patch_conv_ae_digits",
        digits_rows(digit_classes, digit_seeds),
        title=(
            "Digits one-class AUROC (train on half of one class; 4x4 patches), "
            f"mean over seeds {list(digit_seeds)}; fit_s = median fit seconds"
        ),
        meta={"seeds": list(digit_seeds)},
    )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "PatchConvAEDetector: anomaly detection by a convolutional autoencoder",
    "estimators": {"PatchConvAEDetector": "partly"},
    "claim": """
        Chen and Liu (ICLR 2026): a two-layer convolutional autoencoder
        (smooth ReLU, per-kernel max-pooling over patches) trained by gradient
        descent on normal data absorbs its kernels into the cones of the
        normal features and keeps them there (Theorem 1), so patches in
        unseen directions (non-semantic anomalies) are not reconstructed;
        anomalies made of known features (semantic) are harder.
    """,
    "findings": """
        * **Synthetic patches (the paper's model): met.** Non-semantic
          anomalies: AUROC 1.000 on every seed, error 14-21 times the normal
          error (the issue asks at least 0.95 and 3x). Semantic anomalies: the
          error grows only 1.5-1.7 times and the AUROC is 0.009-0.042 lower.
          All 10 always-present features are absorbed on 4 of 5 seeds within
          1000 epochs; Theorem 1 held for them at every epoch, but the kernel
          of a rare occasional feature can drift off.
        * **Digits: missed.** With 4x4 patches the paper's model is the worst
          detector here (mean AUROC 0.875 against 0.97-0.996 for
          IsolationForest, LOF, OneClassSVM and PCA); with the whole image as
          one patch it reaches 0.987, on par with LOF and below PCA.
    """,
    "sections": [
        {
            "title": "Synthetic patches",
            "figures": [
                {
                    "results": "patch_conv_ae_synthetic",
                    "kind": "bar",
                    "x": "seed",
                    "y": ["err_ratio_non_semantic", "err_ratio_semantic"],
                    "labels": {
                        "err_ratio_non_semantic": "non-semantic anomalies",
                        "err_ratio_semantic": "semantic anomalies",
                    },
                    "hline": [{"y": 3.0, "label": "target 3x"}],
                    "ylabel": "anomalous / normal error",
                    "caption": "Reconstruction error of anomalies over that of "
                    "normal samples, per seed.",
                }
            ],
            "tables": [
                {
                    "results": "patch_conv_ae_synthetic",
                    "columns": "seed; auroc_non_semantic=AUROC non-semantic; "
                    "auroc_semantic=AUROC semantic; gap; "
                    "err_ratio_non_semantic=error ratio non-semantic; "
                    "err_ratio_semantic=error ratio semantic; "
                    "always_absorbed=always-present absorbed; "
                    "epoch_all_absorbed=epoch all absorbed; fit_s=fit s",
                }
            ],
        },
        {
            "title": "Digits, one class as normal",
            "tables": [{"results": "patch_conv_ae_digits"}],
        },
    ],
}


if __name__ == "__main__":
    main()
