"""Escape directions and saddle-to-saddle dynamics of deep bias-free ReLU networks.

Bantzis, Simon & Jacot (ICLR 2026): from a small initialisation a deep ReLU
network leaves the saddle at the origin along an escape direction that is nearly
rank 1 in its deep layers, then visits saddles of increasing rank. Four tables,
all measured in one process:

1. ``saddle_example1``: the paper's Example 1 (8 points on the circle, depth
   3). EscapeDirection against the closed forms 1/2 (rank-2 first layer) and
   sqrt(2) - 1 (all layers rank 1).
2. ``saddle_low_rank``: depth-6 escape directions on random data (n = 100,
   10 -> 3), digits (standardised pixels, centred one-hot targets) and Example
   1: the rank ratio ``sum_{i>=2} s_i^2 / sum s_i^2`` of every layer at the best
   direction, its median over the restarts (local optima included), the
   envelope ``l^(-1/2)`` of Theorem 3.1, and the anchor: the direction that
   gradient descent from a small initialisation (SmallInitMLPRegressor, depth
   6, width 50, init 1e-3, learning rate 1) holds when its first plateau
   ends (not run on digits: two 1797-row depth-6 fits cost minutes).
3. ``saddle_plateaus``: SmallInitMLPRegressor (depth 4, width 20, init 0.2)
   on three draws of a rank-2 ReLU teacher: the plateaus it detects, with the
   effective ranks of the layers.
4. ``saddle_anchor``: test R^2 and fit time of that regressor, and of the
   default one, against scikit-learn's MLPRegressor (Adam, biases, default
   init) of the same shape, on the same draws.

Timings are wall-clock and CPU seconds (``time.process_time``) of single fits;
the numpy code runs the BLAS on one thread.

Run: ``PYTHONPATH=. python benchmarks/bench_saddle.py`` (1 to 4 minutes on
2 busy cores); ``--quick`` for a smoke run of seconds.
"""

import time

import numpy as np
from _harness import bench_arguments, ratio, report
from sklearn.datasets import load_digits
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPRegressor
from sklearn.preprocessing import StandardScaler

from sklearn_iclr import EscapeDirection, SmallInitMLPRegressor
from sklearn_iclr.neural_network._bias_free_relu import (
    forward,
    rank_ratio,
    singular_values,
)


def timed(func, *args):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def example_1():
    angles = np.arange(8) * np.pi / 4
    X = np.c_[np.cos(angles), np.sin(angles)]
    return X, np.where(np.arange(8) % 2 == 0, 1.0, -1.0)


def rank_2_teacher(n, d=10, n_outputs=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    inputs = np.linalg.qr(rng.standard_normal((d, 2)))[0]
    outputs = np.linalg.qr(rng.standard_normal((n_outputs, 2)))[0]
    return X, np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T


def table_example_1(quick):
    X, Y = example_1()
    rows = []
    configs = [
        ("search, width 50", dict(depth=3, width=50), 0.5),
        ("search, width 20", dict(depth=3, width=20), 0.5),
        ("search, width 4", dict(depth=3, width=4), 0.5),
        ("rank-1 search, width 4", dict(depth=3, width=4, max_rank=1), np.sqrt(2) - 1),
    ]
    for name, params, closed_form in configs:
        if quick:
            params = dict(params, max_iter=300, n_restarts=2)
        est, wall, cpu = timed(
            lambda p=params: EscapeDirection(**p, random_state=0).fit(X, Y)
        )
        rows.append(
            {
                "method": name,
                "speed": est.speed_,
                "closed form": float(closed_form),
                "abs error": abs(est.speed_ - closed_form),
                "restarts at 1/2 +- 1e-3": int(
                    np.sum(np.abs(est.restart_speeds_ - 0.5) <= 1e-3)
                ),
                "n_restarts": len(est.restart_speeds_),
                "s2/s1 of W_1": float(
                    est.layer_singular_values_[0][1] / est.layer_singular_values_[0][0]
                ),
                "wall_s": wall,
                "cpu_s": cpu,
            }
        )
    return rows


def low_rank_datasets(quick):
    rng = np.random.default_rng(0)
    data = {
        "random n=100, 10->3": (
            rng.standard_normal((100, 10)),
            rng.standard_normal((100, 3)),
        )
    }
    X, y = load_digits(return_X_y=True)
    if quick:
        X, y = X[:200], y[:200]
    onehot = np.eye(10)[y]
    data["digits, centred one-hot"] = (
        StandardScaler().fit_transform(X),
        onehot - onehot.mean(0),
    )
    data["Example 1"] = example_1()
    return data


def escape_of_small_init_gd(X, Y, quick):
    """The normalised direction of small-init GD when its first plateau ends."""
    params = dict(hidden_layer_sizes=(50,) * 5, init_scale=1e-3, random_state=0)
    params["max_iter"] = 300 if quick else 8000
    reg = SmallInitMLPRegressor(**params).fit(X, Y)
    if not reg.plateaus_ or reg.plateaus_[0]["final"]:
        return None, reg
    end = reg.plateaus_[0]["end_iteration"]
    early = SmallInitMLPRegressor(**dict(params, max_iter=end)).fit(X, Y)
    Xs, Ys = X / early.x_scale_, Y.reshape(len(Y), -1) / early.y_scale_
    norms = [np.linalg.norm(W) for W in early.coefs_]
    units = [W / n for W, n in zip(early.coefs_, norms, strict=True)]
    speed = float(np.sum(Ys * forward(units, Xs)[-1]))
    return (speed, [rank_ratio(s) for s in singular_values(units)], end), reg


def table_low_rank(quick):
    rows = []
    # (restarts, iterations) per data set; digits (n = 1797) costs ~20 ms an
    # iteration on a busy core, hence a smaller search there.
    budgets = {"digits, centred one-hot": (4, 500)}
    depth = 6
    envelope = np.arange(1, depth + 1) ** -0.5
    for name, (X, Y) in low_rank_datasets(quick).items():
        n_restarts, max_iter = (2, 200) if quick else budgets.get(name, (8, 1000))
        fits, wall, cpu = timed(
            lambda X=X, Y=Y, budget=(n_restarts, max_iter): [
                EscapeDirection(
                    depth=depth,
                    width=50,
                    n_restarts=1,
                    max_iter=budget[1],
                    random_state=seed,
                ).fit(X, Y)
                for seed in range(budget[0])
            ]
        )
        best = max(fits, key=lambda e: e.speed_)
        median = np.median([e.rank_ratio_ for e in fits], axis=0)
        # Speeds in the units of the scaled data of the regressor (rows and
        # targets of unit RMS norm), to compare with the GD anchor.
        Y2 = Y.reshape(len(Y), -1)
        unit = np.sqrt(np.mean(np.sum(X**2, 1)) * np.mean(np.sum(Y2**2, 1)))
        rows.append(
            _ratio_row(
                name, "search: best", best.speed_ / unit, best.rank_ratio_, wall, cpu
            )
        )
        rows.append(
            _ratio_row(
                name,
                "search: median over restarts",
                np.median([e.speed_ for e in fits]) / unit,
                median,
                wall,
                cpu,
            )
        )
        if name.startswith("digits"):
            # Two depth-6 fits over 1797 rows (~20 ms a step) would take the
            # benchmark past its time budget on a shared machine.
            anchor, wall, cpu = "skipped", 0.0, 0.0
        else:
            (anchor, reg), wall, cpu = timed(
                lambda X=X, Y=Y: escape_of_small_init_gd(X, Y, quick)
            )
        if anchor == "skipped":
            rows.append({"data": name, "direction": "small-init GD: not run (cost)"})
        elif anchor is None:
            rows.append(
                {
                    "data": name,
                    "direction": "small-init GD: no escape within max_iter",
                    "wall_s": wall,
                    "cpu_s": cpu,
                }
            )
        else:
            speed, ratios, end = anchor
            row = _ratio_row(
                name, f"small-init GD at iteration {end}", speed, ratios, wall, cpu
            )
            row["speed / best"] = ratio(speed, best.speed_ / unit)
            rows.append(row)
        rows.append(
            _ratio_row(name, "envelope l^(-1/2)", float("nan"), envelope, 0.0, 0.0)
        )
    return rows


def _ratio_row(data, direction, speed, ratios, wall, cpu):
    row = {"data": data, "direction": direction, "speed (scaled)": float(speed)}
    row.update({f"r{layer + 1}": float(r) for layer, r in enumerate(ratios)})
    row.update({"wall_s": wall, "cpu_s": cpu})
    return row


def _plateau_row(seed, i, p):
    return {
        "seed": seed,
        "plateau": i + 1,
        "start": p["start_iteration"],
        "end": p["end_iteration"],
        "loss": p["loss"],
        "effective ranks": str(p["effective_ranks"].tolist()),
        "exit ranks": str(p["exit_ranks"].tolist()),
        "final": p["final"],
    }


def table_plateaus(quick):
    """Plateaus on three teacher draws, and test R^2 against MLPRegressor."""
    params = dict(
        hidden_layer_sizes=(20, 20, 20),
        init_scale=0.2,
        learning_rate=0.2,
        max_iter=2000 if quick else 10_000,
        record_every=20,
        random_state=0,
    )
    plateau_rows, ours, defaults, anchors = [], [], [], []
    for seed in range(1 if quick else 3):
        X, Y = rank_2_teacher(400, seed=seed)
        Xtr, Xte, Ytr, Yte = train_test_split(X, Y, test_size=0.5, random_state=0)
        reg, wall, cpu = timed(SmallInitMLPRegressor(**params).fit, Xtr, Ytr)
        plateau_rows += [_plateau_row(seed, i, p) for i, p in enumerate(reg.plateaus_)]
        ours.append((r2_score(Yte, reg.predict(Xte)), len(reg.plateaus_), wall, cpu))
        default = SmallInitMLPRegressor(random_state=0)
        if quick:
            default.set_params(max_iter=300)
        default, wall, cpu = timed(default.fit, Xtr, Ytr)
        defaults.append(
            (r2_score(Yte, default.predict(Xte)), len(default.plateaus_), wall, cpu)
        )
        anchor = MLPRegressor(
            hidden_layer_sizes=(20, 20, 20), max_iter=2000, random_state=0
        )
        anchor, wall, cpu = timed(anchor.fit, Xtr, Ytr)
        anchors.append((r2_score(Yte, anchor.predict(Xte)), float("nan"), wall, cpu))
    a_wall = np.mean([a[2] for a in anchors])
    anchor_rows = []
    for name, runs in (
        ("SmallInitMLP depth 4, init 0.2, lr 0.2, 10k steps", ours),
        ("SmallInitMLP defaults (depth 6, init 1e-3, lr 1, 5k steps)", defaults),
        ("sklearn MLPRegressor (20,20,20), Adam, 2k iter", anchors),
    ):
        runs = np.array(runs, dtype=float)
        anchor_rows.append(
            {
                "method": name,
                "test R^2 (mean)": float(runs[:, 0].mean()),
                "test R^2 (min)": float(runs[:, 0].min()),
                "plateaus (mean)": float(runs[:, 1].mean()),
                "wall_s": float(runs[:, 2].mean()),
                "cpu_s": float(runs[:, 3].mean()),
                "wall / MLPRegressor": ratio(float(runs[:, 2].mean()), a_wall),
            }
        )
    return plateau_rows, anchor_rows, default


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv)
    meta = {"quick": args.quick}
    report(
        "saddle_example1",
        table_example_1(args.quick),
        title="Example 1 (depth 3): escape speed vs the paper's closed forms",
        meta=meta,
    )
    report(
        "saddle_low_rank",
        table_low_rank(args.quick),
        title="Rank ratio sum_{i>=2} s_i^2 / sum s_i^2 per layer, depth 6, width 50",
        meta=meta,
    )
    plateau_rows, anchor_rows, default = table_plateaus(args.quick)
    default_plateaus = [
        {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in p.items()}
        for p in default.plateaus_
    ]
    report(
        "saddle_plateaus",
        plateau_rows,
        title="Plateaus of SmallInitMLPRegressor, rank-2 ReLU teacher (n=200, 10 -> 3)",
        meta=dict(meta, default_config_plateaus=default_plateaus),
    )
    report(
        "saddle_anchor",
        anchor_rows,
        title="Same teacher, 200 test points: test R^2 and fit time",
        meta=meta,
    )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "EscapeDirection and SmallInitMLPRegressor: saddle-to-saddle dynamics",
    "estimators": {"EscapeDirection": "met", "SmallInitMLPRegressor": "partly"},
    "claim": """
        Bantzis, Simon and Jacot (ICLR 2026): a deep bias-free ReLU network
        trained from a small initialisation leaves the origin along the
        optimal escape direction, whose deep layers are (close to) rank one,
        with a per-layer rank ratio below an ``l^(-1/2)`` envelope; training
        then moves from saddle to saddle, each plateau adding rank. Example 1
        of the paper has closed-form escape speeds 1/2 (rank two in the first
        layer) and ``sqrt(2) - 1`` (rank one).
    """,
    "findings": """
        * **Example 1: met.** The search finds 0.4999 (width 20 and 50, against
          1/2) and 0.4142 under a rank-1 constraint (against ``sqrt(2) - 1``).
          At width 4 it finds only the rank-1 speed.
        * **Low-rank bias: met.** The deep-layer rank ratios are at most 1e-12
          on random data and on digits (depth 6), far below the envelope.
        * **Saddle-to-saddle: met.** ``SmallInitMLPRegressor`` on a rank-2
          ReLU teacher shows two plateaus with deep effective ranks 1 then 2,
          on 3 of 3 draws; from init 0.2 it reaches test R^2 0.999, above
          ``MLPRegressor`` (0.87), at 13 times its wall time.
        * **Defaults: partly.** The default depth-6, init-1e-3 regressor stops
          at the first (rank-1) saddle within 5000 steps (test R^2 0.49): it
          studies the dynamics rather than fits (documented in its Notes).
          numpy full-batch only.
    """,
    "sections": [
        {
            "title": "Example 1 of the paper",
            "figures": [
                {
                    "results": "saddle_example1",
                    "kind": "bar",
                    "x": "method",
                    "y": ["speed", "closed form"],
                    "xlabel": "",
                    "ylabel": "escape speed",
                    "caption": "Escape speeds found by the search against the "
                    "paper's closed forms.",
                }
            ],
            "tables": [{"results": "saddle_example1"}],
        },
        {
            "title": "Low-rank bias of the optimal direction",
            "text": """
                Rank ratio ``sum_{i>=2} s_i^2 / sum s_i^2`` of each layer
                (``r1`` to ``r6``), depth 6, width 50.
            """,
            "tables": [{"results": "saddle_low_rank"}],
        },
        {
            "title": "Plateaus on a rank-2 teacher",
            "figures": [
                {
                    "results": "saddle_plateaus",
                    "x": "start",
                    "y": "loss",
                    "by": "seed",
                    "xlabel": "step at which the plateau starts",
                    "ylabel": "training loss on the plateau",
                    "caption": "The loss levels of the successive plateaus.",
                }
            ],
            "tables": [{"results": "saddle_plateaus"}, {"results": "saddle_anchor"}],
        },
    ],
}


if __name__ == "__main__":
    main()
