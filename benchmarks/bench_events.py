"""FBP event binning: gradient accuracy, motion recovery and backward cost.

Chen et al. (ICLR 2026, arXiv:2602.12590) keep the forward binning of events
and replace the derivative of the binning kernel by that of a B-spline
(functional backpropagation, FBP). Three measurements, all on
``make_moving_edges`` data (64 x 64 sensor, true velocity (20, 10) pixels per
unit time) and all in this one process:

1. Gradient accuracy. For two sets of 50 motions ``theta`` (uniform within
   15 pixels of the truth; seeds 0 and 1), the gradient of the IWE variance
   by FBP (hat and cubic reconstructions), by plain autograd through the
   hard binning and by a Gaussian-splatted surrogate (sigma = 1
   pixel) is compared with a long-range central finite difference of the
   hard-binned variance (step = one pixel of warp). Median relative error
   ``||g - g_fd|| / ||g_fd||`` and median scale ``<g, g_fd> / |g_fd|^2``,
   for rect and bilinear binning.
2. Motion recovery. ``ContrastMaximizationMotion`` from ``theta0 = truth / 2``
   with each gradient, over seeds: L-BFGS-B iterations and function
   evaluations to convergence, the first iteration whose velocity error is
   within 2% and the evaluations spent by then (read from an L-BFGS-B
   callback), and the final velocity error.
3. Speed. Forward and forward+backward time of ``fbp_histogramdd`` on 1e6
   2-D events (256 x 256 bins), against ``numpy.histogramdd`` and the plain
   autograd op; torch on one thread.

Run: ``PYTHONPATH=. python benchmarks/bench_events.py`` (about 6 minutes on 2
busy cores); ``--quick`` for a smoke run.
"""

import functools
import time

import numpy as np
from _harness import bench_arguments, median_time, report

import sklearn_iclr.events._contrast as contrast_module
from sklearn_iclr.datasets import make_moving_edges
from sklearn_iclr.events import ContrastMaximizationMotion, fbp_histogramdd
from sklearn_iclr.events._contrast import iwe
from sklearn_iclr.events._fbp import autograd_histogramdd
from sklearn_iclr.utils import import_torch

SHAPE = (64, 64)
TRUTH = np.array([20.0, 10.0])
GRADIENTS = ("fbp", "autograd", "smooth")


def configure(parser):
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--n-thetas", type=int, default=50)
    parser.add_argument("--n-bias", type=int, default=30)
    parser.add_argument("--n-events", type=int, default=20_000)
    parser.add_argument("--speed-events", type=int, default=1_000_000)


def variance_and_gradient(torch, xy, tau, theta, gradient, kernel, rec="linear"):
    th = torch.tensor(theta, dtype=torch.float64, requires_grad=True)
    image = iwe(torch, xy, tau, th, "translation", SHAPE, kernel, gradient, 1.0, rec)
    var = image.var(correction=0)
    var.backward()
    return float(var.detach()), th.grad.numpy().copy()


# (label, gradient, reconstruction)
ESTIMATORS = (
    ("fbp", "fbp", "linear"),
    ("fbp, cubic reconstruction", "fbp", "cubic"),
    ("autograd", "autograd", "linear"),
    ("smooth", "smooth", "linear"),
)


SHIFTED = "FD, grid shifted 1/2 px"


def gradient_accuracy(torch, args):
    X = make_moving_edges(args.n_events, velocity=TRUTH, shape=SHAPE, random_state=0)
    xy = torch.tensor(X[:, :2])
    tau = torch.tensor((X[:, 2] - X[:, 2].min()) / np.ptp(X[:, 2]))
    # the 50 motions of the first runs (seed 0) and a fresh 50 (seed 1)
    sets = {
        name: TRUTH + np.random.default_rng(seed).uniform(-15, 15, (args.n_thetas, 2))
        for name, seed in (("original", 0), ("fresh", 1))
    }
    rows = []
    for set_name, thetas in sets.items():
        for kernel in ("rect", "linear"):
            labels = [label for label, _, _ in ESTIMATORS] + [SHIFTED]
            errors = {label: [] for label in labels}
            scales = {label: [] for label in labels}
            for theta in thetas:
                fd = np.array(
                    [
                        (
                            variance_and_gradient(
                                torch, xy, tau, theta + e, "fbp", kernel
                            )[0]
                            - variance_and_gradient(
                                torch, xy, tau, theta - e, "fbp", kernel
                            )[0]
                        )
                        / 2
                        for e in np.eye(2)
                    ]
                )
                grads = {
                    label: variance_and_gradient(torch, xy, tau, theta, g, kernel, rec)[
                        1
                    ]
                    for label, g, rec in ESTIMATORS
                }
                # the reference's own grid dependence: the same finite
                # difference with the pixel grid shifted by half a pixel
                grads[SHIFTED] = np.array(
                    [
                        (
                            variance_and_gradient(
                                torch, xy + 0.5, tau, theta + e, "fbp", kernel
                            )[0]
                            - variance_and_gradient(
                                torch, xy + 0.5, tau, theta - e, "fbp", kernel
                            )[0]
                        )
                        / 2
                        for e in np.eye(2)
                    ]
                )
                for label, grad in grads.items():
                    errors[label].append(np.linalg.norm(grad - fd) / np.linalg.norm(fd))
                    scales[label].append(grad @ fd / (fd @ fd))
            for label in labels:
                e = np.array(errors[label])
                rows.append(
                    {
                        "motions": set_name,
                        "binning": kernel,
                        "gradient": label,
                        "median rel. error": float(np.median(e)),
                        "q25": float(np.quantile(e, 0.25)),
                        "q75": float(np.quantile(e, 0.75)),
                        "share < 10%": float(np.mean(e < 0.1)),
                        "median scale vs FD": float(np.median(scales[label])),
                    }
                )
    return rows


def images(torch, xy, tau, theta, kernel="rect"):
    with torch.no_grad():
        th = torch.tensor(theta, dtype=torch.float64)
        return iwe(torch, xy, tau, th, "translation", SHAPE, kernel, "fbp").numpy()


def gradient_bias(torch, args):
    """Where FBP and the finite difference part: step, linearisation, density.

    Rect binning, the first ``n_bias`` motions of the original set, at two
    event counts. For steps of 1/4, 1 and 2 pixels, the median scale
    ``<a, b> / |b|^2`` of the FBP gradient against the central difference of
    the variance and against its linearisation ``c . (h(+) - h(-)) / 2``
    (cotangent ``c`` of the variance held at theta), and of the difference
    against its linearisation.
    """
    thetas = TRUTH + np.random.default_rng(0).uniform(-15, 15, (args.n_thetas, 2))
    thetas = thetas[: args.n_bias]
    steps = (0.25, 1.0, 2.0)

    def scale(a, b):
        return a @ b / (b @ b)

    rows = []
    for n_events in (args.n_events, 4 * args.n_events):
        X = make_moving_edges(n_events, velocity=TRUTH, shape=SHAPE, random_state=0)
        xy = torch.tensor(X[:, :2])
        tau = torch.tensor((X[:, 2] - X[:, 2].min()) / np.ptp(X[:, 2]))
        stats = {rec: [] for rec in ("linear", "cubic")}
        for theta in thetas:
            h0 = images(torch, xy, tau, theta)
            cot = 2 * (h0 - h0.mean()) / h0.size
            fd = {step: np.zeros(2) for step in steps}
            lin = {step: np.zeros(2) for step in steps}
            for step in steps:
                for d, e in enumerate(np.eye(2)):
                    hp = images(torch, xy, tau, theta + step * e)
                    hm = images(torch, xy, tau, theta - step * e)
                    fd[step][d] = (hp.var() - hm.var()) / (2 * step)
                    lin[step][d] = (cot * (hp - hm)).sum() / (2 * step)
            for rec in stats:
                g = variance_and_gradient(torch, xy, tau, theta, "fbp", "rect", rec)[1]
                stats[rec].append(
                    [scale(g, fd[st]) for st in steps]
                    + [scale(g, lin[st]) for st in steps]
                    + [scale(fd[st], lin[st]) for st in steps]
                    + [np.linalg.norm(g - fd[1.0]) / np.linalg.norm(fd[1.0])]
                )
        for rec, values in stats.items():
            med = np.median(np.array(values), axis=0)
            row = {"events": n_events, "reconstruction": rec}
            for k, (what, step) in enumerate(
                [
                    (w, st)
                    for w in ("FBP / FD", "FBP / lin.", "FD / lin.")
                    for st in steps
                ]
            ):
                row[f"{what} {step:g} px"] = float(med[k])
            row["median rel. error (1 px)"] = float(med[-1])
            rows.append(row)
    return rows


def fit_with_path(X, **params):
    """Fit and record every L-BFGS-B iterate (through a callback)."""
    path, evals = [], [0]
    original = contrast_module.minimize

    def minimize(fun, x0, **kwargs):
        def counted(x, *a):
            evals[0] += 1
            return fun(x, *a)

        def callback(xk):
            path.append((np.array(xk), evals[0]))

        kwargs["callback"] = callback
        return original(counted, x0, **kwargs)

    contrast_module.minimize = minimize
    try:
        start, cpu = time.perf_counter(), time.process_time()
        est = ContrastMaximizationMotion(shape=SHAPE, init=TRUTH / 2, **params).fit(X)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - cpu
    finally:
        contrast_module.minimize = original
    return est, path, evals[0], seconds, cpu


def motion_recovery(args):
    configs = {
        "fbp (rect)": {"gradient": "fbp", "kernel": "rect"},
        "fbp (rect, cubic rec.)": {
            "gradient": "fbp",
            "kernel": "rect",
            "reconstruction": "cubic",
        },
        "fbp (linear)": {"gradient": "fbp", "kernel": "linear"},
        "fbp (linear, cubic rec.)": {
            "gradient": "fbp",
            "kernel": "linear",
            "reconstruction": "cubic",
        },
        "smooth (sigma=1)": {"gradient": "smooth"},
        "autograd (rect)": {"gradient": "autograd", "kernel": "rect"},
    }
    per_seed = []
    for seed in range(args.seeds):
        X = make_moving_edges(
            args.n_events, velocity=TRUTH, shape=SHAPE, random_state=100 + seed
        )
        span = np.ptp(X[:, 2])
        for name, params in configs.items():
            est, path, n_evals, seconds, cpu = fit_with_path(X, **params)
            errs = [
                np.linalg.norm(p / span - TRUTH) / np.linalg.norm(TRUTH)
                for p, _ in path
            ]
            hit = next((i for i, e in enumerate(errs) if e <= 0.02), None)
            final = np.linalg.norm(est.motion_[0] - TRUTH) / np.linalg.norm(TRUTH)
            per_seed.append(
                {
                    "seed": seed,
                    "method": name,
                    "n_iter": int(est.n_iter_[0]),
                    "n_evals": n_evals,
                    "iters to 2%": None if hit is None else hit + 1,
                    "evals to 2%": None if hit is None else int(path[hit][1]),
                    "final error": float(final),
                    "seconds": seconds,
                    "cpu seconds": cpu,
                }
            )
    rows = []
    for name in configs:
        sub = [r for r in per_seed if r["method"] == name]
        hits = [r for r in sub if r["iters to 2%"] is not None]
        rows.append(
            {
                "method": name,
                "median n_iter": float(np.median([r["n_iter"] for r in sub])),
                "median n_evals": float(np.median([r["n_evals"] for r in sub])),
                "reached 2%": f"{len(hits)}/{len(sub)}",
                "median iters to 2%": float(np.median([r["iters to 2%"] for r in hits]))
                if hits
                else None,
                "median evals to 2%": float(np.median([r["evals to 2%"] for r in hits]))
                if hits
                else None,
                "median final error": float(np.median([r["final error"] for r in sub])),
                "max final error": float(np.max([r["final error"] for r in sub])),
                "median fit s": float(np.median([r["seconds"] for r in sub])),
                "median fit CPU s": float(np.median([r["cpu seconds"] for r in sub])),
            }
        )
    anchor = next(r for r in rows if r["method"] == "smooth (sigma=1)")
    for r in rows:
        for key, ratio in (
            ("median iters to 2%", "iters ratio vs smooth"),
            ("median evals to 2%", "evals ratio vs smooth"),
            ("median n_iter", "n_iter ratio vs smooth"),
        ):
            if r[key] and anchor[key]:
                r[ratio] = anchor[key] / r[key]
    return rows, per_seed


def cpu_time(func, repeats=5):
    """Median CPU seconds (``time.process_time``) of ``repeats`` calls."""
    func()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        func()
        times.append(time.process_time() - start)
    return float(np.median(times))


def speed(torch, args):
    n = args.speed_events
    rng = np.random.default_rng(0)
    bins, ranges = (256, 256), [(0.0, 256.0), (0.0, 256.0)]
    x_np = rng.uniform(0, 256, (n, 2))
    x = torch.tensor(x_np, requires_grad=True)
    cot = torch.tensor(rng.normal(size=bins))
    rows = []
    t_np, _ = median_time(lambda: np.histogramdd(x_np, bins=bins, range=ranges))
    rows.append({"op": "numpy.histogramdd", "forward s": t_np})
    cubic = functools.partial(fbp_histogramdd, reconstruction="cubic")
    ops = (
        ("fbp", fbp_histogramdd),
        ("fbp cubic rec.", cubic),
        ("autograd", autograd_histogramdd),
    )
    for kernel in ("rect", "linear"):
        for name, op in ops:

            def forward(op=op, kernel=kernel):
                with torch.no_grad():
                    return op(x, None, bins, ranges, kernel=kernel)

            def both(op=op, kernel=kernel):
                h = op(x, None, bins, ranges, kernel=kernel)
                return torch.autograd.grad((h * cot).sum(), x)

            t_f, _ = median_time(forward, repeats=5)
            t_fb, _ = median_time(both, repeats=5)
            c_f, c_fb = cpu_time(forward), cpu_time(both)
            rows.append(
                {
                    "op": f"{name} ({kernel})",
                    "forward s": t_f,
                    "fwd+bwd s": t_fb,
                    "backward / forward": (t_fb - t_f) / t_f,
                    "forward CPU s": c_f,
                    "fwd+bwd CPU s": c_fb,
                    "backward / forward (CPU)": (c_fb - c_f) / c_f,
                    "forward vs numpy": t_f / t_np,
                }
            )
    return rows


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=configure)
    if args.quick:
        args.seeds, args.n_thetas, args.n_events = 2, 5, 5000
        args.n_bias = 3
        args.speed_events = 100_000
    torch = import_torch()
    torch.set_num_threads(1)
    meta = {
        "n_events": args.n_events,
        "truth": TRUTH.tolist(),
        "shape": SHAPE,
        "torch_threads": 1,
        "timing": "wall clock and CPU time (process_time), one process, torch on "
        "1 thread, 2 shared cores",
    }
    rows = gradient_accuracy(torch, args)
    report(
        "events_gradient",
        rows,
        title=f"Gradient of the IWE variance vs central FD (step 1 px), "
        f"{args.n_thetas} thetas",
        meta={**meta, "n_thetas": args.n_thetas},
    )
    rows = gradient_bias(torch, args)
    report(
        "events_gradient_bias",
        rows,
        title=f"FBP (rect) against finite differences: scale and linearisation, "
        f"{args.n_bias} motions",
        meta={**meta, "n_thetas": args.n_bias},
    )
    rows, per_seed = motion_recovery(args)
    report(
        "events_motion",
        rows,
        title=f"Motion recovery from theta0 = truth / 2 over {args.seeds} seeds",
        meta={**meta, "seeds": args.seeds, "per_seed": per_seed},
    )
    rows = speed(torch, args)
    report(
        "events_speed",
        rows,
        title=f"Histogram op on {args.speed_events:.0e} 2-D events, 256 x 256 bins",
        columns=[
            "op",
            "forward s",
            "fwd+bwd s",
            "backward / forward",
            "forward CPU s",
            "fwd+bwd CPU s",
            "backward / forward (CPU)",
            "forward vs numpy",
        ],
        meta={**meta, "n_points": args.speed_events},
    )


if __name__ == "__main__":
    main()
