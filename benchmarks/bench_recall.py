"""Random-embedding recall: orthogonal vs random, early phase vs trained, capacity.

Vural, Bietti, Soltanolkotabi & Wu (ICLR 2026): one attention head over fixed
random token embeddings, trained by three gradient steps (the "early phase"),
recalls a one-to-one map from the trigger-marked token to its label; the
number of samples it needs depends multiplicatively on the embedding
dimension ``d``, the sequence length ``L`` and the vocabulary ``V``. Four
tables, all measured in one process on ``make_token_recall`` data (held-out
accuracy on 2000 fresh sequences of the same facts):

1. ``recall_orthogonal``: V = 32, L = 8. Orthogonal embeddings (d = 40 >= V +
   3) against Gaussian ones at d = 40 and d = 16, over N; the anchor is
   scikit-learn's LogisticRegression on one-hot tokens per position
   (OneHotEncoder), which does not know which position matters.
2. ``recall_training``: V = 64, L = 8, d = 32: the early phase (3 steps)
   against 200 steps of full-batch GD and of Adam, at equal N, with fit times.
3. ``recall_capacity``: the smallest N reaching 90% accuracy (bisection over
   N on a log scale, 5 steps between V and 16 V L, mean accuracy over 3
   draws of facts and data at every tested N), over d in {32, 64, 128},
   L in {4, 8, 16}, V in {32, 64}, and the least-squares fit of log N against
   log d, log L, log V with standard errors and R^2.
4. ``recall_mlp``: the attention-MLP model, d = 32, V = 64, L = 8, against
   the width m in {64, 256, 1024}: held-out accuracy at N = 6000 next to the
   attention-only model, and the smallest N reaching 50% accuracy (90% is out
   of its reach at these sizes) with the fitted exponent of m.

Timings are wall-clock and CPU seconds (``time.process_time``) of single fits.

Run: ``python -m benchmarks recall`` (about 11 minutes of
wall time on 2 cores shared with about 8 other jobs: 581 s measured with one
draw per N, plus 135 s for the capacity table alone with three; most of it is
the 200-step GD and Adam fits of table 2); ``--tables capacity`` (or a
comma-separated list) runs a subset; ``--quick`` for a smoke run of seconds.
"""

import time

from _harness import bench_arguments, ratio, report
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from sklearn_iclr.datasets import make_token_recall
from sklearn_iclr.neural_network import RandomEmbeddingRecallClassifier, recall_capacity

N_TEST = 2000


def _timed_fit(estimator, X, y):
    wall, cpu = time.perf_counter(), time.process_time()
    estimator.fit(X, y)
    return time.perf_counter() - wall, time.process_time() - cpu


def orthogonal_table(sizes):
    V, L = 32, 8
    rows = []
    for n in sizes:
        X, y = make_token_recall(n + N_TEST, V, L, random_state=n)
        train, test = slice(0, n), slice(n, None)
        row = {"n_samples": n}
        for label, kwargs in [
            ("orth_d40", dict(embedding_dim=40, embeddings="orthogonal")),
            ("gauss_d40", dict(embedding_dim=40)),
            ("gauss_d16", dict(embedding_dim=16)),
        ]:
            clf = RandomEmbeddingRecallClassifier(random_state=0, **kwargs)
            clf.fit(X[train], y[train])
            row[label] = clf.score(X[test], y[test])
        anchor = make_pipeline(
            OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=300)
        )
        anchor.fit(X[train], y[train])
        row["onehot_logreg"] = anchor.score(X[test], y[test])
        row["gauss_d16_vs_anchor"] = ratio(row["gauss_d16"], row["onehot_logreg"])
        rows.append(row)
    return rows


def training_table(sizes, n_steps):
    V, L, d = 64, 8, 32
    rows = []
    for n in sizes:
        X, y = make_token_recall(n + N_TEST, V, L, random_state=n)
        train, test = slice(0, n), slice(n, None)
        row = {"n_samples": n}
        for training in ("early_phase", "gd", "adam"):
            clf = RandomEmbeddingRecallClassifier(
                embedding_dim=d, training=training, n_steps=n_steps, random_state=0
            )
            wall, cpu = _timed_fit(clf, X[train], y[train])
            row[f"{training}_acc"] = clf.score(X[test], y[test])
            row[f"{training}_wall_s"] = wall
            row[f"{training}_cpu_s"] = cpu
        row["adam_vs_early_acc"] = ratio(row["adam_acc"], row["early_phase_acc"])
        row["adam_vs_early_time"] = ratio(row["adam_wall_s"], row["early_phase_wall_s"])
        rows.append(row)
    return rows


def capacity_rows(result):
    return [
        {
            "d": r["embedding_dim"],
            "L": r["seq_len"],
            "V": r["vocab_size"],
            "m": r["mlp_width"],
            "n_required": r["n_required"],
            "acc_at_n": r["accuracy_at_n_required"],
            "n_fits": r["n_fits"],
        }
        for r in result["table"]
    ]


def law_rows(result, law):
    rows = []
    for name, value in result["exponents"].items():
        rows.append(
            {
                "factor": name,
                "exponent": value,
                "stderr": result["exponents_stderr"][name],
                "law_N_d_eq_V_L": law.get(name),
                "r2": result["r2"],
            }
        )
    return rows


TABLES = ("orthogonal", "training", "capacity", "mlp")


def _configure(parser):
    parser.add_argument(
        "--tables",
        default=",".join(TABLES),
        help=f"comma-separated tables to run, among {', '.join(TABLES)}",
    )


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_configure)
    quick = args.quick
    chosen = args.tables.split(",")
    unknown = sorted(set(chosen) - set(TABLES))
    if unknown:
        raise SystemExit(f"unknown tables {unknown}; choose among {list(TABLES)}")
    start = time.perf_counter()

    if "orthogonal" in chosen:
        _orthogonal(quick)
    if "training" in chosen:
        _training(quick)
    if "capacity" in chosen:
        _capacity(quick)
    if "mlp" in chosen:
        _mlp(quick)
    print(f"total wall time {time.perf_counter() - start:.0f} s")


def _orthogonal(quick):
    rows = orthogonal_table([100, 200] if quick else [125, 250, 500, 1000, 2000, 4000])
    report(
        "recall_orthogonal",
        rows,
        title="Orthogonal vs random embeddings: held-out accuracy, V=32, L=8",
    )


def _training(quick):
    rows = training_table(
        [500] if quick else [1000, 2000, 4000, 8000], 20 if quick else 200
    )
    report(
        "recall_training",
        rows,
        title="Early phase (3 steps) vs 200 GD / Adam steps, V=64, L=8, d=32",
    )


def _capacity(quick):
    law = {"embedding_dim": -1.0, "seq_len": 1.0, "vocab_size": 1.0}
    grid = (
        dict(embedding_dims=[32, 64], seq_lens=[4, 8], vocab_sizes=[16])
        if quick
        else dict(
            embedding_dims=[32, 64, 128], seq_lens=[4, 8, 16], vocab_sizes=[32, 64]
        )
    )
    wall = time.perf_counter()
    res = recall_capacity(
        **grid,
        accuracy=0.9,
        n_bisect=3 if quick else 5,
        n_test=N_TEST,
        n_repeats=1 if quick else 3,
        random_state=0,
        estimator=RandomEmbeddingRecallClassifier(random_state=0),
    )
    capacity_wall = time.perf_counter() - wall
    report(
        "recall_capacity",
        capacity_rows(res),
        title="Smallest N reaching 90% held-out accuracy (early phase)",
        meta={"wall_s": capacity_wall},
    )
    report(
        "recall_capacity_law",
        law_rows(res, law),
        title="Fit log N = c + sum a_k log k; the reading N d ~ V L has a = (-1, 1, 1)",
    )


def _mlp(quick):
    widths = [32, 128] if quick else [64, 256, 1024]
    n = 1000 if quick else 6000
    X, y = make_token_recall(n + N_TEST, 64, 8, random_state=0)
    rows = []
    for m in [None, *widths]:
        clf = RandomEmbeddingRecallClassifier(
            embedding_dim=32, mlp_width=m, random_state=0
        )
        wall, cpu = _timed_fit(clf, X[:n], y[:n])
        rows.append(
            {
                "m": m,
                "n_samples": n,
                "accuracy": clf.score(X[n:], y[n:]),
                "wall_s": wall,
            }
        )
    report(
        "recall_mlp_accuracy",
        rows,
        title="Attention-MLP (early phase): held-out accuracy against m, "
        "d=32, V=64, L=8",
    )
    res = recall_capacity(
        [32],
        [8],
        [64],
        accuracy=0.5,
        mlp_widths=widths,
        n_bisect=3 if quick else 5,
        n_test=N_TEST,
        random_state=0,
    )
    report(
        "recall_mlp",
        capacity_rows(res) + law_rows(res, {}),
        title="Attention-MLP: smallest N for 50% accuracy against the width m "
        "(d=32, V=64, L=8)",
    )


if __name__ == "__main__":
    main()
