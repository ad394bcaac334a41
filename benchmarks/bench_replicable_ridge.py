"""Replicable ridge regression: replicability, accuracy, cost.

Every figure is measured here with ``sklearn_iclr.metrics.replicability_rate``
(pairs of independent samples, one shared seed per pair, exact equality) on
``make_heavy_tailed_regression`` (Student-t features, heteroscedastic
misspecified target). Accuracy is the exact population R^2 of the fitted linear
function under the sampler (closed form: independent centred features), so it
carries no test-set noise. Timings are medians in one process on a shared
machine; only their ratios to ``Ridge`` are meaningful.

Run: ``python -m benchmarks replicable_ridge [--tables rate,accuracy]``
(``--quick`` for a smoke run, ``--out DIR`` for the JSON folder).
"""

import time
import warnings

import numpy as np
from _harness import bench_arguments, median_time, ratio, report
from scipy.stats import norm
from sklearn.linear_model import Ridge
from threadpoolctl import threadpool_info, threadpool_limits

from sklearn_iclr import ReplicableLinearRegressor
from sklearn_iclr._replicable._lattice import shifted_lattice
from sklearn_iclr.datasets import make_heavy_tailed_regression
from sklearn_iclr.datasets._heavy_tailed import _default_coef
from sklearn_iclr.metrics import replicability_rate

NOISE, NONLINEARITY, INTERCEPT = 0.5, 0.5, 1.0
QUICK = False  # set by main() from --quick
N_JOBS = 1
# BLAS threads before main() limits them to one (the `timing` table uses both).
DEFAULT_THREADS = max((i["num_threads"] for i in threadpool_info()), default=1)


def smoke_size(n):
    """``n``, or a tenth of it (at least 2000 rows) in a ``--quick`` smoke run."""
    return max(2000, n // 10) if QUICK else n


def sampler(n, d, **kwargs):
    def sample(seed):
        return make_heavy_tailed_regression(n, d, random_state=seed, **kwargs)

    return sample


def population_r2(coef, intercept, d, scales=None, noise=NOISE):
    """Exact R^2 of ``x -> intercept + x @ coef`` under the sampler."""
    scales = np.ones(d) if scales is None else scales
    best = _default_coef(d) / scales
    residual = NONLINEARITY**2 * (d > 1) + noise**2
    var_y = np.sum((best * scales) ** 2) + residual
    mse = (
        residual + (intercept - INTERCEPT) ** 2 + np.sum((scales * (coef - best)) ** 2)
    )
    return 1.0 - mse / var_y


def naive_width(n, d, rho, noise=NOISE):
    """Design rule A.1 with oracle standard errors: width = d * 2 eps / (rho - 2 delta).

    Each run is within eps = z * se of the population solution in every
    coordinate with probability 1 - delta (Bonferroni over d + 1 entries),
    delta = rho / 4; se is the homoscedastic standard error sigma / sqrt(n).
    """
    delta = rho / 4
    se = np.sqrt(NONLINEARITY**2 + noise**2) / np.sqrt(n)
    eps = norm.ppf(1 - delta / (2 * (d + 1))) * se
    return (d + 1) * 2 * eps / (rho - 2 * delta)


def frontier_loss(fitted, n, d, rounding, disagreement=0.1):
    """Least R^2 loss of a rounding with expected disagreement ``disagreement``.

    The lattice's expected crossing rate, from the fit's sandwich standard
    errors (the intercept's: the population residual standard deviation over
    sqrt(n)), set to ``disagreement`` at the exact scale (no log2 rounding of
    the scale, no scale event); its mean squared error over ``Var y`` (unit
    variance features: unit excess-risk weights). For the cube this is one
    width ``a = (2/sqrt(pi)) sum_k se_k / disagreement`` and a loss of
    ``(d + 1) a^2 / 12``; per-entry widths proportional to ``se_k^(1/3)``
    (the exact optimum) change it by about 1% on this sampler.
    """
    residual_var = NONLINEARITY**2 * (d > 1) + NOISE**2
    se = np.append(fitted.coef_stderr_, np.sqrt(residual_var / n))
    lattice = shifted_lattice(d + 1, rounding)
    scale = lattice.expected_crossing_rate(se, 1.0) / disagreement
    var_y = np.sum(_default_coef(d) ** 2) + residual_var
    return lattice.mean_squared_error(scale) / var_y


RATE_RHOS = (0.05, 0.2)  # set by main() from --rho


def table_replicability():
    rows = []
    for rho in RATE_RHOS:
        for d in (5, 20):
            # The design spends 0.75 rho (0.72-0.89 rho measured): the Wilson
            # interval resolves 1 - rho only with thousands of pairs.
            n, n_pairs = (50000, 6000) if rho == 0.05 else (10000, 3000)
            n = smoke_size(n)
            n_pairs = 30 if QUICK else n_pairs
            start = time.perf_counter()
            ours = replicability_rate(
                ReplicableLinearRegressor(rho=rho),
                sampler(n, d),
                n_pairs=n_pairs,
                random_state=0,
                n_jobs=N_JOBS,
            )
            ridge = replicability_rate(
                Ridge(), sampler(n, d), n_pairs=50, random_state=0, n_jobs=N_JOBS
            )
            X, y = sampler(n, d)(12345)
            bound = ReplicableLinearRegressor(rho=rho, random_state=0).fit(X, y)
            rows.append(
                {
                    "rho": rho,
                    "d": d,
                    "n": n,
                    "pairs": n_pairs,
                    "identical": ours.rate,
                    "wilson_low": ours.ci_low,
                    "target": 1 - rho,
                    "met": ours.ci_low >= 1 - rho,
                    "predicted": 1 - bound.disagreement_bound_,
                    "ridge_identical": ridge.rate,
                    "seconds": time.perf_counter() - start,
                }
            )
    report(
        "replicable_ridge_rate",
        rows,
        title="Replicability (exact equality of coef_ and intercept_), 95% Wilson",
        meta={"sampler": "make_heavy_tailed_regression defaults (df=10)"},
    )
    return rows


def table_confirmation():
    """Independent runs of the tightest cell (rho = 0.05, d = 5), sizes fixed."""
    n, d, rho = smoke_size(50000), 5, 0.05
    rows = []
    for seed, n_pairs in ((1, 12000), (2, 20000)):
        result = replicability_rate(
            ReplicableLinearRegressor(rho=rho),
            sampler(n, d),
            n_pairs=40 if QUICK else n_pairs,
            random_state=seed,
            n_jobs=N_JOBS,
        )
        rows.append(
            {
                "random_state": seed,
                "rho": rho,
                "d": d,
                "n": n,
                "pairs": result.n_pairs,
                "identical": result.rate,
                "wilson_low": result.ci_low,
                "target": 1 - rho,
                "met": result.ci_low >= 1 - rho,
            }
        )
    report(
        "replicable_ridge_confirmation",
        rows,
        title="Independent confirmation runs, rho=0.05, d=5",
    )
    return rows


def table_fixed_width():
    """rho = 0.05 with the width fixed in advance from one pilot sample.

    With ``grid_width="auto"`` the data-driven width itself differs between
    runs now and then; a width fixed before the two runs (here: the auto width
    of one independent pilot sample, as the paper's fixed alpha) removes that
    term and leaves only the rounding lemma. Where the pilot falls back to the
    replicable constant (``pilot_fallback``), its ``grid_width_`` is the
    constant's width, not a lattice scale: that row does not test the lemma.
    """
    rows = []
    for d in (5, 20):
        n, n_pairs = smoke_size(50000), (20 if QUICK else 400)
        pilot = ReplicableLinearRegressor(rho=0.05, random_state=0)
        pilot.fit(*sampler(n, d)(424242))
        est = ReplicableLinearRegressor(grid_width=pilot.grid_width_)
        result = replicability_rate(
            est, sampler(n, d), n_pairs=n_pairs, random_state=0, n_jobs=N_JOBS
        )
        rows.append(
            {
                "rho": 0.05,
                "d": d,
                "n": n,
                "pairs": n_pairs,
                "grid_width": pilot.grid_width_,
                "pilot_fallback": bool(pilot.constant_fallback_),
                "identical": result.rate,
                "wilson_low": result.ci_low,
                "target": 0.95,
                "met": result.ci_low >= 0.95,
            }
        )
    report(
        "replicable_ridge_fixed_width",
        rows,
        title="rho=0.05 with a grid width fixed from a pilot sample",
    )
    return rows


def table_accuracy():
    rows = []
    d, rho = 8, 0.1
    for n in (4000, 40000) if QUICK else (4000, 40000, 400000):
        n_pairs, n_fits = {4000: (400, 100), 40000: (1000, 200), 400000: (80, 20)}[n]
        if QUICK:
            n_pairs, n_fits = 10, 4
        sample = sampler(n, d)
        X, y = sample(777)
        ridge = Ridge(alpha=1.0).fit(X, y)
        r2_ridge = population_r2(ridge.coef_, ridge.intercept_, d)
        t_ridge, _ = median_time(lambda X=X, y=y: Ridge(alpha=1.0).fit(X, y), 5)
        arms = {
            "lattice (default)": ReplicableLinearRegressor(rho=rho),
            "cube": ReplicableLinearRegressor(rho=rho, rounding="cube"),
            "lattice, rho=0.2": ReplicableLinearRegressor(rho=0.2),
            "lattice, standardized": ReplicableLinearRegressor(
                rho=rho, basis="standardized"
            ),
            "naive (A.1 rule)": ReplicableLinearRegressor(
                grid_width=naive_width(n, d, rho), rounding="cube"
            ),
        }
        for name, est in arms.items():
            losses = []
            for seed in range(n_fits):
                fitted = est.set_params(random_state=seed).fit(*sample(1000 + seed))
                ridge_k = Ridge(alpha=1.0).fit(*sample(1000 + seed))
                losses.append(
                    population_r2(ridge_k.coef_, ridge_k.intercept_, d)
                    - population_r2(fitted.coef_, fitted.intercept_, d)
                )
            t_ours, _ = median_time(lambda est=est, X=X, y=y: est.fit(X, y), 5)
            pairs = n_pairs if name == "lattice (default)" else n_pairs // 2
            rate = replicability_rate(
                est, sample, n_pairs=pairs, random_state=1, n_jobs=N_JOBS
            )
            rows.append(
                {
                    "n": n,
                    "method": name,
                    "r2_ridge": r2_ridge,
                    "r2_loss": float(np.mean(losses)),
                    "loss_se": float(np.std(losses) / np.sqrt(n_fits)),
                    "identical": rate.rate,
                    "wilson_low": rate.ci_low,
                    "pairs": pairs,
                    "time_vs_ridge": ratio(t_ours, t_ridge),
                    "cube_frontier": frontier_loss(fitted, n, d, "cube"),
                    "lattice_frontier": frontier_loss(fitted, n, d, "lattice"),
                }
            )
    report(
        "replicable_ridge_accuracy",
        rows,
        title=f"Population R^2 loss vs Ridge, d={d}, rho={rho} (paired fits)",
        meta={"d": d, "rho": rho, "r2_metric": "exact population R^2"},
    )
    return rows


def table_lemma():
    """Empirical disagreement vs the lemma: expected facets between the runs."""
    rows = []
    d, rho, n = 8, 0.1, smoke_size(40000)
    n_pairs = 60 if QUICK else 400
    arms = (("raw", "lattice"), ("raw", "cube"), ("standardized", "lattice"))
    for basis, rounding in arms:
        sample = sampler(n, d)
        lattice = shifted_lattice(d + 1, rounding)
        width_differ = basis_differ = 0
        coef_differ, lemma = [], []
        for k in range(n_pairs):
            a, b = (
                ReplicableLinearRegressor(
                    rho=rho, basis=basis, rounding=rounding, random_state=k
                ).fit(*sample(2 * k + j))
                for j in range(2)
            )
            if not np.array_equal(a.basis_scale_, b.basis_scale_) or not np.array_equal(
                a.basis_center_, b.basis_center_
            ):
                basis_differ += 1
                continue
            if a.grid_width_ != b.grid_width_:
                width_differ += 1
                continue
            du = (a.coef_unrounded_ - b.coef_unrounded_) * a.basis_scale_
            d0 = (a.intercept_unrounded_ + a.basis_center_ @ a.coef_unrounded_) - (
                b.intercept_unrounded_ + b.basis_center_ @ b.coef_unrounded_
            )
            lemma.append(lattice.crossing_rate(np.append(du, d0), a.grid_width_))
            coef_differ.append(
                not (np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_)
            )
        m = len(coef_differ)
        rows.append(
            {
                "basis": basis,
                "rounding": rounding,
                "pairs": n_pairs,
                "basis_differ": basis_differ / n_pairs,
                "width_differ": width_differ / n_pairs,
                "same_grid_pairs": m,
                "coef_differ_rate": float(np.mean(coef_differ)),
                "lemma_mean": float(np.mean(lemma)),
                "binomial_se": float(
                    np.sqrt(np.mean(lemma) * (1 - np.mean(lemma)) / m)
                ),
            }
        )
    report(
        "replicable_ridge_lemma",
        rows,
        title=f"Rounding lemma check, n={n}, d={d}, rho={rho}",
    )
    return rows


def table_controls():
    """Same data, different seeds; heavy tails; mixed units."""
    rows = []
    n_pairs = 40 if QUICK else 100
    X, y = sampler(smoke_size(40000), 8)(0)
    coefs = {
        ReplicableLinearRegressor(rho=0.1, random_state=s).fit(X, y).coef_.tobytes()
        for s in range(50)
    }
    rows.append(
        {
            "experiment": "same data, 50 seeds: distinct outputs",
            "value": len(coefs) / 50,
            "wilson_low": float("nan"),
        }
    )
    heavy = sampler(smoke_size(40000), 5, df=5.0)
    pilot = ReplicableLinearRegressor(rho=0.1, random_state=0).fit(*heavy(99))
    for name, est in {
        "df=5 features, grid_width='auto'": ReplicableLinearRegressor(rho=0.1),
        "df=5 features, fixed pilot width": ReplicableLinearRegressor(
            grid_width=pilot.grid_width_
        ),
    }.items():
        r = replicability_rate(
            est, heavy, n_pairs=n_pairs, random_state=2, n_jobs=N_JOBS
        )
        rows.append({"experiment": name, "value": r.rate, "wilson_low": r.ci_low})
    scales = np.logspace(-2, 2, 8)
    mixed = sampler(smoke_size(400000), 8, scales=scales)
    X, y = mixed(5)
    ridge = Ridge(alpha=1.0).fit(X, y)
    r2_ridge = population_r2(ridge.coef_, ridge.intercept_, 8, scales)
    for basis in ("raw", "standardized"):
        est = ReplicableLinearRegressor(rho=0.1, basis=basis, random_state=0)
        est.fit(X, y)
        loss = r2_ridge - population_r2(est.coef_, est.intercept_, 8, scales)
        r = replicability_rate(
            est, mixed, n_pairs=n_pairs // 4, random_state=3, n_jobs=N_JOBS
        )
        rows.append(
            {
                "experiment": f"scales 1e-2..1e2, n=4e5, {basis}: R^2 loss",
                "value": loss,
                "wilson_low": float("nan"),
            }
        )
        rows.append(
            {
                "experiment": f"scales 1e-2..1e2, n=4e5, {basis}: identical",
                "value": r.rate,
                "wilson_low": r.ci_low,
            }
        )
    report("replicable_ridge_controls", rows, title="Controls and trade-offs")
    return rows


def _wall_and_cpu(func, repeats):
    """Median wall and process CPU seconds of ``func()`` over ``repeats`` calls.

    On a loaded machine the CPU time (all threads of this process) is the
    steadier figure; the wall time counts the waits for a core.
    """
    func()
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        func()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return float(np.median(walls)), float(np.median(cpus))


def table_timing():
    """Fit time vs Ridge, Ridge timed before and after ours (mean of the two)."""
    rows = []
    repeats = 3 if QUICK else 15
    for threads in (1, DEFAULT_THREADS):
        with threadpool_limits(threads):
            for n, d in ((40000, 8), (400000, 8), (40000, 20)):
                X, y = sampler(smoke_size(n), d)(0)
                for basis in ("raw", "standardized"):
                    est = ReplicableLinearRegressor(
                        rho=0.1, basis=basis, random_state=0
                    )

                    def ridge_fit(X=X, y=y):
                        return Ridge(alpha=1.0).fit(X, y)

                    def ours_fit(e=est, X=X, y=y):
                        return e.fit(X, y)

                    t_before, c_before = _wall_and_cpu(ridge_fit, repeats)
                    t_ours, c_ours = _wall_and_cpu(ours_fit, repeats)
                    t_after, c_after = _wall_and_cpu(ridge_fit, repeats)
                    t_ridge = (t_before + t_after) / 2
                    c_ridge = (c_before + c_after) / 2
                    rows.append(
                        {
                            "threads": threads,
                            "n": n,
                            "d": d,
                            "basis": basis,
                            "ridge_ms": 1e3 * t_ridge,
                            "ours_ms": 1e3 * t_ours,
                            "ratio": ratio(t_ours, t_ridge),
                            "ridge_cpu_ms": 1e3 * c_ridge,
                            "ours_cpu_ms": 1e3 * c_ours,
                            "cpu_ratio": ratio(c_ours, c_ridge),
                        }
                    )
    report(
        "replicable_ridge_timing",
        rows,
        title=f"Fit time vs Ridge (median of {repeats}, one process)",
    )
    return rows


def table_diabetes():
    """scikit-learn's diabetes set with defaults: held-out R^2 and replicability.

    R^2 is 5-fold cross-validated (353 training rows per fold), with
    ``random_state=0`` (the defaults a user types) and averaged over the
    seeds 0-19 and over the seeds 0-399 (``cv_r2_expected``: the expectation
    over the shared offsets, heavy-tailed over the constant's width), next to
    Ridge, the
    exact training mean (``mean_r2``) and two oracles that know the standard
    errors and spend all of rho on the final rounding (no width event): the
    shifted-grid constant, ``mean_r2 - (w^2 / 12) / Var(y)`` with
    ``w = (2 / sqrt(pi)) sd(y) / (sqrt(n) rho)``, and the rounded linear model
    on the lattice (standardized basis, sandwich standard errors, Ridge's R^2
    minus the lattice's mean squared error over Var(y)). Replicability is
    measured by resampling: the two "independent samples" of a pair are two
    bootstrap halves (221 rows drawn with replacement from the 442), one
    shared seed per pair.
    """
    from sklearn.datasets import load_diabetes
    from sklearn.dummy import DummyRegressor
    from sklearn.model_selection import KFold, cross_val_score

    from sklearn_iclr.linear_model._replicable_ridge import (
        _centred_gram,
        _residual_moments,
        _ridge_solution,
        _sandwich_variances,
    )

    X, y = load_diabetes(return_X_y=True)
    n_pairs = 20 if QUICK else 1000
    n_seeds = 3 if QUICK else 20
    # The seed mean over 20 seeds is dominated by the rare offsets that round
    # the constant's width up: the expectation over the shared randomness is
    # also estimated over 400 seeds (``cv_r2_expected``).
    n_expected = 3 if QUICK else 400
    n_train = len(y) - len(y) // 5

    def halves(seed):
        rows = np.random.default_rng(seed).integers(0, len(y), size=len(y) // 2)
        return X[rows], y[rows]

    ridge = cross_val_score(Ridge(), X, y, cv=5)
    mean_r2 = cross_val_score(DummyRegressor(), X, y, cv=5).mean()
    lattice = shifted_lattice(X.shape[1] + 1, "lattice")
    rows = []
    for rho in (0.05, 0.9) if QUICK else (0.05, 0.1, 0.2, 0.5, 0.9):
        est = ReplicableLinearRegressor(rho=rho, random_state=0)
        scores = cross_val_score(est, X, y, cv=5)
        seeds = [
            cross_val_score(est.set_params(random_state=s), X, y, cv=5).mean()
            for s in range(n_seeds)
        ]
        expected = [
            cross_val_score(est.set_params(random_state=s), X, y, cv=5).mean()
            for s in range(n_expected)
        ]
        fallback = np.mean(
            [
                est.set_params(random_state=k)
                .fit(*halves(10**6 + k))
                .constant_fallback_
                for k in range(50)
            ]
        )
        rate = replicability_rate(
            ReplicableLinearRegressor(rho=rho),
            halves,
            n_pairs=n_pairs,
            random_state=0,
            n_jobs=N_JOBS,
        )
        width = 2 / np.sqrt(np.pi) * y.std() / np.sqrt(n_train) / rho
        linear_loss = []
        for train, _ in KFold(5).split(X):
            Xt, yt = X[train], y[train]
            sw = np.ones(len(yt))
            fit = _ridge_solution(_centred_gram(Xt, yt, sw, True), len(yt), 1.0, True)
            residual = yt - fit["y_mean"] - fit["Xc"] @ fit["coef"]
            scale = np.sqrt(fit["variance"])
            dof = len(yt) - X.shape[1] - 1
            var_u, var_0 = _sandwich_variances(
                _residual_moments(fit["Xc"], residual**2, sw, overwrite=True),
                len(yt),
                fit["h_inv"],
                scale,
                np.zeros(X.shape[1]),
                hc1=len(yt) / dof,
            )
            se = np.sqrt(np.append(var_u, var_0))
            t = lattice.expected_crossing_rate(se, 1.0) / rho
            linear_loss.append(lattice.mean_squared_error(t) / yt.var())
        rows.append(
            {
                "rho": rho,
                "cv_r2": float(scores.mean()),
                "cv_r2_seeds": float(np.mean(seeds)),
                "seeds_se": float(np.std(seeds) / np.sqrt(n_seeds)),
                "cv_r2_expected": float(np.mean(expected)),
                "expected_se": float(np.std(expected) / np.sqrt(n_expected)),
                "constant_fallback": float(fallback),
                "pairs": n_pairs,
                "identical": rate.rate,
                "wilson_low": rate.ci_low,
                "target": 1 - rho,
                "ridge_r2": float(ridge.mean()),
                "mean_r2": float(mean_r2),
                "oracle_constant_r2": float(mean_r2 - width**2 / 12 / y.var()),
                "oracle_linear_r2": float(ridge.mean() - np.mean(linear_loss)),
            }
        )
        print(rows[-1], flush=True)
    report(
        "replicable_ridge_diabetes",
        rows,
        title="load_diabetes, defaults but rho: 5-fold R^2; bootstrap-half pairs",
        meta={
            "n": len(y),
            "d": X.shape[1],
            "half": len(y) // 2,
            "seeds": n_seeds,
            "expected_seeds": n_expected,
        },
    )
    return rows


def table_diabetes_n():
    """Defaults (rho = 0.05) on bootstrap-enlarged diabetes: the n they need.

    Each of the 5 folds' 353 training rows is resampled with replacement to
    n rows (a diabetes-like population: the fold's empirical distribution),
    the model is fitted on them and scored on the held-out fold; mean over
    the folds and the seeds 0-2 (offsets and resamples).
    """
    from sklearn.datasets import load_diabetes
    from sklearn.model_selection import KFold

    X, y = load_diabetes(return_X_y=True)
    sizes = (
        (1000, 10000) if QUICK else (1000, 10**4, 10**5, 3 * 10**5, 10**6, 3 * 10**6)
    )
    rows = []
    for n in sizes:
        ours, ridge, fallback = [], [], []
        for seed in range(1 if QUICK else 3):
            for fold, (train, test) in enumerate(KFold(5).split(X)):
                rng = np.random.default_rng(1000 * seed + fold)
                rows_n = rng.choice(train, size=n, replace=True)
                est = ReplicableLinearRegressor(random_state=seed)
                est.fit(X[rows_n], y[rows_n])
                ours.append(est.score(X[test], y[test]))
                fallback.append(est.constant_fallback_)
                ridge.append(Ridge().fit(X[rows_n], y[rows_n]).score(X[test], y[test]))
        rows.append(
            {
                "n": n,
                "rho": 0.05,
                "cv_r2": float(np.mean(ours)),
                "cv_r2_min": float(np.min(ours)),
                "constant_fallback": float(np.mean(fallback)),
                "ridge_r2": float(np.mean(ridge)),
                "fits": len(ours),
            }
        )
        print(rows[-1], flush=True)
    report(
        "replicable_ridge_diabetes_n",
        rows,
        title="Defaults on bootstrap-enlarged diabetes: held-out R^2 against n",
    )
    return rows


def table_heavy():
    """Gaussian and Student-t(5) features, d=8, rho=0.1, n=4e4 (issue #25)."""
    rows = []
    n, d, rho = smoke_size(40000), 8, 0.1
    n_pairs, n_fits = (60, 10) if QUICK else (600, 60)
    designs = (("gaussian", 1e9), ("student-t(10)", 10.0), ("student-t(5)", 5.0))
    for name, df in designs:
        sample = sampler(n, d, df=df)
        for label, est in (("scaled (default)", ReplicableLinearRegressor(rho=rho)),):
            losses, fallback, frontier = [], 0, []
            for seed in range(n_fits):
                X, y = sample(5000 + seed)
                fitted = est.set_params(random_state=seed).fit(X, y)
                ridge = Ridge(alpha=1.0).fit(X, y)
                fallback += fitted.constant_fallback_
                frontier.append(frontier_loss(fitted, n, d, "lattice", rho))
                losses.append(
                    population_r2(ridge.coef_, ridge.intercept_, d)
                    - population_r2(fitted.coef_, fitted.intercept_, d)
                )
            rate = replicability_rate(
                est, sample, n_pairs=n_pairs, random_state=7, n_jobs=N_JOBS
            )
            rows.append(
                {
                    "features": name,
                    "basis": label,
                    "pairs": n_pairs,
                    "identical": rate.rate,
                    "wilson_low": rate.ci_low,
                    "target": 1 - rho,
                    "r2_loss": float(np.mean(losses)),
                    "loss_se": float(np.std(losses) / np.sqrt(n_fits)),
                    "fallback": fallback / n_fits,
                    "lattice_frontier": float(np.mean(frontier)),
                }
            )
    report(
        "replicable_ridge_heavy",
        rows,
        title=f"Gaussian vs heavy-tailed features, n={n}, d={d}, rho={rho}",
    )
    return rows


def table_frontier_share():
    """The frontier's point rho = 0.104 for both designs.

    The rounding budget is ``0.75 rho - 2 / sqrt(n) - 1.5 / sqrt(n d)``, so
    ``rho = 0.104`` at the default design share 0.75 gives the lattice the
    budget (0.0653) that ``rho = 0.1`` would get at a design share of 0.78:
    the same widths, so the same outputs bit for bit.
    """
    return table_frontier(
        points=[("gaussian", 1e9, 0.104), ("student-t(5)", 5.0, 0.104)],
        name="replicable_ridge_frontier_share",
    )


def table_frontier_mid():
    """The frontier's point rho = 0.102 (a design share of 0.765 at rho = 0.1)."""
    return table_frontier(
        points=[("gaussian", 1e9, 0.102), ("student-t(5)", 5.0, 0.102)],
        name="replicable_ridge_frontier_mid",
    )


def table_frontier(points=None, name="replicable_ridge_frontier"):
    """Replicability against R^2 loss over the knob rho, Gaussian and t(5).

    Issue #25 asks for replicability >= 0.9 and a loss <= 0.03 at rho = 0.1
    (n = 4e4, d = 8) on Gaussian and Student-t(5) features. The sizes are fixed
    in advance: 1000 pairs per point (2000 fits); the loss is averaged over
    the same 2000 fits (population R^2 of Ridge minus ours, same sample:
    ``coef_unrounded_`` is Ridge's). ``lemma_rate`` is the variance-reduced
    estimate of the disagreement of the same pairs: 1 when the two runs'
    bases or lattice scales differ, else the lattice's expected number of
    facets between the two unrounded vectors (the rounding lemma, exact to
    first order), averaged over the pairs.
    """
    from sklearn_iclr.metrics._replicability import wilson_interval

    rows = []
    n, d = smoke_size(40000), 8
    n_pairs = 40 if QUICK else 1000
    lattice = shifted_lattice(d + 1, "lattice")
    if points is None:
        points = [("gaussian", 1e9, rho) for rho in (0.09, 0.1)] + [
            ("student-t(5)", 5.0, rho) for rho in (0.09, 0.1, 0.11)
        ]
    for features, df, rho in points:
        sample = sampler(n, d, df=df)
        identical, lemma, losses, events = 0, [], [], 0
        for k in range(n_pairs):
            a, b = (
                ReplicableLinearRegressor(rho=rho, random_state=k).fit(
                    *sample(7 * 10**6 + 2 * k + j)
                )
                for j in range(2)
            )
            identical += bool(
                np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_
            )
            for fitted in (a, b):
                losses.append(
                    population_r2(
                        fitted.coef_unrounded_, fitted.intercept_unrounded_, d
                    )
                    - population_r2(fitted.coef_, fitted.intercept_, d)
                )
            same_grid = (
                np.array_equal(a.basis_scale_, b.basis_scale_)
                and a.grid_width_ == b.grid_width_
                and a.constant_fallback_ == b.constant_fallback_
            )
            if not same_grid or a.constant_fallback_:
                events += not same_grid
                lemma.append(float(not same_grid))
                continue
            s = a.basis_scale_
            delta = np.append(
                s * (a.coef_unrounded_ - b.coef_unrounded_),
                a.intercept_unrounded_ - b.intercept_unrounded_,
            )
            lemma.append(min(1.0, lattice.crossing_rate(delta, a.grid_width_)))
        low, high = wilson_interval(identical, n_pairs)
        rows.append(
            {
                "features": features,
                "rho": rho,
                "pairs": n_pairs,
                "identical": identical / n_pairs,
                "wilson_low": low,
                "wilson_high": high,
                "lemma_rate": 1.0 - float(np.mean(lemma)),
                "lemma_se": float(np.std(lemma) / np.sqrt(n_pairs)),
                "grid_events": events / n_pairs,
                "r2_loss": float(np.mean(losses)),
                "loss_se": float(np.std(losses) / np.sqrt(len(losses))),
            }
        )
        print(rows[-1], flush=True)
    report(
        name,
        rows,
        title=f"Replicability vs R^2 loss over rho, n={n}, d={d} (issue #25)",
        meta={"n": n, "d": d, "targets": "identical >= 0.9, r2_loss <= 0.03"},
    )
    return rows


def table_units():
    """Training R^2 after multiplying X by a constant (issue #25, 2000 x 4)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    y = X @ [1.0, 2.0, -1.0, 0.5] + 3.0 + 0.1 * rng.normal(size=2000)
    rows = []
    for columns in ("all", "first"):
        for factor in (1.0, 100.0, 1e4, 1e150):
            Xf = X * factor if columns == "all" else X * [factor, 1.0, 1.0, 1.0]
            row = {"columns": columns, "factor": factor}
            for basis in ("scaled", "raw", "standardized"):
                est = ReplicableLinearRegressor(rho=0.2, basis=basis, random_state=0)
                row[basis] = est.fit(Xf, y).score(Xf, y)
                if basis == "scaled":
                    row["scaled_used"] = est.basis_
            row["ridge"] = Ridge().fit(Xf, y).score(Xf, y)
            rows.append(row)
    report("replicable_ridge_units", rows, title="Training R^2 of X * factor, rho=0.2")
    return rows


def table_advice():
    """The fallback warning's advice on diabetes in other units (issue #38).

    ``ReplicableLinearRegressor(random_state=0)`` on ``load_diabetes`` with
    ``X`` multiplied by a constant or standardized (``"scaled"``, by
    ``StandardScaler``): the fit (the replicable
    constant) does not change; the warning names the n at which least squares'
    rounded model would be within a tenth of what it explains (``n_needed``,
    which must not move), the n at this ``alpha`` where ``alpha=1`` still
    shrinks the slopes (``n_needed_alpha``, 0 when not named, inf for "no
    n") and the rounded linear model's expected squared error over ``Var(y)``
    at this ``alpha`` (``linear_error``, which moves with ``alpha``'s weight).
    """
    import re

    from sklearn.datasets import load_diabetes
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    versions = {"x 1e-300": X * 1e-300, "x 1e-3": X * 1e-3, "x 1": X}
    versions["scaled"] = StandardScaler().fit_transform(X)
    versions.update({"x 1e3": X * 1e3, "x 1e300": X * 1e300})
    rows = []
    for units, Xu in versions.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = ReplicableLinearRegressor(random_state=0).fit(Xu, y)
        message = " ".join(str(w.message) for w in caught)
        needed = re.search(r"About n >= (\S+) samples", message)
        at_alpha = re.search(r"\((n >= (\S+)|no n) at alpha", message)
        error = re.search(r"expected squared error (\S+) against (\S+)", message)
        rows.append(
            {
                "units": units,
                "constant_fallback": bool(est.constant_fallback_),
                "intercept": est.intercept_,
                "n_needed": float(needed[1]) if needed else float("inf"),
                "n_needed_alpha": (
                    0.0
                    if at_alpha is None
                    else float(at_alpha[2])
                    if at_alpha[2]
                    else float("inf")
                ),
                "linear_error": float(error[1]),
                "constant_error": float(error[2]),
            }
        )
    report(
        "replicable_ridge_advice",
        rows,
        title="Fallback advice on load_diabetes in other units (defaults, seed 0)",
    )
    return rows


def main(argv=None):
    global QUICK, RATE_RHOS
    tables = {
        "rate": table_replicability,
        "confirm": table_confirmation,
        "fixed": table_fixed_width,
        "accuracy": table_accuracy,
        "lemma": table_lemma,
        "controls": table_controls,
        "timing": table_timing,
        "diabetes": table_diabetes,
        "diabetes_n": table_diabetes_n,
        "heavy": table_heavy,
        "frontier": table_frontier,
        "frontier_share": table_frontier_share,
        "frontier_mid": table_frontier_mid,
        "units": table_units,
        "advice": table_advice,
    }

    def configure(parser):
        parser.add_argument(
            "--tables",
            default=",".join(tables),
            help=f"comma-separated tables to run, among {', '.join(tables)}",
        )
        parser.add_argument(
            "--rho",
            type=float,
            action="append",
            help="rho values of the `rate` table (repeatable; default 0.05, 0.2)",
        )

    args = bench_arguments(__doc__.splitlines()[0], argv, configure=configure)
    QUICK = args.quick
    if args.rho:
        RATE_RHOS = tuple(args.rho)
    chosen = args.tables.split(",")
    unknown = sorted(set(chosen) - set(tables))
    if unknown:
        raise SystemExit(f"unknown tables {unknown}; choose among {list(tables)}")
    warnings.filterwarnings("ignore", message="At this sample size")
    warnings.filterwarnings("ignore", message=".*falls back to the replicable")
    # One BLAS thread: on a loaded 2-core machine multithreaded BLAS thrashes
    # and dominates the timings of both Ridge and the replicable fit.
    threadpool_limits(1)
    for name, func in tables.items():
        if name in chosen:
            start = time.perf_counter()
            func()
            print(f"[{name}: {time.perf_counter() - start:.1f} s wall]", flush=True)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "ReplicableLinearRegressor: bit-identical refits of ridge regression",
    "estimators": {"ReplicableLinearRegressor": "met"},
    "claim": """
        Eaton, Hussing, Kearns, Roth, Sengupta and Sorrell (ICLR 2026):
        ridge regression (R-Ridge-Regression), rounded on a randomly shifted
        grid drawn from a shared seed, returns bit-for-bit identical
        ``coef_`` and ``intercept_`` on two independent samples with
        probability at least ``1 - rho``, at a small cost in accuracy.
    """,
    "findings": """
        Replicability is measured with ``sklearn_iclr.metrics.replicability_rate``:
        pairs of independent samples, one fresh shared seed per pair, exact
        equality, 95 % Wilson interval. Data: ``make_heavy_tailed_regression``
        (Student-t(10) features, a misspecified heteroscedastic target);
        accuracy is the exact population R^2, so there is no test-set noise.

        * **Replicability: met.** At ``rho = 0.05`` (d = 5 and 20, n = 5e4) 0.960
          and 0.964 of 6000 pairs are identical, Wilson lower bounds 0.955 and
          0.959 above the promised 0.95; two confirmation runs (12000 and 20000
          pairs) and both cells at ``rho = 0.2`` agree. Ridge itself is never
          identical.
        * **Accuracy: met.** At n = 4e4, d = 8, ``rho = 0.1`` the default (an
          E8-lattice rounding in a units-equivariant basis) loses 0.030 of R^2
          against Ridge at 0.927 replicability; the paper's per-coordinate
          rounding loses twice as much at equal disagreement, and the rule of
          its Appendix A.1 a hundred times more.
        * **Small samples.** On ``load_diabetes`` (442 rows) the rounded linear
          model would be worse than a constant: the estimator falls back to
          the replicable constant and warns with the n it would need. That n
          (5.7e6: least squares' rounded model within a tenth of what it
          explains) is the same in any units of ``X``, from ``X * 1e-300`` to
          ``X * 1e300`` and after ``StandardScaler`` (issue #38 measured 1.9e5,
          "more samples won't help", 5.8e6 and 3.9e6 for shipped, x 1e-3,
          x 1e3 and standardized data). Where ``alpha=1`` still shrinks the
          slopes at that n (``X`` at 1e-3 and below) the warning adds the n at
          this ``alpha`` and says to lower it; the expected squared error it
          quotes is that of the ridge at this ``alpha``, so it moves with
          ``alpha``'s weight (55 to 1.05e4 times ``Var(y)``), not with the
          basis or the grid. On bootstrap-enlarged diabetes the linear model
          takes over near n = 1e6.
        * **Speed.** A fit costs 1.4-1.8 times Ridge's CPU time on one thread.
    """,
    "sections": [
        {
            "title": "Replicability at the promised sample sizes",
            "tables": [
                {"results": "replicable_ridge_rate"},
                {"results": "replicable_ridge_rate_issue25"},
                {"results": "replicable_ridge_confirmation"},
                {"results": "replicable_ridge_fixed_width"},
            ],
        },
        {
            "title": "The replicability-accuracy frontier",
            "text": """
                n = 4e4, d = 8: each point is one ``rho``; the loss is the mean
                population R^2 lost against Ridge on the same sample.
            """,
            "figures": [
                {
                    "results": "replicable_ridge_frontier",
                    "x": "r2_loss",
                    "y": "identical",
                    "by": "features",
                    "xlabel": "R^2 loss against Ridge",
                    "ylabel": "share of identical pairs",
                    "caption": "Replicability against accuracy loss over rho.",
                }
            ],
            "tables": [
                {"results": "replicable_ridge_frontier"},
                {"results": "replicable_ridge_frontier_mid"},
                {"results": "replicable_ridge_frontier_share"},
                {"results": "replicable_ridge_accuracy"},
                {"results": "replicable_ridge_heavy"},
            ],
        },
        {
            "title": "Rounding lemma and controls",
            "tables": [
                {"results": "replicable_ridge_lemma"},
                {"results": "replicable_ridge_controls"},
                {"results": "replicable_ridge_units"},
            ],
        },
        {
            "title": "Small data: load_diabetes",
            "text": """
                The fallback's advice with the defaults (``rho = 0.05``,
                ``alpha = 1``, ``random_state = 0``) on diabetes in other
                units: the fit is the same replicable constant in every row;
                ``n_needed`` is the n the warning names, ``n_needed_alpha`` the
                n at ``alpha = 1`` where it names one (0: not named, inf: no
                n), ``linear_error`` and ``constant_error`` the expected
                squared errors over ``Var(y)`` that the choice compared.
            """,
            "figures": [
                {
                    "results": "replicable_ridge_advice",
                    "kind": "bar",
                    "x": "units",
                    "y": "n_needed",
                    "logy": True,
                    "xlabel": "load_diabetes X",
                    "ylabel": "n named by the warning",
                    "caption": "The n the fallback warning names does not "
                    "move with the units of X (scaled: after StandardScaler).",
                },
                {
                    "results": "replicable_ridge_diabetes_n",
                    "x": "n",
                    "y": ["cv_r2", "ridge_r2"],
                    "labels": {
                        "cv_r2": "ReplicableLinearRegressor (rho = 0.05)",
                        "ridge_r2": "Ridge",
                    },
                    "logx": True,
                    "xlabel": "n (bootstrap-enlarged diabetes)",
                    "ylabel": "held-out R^2",
                    "caption": "Held-out R^2 against n: the constant fallback "
                    "gives way to the rounded linear model near n = 1e6.",
                },
            ],
            "tables": [
                {"results": "replicable_ridge_advice"},
                {"results": "replicable_ridge_diabetes"},
                {"results": "replicable_ridge_diabetes_n"},
            ],
        },
        {
            "title": "Fit time against Ridge",
            "tables": [{"results": "replicable_ridge_timing"}],
        },
    ],
}


if __name__ == "__main__":
    main()
