"""SparseTokenAttentionClassifier against pooled and flattened logistic regression.

1. Fig. 1 of Barnfield, Cui & Lu (ICLR 2026) scaled to CPU: L = 10 tokens,
   R = 1 signal token, theta = 5, d = 400, n0 = n1 = 2d (two-step protocol,
   split 0.5). Test error of attention (two-step, and joint on the first
   seeds) and of the two linear baselines, trained on the same 2 x 800 bags,
   |cos(q, xi)|, fit time and its ratio to the pooled baseline's.
2. Query alignment: |cos(q, xi)| after the two gradient steps against n0
   (d = 400), mean and spread over seeds; balanced classes with R = 1,
   theta = 5, then rare positives (20%) with R = 3, theta = 6, the setting of
   the paper's alignment figure (which uses d = 1000).
3. Representation with the oracle query q = theta xi, w = xi (threshold fitted
   on 2000 bags) at theta = 2 log L: attention error against the best pooled
   linear rule, Phi(-theta R / (2 sqrt L)) (closed form), and pooled logistic
   regression learned from 4000 bags (d = 20).
4. Digit bags (8 images of scikit-learn's digits per bag, positive when it
   holds a 0; train and test bags from disjoint images): test accuracy over
   seeds, the attention hit rate (how often the most attended image of a
   positive bag is the 0) and fit times.

Run ``python -m benchmarks sparse_token_attention`` (``--quick`` for a smoke run).
BLAS runs on one thread: on a shared machine timings are only comparable
within one run, so the tables give time ratios.
"""

import time

import numpy as np
from _harness import bench_arguments, ratio, report
from scipy.special import softmax
from scipy.stats import norm
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from sklearn_iclr.attention import SparseTokenAttentionClassifier
from sklearn_iclr.attention._baselines import (
    make_flattened_logistic_regression,
    make_pooled_logistic_regression,
)
from sklearn_iclr.datasets import load_digit_bags, make_sparse_token


def timed_fit(estimator, X, y):
    start = time.perf_counter()
    estimator.fit(X, y)
    return estimator, time.perf_counter() - start


def fig1_rows(d, seeds, joint_seeds, n_test=2000):
    rows = []
    n0 = 2 * d
    for seed in seeds:
        X, y, xi, _ = make_sparse_token(
            2 * n0 + n_test, n_tokens=10, token_dim=d, n_signal_tokens=1,
            signal_strength=5.0, random_state=seed,
        )  # fmt: skip
        train, test = slice(0, 2 * n0), slice(2 * n0, None)
        models = {
            "attention two_step": SparseTokenAttentionClassifier(random_state=seed),
            "pooled LR": make_pooled_logistic_regression(max_iter=1000),
            "flattened LR": make_flattened_logistic_regression(max_iter=1000),
        }
        if seed in joint_seeds:
            models["attention joint"] = SparseTokenAttentionClassifier(
                protocol="joint", random_state=seed
            )
        fitted = {}
        for name, model in models.items():
            fitted[name] = timed_fit(model, X[train], y[train])
        pooled_time = fitted["pooled LR"][1]
        best_linear = min(
            1 - fitted[name][0].score(X[test], y[test])
            for name in ("pooled LR", "flattened LR")
        )
        for name, (model, seconds) in fitted.items():
            error = 1 - model.score(X[test], y[test])
            row = {"seed": seed, "model": name, "test_error": error}
            row["error/best_linear"] = ratio(error, best_linear)
            query = getattr(model, "query_", None)
            cos = np.nan if query is None else abs(query @ xi) / np.linalg.norm(query)
            row["|cos(q,xi)|"] = cos
            row["fit_s"] = seconds
            row["time/pooled"] = ratio(seconds, pooled_time)
            rows.append(row)
    return rows


def alignment_rows(d, n0_values, seeds, **data_params):
    rows = []
    for n0 in n0_values:
        cosines = []
        for seed in seeds:
            X, y, xi, _ = make_sparse_token(
                2 * n0, n_tokens=10, token_dim=d, random_state=seed, **data_params
            )
            model = SparseTokenAttentionClassifier(random_state=seed).fit(X, y)
            cosines.append(abs(model.query_ @ xi))
        rows.append(
            {
                "n0": n0,
                "n0/d": n0 / d,
                "mean|cos|": float(np.mean(cosines)),
                "std|cos|": float(np.std(cosines)),
                "min|cos|": float(np.min(cosines)),
            }
        )
    return rows


def oracle_rows(lengths, multipliers, d=20, n=4000):
    rows = []
    for L in lengths:
        for multiplier in multipliers:
            theta = multiplier * np.log(L)
            X, y, xi, _ = make_sparse_token(
                n, n_tokens=L, token_dim=d, signal_strength=theta, random_state=L
            )
            half = n // 2
            scores = X @ xi
            attended = np.sum(softmax(theta * scores, axis=1) * scores, axis=1)
            threshold = LogisticRegression().fit(attended[:half, None], y[:half])
            attention_error = 1 - threshold.score(attended[half:, None], y[half:])
            pooled = make_pooled_logistic_regression().fit(X[:half], y[:half])
            rows.append(
                {
                    "L": L,
                    "theta": theta,
                    "theta/log L": multiplier,
                    "attention_err (oracle q)": attention_error,
                    "pooled_err (best linear, exact)": norm.cdf(
                        -theta / (2 * np.sqrt(L))
                    ),
                    "pooled_err (LR, learned)": 1 - pooled.score(X[half:], y[half:]),
                }
            )
    return rows


def digit_rows(seeds, n_bags, beta=3.0):
    rows = []
    for seed in seeds:
        X, y = load_digit_bags(
            0, n_bags=n_bags, subset="train", return_X_y=True, random_state=seed
        )
        test = load_digit_bags(
            0, n_bags=n_bags, subset="test", random_state=1000 + seed
        )
        X_test, y_test, mask = test.data, test.target, test.target_mask
        models = {
            "attention two_step": SparseTokenAttentionClassifier(
                beta=beta, random_state=seed
            ),
            "attention joint": SparseTokenAttentionClassifier(
                protocol="joint", random_state=seed
            ),
            "pooled LR": make_pooled_logistic_regression(max_iter=1000),
            "flattened LR": make_flattened_logistic_regression(max_iter=1000),
        }
        fitted = {name: timed_fit(m, X, y) for name, m in models.items()}
        positive = y_test == 1
        for name, (model, seconds) in fitted.items():
            row = {"seed": seed, "model": name}
            row["test_accuracy"] = model.score(X_test, y_test)
            if hasattr(model, "attention_weights"):
                top = model.attention_weights(X_test)[positive].argmax(axis=1)
                row["hit_rate"] = float(mask[positive][np.arange(len(top)), top].mean())
            else:
                row["hit_rate"] = np.nan
            row["fit_s"] = seconds
            row["time/pooled"] = ratio(seconds, fitted["pooled LR"][1])
            rows.append(row)
    return rows


def summary(rows, key, value):
    """Mean and spread of ``value`` per ``key`` over the rows."""
    out = []
    for name in dict.fromkeys(r[key] for r in rows):
        values = [r[value] for r in rows if r[key] == name]
        out.append(
            {
                key: name,
                f"mean {value}": float(np.mean(values)),
                f"min {value}": float(np.min(values)),
                f"max {value}": float(np.max(values)),
                "runs": len(values),
            }
        )
    return out


def _options(parser):
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads")


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv, configure=_options)
    d = 100 if args.quick else 400
    seeds = range(2 if args.quick else 3)
    with threadpool_limits(args.threads):
        rows = fig1_rows(d, seeds, joint_seeds={0})
        report(
            "sparse_token_attention_fig1", rows,
            title=f"Fig. 1 setting: L=10, R=1, theta=5, d={d}, n0=n1=2d, 2000 test",
            meta={"d": d, "L": 10, "R": 1, "theta": 5.0, "n0": 2 * d},
        )  # fmt: skip
        n0_values = [d // 4, d // 2, d, 2 * d, 4 * d]
        alignment_seeds = range(3 if args.quick else 5)
        rows = alignment_rows(d, n0_values, alignment_seeds, signal_strength=5.0)
        report(
            "sparse_token_attention_alignment", rows,
            title=f"|cos(q, xi)| after two gradient steps vs n0 (d={d}, L=10)",
            meta={"d": d},
        )  # fmt: skip
        rare = {"n_signal_tokens": 3, "signal_strength": 6.0, "positive_fraction": 0.2}
        rows = alignment_rows(d, n0_values, alignment_seeds, **rare)
        report(
            "sparse_token_attention_alignment_rare", rows,
            title=f"Same, rare positives: pi=0.2, R=3, theta=6 (d={d}, L=10)",
            meta={"d": d, **rare},
        )  # fmt: skip
        lengths = [16, 64] if args.quick else [4, 16, 64, 256]
        rows = oracle_rows(lengths, multipliers=[1.0, 2.0])
        report(
            "sparse_token_attention_oracle",
            rows,
            title="Oracle query q = theta xi at theta = c log L (d=20, 2000 test)",
        )
        rows = digit_rows(seeds=range(2 if args.quick else 5), n_bags=600)
        report(
            "sparse_token_attention_digits",
            rows,
            title="Digit bags (8 images, target 0): test accuracy and hit rate",
        )
        report(
            "sparse_token_attention_digits_summary",
            summary(rows, "model", "test_accuracy"),
            title="Digit bags over seeds",
        )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "SparseTokenAttentionClassifier: attention over sparse tokens",
    "estimators": {"SparseTokenAttentionClassifier": "met"},
    "claim": """
        Barnfield, Cui and Lu (ICLR 2026): when the label of a bag of ``L``
        tokens is carried by a few signal tokens, single-layer attention
        trained with two gradient steps aligns its query with the hidden
        signal direction and beats every linear rule on the pooled tokens:
        attention needs a signal strength of order ``log L``, linear pooling
        of order ``sqrt(L)``.
    """,
    "findings": """
        * **Fig. 1 setting (L = 10, d = 400): met.** Attention errs 0.031-0.034
          where the better linear baseline errs 0.28-0.30 (ratio 0.11-0.12,
          claim at most 0.7); ``|cos(q, xi)|`` 0.94-0.96 (claim at least 0.5).
          The two-step fit costs 4-8.5 times the pooled logistic regression;
          the joint L-BFGS fit errs 0.044 with ``|cos|`` 0.66 (seed 0).
        * **Alignment grows with n0: met.** Monotone in both settings; 0.95 at
          ``n0 = 2d``, just above 0.5 at ``n0 = d/4``.
        * **Oracle query: met, one caveat.** At ``theta = 2 log L`` attention
          errs 0.0075, 0 and 0 for L = 16, 64, 256 while pooling errs
          0.25-0.37; at L = 16 the exact best linear error (0.244) is just under
          the claimed 0.25.
        * **Digit bags.** Attention reaches 0.965 test accuracy against 0.78
          (pooled) and 0.74 (flattened) logistic regression, and attends most
          to the target digit in 98-100 % of the positive bags.
    """,
    "sections": [
        {
            "title": "The paper's Fig. 1 setting",
            "tables": [{"results": "sparse_token_attention_fig1"}],
        },
        {
            "title": "Query alignment against n0",
            "figures": [
                {
                    "results": "sparse_token_attention_alignment",
                    "x": "n0/d",
                    "y": ["mean|cos|", "min|cos|"],
                    "labels": {"mean|cos|": "mean over seeds", "min|cos|": "min"},
                    "logx": True,
                    "hline": [{"y": 0.5, "label": "claim: 0.5"}],
                    "xlabel": "n0 / d",
                    "ylabel": "|cos(q, xi)|",
                    "caption": "Alignment of the learned query with the signal.",
                }
            ],
            "tables": [
                {"results": "sparse_token_attention_alignment"},
                {"results": "sparse_token_attention_alignment_rare"},
            ],
        },
        {
            "title": "Oracle query: log L against sqrt L",
            "figures": [
                {
                    "results": "sparse_token_attention_oracle",
                    "x": "L",
                    "y": [
                        "attention_err (oracle q)",
                        "pooled_err (best linear, exact)",
                    ],
                    "by": "theta/log L",
                    "logx": True,
                    "xlabel": "L (tokens)",
                    "ylabel": "test error",
                    "caption": "Attention with the oracle query against the best "
                    "linear rule on the mean token, theta = c log L.",
                }
            ],
            "tables": [{"results": "sparse_token_attention_oracle"}],
        },
        {
            "title": "Digit bags",
            "tables": [
                {"results": "sparse_token_attention_digits_summary"},
                {"results": "sparse_token_attention_digits"},
            ],
        },
    ],
}


if __name__ == "__main__":
    main()
