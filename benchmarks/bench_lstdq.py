"""LSTDQEvaluator: accuracy and time against fitted-Q evaluation, and throughput.

1. Accuracy: on one random linear MDP (exact J from the Bellman system), LSTDQ
   and fitted-Q evaluation (FQE: k iterated sklearn ``Ridge`` regressions) are
   fitted on the same data sets; the table gives the RMSE of J over repeated
   data sets, the mean reported standard error, the coverage and the median
   time, with FQE's time as a ratio to LSTDQ's.
2. Throughput: n transitions of d features streamed through ``partial_fit`` in
   chunks that are generated on the fly (rows resampled from a pool drawn from
   a linear MDP; the full n x d matrix never exists), against the one
   ``X.T @ X`` per chunk that any second-moment method must pay, timed on the
   same chunks in the same process. LSTDQ also needs the non-symmetric
   ``X.T @ X_next`` (a general product, about twice the symmetric ``X.T @ X``),
   so the "floor" row, the two products alone, is the least any exact
   implementation pays.

Run ``python benchmarks/bench_lstdq.py`` (``--quick`` for a smoke run). BLAS
runs on one thread (``--threads`` to change): on a shared, oversubscribed
machine a multi-threaded BLAS spins and its timings are meaningless.
"""

import time

import numpy as np
from _harness import bench_arguments, ratio, report
from threadpoolctl import threadpool_limits

from sklearn_iclr.datasets import make_linear_mdp_dataset
from sklearn_iclr.rl import LSTDQEvaluator
from sklearn_iclr.rl._baselines import fitted_q_evaluation

GAMMA = 0.9


def accuracy_rows(sizes, n_repeats, fqe_iters, n_features=20):
    rows = []
    for n in sizes:
        errors = {"LSTDQ": []}
        errors.update({f"FQE-{k}": [] for k in fqe_iters})
        times = {name: [] for name in errors}
        ses, coverages = [], []
        for rep in range(n_repeats):
            X, y, X_next, X_init, value, _ = make_linear_mdp_dataset(
                n, n_features=n_features, n_states=40, gamma=GAMMA,
                behaviour_shift=0.5, random_state=rep, mdp_random_state=0,
            )  # fmt: skip
            start = time.perf_counter()
            est = LSTDQEvaluator(gamma=GAMMA).fit(X, y, X_next=X_next)
            J, se = est.estimate_value(X_init, return_std=True)
            times["LSTDQ"].append(time.perf_counter() - start)
            errors["LSTDQ"].append(J - value)
            ses.append(se)
            coverages.append(est.coverage(X_init))
            for k in fqe_iters:
                start = time.perf_counter()
                J_fqe, _ = fitted_q_evaluation(
                    X, y, X_next, X_init, gamma=GAMMA, alpha=1e-8, n_iter=k
                )
                times[f"FQE-{k}"].append(time.perf_counter() - start)
                errors[f"FQE-{k}"].append(J_fqe - value)
        base = float(np.median(times["LSTDQ"]))
        for name in errors:
            seconds = float(np.median(times[name]))
            row = {
                "n": n,
                "method": name,
                "rmse_J": float(np.sqrt(np.mean(np.square(errors[name])))),
                "seconds": seconds,
                "time_vs_lstdq": ratio(seconds, base),
            }
            if name == "LSTDQ":
                row["mean_se"] = float(np.mean(ses))
                row["coverage_C"] = float(np.mean(coverages))
            rows.append(row)
    return rows


def throughput_rows(n_total, n_features, chunk_size):
    pool = make_linear_mdp_dataset(
        100_000, n_features=n_features, n_states=100, n_actions=3,
        gamma=GAMMA, random_state=0,
    )  # fmt: skip
    X_pool, y_pool, X_next_pool = pool[:3]
    rng = np.random.RandomState(0)
    est = LSTDQEvaluator(gamma=GAMMA)
    t_fit = t_resid = t_anchor = t_floor = 0.0
    n_chunks = n_total // chunk_size
    seeds = rng.randint(2**31 - 1, size=n_chunks)

    def chunk(seed):
        idx = np.random.RandomState(seed).randint(len(y_pool), size=chunk_size)
        return X_pool[idx], y_pool[idx], X_next_pool[idx]

    for seed in seeds:  # first pass: the statistics
        X, y, X_next = chunk(seed)
        start = time.perf_counter()
        est.partial_fit(X, y, X_next=X_next)
        t_fit += time.perf_counter() - start
        start = time.perf_counter()
        gram = X.T @ X
        t_anchor += time.perf_counter() - start
        start = time.perf_counter()
        cross = X.T @ X_next
        t_floor += time.perf_counter() - start
    for seed in seeds:  # second pass, only for the standard error
        X, y, X_next = chunk(seed)
        start = time.perf_counter()
        est.accumulate_residuals(X, y, X_next=X_next)
        t_resid += time.perf_counter() - start
    J, se = est.estimate_value(pool[3], return_std=True)
    assert gram.shape == cross.shape == (n_features, n_features)
    return [
        {
            "n": est.n_samples_seen_,
            "d": n_features,
            "chunk": chunk_size,
            "what": what,
            "seconds": seconds,
            "Mtrans_per_s": est.n_samples_seen_ / seconds / 1e6,
            "ratio_vs_XtX": ratio(seconds, t_anchor),
        }
        for what, seconds in [
            ("X.T @ X per chunk (anchor)", t_anchor),
            ("X.T @ X + X.T @ X_next (floor)", t_anchor + t_floor),
            ("partial_fit (A, b, Sigma)", t_fit),
            ("accumulate_residuals (2nd pass)", t_resid),
        ]
    ], {"J_hat": J, "se": se, "J_true": pool[4], "cond_A": est.condition_number_}


def _options(parser):
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_options)
    with threadpool_limits(limits=args.threads, user_api="blas"):
        run(args)


def run(args):
    if args.quick:
        sizes, n_repeats, n_total = (1_000, 10_000), 5, 1_000_000
    else:
        sizes, n_repeats, n_total = (1_000, 10_000, 100_000), 20, 10_000_000
    fqe_iters = (10, 50, 200)
    rows = accuracy_rows(sizes, n_repeats, fqe_iters)
    report(
        "lstdq_accuracy",
        rows,
        ["n", "method", "rmse_J", "mean_se", "coverage_C", "seconds", "time_vs_lstdq"],
        title=f"J of a linear MDP (d=20, gamma={GAMMA}, behaviour_shift=0.5), "
        f"{n_repeats} data sets per n; FQE-k = k Ridge regressions (alpha=1e-8)",
        meta={
            "gamma": GAMMA,
            "n_repeats": n_repeats,
            "fqe_iters": fqe_iters,
            "blas_threads": args.threads,
        },
    )
    rows, meta = throughput_rows(n_total, n_features=100, chunk_size=100_000)
    meta["blas_threads"] = args.threads
    report(
        "lstdq_throughput",
        rows,
        ["n", "d", "chunk", "what", "seconds", "Mtrans_per_s", "ratio_vs_XtX"],
        title="Streaming throughput (chunks generated on the fly; same chunks, "
        "same process)",
        meta=meta,
    )
    print(
        f"streamed estimate J = {meta['J_hat']:.4f} +- {meta['se']:.4f} "
        f"(true {meta['J_true']:.4f}; pool of 1e5 resampled, so the se is "
        "that of the resampled log, not of fresh data)"
    )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "LSTDQEvaluator: linear off-policy evaluation in one pass",
    "estimators": {"LSTDQEvaluator": "partly"},
    "claim": """
        Amortila, Huang, Krishnamurthy and Jiang (ICLR 2026): LSTDQ evaluates a
        target policy from off-policy data with linear features; its error is
        governed by the feature-dynamics coverage, which the estimator
        reports next to the value and a sandwich standard error.
    """,
    "findings": """
        * **Accuracy: met.** On a linear MDP (d = 20, gamma = 0.9, true J = 5.28;
          20 logs per n) the RMSE of J falls like ``1/sqrt(n)`` and the
          reported standard error matches it (0.0134 against 0.0134 at
          n = 1e4). Fitted-Q evaluation (k Ridge regressions) reaches the same
          fixed point only at the rate ``gamma^k``: FQE-10 is off by 35 % of J,
          FQE-200 matches LSTDQ at 44-54 times its time (n >= 1e4).
        * **Streaming speed: missed (3x target).** ``partial_fit`` on 1e7 x 100
          transitions costs 3.2 times one ``X.T @ X`` at low load (6.5 times at
          load ~20); the two products it cannot avoid (``X.T @ X`` and the
          non-symmetric ``X.T @ X_next``) alone cost 2.7-2.9 times, so the
          target is out of reach of any exact dense implementation.
        * **Defaults agree with the generators (#38).** ``gamma`` defaults to
          0.9, the discount of ``make_linear_mdp_dataset`` and
          ``make_tabular_mdp``, which return it with the exact value:
          ``LSTDQEvaluator()`` on ``make_linear_mdp_dataset(4000,
          random_state=0)`` is within 0.6 % of the exact value (it was 9-10
          times off at the former 0.99; the defaults benchmark's page).
        * **Out of core with Dask (#42)**: 0.66-1.08 of the in-memory fit's
          throughput per CPU second on one worker, by data source; see the
          scaling page.
    """,
    "sections": [
        {
            "title": "Accuracy and time against fitted-Q evaluation",
            "figures": [
                {
                    "results": "lstdq_accuracy",
                    "x": "n",
                    "y": "rmse_J",
                    "by": "method",
                    "logx": True,
                    "logy": True,
                    "xlabel": "n (transitions)",
                    "ylabel": "RMSE of J",
                    "caption": "RMSE of the policy value against n.",
                }
            ],
            "tables": [
                {
                    "results": "lstdq_accuracy",
                    "columns": "n; method; rmse_J=RMSE of J; mean_se=mean SE; "
                    "coverage_C=coverage C; seconds; time_vs_lstdq=time / LSTDQ",
                }
            ],
        },
        {
            "title": "Streaming throughput",
            "text": """
                n = 1e7 transitions, d = 100, chunks of 1e5 generated on the fly;
                each row's seconds are summed over the same chunks in one process,
                one BLAS thread.
            """,
            "tables": [{"results": "lstdq_throughput"}],
        },
    ],
}


if __name__ == "__main__":
    main()
