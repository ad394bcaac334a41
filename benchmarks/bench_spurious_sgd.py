"""Benchmark of SpuriousRobustSGD: worst-group accuracy vs batch size.

Four tables, all measured in this process:

1. theory: on the noise-free four-point model, the learned |w_z / w_y| and the
   worst-group accuracy (WGA) for batch sizes 8, 64 and full, at one learning
   rate and epoch budget, over five seeds;
2. wga: on a noisy synthetic set (make_spurious_correlation) and on
   load_spurious_digits (an MLP), WGA on a group-balanced test split for
   batch 8 and batch 256 over a learning-rate grid, the explicit
   batch-gradient penalty at batch 256, and the anchors (LogisticRegression,
   SGDClassifier, MLPClassifier, full-batch GD) and group-label oracles
   (group-balanced sample weights); mean and standard deviation over seeds;
3. side: the few-seed side checks quoted on the docs page (equal
   updates at lr 1, the paper's momentum on the digits, a penalty sweep on
   the digits MLP);
4. time: fit time per epoch against SGDClassifier.

Run ``python benchmarks/bench_spurious_sgd.py`` (about 20 minutes on a busy
2-core machine; ``--quick`` uses one seed and 4 epochs, ``--tables theory,time`` runs a
subset) or add ``--device cuda`` on a GPU (untested: no GPU was available).
"""

import time
import warnings

import numpy as np
from _harness import bench_arguments, median_time, ratio, report
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from sklearn_iclr import SpuriousRobustSGD
from sklearn_iclr.datasets import load_spurious_digits, make_spurious_correlation
from sklearn_iclr.metrics import worst_group_accuracy

EPOCHS = 40  # --quick sets 4 (a smoke run, not the claim)
SIDE_SEEDS = (0, 1)  # --quick keeps seed 0
LEARNING_RATES = (0.01, 0.05, 0.2)
LARGE_BATCH_RATES = (0.01, 0.05, 0.2, 0.8)
PENALTY = 32.0


def synthetic(seed):
    """Noisy four-point model: 1000 training rows (5% minority), balanced test."""
    params = dict(spurious_scale=2.0, n_noise_features=10, noise=0.5)
    X, y, g = make_spurious_correlation(
        1000, minority_fraction=0.05, random_state=seed, **params
    )
    Xt, yt, gt = make_spurious_correlation(
        4000, minority_fraction=0.5, random_state=100 + seed, **params
    )
    return X, y, g, Xt, yt, gt


def digits(seed):
    """Spurious digits: 67% of the images with 5% minority, the rest balanced."""
    X, y, g = load_spurious_digits(0.05, random_state=seed)
    Xb, yb, gb = load_spurious_digits(0.5, random_state=100 + seed)
    train, test = train_test_split(
        np.arange(len(y)), test_size=0.33, random_state=seed, stratify=y
    )
    return X[train] / 16, y[train], g[train], Xb[test] / 16, yb[test], gb[test]


DATASETS = {
    "synthetic (linear)": (synthetic, ()),
    "digits (MLP 32)": (digits, (32,)),
}


def group_balanced_weights(groups):
    """Weights that give every group the same total weight (the oracle)."""
    labels, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    return (len(groups) / (len(labels) * counts))[inverse]


def evaluate(make, data, weighted=False):
    X, y, g, Xt, yt, gt = data
    start = time.perf_counter()
    est = make()
    if weighted:
        est.fit(X, y, sample_weight=group_balanced_weights(g))
    else:
        est.fit(X, y)
    seconds = time.perf_counter() - start
    pred = est.predict(Xt)
    return worst_group_accuracy(yt, pred, gt), float(np.mean(pred == yt)), seconds


def candidates(hidden, device):
    """(label, factory(seed) -> make(), uses group labels) for every row."""

    def sgd(**params):
        settings = {"hidden_layer_sizes": hidden, "max_epochs": EPOCHS, **params}
        return lambda seed: (
            lambda: SpuriousRobustSGD(device=device, random_state=seed, **settings)
        )

    def sklearn(estimator_class, **params):
        return lambda seed: lambda: estimator_class(**params)

    large = {"batch_size": 256, "learning_rate": 0.2}
    rows = [
        (f"b=8 lr={lr}", sgd(batch_size=8, learning_rate=lr), False)
        for lr in LEARNING_RATES
    ]
    rows += [
        (f"b=256 lr={lr}", sgd(batch_size=256, learning_rate=lr), False)
        for lr in LARGE_BATCH_RATES
    ]
    rows += [
        (
            "b=256 lr=0.2, 32x epochs (= b=8 updates)",
            sgd(**large, max_epochs=32 * EPOCHS),
            False,
        ),
        ("full-batch GD lr=0.8", sgd(batch_size="full", learning_rate=0.8), False),
        (
            f"b=256 lr=0.2 + penalty s={PENALTY:g} (whole batch)",
            sgd(**large, batch_grad_penalty=PENALTY),
            False,
        ),
        (
            f"b=256 lr=0.2 + penalty s={PENALTY:g} (micro-batches of 8)",
            sgd(**large, batch_grad_penalty=PENALTY, penalty_batch_size=8),
            False,
        ),
        (
            "defaults: SpuriousRobustSGD()",
            lambda seed: (
                lambda: SpuriousRobustSGD(
                    hidden_layer_sizes=hidden, device=device, random_state=seed
                )
            ),
            False,
        ),
        (
            "LogisticRegression (C=1)",
            sklearn(LogisticRegression, max_iter=10_000),
            False,
        ),
        (
            "LogisticRegression (C=1e4)",
            sklearn(LogisticRegression, C=1e4, max_iter=10_000),
            False,
        ),
        (
            "SGDClassifier (log_loss)",
            lambda seed: lambda: SGDClassifier(loss="log_loss", random_state=seed),
            False,
        ),
        (
            "MLPClassifier (adam, b=200)",
            lambda seed: (
                lambda: MLPClassifier(
                    hidden or (32,), max_iter=EPOCHS, random_state=seed
                )
            ),
            False,
        ),
        (
            "oracle: LogisticRegression (C=1e4), group-balanced",
            sklearn(LogisticRegression, C=1e4, max_iter=10_000),
            True,
        ),
        ("oracle: b=256 lr=0.2, group-balanced", sgd(**large), True),
    ]
    return rows


def theory_table(seeds, device):
    """|w_z / w_y| and WGA on the four-point model, per batch size.

    The first three rows share the epoch budget (as in the paper); the last
    two give the larger batches as many updates as batch 8 gets, which
    separates the effect of gradient noise from that of the update count.
    """
    n_samples = 200
    updates_per_epoch = {b: -(-n_samples // b) for b in (8, 64, n_samples)}
    settings = [
        ("8", 8, EPOCHS),
        ("64", 64, EPOCHS),
        ("full", "full", EPOCHS),
    ]
    settings += [
        (
            f"{label} (= b=8 updates)",
            batch,
            EPOCHS * updates_per_epoch[8] // updates_per_epoch[size],
        )
        for label, batch, size in (("64", 64, 64), ("full", "full", n_samples))
    ]
    rows = []
    for label, batch, epochs in settings:
        ratios, wgas = [], []
        for seed in seeds:
            X, y, _ = make_spurious_correlation(
                n_samples, minority_fraction=0.05, spurious_scale=2.0, random_state=seed
            )
            Xt, yt, gt = make_spurious_correlation(
                2000, minority_fraction=0.5, spurious_scale=2.0, random_state=100 + seed
            )
            clf = SpuriousRobustSGD(
                batch_size=batch,
                learning_rate=0.2,
                max_epochs=epochs,
                device=device,
                random_state=seed,
            ).fit(X, y)
            ratios.append(abs(clf.coef_[0, 1] / clf.coef_[0, 0]))
            wgas.append(worst_group_accuracy(yt, clf.predict(Xt), gt))
        rows.append(
            {
                "batch": label,
                "epochs": epochs,
                "|w_z/w_y| mean": float(np.mean(ratios)),
                "|w_z/w_y| sd": float(np.std(ratios)),
                "|w_z/w_y| per seed": " ".join(f"{r:.2f}" for r in ratios),
                "WGA mean": float(np.mean(wgas)),
                "WGA sd": float(np.std(wgas)),
            }
        )
    return rows


def wga_table(seeds, device):
    rows = []
    for name, (load, hidden) in DATASETS.items():
        data = [load(seed) for seed in seeds]
        for label, factory, oracle in candidates(hidden, device):
            results = np.array(
                [
                    evaluate(factory(seed), d, weighted=oracle)
                    for seed, d in zip(seeds, data, strict=True)
                ]
            )
            rows.append(
                {
                    "data": name,
                    "method": label,
                    "group labels": "yes" if oracle else "no",
                    "WGA mean": float(results[:, 0].mean()),
                    "WGA sd": float(results[:, 0].std()),
                    "acc mean": float(results[:, 1].mean()),
                    "fit s": float(results[:, 2].mean()),
                }
            )
            print(rows[-1], flush=True)
    return rows


def side_table(device):
    """Side checks quoted on the docs page (fewer seeds)."""
    rows = []

    def row(check, setting, value, seed):
        rows.append({"check": check, "setting": setting, "seed": seed, "value": value})
        print(rows[-1], flush=True)

    # 1. equal updates at a larger learning rate on the four-point model
    for features, noise in ((0, 0.0), (10, 0.5)):
        for seed in SIDE_SEEDS:
            X, y, _ = make_spurious_correlation(
                200,
                minority_fraction=0.05,
                spurious_scale=2.0,
                n_noise_features=features,
                noise=noise,
                random_state=seed,
            )
            for batch, epochs in (
                (8, EPOCHS),
                (64, EPOCHS * 25 // 4),
                ("full", EPOCHS * 25),
            ):
                clf = SpuriousRobustSGD(
                    batch_size=batch,
                    learning_rate=1.0,
                    max_epochs=epochs,
                    device=device,
                    random_state=seed,
                ).fit(X, y)
                row(
                    f"|w_z/w_y|, lr=1, equal updates, {features} noise features",
                    f"b={batch}",
                    float(abs(clf.coef_[0, 1] / clf.coef_[0, 0])),
                    seed,
                )
    # 2. the paper's optimiser (momentum 0.9) on the digits, equal updates
    for seed in SIDE_SEEDS:
        X, y, _, Xt, yt, gt = digits(seed)
        for batch, epochs in ((8, EPOCHS), (256, EPOCHS), (256, 32 * EPOCHS)):
            clf = SpuriousRobustSGD(
                hidden_layer_sizes=(32,),
                batch_size=batch,
                learning_rate=0.02,
                momentum=0.9,
                max_epochs=epochs,
                device=device,
                random_state=seed,
            ).fit(X, y)
            row(
                "digits WGA, momentum 0.9, lr 0.02",
                f"b={batch}, {epochs} epochs",
                worst_group_accuracy(yt, clf.predict(Xt), gt),
                seed,
            )
    # 3. the batch-gradient penalty on the digits MLP, seed 0
    X, y, _, Xt, yt, gt = digits(0)
    for lr, strengths in ((0.2, (0.0, 0.5, 2.0, 8.0)), (0.8, (0.0, 1.0, 4.0))):
        for strength in strengths:
            for micro in (None, 8):
                if strength == 0 and micro is not None:
                    continue
                clf = SpuriousRobustSGD(
                    hidden_layer_sizes=(32,),
                    batch_size=256,
                    learning_rate=lr,
                    max_epochs=EPOCHS,
                    batch_grad_penalty=strength,
                    penalty_batch_size=micro,
                    device=device,
                    random_state=0,
                ).fit(X, y)
                row(
                    f"digits WGA, b=256 lr={lr} + penalty",
                    f"s={strength:g}, micro-batch {micro}",
                    worst_group_accuracy(yt, clf.predict(Xt), gt),
                    0,
                )
    return rows


def time_table(device):
    X, y, *_ = synthetic(0)
    sgd_seconds, _ = median_time(
        lambda: SGDClassifier(loss="log_loss", max_iter=EPOCHS, tol=None).fit(X, y),
        repeats=3,
    )
    per_epoch_anchor = sgd_seconds / EPOCHS
    rows = []
    for batch in (8, 256):
        seconds, _ = median_time(
            lambda b=batch: SpuriousRobustSGD(
                batch_size=b, max_epochs=5, device=device, random_state=0
            ).fit(X, y),
            repeats=3,
        )
        rows.append(
            {
                "method": f"SpuriousRobustSGD b={batch}",
                "s / epoch": seconds / 5,
                "SGDClassifier s / epoch": per_epoch_anchor,
                "ratio": ratio(seconds / 5, per_epoch_anchor),
            }
        )
    return rows


def _options(parser):
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto")


def main(argv=None):
    global EPOCHS, SIDE_SEEDS
    args = bench_arguments(
        __doc__.splitlines()[0],
        argv,
        configure=_options,
        tables=("theory", "wga", "side", "time"),
    )
    tables = args.tables
    if args.quick:
        EPOCHS, SIDE_SEEDS = 4, (0,)
    # MLPClassifier stops at the shared epoch budget on purpose
    warnings.filterwarnings("ignore", message="Stochastic Optimizer")
    seeds = (0,) if args.quick else (0, 1, 2)
    theory_seeds = (0,) if args.quick else (0, 1, 2, 3, 4)
    meta = {"epochs": EPOCHS, "seeds": list(seeds), "device": args.device}
    if "theory" in tables:
        report(
            "spurious_sgd_theory",
            theory_table(theory_seeds, args.device),
            title=(
                "Four-point model (n=200, 5% minority, B=2), lr=0.2, "
                f"seeds {list(theory_seeds)}"
            ),
            meta={**meta, "seeds": list(theory_seeds)},
        )
    if "wga" in tables:
        report(
            "spurious_sgd_wga",
            wga_table(seeds, args.device),
            title=(
                f"Worst-group accuracy, group-balanced test split, seeds {list(seeds)}"
            ),
            meta=meta,
        )
    if "side" in tables:
        report(
            "spurious_sgd_side",
            side_table(args.device),
            title="Side checks (few seeds): equal updates, momentum, penalty on digits",
            meta=meta,
        )
    if "time" in tables:
        report(
            "spurious_sgd_time",
            time_table(args.device),
            title="Fit time per epoch, synthetic set (1000 x 12), median of 3",
            meta=meta,
        )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "SpuriousRobustSGD: small-batch SGD against shortcut learning",
    "estimators": {"SpuriousRobustSGD": "partly"},
    "claim": """
        Mirzaie et al. (ICLR 2026): on data with a spurious feature, small-batch
        SGD relies less on it than large-batch SGD or full-batch gradient
        descent, through the implicit regularisation of its gradient noise, so
        its worst-group accuracy (WGA) is higher without group labels.
    """,
    "findings": """
        * **Where it wins.** On spurious digits (a corner patch that predicts
          the label on 95 % of images) batch 8 at the defaults reaches WGA
          0.69 without group labels: 3.5 times large-batch SGD at its best
          learning rate, far above full-batch GD (0.002) and MLPClassifier
          (0.02), 1.9 times a converged LogisticRegression, above the
          group-balanced LogisticRegression oracle (0.65).
        * **Where it ties.** On the linear synthetic set a converged
          LogisticRegression (0.86) ties with batch 8 (0.85): both reach the
          large-margin solution.
        * **Why: partly.** Batch 256 given as many updates as batch 8 matches
          it (0.85 and 0.70), here and on the theory's four-point model: the
          measured gain comes from the number of updates in a fixed epoch
          budget, not from gradient noise as such.
        * **Explicit penalty.** The batch-gradient penalty averaged over
          micro-batches of 8 recovers 92 % of the gain on the synthetic set
          (37 % with the whole-batch gradient), but stops training on the
          digits MLP.
        * **Cost.** An epoch at batch 8 costs about 430 times one of
          ``SGDClassifier`` (torch through skorch, one thread). CUDA untested.
    """,
    "sections": [
        {
            "title": "Worst-group accuracy",
            "text": """
                Group-balanced test split, seeds 0, 1, 2; the anchors are rows of
                the same run on the same data.
            """,
            "figures": [
                {
                    "results": "spurious_sgd_wga",
                    "kind": "bar",
                    "x": "method",
                    "y": "WGA mean",
                    "by": "data",
                    "where": {
                        "method": [
                            "b=8 lr=0.2",
                            "b=256 lr=0.2",
                            "b=256 lr=0.2, 32x epochs (= b=8 updates)",
                            "full-batch GD lr=0.8",
                            "LogisticRegression (C=1e4)",
                            "MLPClassifier (adam, b=200)",
                        ]
                    },
                    "ylabel": "worst-group accuracy",
                    "xlabel": "",
                    "caption": "Worst-group accuracy without group labels.",
                }
            ],
            "tables": [
                {
                    "results": "spurious_sgd_wga",
                    "columns": "data; method; group labels; WGA mean; WGA sd; "
                    "acc mean=acc; fit s",
                }
            ],
        },
        {
            "title": "The theory's four-point model",
            "text": "lr = 0.2, 5 seeds; ``|w_z/w_y|``: spurious over core weight.",
            "tables": [
                {
                    "results": "spurious_sgd_theory",
                    "columns": "batch; epochs; |w_z/w_y| mean; |w_z/w_y| sd=sd; "
                    "|w_z/w_y| per seed=per seed; WGA mean; WGA sd=sd",
                }
            ],
        },
        {
            "title": "Side checks and time",
            "tables": [
                {"results": "spurious_sgd_side"},
                {"results": "spurious_sgd_time"},
            ],
        },
    ],
}


if __name__ == "__main__":
    main()
