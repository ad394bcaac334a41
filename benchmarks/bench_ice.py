"""ICEClassifier: exact 0-1 loss on real data vs HiGHS MILP, brute force, surrogates.

Two tables, measured in one process on the same data:

1. Real data (raw, no jitter): the exact training optimum of ICEClassifier on
   Voice path, Haberman and Caesarian next to logistic regression, linear
   SVM and LDA, the paper's jittered figures, the big-M MILP solved by HiGHS
   under a time limit (box 1e4 on features scaled to [-1, 1]; proven optimum
   or remaining gap), ``e01loss`` when it
   is installed (optional) and a plain numpy brute force over all D-subsets
   that treats every on-plane point as free (the reference implementations'
   convention, optimistic on ties).
2. Time against N for D = 2 to 5 on synthetic data, with the fitted
   exponent of N (the sweep is O(N^D log N); the brute force O(N^(D+1))).
3. ``kernel``: CPU nanoseconds per candidate examination of the compiled
   (numba) sweep against the numpy sweep it replaced (kept as the tests'
   oracle), on the same pencils, for Caesarian, synthetic D = 3, 4, 5 and a
   degree-2 fit (the five monomials of two features); and the pruned sweep
   (pencils that own none of their planes and pencils whose forced-error
   bound reaches the incumbent are skipped, and each pencil evaluates only
   the planes it owns) against the full one and against the same skipping
   rules with every plane evaluated in each of its pencils.
4. ``compile``: first call in a fresh process with an empty numba cache
   (compilation), a fresh process with the cache filled, and a warm call.
5. ``ties``: N = 1000 distinct points of an integer grid in D = 3 (heavy
   ties), ICE with 1 and 2 threads against HiGHS under a time limit.
6. ``big`` (not in the default set): D = 6, N = 90 integer-coded data, 2
   threads, against HiGHS under a time limit.
7. ``dask`` (not in the default set): Caesarian with 1 and 2 Dask workers.

Run ``python benchmarks/bench_ice.py`` (MILP limit 300 s per data set) or
``--quick`` (a smoke run: Voice path only, 5 s MILP limit, a small scaling grid).
"""

import itertools
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from _harness import bench_arguments, median_time, ratio, report
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from sklearn_iclr.datasets import load_caesarian, load_haberman, load_voicepath
from sklearn_iclr.linear_model import ICEClassifier
from sklearn_iclr.linear_model._ice._classifier import (
    _min_max_scale,
    _Problem,
    _surrogate,
)
from sklearn_iclr.linear_model._ice._kernel import Prune
from sklearn_iclr.linear_model._ice._search import (
    affine_coordinates,
    combinations_array,
    scan_pencils,
)
from sklearn_iclr.testing.oracles import milp_01_loss

# Training accuracy (%) reported in the paper, on de-duplicated data with
# N(0, 1e-8) jitter: (ICE, SVM, LR, LDA).
PAPER = {
    "voicepath": (97.30, 96.88, 96.59, 96.59),
    "haberman": (77.03, 72.08, 73.14, 73.85),
    "caesarian": (80.6, 77.2, 73.6, 75.0),
}


def errors(model, X, y):
    # One BLAS thread: idle OpenBLAS threads spin for about 0.1 s after a
    # call and would take a core from the next data set's ICE timing.
    with threadpool_limits(limits=1, user_api="blas"):
        return int(np.sum(model.fit(X, y).predict(X) != y))


def margin(model, X):
    """Least |decision| over max |w_j| with features scaled to [-1, 1]: the
    MILP's box must be at least 1 / margin to contain the ICE solution."""
    w = model.coef_[0] * np.ptp(X, axis=0) / 2
    return float(np.abs(model.decision_function(X)).min() / np.abs(w).max())


def brute_force_free_ties(X, y, chunk=20000):
    """All D-subsets; null vector of [X_c | 1]; on-plane points count as free."""
    n, d = X.shape
    Z = np.column_stack([(X - X.mean(0)) / X.std(0).clip(1e-12), np.ones(n)])
    target = y > 0
    best = n
    subsets = itertools.combinations(range(n), d)
    while True:
        block = np.array(list(itertools.islice(subsets, chunk)))
        if block.size == 0:
            return best
        _, singular, vt = np.linalg.svd(Z[block])
        ok = singular[:, -1] > 1e-9 * singular[:, 0]
        values = Z @ vt[ok, -1, :].T  # (n, candidates)
        tol = 1e-9 * np.abs(values).max(axis=0)
        positive, negative = values > tol, values < -tol
        wrong = (positive & ~target[:, None]) | (negative & target[:, None])
        right = (positive & target[:, None]) | (negative & ~target[:, None])
        loss = np.minimum(wrong.sum(0), right.sum(0))
        best = min(best, int(loss.min()))


def e01loss_cell(X, y):
    try:
        from e01loss.exact_classify01loss import exact_classify01loss_cell
    except ImportError:
        return None, None
    start = time.perf_counter()
    result = exact_classify01loss_cell(X, np.where(y > 0, 1, -1))
    return result[1], time.perf_counter() - start


def real_data(quick, time_limit, names=None, brute=True):
    rows = []
    loaders = {
        "voicepath": load_voicepath,
        "haberman": load_haberman,
        "caesarian": load_caesarian,
    }
    if quick:  # a smoke run: the two-feature set only
        loaders = {"voicepath": load_voicepath}
    if names:
        loaders = {name: loaders[name] for name in names}
    # Load the compiled kernels first: the ``compile`` table times that, and
    # here it would count in the first data set's CPU time.
    ICEClassifier(search="exact").fit(*load_voicepath(return_X_y=True))
    for name, loader in loaders.items():
        X, y = loader(return_X_y=True)
        distinct = len(np.unique(X, axis=0))
        repeats = 1 if quick or name != "voicepath" else 3
        cpu = time.process_time()
        ice_s, ice = median_time(
            lambda X=X, y=y: ICEClassifier(search="exact").fit(X, y),
            repeats=repeats,
            warmup=0,
        )
        ice_cpu_s = (time.process_time() - cpu) / repeats
        ice2_s, _ = median_time(
            lambda X=X, y=y: ICEClassifier(search="exact", n_jobs=2).fit(X, y),
            repeats=repeats,
            warmup=0,
        )
        start, cpu = time.perf_counter(), time.process_time()
        milp_fun, milp_gap, proven = milp_01_loss(
            X, y, box=1e4, mip_rel_gap=None, time_limit=time_limit
        )
        milp_s = time.perf_counter() - start
        milp_cpu_s = time.process_time() - cpu
        brute_s, brute = (np.nan, None)
        # Caesarian: 1.4e7 subsets, skipped
        if name != "caesarian" and not quick and brute:
            brute_s, brute = median_time(
                lambda X=X, y=y: brute_force_free_ties(X, y), repeats=1, warmup=0
            )
        e01, e01_s = e01loss_cell(X, y)
        scaled = StandardScaler()
        rows.append(
            {
                "data": name,
                "rows": len(y),
                "distinct": distinct,
                "D": X.shape[1],
                "ice_err": int(ice.n_errors_),
                "ice_acc%": round(100 * (1 - ice.n_errors_ / len(y)), 2),
                "paper_ice%": PAPER[name][0],
                "lr_err": errors(make_pipeline(scaled, LogisticRegression()), X, y),
                "svm_err": errors(make_pipeline(scaled, LinearSVC()), X, y),
                "lda_err": errors(LinearDiscriminantAnalysis(), X, y),
                "ice_s": ice_s,
                "ice_cpu_s": ice_cpu_s,
                "ice_2threads_s": ice2_s,
                "ice_margin": margin(ice, X),
                "milp_obj": round(float(milp_fun), 3),
                "milp_gap": round(float(milp_gap), 3),
                "milp_proven": proven,
                "milp_s": milp_s,
                "milp_cpu_s": milp_cpu_s,
                "milp/ice": ratio(milp_s, ice_s),
                "milp_cpu/ice_cpu": ratio(milp_cpu_s, ice_cpu_s),
                "milp/ice_2threads": ratio(milp_s, ice2_s),
                "brute_free_ties": "-" if brute is None else brute,
                "brute_s": brute_s,
                "brute/ice": ratio(brute_s, ice_s) if brute is not None else np.nan,
                "e01loss": "not installed" if e01 is None else e01,
                "e01loss_s": np.nan if e01_s is None else e01_s,
            }
        )
        print(rows[-1], flush=True)
    report(
        "ice_real_data" if not names else "ice_real_data_" + "_".join(names),
        rows,
        title=(
            f"Exact raw-data 0-1 optimum vs anchors (HiGHS limit {time_limit} s; "
            "2 shared CPU cores, loaded by other jobs)"
        ),
        meta={"milp_time_limit_s": time_limit, "quick": quick},
    )


def synthetic(n, d, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X @ np.ones(d) + 0.7 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def scaling(quick):
    grids = {
        2: [100, 200, 400] if quick else [400, 800, 1600, 3200, 6400],
        3: [40, 60, 80] if quick else [80, 160, 240, 320, 480],
        4: [20, 25, 30] if quick else [30, 40, 50, 60, 70],
        5: [14, 16, 18] if quick else [20, 25, 30, 35, 40],
    }
    rows = []
    for d, sizes in grids.items():
        cpu_times = []
        for n in sizes:
            X, y = synthetic(n, d)
            cpu = time.process_time()
            seconds, clf = median_time(
                lambda X=X, y=y: ICEClassifier(search="exact").fit(X, y),
                repeats=1,
                warmup=0,
            )
            cpu_times.append(time.process_time() - cpu)
            small = n <= {2: 400, 3: 80, 4: 30, 5: 20}[d]
            brute_s, brute = (np.nan, None)
            if small:
                brute_s, brute = median_time(
                    lambda X=X, y=y: brute_force_free_ties(X, y), repeats=1, warmup=0
                )
            rows.append(
                {
                    "D": d,
                    "N": n,
                    "ice_err": int(clf.n_errors_),
                    "brute_err": "-" if brute is None else brute,
                    "ice_s": seconds,
                    "ice_cpu_s": cpu_times[-1],
                    "brute_s": brute_s,
                    "brute/ice": ratio(brute_s, seconds) if small else np.nan,
                    "examinations": clf.n_candidates_,
                }
            )
            print(rows[-1], flush=True)
        # Fixed costs (validation, the surrogate, the LP) dominate small N:
        # fit the exponent on the three largest sizes.
        slope = np.polyfit(np.log(sizes[-3:]), np.log(cpu_times[-3:]), 1)[0]
        rows.append({"D": d, "N": "fit", "ice_cpu_s": f"~ N^{slope:.2f}"})
    report(
        "ice_scaling",
        rows,
        title=(
            "ICE time vs N (synthetic, 1 job; CPU-time exponent from a log-log "
            "fit over the 3 largest N; the sweep is O(N^D log N))"
        ),
        meta={"quick": quick},
    )


def search_problem(X, y):
    """The points, labels and weights the estimator's search sees."""
    signed = np.where(y == np.unique(y)[1], 1, -1).astype(np.int8)
    weight = np.ones(len(y))
    scaled = _min_max_scale(X.astype(float), weight > 0)[0]
    problem = _Problem.from_samples(scaled, signed, weight)
    Y = affine_coordinates(problem.points)
    return Y, problem.labels, problem.weights


def integer_table(n, d, levels, seed=0):
    """Distinct points of an integer grid, noisy linear labels."""
    rng = np.random.default_rng(seed)
    grid = np.stack(np.meshgrid(*[np.arange(levels)] * d, indexing="ij"), -1).reshape(
        -1, d
    )
    X = grid[rng.permutation(len(grid))[:n]].astype(float)
    score = X @ np.linspace(1.0, 2.0, d) + levels * 0.6 * rng.standard_normal(n)
    return X, np.where(score > np.median(score), 1, -1)


def cpu_ns_per_examination(Y, y, w, pencils, compiled, prune=False):
    # The estimator's starting bound: the better of logistic regression and
    # the constant classifier.
    bound = float(np.sum(w[_surrogate(Y, y, w)[0] != y]))
    stats = {}
    cpu = time.process_time()
    cost, _, _, examined = scan_pencils(
        Y, y, w, pencils, bound, compiled=compiled, prune=prune, stats=stats
    )
    seconds = time.process_time() - cpu
    skipped = (stats.get("pruned", 0), stats.get("foreign", 0))
    return 1e9 * seconds / max(examined, 1), examined, seconds, cost, skipped


def degree_two(n, seed=0):
    """Two features, a noisy disc: the degree-2 search runs on the five
    monomials (the Veronese embedding ICEClassifier(degree=2) searches)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where((X**2).sum(1) + 0.15 * rng.standard_normal(n) < 0.5, 1, -1)
    return PolynomialFeatures(2, include_bias=False).fit_transform(X), y


def kernel(quick):
    sets = {"caesarian": load_caesarian(return_X_y=True)}
    for d, n in ((3, 120), (4, 50), (5, 30)):
        sets[f"synthetic D={d}"] = synthetic(n, d)
    sets["degree 2 (disc, 2 features)"] = degree_two(24 if quick else 40)
    rows = []
    budget = 2e5 if quick else 2e6  # numpy-side examinations per data set
    scan_pencils(*search_problem(*synthetic(10, 2)), combinations_array(10, 1))
    for name, (X, y) in sets.items():
        Y, labels, weight = search_problem(X, y)
        m, d = Y.shape
        pencils = combinations_array(m, d - 1)
        subset = pencils[: max(1, int(budget / m))]
        numpy_ns, numpy_n, *_ = cpu_ns_per_examination(Y, labels, weight, subset, False)
        compiled_sub_ns, *_ = cpu_ns_per_examination(Y, labels, weight, subset, True)
        compiled_ns, compiled_n, compiled_s, cost, _ = cpu_ns_per_examination(
            Y, labels, weight, pencils, True
        )
        _, pruned_n, pruned_s, pruned_cost, (by_bound, foreign) = (
            cpu_ns_per_examination(Y, labels, weight, pencils, True, prune=True)
        )
        # The same skipping rules with every plane evaluated in each of its
        # pencils (the previous kernel): what evaluating only the planes a
        # pencil owns saves, same run.
        _, sorting_n, sorting_s, sorting_cost, _ = cpu_ns_per_examination(
            Y, labels, weight, pencils, True, prune=Prune.FOREIGN | Prune.BOUND
        )
        assert pruned_cost == cost == sorting_cost  # the same optimum
        rows.append(
            {
                "data": name,
                "N": m,
                "D": d,
                "pencils": len(pencils),
                "numpy_ns/exam": numpy_ns,
                "numpy_examinations": numpy_n,
                "compiled_ns/exam (same pencils)": compiled_sub_ns,
                "speed-up": ratio(numpy_ns, compiled_sub_ns),
                "compiled_ns/exam (all pencils)": compiled_ns,
                "compiled_examinations": compiled_n,
                "compiled_cpu_s": compiled_s,
                "pruned_cpu_s": pruned_s,
                "pruned_examinations": pruned_n,
                "foreign_share": foreign / len(pencils),
                "bound_share": by_bound / len(pencils),
                # The pruned sweep's CPU time over the full sweep's
                # examinations: the cost per candidate the search settles.
                "pruned_ns/exam (full count)": 1e9 * pruned_s / max(compiled_n, 1),
                "pruning speed-up": ratio(compiled_s, pruned_s),
                "all_planes_pruned_cpu_s": sorting_s,
                "all_planes_pruned_examinations": sorting_n,
                "owned-planes speed-up": ratio(sorting_s, pruned_s),
            }
        )
        print(rows[-1], flush=True)
    report(
        "ice_kernel",
        rows,
        title=(
            "CPU ns per candidate examination, compiled vs numpy sweep (1 thread, "
            "same pencils, process CPU time), and the pruned compiled sweep"
        ),
        meta={"quick": quick},
    )


_FIT_SCRIPT = """
import time
start = time.perf_counter()
from sklearn_iclr.datasets import load_voicepath
from sklearn_iclr.linear_model import ICEClassifier
X, y = load_voicepath(return_X_y=True)
imported = time.perf_counter()
ICEClassifier(search="exact").fit(X, y)
first = time.perf_counter()
ICEClassifier(search="exact").fit(X, y)
warm = time.perf_counter()
print(imported - start, first - imported, warm - first)
"""


def compile_time(quick):
    rows = []
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
        for run in ("empty cache (compiles)", "cache filled"):
            out = subprocess.run(
                [sys.executable, "-c", _FIT_SCRIPT],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                cwd=root,
            ).stdout.split()
            imported, first, warm = map(float, out)
            rows.append(
                {
                    "process": run,
                    "import_s": imported,
                    "first_fit_s": first,
                    "warm_fit_s": warm,
                    "first - warm (s)": first - warm,
                }
            )
            print(rows[-1], flush=True)
    report(
        "ice_compile",
        rows,
        title=(
            "Voice path exact fit in a fresh process: numba compilation vs the "
            "on-disk cache (NUMBA_CACHE_DIR = a new temporary folder), wall s"
        ),
        meta={"quick": quick},
    )


def ties(quick, time_limit):
    n, d, levels = (300, 3, 7) if quick else (1000, 3, 10)
    X, y = integer_table(n, d, levels)
    row = {"N": n, "D": d, "grid": f"{levels}^{d}"}
    for n_jobs in (1, 2):
        cpu = time.process_time()
        seconds, clf = median_time(
            lambda n_jobs=n_jobs: ICEClassifier(
                search="exact", n_jobs=n_jobs, max_candidates=10**10
            ).fit(X, y),
            repeats=1,
            warmup=0,
        )
        row[f"ice_{n_jobs}thread_s"] = seconds
        row[f"ice_{n_jobs}thread_cpu_s"] = time.process_time() - cpu
    row["ice_err"] = clf.n_errors_
    row["examinations"] = clf.n_candidates_
    row["ns/exam (CPU, 1 thread)"] = 1e9 * row["ice_1thread_cpu_s"] / clf.n_candidates_
    start = time.perf_counter()
    fun, gap, proven = milp_01_loss(
        X, y, box=1e4, mip_rel_gap=None, time_limit=time_limit
    )
    row["milp_obj"] = float(fun)
    row["milp_gap"] = float(gap)
    row["milp_proven"] = proven
    row["milp_s"] = time.perf_counter() - start
    print(row, flush=True)
    report(
        "ice_ties",
        [row],
        title=(
            f"Heavy ties: integer grid, ICE (1 and 2 threads) vs HiGHS (limit "
            f"{time_limit} s), wall s on 2 shared cores"
        ),
        meta={"quick": quick},
    )


def big(quick, time_limit):
    n, d, levels = (40, 6, 3) if quick else (90, 6, 3)
    X, y = integer_table(n, d, levels, seed=1)
    cpu = time.process_time()
    seconds, clf = median_time(
        lambda: ICEClassifier(search="exact", n_jobs=2, max_candidates=10**11).fit(
            X, y
        ),
        repeats=1,
        warmup=0,
    )
    row = {
        "N": n,
        "D": d,
        "ice_err": clf.n_errors_,
        "examinations": clf.n_candidates_,
        "ice_2threads_s": seconds,
        "ice_cpu_s": time.process_time() - cpu,
    }
    start = time.perf_counter()
    fun, gap, proven = milp_01_loss(
        X, y, box=1e4, mip_rel_gap=None, time_limit=time_limit
    )
    row["milp_obj"] = float(fun)
    row["milp_gap"] = float(gap)
    row["milp_proven"] = proven
    row["milp_s"] = time.perf_counter() - start
    row["milp/ice_2threads"] = ratio(row["milp_s"], seconds) if proven else np.nan
    print(row, flush=True)
    report(
        "ice_big",
        [row],
        title=(
            f"D = 6 integer-coded table, ICE on 2 threads vs HiGHS (limit "
            f"{time_limit} s), wall s on 2 shared cores"
        ),
        meta={"quick": quick},
    )


def dask_workers(quick):
    """Caesarian on a Dask LocalCluster (threads in this process) with 1 and
    2 workers, next to the joblib threads of ``n_jobs``."""
    import joblib
    from dask.distributed import Client, LocalCluster

    X, y = load_caesarian(return_X_y=True)
    if quick:
        X, y = X[:45], y[:45]
    rows = []
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=False,
                dashboard_address=None,
            ) as cluster,
            Client(cluster),
            joblib.parallel_config(backend="dask"),
        ):
            seconds, clf = median_time(
                lambda: ICEClassifier(search="exact").fit(X, y), repeats=3, warmup=1
            )
        joblib_s, _ = median_time(
            lambda workers=workers: ICEClassifier(search="exact", n_jobs=workers).fit(
                X, y
            ),
            repeats=3,
            warmup=1,
        )
        rows.append(
            {
                "workers": workers,
                "dask_s": seconds,
                "joblib_threads_s": joblib_s,
                "errors": clf.n_errors_,
            }
        )
        print(rows[-1], flush=True)
    rows.append(
        {
            "workers": "2 vs 1",
            "dask_s": ratio(rows[0]["dask_s"], rows[1]["dask_s"]),
            "joblib_threads_s": ratio(
                rows[0]["joblib_threads_s"], rows[1]["joblib_threads_s"]
            ),
        }
    )
    report(
        "ice_dask",
        rows,
        title="Caesarian on a Dask LocalCluster vs joblib threads, wall s",
        meta={"quick": quick},
    )


def _options(parser):
    parser.add_argument(
        "--real-sets",
        default=None,
        help="comma-separated subset of voicepath, haberman, caesarian (real)",
    )
    parser.add_argument(
        "--milp-limit",
        type=float,
        default=None,
        help="HiGHS time limit in s for the real-data table (default 300)",
    )
    parser.add_argument(
        "--skip-brute",
        action="store_true",
        help="leave out the free-ties brute force of the real-data table",
    )
    parser.add_argument(
        "--tables",
        default="real,scaling,kernel,compile,ties",
        help="comma-separated: real, scaling, kernel, compile, ties, big, dask",
    )


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_options)
    tables = set(args.tables.split(","))
    time_limit = 5 if args.quick else 300
    if args.milp_limit is not None:
        time_limit = args.milp_limit
    if "compile" in tables:
        compile_time(args.quick)
    if "kernel" in tables:
        kernel(args.quick)
    if "real" in tables:
        names = args.real_sets.split(",") if args.real_sets else None
        real_data(args.quick, time_limit, names, brute=not args.skip_brute)
    if "scaling" in tables:
        scaling(args.quick)
    if "ties" in tables:
        ties(args.quick, 10 if args.quick else 120)
    if "big" in tables:
        big(args.quick, 10 if args.quick else 120)
    if "dask" in tables:
        dask_workers(args.quick)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "ICEClassifier: the exact minimum 0-1 loss linear classifier",
    "estimators": {"ICEClassifier": "partly"},
    "claim": """
        He and Little (ICLR 2026): in dimension D every linear dichotomy of N
        points is realised by a hyperplane through D of them, so the linear
        classifier with the fewest training errors is found exactly by
        examining the ``O(N^D)`` candidate planes; the paper's ICE algorithm
        does it incrementally, and beats a MILP solver on small-D tables.
    """,
    "findings": """
        * **Exact optima on raw data: met.** Voice path 19 errors, Haberman 65
          (which settles the bracket [61, 65] of the reference note), Caesarian
          15 (the paper's 14 relies on jitter breaking a tie), with ties and
          duplicates handled exactly; logistic regression, linear SVM and LDA
          err 18-78 on the same rows.
        * **Against HiGHS: partly.** ICE proves Voice path and Haberman
          hundreds of times faster than HiGHS, which does not prove Haberman
          in 300 s; on Caesarian it takes 2.3 times less CPU on one thread
          (target 3x: missed) and 4 times less wall time on two; a 1000 x 3
          tied grid is proven in 3.7 s on two cores where HiGHS keeps a 94 %
          gap at 120 s. But on a D = 6, N = 90 table HiGHS proves the optimum
          in 0.7 s where the sweep needs 15 s (issue #41).
        * **Kernel.** The compiled sweep examines a candidate in 26 ns on
          Caesarian (20 ns only in the best runs), 3-4 times the numpy sweep it
          replaced on the same pencils.
        * **Compilation.** The first fit in a fresh environment compiles the
          kernel for 12-19 s; later processes load numba's cache (0.3 s).

        The design of the compiled sweep is described in the user guide
        (``docs/user_guide/ice_sweep.rst``).
    """,
    "sections": [
        {
            "title": "Exact optima on the paper's data sets",
            "figures": [
                {
                    "results": "ice_real_data",
                    "kind": "bar",
                    "x": "data",
                    "y": ["ice_cpu_s", "milp_cpu_s"],
                    "labels": {
                        "ice_cpu_s": "ICE (1 thread)",
                        "milp_cpu_s": "HiGHS MILP (300 s limit)",
                    },
                    "logy": True,
                    "xlabel": "",
                    "ylabel": "CPU seconds to the proven optimum",
                    "caption": "Time to proof, ICE against HiGHS (HiGHS does not "
                    "prove Haberman within its limit).",
                }
            ],
            "tables": [
                {
                    "results": "ice_real_data",
                    "columns": "data; rows; distinct; D; ice_err=ICE errors; "
                    "ice_acc%=ICE acc %; paper_ice%=paper % (jittered); lr_err=LR; "
                    "svm_err=SVM; lda_err=LDA; ice_cpu_s=ICE CPU s (1 thread); "
                    "ice_2threads_s=ICE wall s (2 threads); milp_obj=HiGHS objective; "
                    "milp_gap=HiGHS gap; milp_proven=HiGHS proven; "
                    "milp_cpu_s=HiGHS CPU s; milp_cpu/ice_cpu=HiGHS CPU / ICE CPU",
                }
            ],
        },
        {
            "title": "Time against N",
            "text": """
                Synthetic Gaussian data with label noise, one thread; the sweep is
                ``O(N^D log N)`` and fixed costs dominate below about 1e7
                examinations.
            """,
            "figures": [
                {
                    "results": "ice_scaling",
                    "x": "N",
                    "y": "ice_cpu_s",
                    "by": "D",
                    "logx": True,
                    "logy": True,
                    "xlabel": "N (rows)",
                    "ylabel": "CPU seconds",
                    "caption": "Fit time against N for D = 2 to 5.",
                }
            ],
            "tables": [
                {
                    "results": "ice_scaling",
                    "columns": "D; N; ice_err=errors; brute_err=brute force errors; "
                    "ice_s=wall s; ice_cpu_s=CPU s; examinations; "
                    "brute_s=brute force s; brute/ice",
                }
            ],
        },
        {
            "title": "Compiled kernel, compilation, ties and parallelism",
            "tables": [
                {"results": "ice_kernel"},
                {
                    "results": "ice_compile",
                    "columns": "process; import_s=import s; "
                    "first_fit_s=first fit s; warm_fit_s=warm fit s",
                },
                {"results": "ice_ties"},
                {"results": "ice_big"},
                {
                    "results": "ice_dask",
                    "columns": "workers; dask_s=Dask wall s; "
                    "joblib_threads_s=joblib threads wall s; errors",
                },
            ],
        },
    ],
}


if __name__ == "__main__":
    main()
