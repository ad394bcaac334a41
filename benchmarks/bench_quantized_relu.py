"""QuantizedReLUClassifier: exact training vs HiGHS MILP and a straight-through net.

Four tables, measured in one process:

1. Scaling in n at alpha = 3, widths 2 and 3, d = 3 (planted network, 10%
   label noise; and alpha = 5, where the search costs more than the
   compression): the fit compresses the data to at most 3^alpha distinct inputs,
   so only the linear-time validation and compression grow with n; the same
   fit given the distinct rows (counts as sample_weight) is timed next to it.
2. Scaling in the input dimension alpha = 2..6 (width 2) and 3. in the width
   1..4 (alpha = 4, one data set), n = 2000, 25% label noise: branch and
   bound next to the MILP of the same problem solved by HiGHS on the same
   compressed data (time limit), side by side, with the nodes and hidden-unit
   patterns of the search; the width table again on random labels (alpha = 3,
   n = 500), where the bounds prune little.
4. Real data quantised to Z_3 (iris, breast cancer; a few features): the
   exact training error next to a straight-through-estimator (STE) quantised
   net of the same architecture trained with torch (best of several seeds) and
   a real-weight MLPClassifier with 2 hidden units on the same inputs.

Wall-clock seconds on this machine (the core count is in the JSON); the exact
search runs with n_jobs=1, torch with one thread, HiGHS with scipy's defaults.
Run ``python -m benchmarks quantized_relu`` (``--quick`` for a smoke run,
``--tables n,real`` for some of the tables).
"""

import time

import numpy as np
from _harness import bench_arguments, median_time, ratio, report
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier

from sklearn_iclr.neural_network import QuantizedReLUClassifier
from sklearn_iclr.neural_network._quantized_relu import domain_bounds
from sklearn_iclr.neural_network._quantized_relu_milp import quantized_relu_milp
from sklearn_iclr.testing.oracles import (
    distinct_input_counts,
    planted_quantized_network,
)


def exact_fit(X, y, width=2, sample_weight=None, **params):
    est = QuantizedReLUClassifier(
        hidden_layer_sizes=(width,), quantization=None, random_state=0, **params
    )
    return est.fit(X, y, sample_weight=sample_weight)


def compressed_rows(X, y):
    """One row per (distinct input, label) with its count as sample weight."""
    pairs, weight = np.unique(np.c_[X, y], axis=0, return_counts=True)
    return pairs[:, :-1], pairs[:, -1], weight.astype(float)


def scaling_in_n(quick):
    sizes = [1_000, 10_000] if quick else [1_000, 10_000, 100_000]
    rows = []
    for alpha, width, noise in ((3, 2, 0.1), (3, 3, 0.1), (5, 2, 0.25)):
        X, y = planted_quantized_network(
            max(sizes), alpha, width=width, noise=noise, random_state=width
        )
        first = None
        for n in sizes:
            seconds, est = median_time(
                lambda X=X[:n], y=y[:n], w=width: exact_fit(X, y, width=w), repeats=7
            )
            Xc, yc, wc = compressed_rows(X[:n], y[:n])
            compressed_s, _ = median_time(
                lambda Xc=Xc, yc=yc, wc=wc, w=width: exact_fit(
                    Xc, yc, width=w, sample_weight=wc
                ),
                repeats=7,
            )
            first = first or (seconds, compressed_s)
            rows.append(
                {
                    "alpha": alpha,
                    "width": width,
                    "noise": noise,
                    "n": n,
                    "distinct": est.n_distinct_inputs_,
                    "patterns": est.n_patterns_,
                    "nodes": est.n_nodes_,
                    "errors": est.n_errors_,
                    "optimal": est.optimal_,
                    "fit_s": seconds,
                    "fit / fit(n=1e3)": ratio(seconds, first[0]),
                    "fit_on_distinct_s": compressed_s,
                    "distinct / distinct(n=1e3)": ratio(compressed_s, first[1]),
                }
            )
    report(
        "quantized_relu_scaling_n",
        rows,
        title=(
            "Time against n (d=3); fit_on_distinct: the same fit given the "
            "distinct rows with counts as sample_weight"
        ),
    )
    return rows


def random_labels(n, alpha, seed=0):
    """Inputs uniform on Z_3^alpha with fair coin labels: nothing to learn."""
    rng = np.random.default_rng(seed)
    return rng.integers(-1, 2, size=(n, alpha)), rng.integers(0, 2, n)


def search_vs_milp(
    name,
    title,
    settings,
    milp_limit,
    noise=0.1,
    refused_limit=120,
    n=2000,
    labels="planted",
):
    rows = []
    for alpha, width in settings:
        if labels == "planted":
            X, y = planted_quantized_network(n, alpha, noise=noise, random_state=alpha)
        else:
            X, y = random_labels(n, alpha, seed=alpha)
        row = {"alpha": alpha, "width": width, "default_budget": "ok"}
        try:
            seconds, est = median_time(
                lambda X=X, y=y, w=width: exact_fit(X, y, width=w), repeats=1
            )
        except ValueError as error:
            # Refused up front by the default max_candidates: keep the message,
            # then measure the search with the budget raised (and a time limit).
            row["default_budget"] = "refused"
            row["note"] = str(error).split(", more than")[0]
            seconds, est = median_time(
                lambda X=X, y=y, w=width: exact_fit(
                    X, y, width=w, max_candidates=10**13, time_limit=refused_limit
                ),
                repeats=1,
                warmup=0,
            )
            row["optimal"] = est.optimal_
        row.update(
            distinct=est.n_distinct_inputs_,
            patterns=est.n_patterns_,
            nodes=est.n_nodes_,
            bnb_errors=est.n_errors_,
            bnb_s=seconds,
        )
        start = time.perf_counter()
        milp = quantized_relu_milp(
            *distinct_input_counts(X, y), 3, (width,), time_limit=milp_limit
        )
        milp_s = time.perf_counter() - start
        row.update(
            milp_errors=milp["errors"],
            milp_bound=round(milp["lower_bound"], 2),
            milp_proven=milp["optimal"],
            milp_s=milp_s,
            milp_over_bnb=ratio(milp_s, seconds),
            ns_per_node_input=1e9
            * seconds
            / max(est.n_nodes_ * est.n_distinct_inputs_, 1),
            lower_bound=est.lower_bound_,
        )
        rows.append(row)
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns and k != "note"]
    report(
        name,
        rows,
        columns=columns,
        title=title,
        meta={
            "milp_time_limit_s": milp_limit,
            "n": n,
            "labels": labels,
            "label_noise": noise,
        },
    )
    for row in rows:
        if "note" in row:
            print(f"alpha={row['alpha']}, width={row['width']}: {row['note']}")
    print()
    return rows


def quantized_net_ste(Z, y, width, d, seeds, epochs=400):
    """Best training error of STE-trained quantized nets (latent real weights).

    Forward: weights and biases rounded and clipped into Z_d, hidden units
    ``clip(z @ W - b, 0, top)``, output ``clip(h @ v - c, 0, 1)``, exactly the
    model of QuantizedReLUClassifier. Backward: the straight-through
    estimator (identity through rounding; through the hidden clip the
    gradient of ``clip(t, -0.5, top + 0.5)``), logistic loss on the output
    pre-activation shifted by 1/2 (the output is 1 iff it is >= 1).
    """
    from sklearn_iclr.utils import import_torch

    torch = import_torch()
    torch.set_num_threads(1)  # tiny full-batch steps: threads only add overhead
    low, high = domain_bounds(d)
    Zt = torch.tensor(Z, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.float64)

    def quantize(t):
        return t + (torch.clamp(torch.round(t), low, high) - t).detach()

    def hidden(pre):
        soft = torch.clamp(pre, -0.5, high + 0.5)
        return soft + (torch.clamp(pre, 0, high) - soft).detach()

    best = None
    for seed in seeds:
        gen = torch.Generator().manual_seed(seed)
        params = [
            torch.randn(Z.shape[1], width, generator=gen, dtype=torch.float64),
            torch.randn(width, generator=gen, dtype=torch.float64),
            torch.randn(width, generator=gen, dtype=torch.float64),
            torch.randn(1, generator=gen, dtype=torch.float64),
        ]
        for p in params:
            p.requires_grad_(True)
        opt = torch.optim.Adam(params, lr=0.05)
        for _ in range(epochs):
            W, b, v, c = (quantize(p) for p in params)
            pre = hidden(Zt @ W - b) @ v - c
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                2.0 * (pre - 0.5), yt
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            W, b, v, c = (torch.clamp(torch.round(p), low, high) for p in params)

            def predict(A, W=W, b=b, v=v, c=c):
                A = torch.tensor(A, dtype=torch.float64)
                h = torch.clamp(A @ W - b, 0, high)
                return torch.clamp(h @ v - c, 0, 1).numpy().astype(int)

            errors = int(np.sum(predict(Z) != y))
        if best is None or errors < best[0]:
            best = (errors, predict)
    return best


def real_data(quick):
    iris = load_iris()
    cancer = load_breast_cancer()
    names = list(cancer.feature_names)
    picks = ["mean radius", "mean texture", "mean concave points", "worst area"]
    sets = [
        ("iris 4 feat, versicolor vs rest", iris.data, (iris.target == 1).astype(int)),
        (
            "iris petals, virginica vs rest",
            iris.data[:, 2:],
            (iris.target == 2).astype(int),
        ),
        (
            "breast cancer 4 feat",
            cancer.data[:, [names.index(p) for p in picks]],
            cancer.target,
        ),
    ]
    seeds = range(2 if quick else 10)
    rows = []
    for label, X, y in sets:
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, test_size=0.3, stratify=y, random_state=0
        )
        start = time.perf_counter()
        exact = QuantizedReLUClassifier(quantization="uniform", random_state=0)
        exact.fit(X_tr, y_tr)
        exact_s = time.perf_counter() - start
        Z_tr, Z_te = exact._quantize(X_tr), exact._quantize(X_te)
        start = time.perf_counter()
        ste_errors, ste_predict = quantized_net_ste(Z_tr, y_tr, 2, 3, seeds)
        ste_s = time.perf_counter() - start
        mlp = MLPClassifier(
            hidden_layer_sizes=(2,), solver="lbfgs", max_iter=5000, random_state=0
        )
        mlp.fit(Z_tr, y_tr)
        rows.append(
            {
                "data": label,
                "n_train": len(y_tr),
                "distinct": exact.n_distinct_inputs_,
                "exact_train_err": exact.n_errors_,
                "ste_train_err": ste_errors,
                "mlp2_train_err": int(np.sum(mlp.predict(Z_tr) != y_tr)),
                "exact_test_acc": exact.score(X_te, y_te),
                "ste_test_acc": float(np.mean(ste_predict(Z_te) == y_te)),
                "mlp2_test_acc": mlp.score(Z_te, y_te),
                "exact_s": exact_s,
                "ste_s": ste_s,
                "ste_over_exact_s": ratio(ste_s, exact_s),
            }
        )
    report(
        "quantized_relu_real_data",
        rows,
        title=(
            "Real data on Z_3 (uniform bins), width 2: exact vs STE "
            f"(best of {len(seeds)} seeds) vs real-weight MLP(2)"
        ),
        meta={"ste_seeds": len(seeds), "ste_epochs": 400, "test_size": 0.3},
    )
    return rows


TABLES = ("n", "alpha", "width", "real")


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, tables=TABLES)
    quick = args.quick
    start = time.perf_counter()
    exact_fit(
        *planted_quantized_network(100, 2, noise=0.1, random_state=0)
    )  # loads the compiled search
    print(
        f"first fit (numba cache load or compile): "
        f"{time.perf_counter() - start:.2f} s\n"
    )
    milp_limit = 5 if quick else 30
    if "n" in args.tables:
        scaling_in_n(quick)
    if "alpha" in args.tables:
        alphas = [2, 3] if quick else [2, 3, 4, 5, 6]
        search_vs_milp(
            "quantized_relu_alpha",
            f"Input dimension alpha (width 2, d=3, n=2000, 25% label noise); "
            f"HiGHS limit {milp_limit} s",
            [(a, 2) for a in alphas],
            milp_limit,
            noise=0.25,
        )
    if "width" in args.tables:
        widths = [1, 2] if quick else [1, 2, 3, 4]
        search_vs_milp(
            "quantized_relu_width",
            f"Width (alpha=4, d=3, n=2000, 25% label noise); "
            f"HiGHS limit {milp_limit} s",
            [(4, w) for w in widths],
            milp_limit,
            noise=0.25,
        )
        search_vs_milp(
            "quantized_relu_width_random",
            f"Width on random labels (alpha=3, d=3, n=500); HiGHS limit {milp_limit} s",
            [(3, w) for w in widths],
            milp_limit,
            n=500,
            labels="random",
        )
    if "real" in args.tables:
        real_data(quick)


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "QuantizedReLUClassifier: exact training of quantized ReLU networks",
    "estimators": {"QuantizedReLUClassifier": "partly"},
    "claim": """
        "Tractability via Low Dimensionality" (ICLR 2026): training a ReLU
        network whose weights, biases and inputs lie in a finite set
        ``Z_d`` to the minimum training error is fixed-parameter tractable in
        the input dimension: the search runs over the distinct inputs, not
        over the rows, so it scales with the data only through the
        compression.
    """,
    "findings": """
        Anchors in the same process on the same data: the MILP of the same
        problem solved by HiGHS (30 s limit) on the same compressed data, a
        straight-through-estimator (STE) net of the same architecture (best of
        10 seeds), and a real-weight ``MLPClassifier`` with two hidden units.

        * **Against HiGHS: met.** The branch and bound proves every instance;
          the MILP is 11 to 3700 times slower and proves nothing from
          ``alpha = 5`` (at ``alpha = 6`` its incumbent has 750 errors against
          the optimum 492).
        * **Time against n: partly.** From n = 1e3 to 1e5 at ``alpha = 3``
          the fit grows 2.1 times at width 2 (target at most 3) but 4.5 times
          at width 3 in this run: the whole fit takes milliseconds, so the
          linear validation and compression weigh as much as the search.
        * **Real data.** Never worse than STE on training error (it cannot be),
          2.3 times better on iris versicolor, 127-3100 times faster than the
          10 STE runs; test accuracies differ by one or two points.
        * The search grows steeply with the input dimension: ``alpha = 6`` is
          refused by the default budget with an estimate (optimal in 2.5 s once
          the budget is raised).
    """,
    "sections": [
        {
            "title": "Input dimension and width against HiGHS",
            "figures": [
                {
                    "results": "quantized_relu_alpha",
                    "x": "alpha",
                    "y": ["bnb_s", "milp_s"],
                    "labels": {
                        "bnb_s": "branch and bound (exact)",
                        "milp_s": "HiGHS MILP (30 s limit)",
                    },
                    "logy": True,
                    "xlabel": "input dimension alpha",
                    "ylabel": "wall seconds",
                    "caption": "Time to the optimum against the input dimension "
                    "(HiGHS stops at its 30 s limit from alpha = 5).",
                }
            ],
            "tables": [
                {
                    "results": "quantized_relu_alpha",
                    "columns": "alpha; default_budget=default budget; distinct; "
                    "patterns; nodes; bnb_errors=B&B errors; bnb_s=B&B s; "
                    "milp_errors=MILP errors; milp_bound=MILP bound; "
                    "milp_proven=MILP proven; milp_s=MILP s; "
                    "milp_over_bnb=MILP / B&B",
                },
                {
                    "results": "quantized_relu_width",
                    "columns": "width; nodes; bnb_errors=B&B errors; bnb_s=B&B s; "
                    "milp_errors=MILP errors; milp_bound=MILP bound; "
                    "milp_proven=MILP proven; milp_s=MILP s; "
                    "milp_over_bnb=MILP / B&B",
                },
                {
                    "results": "quantized_relu_width_random",
                    "columns": "width; nodes; bnb_errors=B&B errors; bnb_s=B&B s; "
                    "milp_errors=MILP errors; milp_bound=MILP bound; "
                    "milp_proven=MILP proven; milp_s=MILP s; "
                    "milp_over_bnb=MILP / B&B",
                },
            ],
        },
        {
            "title": "Time against n",
            "tables": [
                {
                    "results": "quantized_relu_scaling_n",
                    "columns": "alpha; width; noise; n; distinct; nodes; errors; "
                    "fit_s=fit s; fit / fit(n=1e3)=fit / fit(1e3); "
                    "fit_on_distinct_s=fit on distinct s",
                }
            ],
        },
        {
            "title": "Real data quantised to Z_3",
            "tables": [{"results": "quantized_relu_real_data"}],
        },
    ],
}


if __name__ == "__main__":
    main()
