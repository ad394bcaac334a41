"""Chain-of-thought parity: next-token pretraining, then STaR / REINFORCE / GRPO.

Reproduces the claims of Tsilivis, Malach, Ullrich & Kempe (ICLR 2026) with
``ChainOfThoughtClassifier`` on ``make_cot_parity`` data, all in one process:

1. Headline, ``d = 30``, ``p_cot = 0.25``: held-out greedy accuracy and median
   response length after pretraining and after 10 rounds of STaR, REINFORCE
   and GRPO, the per-round history, and at ``p_cot = 0.4`` pretraining alone.
   Anchors on the same data: ``LogisticRegression`` and
   ``HistGradientBoostingClassifier`` on ``(x, y)`` (one-token answers).
2. The 1/3 threshold: pretraining alone for ``p_cot`` in [0.1, 0.6] at
   ``d = 25``; the switch point is where the held-out greedy accuracy crosses
   0.75 (linear interpolation).
3. RL rounds until the greedy accuracy on the training prompts reaches 0.95,
   against ``log((1 - p) / p)``, for the three RL algorithms; least-squares
   line per algorithm.

Times are wall-clock seconds and CPU seconds of this process (numpy on one
BLAS thread inside ``fit``), on the machine in the JSON's ``machine`` record.

4. Speed (``speed``): the RL rounds' CPU time against the dense products they
   need (see ``rl_speed``), for the three algorithms at the headline size.

Run: ``python -m benchmarks chain_of_thought`` (a few minutes on 2 busy cores);
``--tables headline,threshold,rounds,speed`` runs some; ``--quick`` for a smoke
run.
"""

import os
import time
from typing import NamedTuple

import numpy as np
from _harness import bench_arguments, ratio, report
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from sklearn_iclr.datasets import make_cot_parity
from sklearn_iclr.sequence import ChainOfThoughtClassifier
from sklearn_iclr.sequence._chain_of_thought import LOGITS_BLOCK, RESIDUAL_BLOCK


class ProductSeconds(NamedTuple):
    """CPU seconds per position of the forms of a round's two products
    (:func:`product_seconds`)."""

    logits: float
    contraction: float
    all_logits: float
    all_contractions: float
    grouped_logits: float
    c_ordered_contraction: float
    prompt_block_logits: float
    blocked_contraction: float


RL = ("star", "reinforce", "grpo")
TARGET = 0.95
# prompts per product in the prompt-major form of the logits, X1 @ W.T
PROMPT_BLOCK = 1024


def timed(func):
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def lengths(est, X):
    return (est.generate(X) != 0).sum(axis=1)


def headline(d, n, n_test, rounds, seed):
    X, y, seqs = make_cot_parity(n, d, p_cot=0.25, random_state=seed)
    X_test, y_test, _ = make_cot_parity(n_test, d, p_cot=0.25, random_state=seed + 1)
    rows, histories = [], {}
    for name, make in (
        ("LogisticRegression (anchor)", lambda: LogisticRegression()),
        ("HistGradientBoosting (anchor)", lambda: HistGradientBoostingClassifier()),
    ):
        est, wall, cpu = timed(lambda make=make: make().fit(X, y))
        rows.append(
            {
                "method": name,
                "p_cot": 0.25,
                "test accuracy": float(est.score(X_test, y_test)),
                "median length": 1.0,
                "wall s": wall,
                "cpu s": cpu,
            }
        )
    for rl in (None, *RL):
        est, wall, cpu = timed(
            lambda rl=rl: ChainOfThoughtClassifier(
                rl=rl, n_rl_rounds=rounds, random_state=seed
            ).fit(X, y, sequences=seqs)
        )
        reached = [h["round"] for h in est.history_ if h["greedy_accuracy"] >= TARGET]
        rows.append(
            {
                "method": "pretraining only" if rl is None else f"pretraining + {rl}",
                "p_cot": 0.25,
                "test accuracy": float(est.score(X_test, y_test)),
                "median length": float(np.median(lengths(est, X_test))),
                "first round >= 0.95": reached[0] if reached else None,
                "wall s": wall,
                "cpu s": cpu,
            }
        )
        if rl is not None:
            histories[rl] = est.history_
    X4, y4, seqs4 = make_cot_parity(n, d, p_cot=0.4, random_state=seed + 2)
    X4_test, y4_test, _ = make_cot_parity(n_test, d, p_cot=0.4, random_state=seed + 3)
    est, wall, cpu = timed(
        lambda: ChainOfThoughtClassifier(rl=None).fit(X4, y4, sequences=seqs4)
    )
    rows.append(
        {
            "method": "pretraining only",
            "p_cot": 0.4,
            "test accuracy": float(est.score(X4_test, y4_test)),
            "median length": float(np.median(lengths(est, X4_test))),
            "wall s": wall,
            "cpu s": cpu,
        }
    )
    anchor = rows[0]["test accuracy"]
    for row in rows:
        row["accuracy / LogReg"] = ratio(row["test accuracy"], anchor)
    return rows, histories


def threshold_sweep(d, n, n_test, grid, seed):
    rows = []
    for i, p in enumerate(grid):
        X, y, seqs = make_cot_parity(n, d, p_cot=p, random_state=seed + 10 * i)
        X_test, y_test, _ = make_cot_parity(
            n_test, d, p_cot=p, random_state=seed + 10 * i + 1
        )
        est, wall, _ = timed(
            lambda X=X, y=y, seqs=seqs: ChainOfThoughtClassifier(rl=None).fit(
                X, y, sequences=seqs
            )
        )
        length = lengths(est, X_test)
        rows.append(
            {
                "p_cot": float(p),
                "test accuracy": float(est.score(X_test, y_test)),
                "share greedy long": float(np.mean(length == d)),
                "median length": float(np.median(length)),
                "exact P(long)": est.history_[0]["long_share"],
                "wall s": wall,
            }
        )
        print(
            f"  p_cot={p:.3f}: accuracy {rows[-1]['test accuracy']:.3f}, "
            f"median length {rows[-1]['median length']:g}",
            flush=True,
        )
    return rows


def switch_point(rows, level=0.75):
    """First crossing of ``level`` by the accuracy, linearly interpolated."""
    p = np.array([r["p_cot"] for r in rows])
    acc = np.array([r["test accuracy"] for r in rows])
    for i in range(1, len(p)):
        if acc[i - 1] < level <= acc[i]:
            return float(
                p[i - 1]
                + (level - acc[i - 1]) * (p[i] - p[i - 1]) / (acc[i] - acc[i - 1])
            )
    return float("nan")


def rounds_sweep(d, n, grid, max_rounds, seed):
    rows = []
    for i, p in enumerate(grid):
        X, y, seqs = make_cot_parity(n, d, p_cot=p, random_state=seed + 100 + i)
        for rl in RL:
            est, wall, cpu = timed(
                lambda rl=rl, X=X, y=y, seqs=seqs: ChainOfThoughtClassifier(
                    rl=rl, n_rl_rounds=max_rounds, random_state=seed
                ).fit(X, y, sequences=seqs)
            )
            reached = [
                h["round"] for h in est.history_ if h["greedy_accuracy"] >= TARGET
            ]
            odds = [h["long_share"] / (1 - h["long_share"]) for h in est.history_]
            rows.append(
                {
                    "rl": rl,
                    "p_cot": float(p),
                    "log((1-p)/p)": float(np.log((1 - p) / p)),
                    "long demos": int(np.sum((seqs != 0).sum(axis=1) == d)),
                    "odds x round 1": float(odds[1] / odds[0]),
                    "theory switch round": int(
                        max(0, np.ceil(np.log2((1 - p) / (2 * p))))
                    ),
                    "rounds to 0.95": reached[0] if reached else None,
                    "final accuracy": est.history_[-1]["greedy_accuracy"],
                    "wall s": wall,
                    "cpu s": cpu,
                }
            )
            print(
                f"  p_cot={p:.3f} {rl}: rounds to 0.95 = {rows[-1]['rounds to 0.95']}"
                f" [{wall:.1f}s]",
                flush=True,
            )
    return rows


def fit_lines(rows, max_rounds):
    fits = []
    for rl in RL:
        sub = [r for r in rows if r["rl"] == rl]
        ok = [r for r in sub if r["rounds to 0.95"] is not None]
        row = {
            "rl": rl,
            "reached / tried": f"{len(ok)}/{len(sub)}",
            "max rounds": max_rounds,
        }
        if len(ok) >= 2:
            x = np.array([r["log((1-p)/p)"] for r in ok])
            r_ = np.array([r["rounds to 0.95"] for r in ok], dtype=float)
            slope, intercept = np.polyfit(x, r_, 1)
            resid = r_ - (slope * x + intercept)
            total = np.sum((r_ - r_.mean()) ** 2)
            # the alternative rounds = c / p, least squares through the origin
            inv = 1 / np.array([r["p_cot"] for r in ok])
            c = float(inv @ r_ / (inv @ inv))
            resid_inv = r_ - c * inv
            row.update(
                {
                    "slope": float(slope),
                    "intercept": float(intercept),
                    "R^2": float(1 - resid @ resid / total) if total > 0 else 1.0,
                    "c (rounds = c/p)": c,
                    "R^2 (c/p)": float(1 - resid_inv @ resid_inv / total)
                    if total > 0
                    else 1.0,
                }
            )
        fits.append(row)
    return fits


def product_seconds(X1, d, repeats=7):
    """CPU seconds of the two products a position's round is made of, over
    all ``n`` prompts: its logits ``(6, d + 1) @ (d + 1, n)`` (both halves,
    three tokens) and the gradient's contraction ``(6, n) @ (n, d + 1)``;
    then the same per position when one product serves all ``d`` positions
    (``(6 d, d + 1) @ (d + 1, n)`` and ``(6 d, n) @ (n, d + 1)``, divided by
    ``d``), which a model's tables and the policy gradient allow; and the
    logits per position when one product serves ``g = LOGITS_BLOCK``
    positions (``(6 g, d + 1) @ (d + 1, n)``, as the tables take them), the
    contraction of all positions as ``(d + 1, n) @ (n, 6 d)`` (the same
    product with C-ordered operands, as the policy gradient takes it), and
    the logits of all positions as ``X1 @ W.T``, one ``(b, d + 1) @ (d + 1,
    6 d)`` product per block of ``b = PROMPT_BLOCK`` prompts (the form of
    prompt-major tables), and the contraction of all positions summed over
    blocks of ``RESIDUAL_BLOCK`` prompts, ``(d + 1, b) @ (b, 6 d)`` each (the
    form the policy gradient takes, here with every operand read from
    memory)."""
    rng = np.random.RandomState(0)
    weights = rng.standard_normal((6, X1.shape[1]))
    residual = rng.standard_normal((6, X1.shape[0]))
    all_weights = rng.standard_normal((6 * d, X1.shape[1]))
    all_residuals = rng.standard_normal((6 * d, X1.shape[0]))
    all_residuals_t = np.ascontiguousarray(all_residuals.T)
    X1t = np.ascontiguousarray(X1.T)
    group_out = np.empty((6 * LOGITS_BLOCK, X1.shape[0]))
    block_out = np.empty((PROMPT_BLOCK, 6 * d))

    def grouped_logits():
        for start in range(0, 6 * d, 6 * LOGITS_BLOCK):
            group = all_weights[start : start + 6 * LOGITS_BLOCK]
            np.matmul(group, X1t, out=group_out[: len(group)])

    def prompt_block_logits():
        for start in range(0, X1.shape[0], PROMPT_BLOCK):
            rows = X1[start : start + PROMPT_BLOCK]
            np.matmul(rows, all_weights.T, out=block_out[: len(rows)])

    def blocked_contraction():
        total, block_total = np.zeros((2, X1.shape[1], 6 * d))
        for start in range(0, X1.shape[0], RESIDUAL_BLOCK):
            block = slice(start, start + RESIDUAL_BLOCK)
            np.matmul(X1t[:, block], all_residuals_t[block], out=block_total)
            total += block_total

    products = (
        (lambda: weights @ X1t, 1),
        (lambda: residual @ X1, 1),
        (lambda: all_weights @ X1t, d),
        (lambda: all_residuals @ X1, d),
        (grouped_logits, d),
        (lambda: X1t @ all_residuals_t, d),
        (prompt_block_logits, d),
        (blocked_contraction, d),
    )
    seconds = []
    for product, positions in products:
        samples = []
        for _ in range(repeats):
            cpu = time.process_time()
            for _ in range(20):
                product()
            samples.append((time.process_time() - cpu) / 20 / positions)
        seconds.append(float(np.median(samples)))
    return ProductSeconds(*seconds)


def rl_speed(d, n, rounds, repeats, seed):
    """The RL rounds' CPU time against the dense products they need.

    The rounds' time is a fit's minus pretraining alone, both timed
    alternately in this process (medians of ``repeats``), and the products
    are timed before every fit (the floor of an algorithm takes the medians
    of the products timed next to its fits). Every model (after
    pretraining and after each round) needs its logits once per position:
    sampling, the policy gradient and the round's record read them. A
    policy-gradient round adds one contraction per position (the gradient);
    a STaR round adds, per evaluation of its likelihood fits, the logits and
    the contraction over the ``m <= n`` prompts that reach the position
    (counted here by wrapping the objective; ``m / n`` of a product each).
    """
    import sklearn_iclr.sequence._chain_of_thought as cot

    X, y, seqs = make_cot_parity(n, d, p_cot=0.25, random_state=seed)
    X1 = np.hstack([np.ones((n, 1)), X])
    objective = cot._nll_and_grad
    rows_seen = []

    def counted(flat, X1_used, *args):
        rows_seen.append(len(X1_used))
        return objective(flat, X1_used, *args)

    rows, products = [], []
    for rl in RL:
        fits, pretrains, rl_products = [], [], []
        for _ in range(repeats):
            # the products are timed next to every fit: the load drifts
            with threadpool_limits(limits=1, user_api="blas"):
                rl_products.append(product_seconds(X1, d))
            est = ChainOfThoughtClassifier(rl=rl, n_rl_rounds=rounds, random_state=seed)
            rows_seen.clear()
            cot._nll_and_grad = counted
            try:
                fits.append(timed(lambda est=est: est.fit(X, y, sequences=seqs))[2])
                fit_rows = sum(rows_seen)
                rows_seen.clear()
                pretrains.append(
                    timed(
                        lambda: ChainOfThoughtClassifier(rl=None).fit(
                            X, y, sequences=seqs
                        )
                    )[2]
                )
                pretrain_rows = sum(rows_seen)
            finally:
                cot._nll_and_grad = objective
        seconds = float(np.median(fits) - np.median(pretrains))
        median = ProductSeconds(*np.median(rl_products, axis=0).tolist())
        products.extend(rl_products)
        # Each model's tables, and the policy gradient, may take all
        # positions in one product, or the tables a group of positions or a
        # block of prompts: the floor takes the cheapest form. STaR's
        # likelihood fits go position by position.
        n_logits = n_contractions = float(rounds * d)
        floor = n_logits * min(
            median.logits,
            median.all_logits,
            median.grouped_logits,
            median.prompt_block_logits,
        )
        if rl == "star":
            n_contractions = (fit_rows - pretrain_rows) / n
            n_logits += n_contractions
            floor += n_contractions * (median.logits + median.contraction)
        else:
            floor += n_contractions * min(
                median.contraction,
                median.all_contractions,
                median.c_ordered_contraction,
                median.blocked_contraction,
            )
        rows.append(
            {
                "rl": rl,
                "rounds": rounds,
                "rounds CPU s": seconds,
                "logits products": n_logits,
                "contractions": n_contractions,
                "logits product ms": 1e3 * median.logits,
                "contraction ms": 1e3 * median.contraction,
                "batched logits ms": 1e3 * median.all_logits,
                "batched contraction ms": 1e3 * median.all_contractions,
                f"logits in groups of {LOGITS_BLOCK} ms": 1e3 * median.grouped_logits,
                f"logits in blocks of {PROMPT_BLOCK} prompts ms": 1e3
                * median.prompt_block_logits,
                "batched contraction, C-ordered ms": 1e3 * median.c_ordered_contraction,
                f"contraction in blocks of {RESIDUAL_BLOCK} prompts ms": 1e3
                * median.blocked_contraction,
                "product floor CPU s": floor,
                "ratio to floor": seconds / floor,
                "fit CPU s": float(np.median(fits)),
                "final greedy accuracy": est.history_[-1]["greedy_accuracy"],
            }
        )
    return rows, ProductSeconds(*np.median(products, axis=0).tolist())


def configure(parser):
    parser.add_argument("--seed", type=int, default=0)


TABLES = ("headline", "threshold", "rounds", "speed")


def main(argv=None):
    args = bench_arguments(
        __doc__.splitlines()[0], argv, configure=configure, tables=TABLES
    )
    if args.quick:
        d, n, n_test, rounds = 12, 3000, 1000, 3
        d_sweep, n_sweep, grid = 10, 3000, [0.1, 0.3, 0.4, 0.6]
        d_rounds, n_rounds_data, grid_rounds, max_rounds = 10, 2000, [0.2, 0.05], 4
    else:
        d, n, n_test, rounds = 30, 20000, 4000, 10
        d_sweep, n_sweep = 25, 20000
        grid = [0.1, 0.2, 0.25, 0.28, 0.3, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36]
        grid += [0.38, 0.4, 0.5, 0.6]
        d_rounds, n_rounds_data, max_rounds = 16, 6000, 12
        grid_rounds = [0.3, 0.15, 0.07, 0.03, 0.015, 0.01]
    start = time.perf_counter()
    if "headline" in args.tables:
        headline_tables(d, n, n_test, rounds, args.seed)
    if "threshold" in args.tables:
        print(f"[{time.perf_counter() - start:.0f}s] threshold sweep at d = {d_sweep}")
        threshold_table(d_sweep, n_sweep, n_test, grid, args.seed)
    if "rounds" in args.tables:
        print(f"[{time.perf_counter() - start:.0f}s] rounds sweep at d = {d_rounds}")
        rounds_tables(d_rounds, n_rounds_data, grid_rounds, max_rounds, args.seed)
    if "speed" in args.tables:
        repeats = 1 if args.quick else 3
        speed_rows, products = rl_speed(d, n, rounds, repeats, args.seed)
        report(
            "chain_of_thought_speed",
            speed_rows,
            title=f"RL rounds against their dense products, d = {d}, n = {n}, "
            f"{rounds} rounds, 8 samples per prompt (medians over the run, per "
            f"position: logits {products.logits:.3g} CPU s alone, "
            f"{products.all_logits:.3g} in one product for all positions, "
            f"{products.grouped_logits:.3g} in groups of {LOGITS_BLOCK} "
            f"positions, {products.prompt_block_logits:.3g} in blocks of "
            f"{PROMPT_BLOCK} prompts; contraction {products.contraction:.3g} "
            f"alone, {products.all_contractions:.3g} in one product, "
            f"{products.c_ordered_contraction:.3g} in one "
            f"product of C-ordered operands, {products.blocked_contraction:.3g} "
            f"in blocks of {RESIDUAL_BLOCK} prompts)",
            meta={
                "d": d,
                "n": n,
                "rounds": rounds,
                "repeats": repeats,
                "logits_product_cpu_s": products.logits,
                "contraction_cpu_s": products.contraction,
                "batched_logits_cpu_s_per_position": products.all_logits,
                "batched_contraction_cpu_s_per_position": products.all_contractions,
                "grouped_logits_cpu_s_per_position": products.grouped_logits,
                "prompt_block_logits_cpu_s_per_position": products.prompt_block_logits,
                "c_ordered_contraction_cpu_s_per_position": (
                    products.c_ordered_contraction
                ),
                "blocked_contraction_cpu_s_per_position": products.blocked_contraction,
                "load": os.getloadavg(),
            },
        )
    print(f"total {time.perf_counter() - start:.0f}s")


def headline_tables(d, n, n_test, rounds, seed):
    rows, histories = headline(d, n, n_test, rounds, seed)
    report(
        "chain_of_thought_headline",
        rows,
        title=f"d = {d}, n = {n} (test {n_test}): held-out greedy accuracy, "
        f"{rounds} RL rounds",
        meta={"d": d, "n": n, "n_test": n_test, "rounds": rounds, "seed": seed},
    )
    history_rows = [
        {
            "rl": rl,
            **{k: h[k] for k in ("round", "greedy_accuracy", "median_length")},
            "long_share": h["long_share"],
            "expected_reward": h["expected_reward"],
        }
        for rl, hist in histories.items()
        for h in hist
    ]
    report(
        "chain_of_thought_history",
        history_rows,
        title=f"Per-round history on the training prompts (d = {d}, p_cot = 0.25)",
        meta={"d": d, "n": n, "p_cot": 0.25},
    )


def threshold_table(d_sweep, n_sweep, n_test, grid, seed):
    sweep = threshold_sweep(d_sweep, n_sweep, n_test, grid, seed)
    switch = switch_point(sweep)
    report(
        "chain_of_thought_threshold",
        sweep,
        title=f"Pretraining only, d = {d_sweep}, n = {n_sweep}: switch point "
        f"{switch:.4f} (1/3 = 0.3333, gap {switch - 1 / 3:+.4f})",
        meta={"d": d_sweep, "n": n_sweep, "switch_point": switch, "level": 0.75},
    )


def rounds_tables(d_rounds, n_rounds_data, grid_rounds, max_rounds, seed):
    rounds_rows = rounds_sweep(d_rounds, n_rounds_data, grid_rounds, max_rounds, seed)
    report(
        "chain_of_thought_rounds",
        rounds_rows,
        title=f"RL rounds to greedy accuracy 0.95, d = {d_rounds}, n = {n_rounds_data}",
        meta={"d": d_rounds, "n": n_rounds_data, "max_rounds": max_rounds},
    )
    report(
        "chain_of_thought_rounds_fit",
        fit_lines(rounds_rows, max_rounds),
        title="Least squares: rounds = slope * log((1-p)/p) + intercept "
        "(STaR theory at temperature 1: slope 1/ln 2 = 1.44 to the switch), "
        "and rounds = c / p",
    )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "ChainOfThoughtClassifier: parity by next-token pretraining, then RL",
    "estimators": {"ChainOfThoughtClassifier": "met"},
    "claim": """
        Tsilivis, Malach, Ullrich and Kempe (ICLR 2026): a next-token model
        pretrained on short answers mixed with rare chain-of-thought
        demonstrations of parity learns to answer only when the demonstrations
        exceed a threshold (``p_cot > 1/3`` for greedy decoding); a few rounds
        of reinforcement learning with an outcome reward then make the long
        chains dominate, with rounds growing like ``log((1-p)/p)`` (STaR).
    """,
    "findings": """
        * **Headline (d = 30, p_cot = 0.25): met.** Pretraining alone answers at
          chance (0.494 held-out greedy accuracy, median length 1), as do
          logistic regression and gradient boosting on the same one-token
          answers; one round of STaR, REINFORCE or GRPO gives 1.000 with chains
          of length 30. At ``p_cot = 0.4`` pretraining alone reaches 0.989.
        * **Threshold: met.** The greedy switch point is 0.326 at d = 25
          (1/3 - 0.007).
        * **Rounds against p: met with a steeper slope.** STaR's rounds to 0.95
          are linear in ``log((1-p)/p)`` (R^2 0.97) with slope 2.72, against
          1.44 for exact odds doubling; REINFORCE and GRPO rounds grow like
          ``1/p`` instead (R^2 0.98-1.00).
        * **Speed of the RL rounds (issue #42): met.** The floor is the dense
          products the rounds need, each timed alone over all n prompts in the
          same run and counted in its cheapest form: a model's logits as ``X1 @
          W.T``, one product per block of 1024 prompts (0.175 ms per position,
          against 0.188 in groups of 8 positions as the tables take them, 0.184
          for all 30 in one product and 0.268 alone), and the policy gradient's
          contraction of all positions summed over blocks of 128 prompts, the
          form the rounds take (0.240 ms per position with its operands read
          from memory, against 0.250 for one ``(d + 1, n) @ (n, 6 d)`` product
          of C-ordered operands, 0.293 for ``(6 d, n) @ (n, d + 1)`` and 0.333
          alone); STaR's likelihood fits go position by position. Against that
          floor (12.4 ms of products a round) ten rounds at d = 30, n = 20000
          take 2.49 times their products for REINFORCE, 2.31 for GRPO and 2.42
          for STaR in the table below (load 1.0-1.5), against a target of 3; a
          second run (not stored) gave 2.62, 2.23 and 2.30. A REINFORCE round
          takes about 31 ms, against 42-46 before this round's changes. Three
          changes made the difference, each measured in the same process
          against the code before it:

          - *A response follows its prompt's greedy response with one draw.*
            The record that normalises each model's tables walks the greedy
            responses, and it now also keeps each one's tokens and the chance
            that a sampled response agrees with it up to each position (the
            product of the greedy tokens' probabilities). One uniform draw
            then says how far a response agrees. A second draw picks the token
            with which it leaves, and only its later tokens are drawn, position
            by position over the responses still going. After the first round,
            71-97% of the responses follow their greedy response to its end
            (37% in the first). Sampling takes 3.0-5.2 ms a round after the
            first and 14 ms in the first (inside a fit), against 13.0-13.2 a
            round for the former sampler, which drew every token. The
            agreeing tokens of a policy-gradient round are not even written:
            their answers are.
            The draws come from numpy's SFC64 generator, stepped inside the
            sampler. numba's support for numpy Generators costs 5.9 ns a draw
            through a function pointer, against 1.6 ns inline.
          - *The policy gradient counts the agreeing tokens once per prompt,*
            along the greedy response and weighted by the responses that
            agree there. On the responses of the model after 1 and after 5
            rounds, the residual pass takes 7.6 and 6.7 ms, against 11.0 and
            11.8 when every token is counted (same process, same blocks).
          - *It contracts the residuals of 128 prompts at a time*, while they
            are still in cache, into one sum. The residual pass and the
            contraction take 11.3-12.0 ms a round, against 14.8-15.1 for one
            pass and then one product (blocks of 256 and 512 prompts:
            12.4-13.5).

          Seeded fits now draw other responses than before, from the same law.
          A chi-square test against the exact probability of every response of
          4 positions checks the sampler. What remains past the products of a
          round is about 19 ms: the tables beyond their product (the
          ``exp``, normalisation and the record, about 8.7 ms), sampling
          (about 5 ms averaged over the ten rounds), the residual pass
          (about 5 ms) and the rewards (0.7 ms).

          Tried in former rounds and not merged (each measured slower, or no
          faster, on the code of its time):

          - for the former sampler, which drew every token, SFC64 draws
            generated in numba, in a buffer or inside its kernel;
          - per-response previous-token cells;
          - residuals read per position over prompt blocks;
          - software prefetch;
          - tables laid out prompt-major (0.95 of the round then);
          - unnormalised odds with a normaliser table;
          - the gradient scattered by numba without a residual matrix.
    """,
    "sections": [
        {
            "title": "Pretraining, then RL",
            "tables": [
                {"results": "chain_of_thought_headline"},
                {"results": "chain_of_thought_history"},
            ],
        },
        {
            "title": "The 1/3 threshold of pretraining",
            "figures": [
                {
                    "results": "chain_of_thought_threshold",
                    "x": "p_cot",
                    "y": ["test accuracy", "share greedy long"],
                    "hline": [{"y": 0.5, "label": "chance"}],
                    "xlabel": "share of chain-of-thought demonstrations p_cot",
                    "ylabel": "held-out greedy accuracy / share",
                    "caption": "Pretraining alone: accuracy and share of long "
                    "greedy answers against p_cot (switch at 0.326).",
                }
            ],
            "tables": [{"results": "chain_of_thought_threshold"}],
        },
        {
            "title": "RL rounds against p",
            "figures": [
                {
                    "results": "chain_of_thought_rounds",
                    "x": "log((1-p)/p)",
                    "y": "rounds to 0.95",
                    "by": "rl",
                    "xlabel": "log((1 - p) / p)",
                    "ylabel": "RL rounds to accuracy 0.95",
                    "caption": "Rounds of STaR, REINFORCE and GRPO to reach 0.95.",
                }
            ],
            "tables": [
                {
                    "results": "chain_of_thought_rounds",
                    "columns": "p_cot; log((1-p)/p); long demos; "
                    "theory switch round=theory switch",
                    "pivot": "rl=rounds to 0.95",
                },
                {"results": "chain_of_thought_rounds_fit"},
            ],
        },
        {
            "title": "Speed of the RL rounds against their dense products",
            "text": """
                ``python -m benchmarks chain_of_thought --tables speed``: d =
                30, n = 20000, p_cot = 0.25, 10 rounds, 8 samples per prompt.
                The rounds' CPU time is a fit's minus pretraining alone
                (medians of 3, alternating). The floor is the dense products
                the rounds need, each timed alone over all n prompts in the
                same run. Every model (after pretraining and after each round)
                needs its logits once per position, one ``(6, d + 1) @ (d +
                1, n)`` product: sampling, the policy gradient and the round's
                record all read one table of next-token laws per (prompt,
                previous token) cell. A policy-gradient round adds one
                contraction ``(6, n) @ (n, d + 1)`` per position, the gradient.
                Both may serve all positions in one product (``(6 d, d + 1) @
                (d + 1, n)`` and ``(6 d, n) @ (n, d + 1)``). The logits may
                also come from a group of 8 positions (as the tables take
                them) or a block of 1024 prompts (``X1 @ W.T``, the form of
                prompt-major tables). The contraction may also be ``(d + 1, n)
                @ (n, 6 d)`` (C-ordered operands) or that product summed over
                blocks of 128 prompts (as the policy gradient takes it). The
                floor counts whichever form is cheapest. A STaR round adds a
                logits product and a contraction per evaluation of its
                likelihood fits, over the ``m <= n`` prompts that reach the
                position (counted, ``m / n`` of a product each). The products
                are timed before every fit, and each algorithm's floor takes
                the medians of those timed next to its fits.

                What the products leave is per response or per cell (numba).
                Each model's tables hold float32 probabilities: per position,
                numba writes the shifted logits, numpy takes their ``exp``,
                and one numba pass normalises them in place (float64 sums)
                while it takes the record one position further (the greedy
                responses, the chance of following them, the exact law of
                length and answer). A response then costs a uniform draw
                compared with its greedy response's chances, and a few tokens
                drawn one by one where it leaves that response. The weighted
                counts that feed the gradient are turned, one prompt at a
                time, into every position's residuals; a prompt whose
                responses all weigh 0 is skipped. A STaR round spends most of
                its time in the likelihood evaluations: per counted cell (about
                half of the (previous token, prompt) cells, since a prompt
                mostly reaches a position after one previous token), a log, a
                division and the residual (numba), the ``exp`` of the shifted
                logits (numpy), and L-BFGS-B's own work. Both products of an
                evaluation read one copy of the prompts.
            """,
            "figures": [
                {
                    "results": "chain_of_thought_speed",
                    "kind": "bar",
                    "x": "rl",
                    "y": ["ratio to floor"],
                    "labels": {"ratio to floor": "RL rounds / their dense products"},
                    "hline": [{"y": 3.0, "label": "target (issue #42)"}],
                    "xlabel": "",
                    "ylabel": "CPU time over the product floor",
                    "caption": "CPU time of ten RL rounds over the dense "
                    "products they need, timed in the same run.",
                }
            ],
            "tables": [{"results": "chain_of_thought_speed"}],
        },
    ],
}


if __name__ == "__main__":
    main()
