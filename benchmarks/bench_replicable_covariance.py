"""Replicable covariance: error, replicability and warnings against d and n.

1. ``structure`` (issue #38): ``ReplicableCovariance()`` with its defaults
   (``rho = 0.05``) at d = 5, 30, 100 and n = 1e4, 1e5, on Gaussian data of
   two population matrices: the identity and a correlated one (AR(1),
   ``Sigma_jk = 0.5^|j - k|``). Per cell: the structure chosen (the most
   frequent over the fits), the relative Frobenius error
   ``||C - S||_F / ||S||_F`` against ``EmpiricalCovariance`` on the same
   sample, the error against the population matrix of both (``C``'s and
   ``S``'s), the share of fits that warned, and the replicability: the rate
   of identical ``covariance_`` over pairs of independent samples sharing one
   seed (``replicability_rate``), with its Wilson lower bound. The fit's CPU
   time over ``EmpiricalCovariance``'s, alternated in one process, is the
   cost column (load average recorded).
2. ``lattice``: the full matrix (``covariance_type="full"``) rounded on the
   ``E8`` lattice against the paper's per-entry grid (``"cube"``):
   replicability and Frobenius mean squared error at n = 2e4, rho = 0.2.
3. ``memory``: peak traced memory of a 1000 x 1000 fit.

Run: ``python -m benchmarks replicable_covariance [--tables structure]``
(``--quick`` for a smoke run, ``--out DIR`` for the JSON folder).
"""

import os
import time
import warnings

import numpy as np
from _harness import bench_arguments, ratio, report
from scipy.linalg import toeplitz
from sklearn.covariance import EmpiricalCovariance
from threadpoolctl import threadpool_limits

from sklearn_iclr import ReplicableCovariance
from sklearn_iclr.metrics import replicability_rate

QUICK = False  # set by main() from --quick
TABLES = ("structure", "lattice", "memory")


def population(name, d):
    """The population matrix ``name`` ("identity" or "ar1") in dimension d."""
    if name == "identity":
        return np.eye(d)
    return toeplitz(0.5 ** np.arange(d))


def gaussian(cov, n):
    """A sampler of n Gaussian rows with covariance ``cov``, by seed."""
    root = np.linalg.cholesky(cov)

    def sample(seed):
        return np.random.default_rng(seed).standard_normal((n, len(cov))) @ root.T

    return sample


def _relative(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def _cpu_ratio(X, repeats):
    """Median CPU seconds of ours and of EmpiricalCovariance, alternated."""
    ours, anchor = [], []
    for _ in range(repeats):
        for times, est in (
            (ours, ReplicableCovariance(random_state=0)),
            (anchor, EmpiricalCovariance(assume_centered=True)),
        ):
            start = time.process_time()
            est.fit(X)
            times.append(time.process_time() - start)
    return float(np.median(ours)), float(np.median(anchor))


def table_structure():
    rows = []
    n_pairs = 5 if QUICK else 100
    n_fits = 3 if QUICK else 20
    for truth in ("identity", "ar1"):
        for d in (5, 30, 100):
            for n in (10_000, 100_000):
                cov = population(truth, d)
                sample = gaussian(cov, n)
                structures, warned = [], []
                error_empirical, error_ours, error_theirs = [], [], []
                for seed in range(n_fits):
                    X = sample(10_000 + seed)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        est = ReplicableCovariance(random_state=seed).fit(X)
                    empirical = EmpiricalCovariance(assume_centered=True).fit(X)
                    structures.append(est.covariance_type_)
                    warned.append(any("tolerance" in str(w.message) for w in caught))
                    error_empirical.append(
                        _relative(est.covariance_, empirical.covariance_)
                    )
                    error_ours.append(_relative(est.covariance_, cov))
                    error_theirs.append(_relative(empirical.covariance_, cov))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rate = replicability_rate(
                        ReplicableCovariance(),
                        sample,
                        n_pairs=n_pairs,
                        attributes=("covariance_",),
                        random_state=0,
                    )
                    ours_cpu, anchor_cpu = _cpu_ratio(sample(1), 1 if QUICK else 3)
                rows.append(
                    {
                        "truth": truth,
                        "d": d,
                        "n": n,
                        "structure": max(set(structures), key=structures.count),
                        "vs_empirical": float(np.mean(error_empirical)),
                        "error": float(np.mean(error_ours)),
                        "empirical_error": float(np.mean(error_theirs)),
                        "warned": float(np.mean(warned)),
                        "pairs": n_pairs,
                        "identical": rate.rate,
                        "wilson_low": rate.ci_low,
                        "cpu_vs_empirical": ratio(ours_cpu, anchor_cpu),
                        "load": os.getloadavg()[0],
                    }
                )
                print(rows[-1], flush=True)
    report(
        "replicable_covariance_structure",
        rows,
        title="ReplicableCovariance() defaults (rho = 0.05): error, "
        "replicability, warnings",
        meta={"fits_per_cell": n_fits, "rho": 0.05},
    )
    return rows


def table_lattice():
    """The full matrix on the E8 lattice against the cube, rho = 0.2."""
    rows = []
    n_pairs = 60 if QUICK else 400
    for d in (3, 8):
        cov = 0.5 * np.eye(d) + 0.5
        sample = gaussian(cov, 20_000)
        for rounding in ("lattice", "cube"):
            est = ReplicableCovariance(
                rho=0.2, covariance_type="full", rounding=rounding
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rate = replicability_rate(
                    est,
                    sample,
                    n_pairs=n_pairs,
                    attributes=("covariance_",),
                    random_state=4,
                )
                errors = [
                    np.sum(
                        (est.set_params(random_state=k).fit(sample(99 + k)).covariance_
                         - cov) ** 2
                    )
                    for k in range(40)
                ]  # fmt: skip
            rows.append(
                {
                    "d": d,
                    "rounding": rounding,
                    "pairs": n_pairs,
                    "identical": rate.rate,
                    "wilson_low": rate.ci_low,
                    "frobenius_mse": float(np.mean(errors)),
                }
            )
            print(rows[-1], flush=True)
    report(
        "replicable_covariance",
        rows,
        title="ReplicableCovariance(covariance_type='full'), n=2e4, rho=0.2",
    )
    return rows


def table_memory():
    """Peak traced memory of a 1000 x 1000 fit (issue #25)."""
    import tracemalloc

    X = np.random.default_rng(0).normal(size=(1000, 1000))
    rows = []
    for name, est in (
        ("ReplicableCovariance", ReplicableCovariance(random_state=0)),
        ("EmpiricalCovariance", EmpiricalCovariance()),
    ):
        tracemalloc.start()
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        rows.append({"estimator": name, "peak_mb": peak / 1e6, "seconds": seconds})
    report("replicable_covariance_memory", rows, title="1000 x 1000 fit: peak memory")
    return rows


def main(argv=None):
    global QUICK
    args = bench_arguments(__doc__.splitlines()[0], argv, tables=TABLES)
    QUICK = args.quick
    # One BLAS thread: the fit runs its moments on one thread (bit-identical
    # results whatever the setting); the anchor gets the same.
    threadpool_limits(1)
    functions = {
        "structure": table_structure,
        "lattice": table_lattice,
        "memory": table_memory,
    }
    for name in args.tables:
        start = time.perf_counter()
        functions[name]()
        print(f"[{name}: {time.perf_counter() - start:.1f} s wall]", flush=True)


if __name__ == "__main__":
    main()
