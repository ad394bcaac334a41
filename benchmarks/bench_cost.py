"""Calibrate the cost table of the budget checks on this machine.

For every entry of ``sklearn_iclr.utils._cost.COSTS``, run the workloads that
count that unit (a real fit or call of each estimator that uses it), read the
fit's counts of work from its refusal at a tiny budget, and time the fit in
CPU seconds, on one thread. The reference matrix product (float64, 256 x 256,
one thread) is timed just before and after each workload, so that each cost is
measured as a same-run ratio against it and converted to reference seconds
(``REFERENCE_MULTIPLY_ADDS_PER_SECOND``). The table compares the measured
reference seconds per unit with the table's: ``measured / table`` far from 1
means that an entry (or the estimator's count of its work) is stale.

Where a fit counts several units (skorch training: multiply-adds and optimiser
steps), the other units' share is taken from the table and the rest is
charged to the unit the workload calibrates.

Run ``python -m benchmarks cost [--quick] [--out DIR]``.
"""

import os
import statistics
import time
import warnings

import numpy as np
from _harness import bench_arguments, report
from sklearn.datasets import load_diabetes, make_classification
from threadpoolctl import threadpool_limits

from sklearn_iclr.utils import WorkBudgetError
from sklearn_iclr.utils._cost import COSTS, REFERENCE_MULTIPLY_ADDS_PER_SECOND

ANCHOR_SIZE = 256


def anchor_seconds(repeats=5, products=8):
    """CPU seconds per multiply-add of the reference product on this core."""
    rng = np.random.default_rng(0)
    a, b = rng.random((2, ANCHOR_SIZE, ANCHOR_SIZE))
    a @ b
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(products):
            a @ b
        times.append(time.process_time() - start)
    return statistics.median(times) / (products * ANCHOR_SIZE**3)


def refused_work(fit):
    """The counts of work that ``fit`` (run at a tiny budget) is refused with."""
    try:
        fit()
    except WorkBudgetError as error:
        return error.work
    raise RuntimeError("the tiny budget was accepted: the workload is misdeclared")


def cpu_seconds(fit):
    start = time.process_time()
    fit()
    return time.process_time() - start


# Each workload: (unit it calibrates, name, make(quick) -> (fit, tiny_fit, work)),
# where ``fit`` runs the timed work, ``tiny_fit`` the same at a tiny budget,
# and ``work`` (optional) counts the work after the fit when the budget bounds
# a worst case rather than the work done.


def _escape_direction(quick):
    from sklearn_iclr.neural_network import EscapeDirection

    X, y = load_diabetes(return_X_y=True)
    params = {"n_restarts": 1, "max_iter": 100 if quick else 1000, "tol": 0.0}
    return (
        lambda: EscapeDirection(random_state=0, **params).fit(X, y),
        lambda: EscapeDirection(max_work=1e-9, **params).fit(X, y),
    )


def _small_init_mlp(quick):
    from sklearn_iclr.neural_network import SmallInitMLPRegressor

    X, y = load_diabetes(return_X_y=True)
    params = {"max_iter": 100 if quick else 1000}
    return (
        lambda: SmallInitMLPRegressor(random_state=0, **params).fit(X, y),
        lambda: SmallInitMLPRegressor(max_work=1e-9, **params).fit(X, y),
    )


def _brelu_attention(quick):
    from sklearn_iclr.contrastive import BReLUAttentionEncoder
    from sklearn_iclr.datasets import make_sparse_coding_pairs

    X, X_positive, *_ = make_sparse_coding_pairs(500, random_state=0)
    params = {"max_epochs": 2 if quick else 20}
    return (
        lambda: BReLUAttentionEncoder(random_state=0, **params).fit(
            X, X_positive=X_positive
        ),
        lambda: BReLUAttentionEncoder(max_work=1e-9, **params).fit(
            X, X_positive=X_positive
        ),
    )


def _random_embedding_recall(quick):
    from sklearn_iclr.attention import RandomEmbeddingRecallClassifier
    from sklearn_iclr.datasets import make_token_recall

    X, y = make_token_recall(1000 if quick else 4000, random_state=0)
    params = {"embedding_dim": 16, "training": "adam", "max_iter": 20 if quick else 200}
    return (
        lambda: RandomEmbeddingRecallClassifier(random_state=0, **params).fit(X, y),
        lambda: RandomEmbeddingRecallClassifier(max_work=1e-9, **params).fit(X, y),
    )


def _gpc_controller(quick):
    from sklearn_iclr.datasets import make_lds
    from sklearn_iclr.dynamical import GPCController

    lds = make_lds(300 if quick else 3000, 3, input_dim=1, random_state=0)
    return (
        lambda: GPCController(lds.A, lds.B, memory=10, random_state=0).run(
            lds.disturbances
        ),
        lambda: GPCController(lds.A, lds.B, memory=10, max_work=1e-9).run(
            lds.disturbances
        ),
    )


def _phase_retrieval(quick):
    from sklearn_iclr.datasets import make_power_law_phase_retrieval
    from sklearn_iclr.single_index import PhaseRetrievalRegressor

    X, y, _ = make_power_law_phase_retrieval(1000, 100, random_state=0)
    params = {"solver": "gd", "max_iter": 50 if quick else 500, "tol": 0.0}
    return (
        lambda: PhaseRetrievalRegressor(random_state=0, **params).fit(X, y),
        lambda: PhaseRetrievalRegressor(max_work=1e-9, **params).fit(X, y),
    )


def _infonce(quick):
    from sklearn_iclr.contrastive import InfoNCEEncoder

    X, _ = make_classification(2000, 64, random_state=0)
    params = {
        "hidden_layer_sizes": (256,),
        "batch_size": 256,
        "max_epochs": 2 if quick else 20,
    }
    return (
        lambda: InfoNCEEncoder(random_state=0, **params).fit(X),
        lambda: InfoNCEEncoder(max_work=1e-9, **params).fit(X),
    )


def _spurious_sgd_steps(quick):
    from sklearn_iclr.linear_model import SpuriousRobustSGD

    X, y = make_classification(1000, 12, random_state=0)
    params = {"batch_size": 8, "max_epochs": 1 if quick else 5}
    return (
        lambda: SpuriousRobustSGD(random_state=0, **params).fit(X, y),
        lambda: SpuriousRobustSGD(max_work=1e-9, **params).fit(X, y),
    )


def _phase_dynamics(method):
    def make(quick):
        from sklearn_iclr.datasets import power_law_spectrum
        from sklearn_iclr.single_index import phase_retrieval_dynamics

        spectrum = power_law_spectrum(200, 2.0)
        w_star = np.ones(200) / np.sqrt(spectrum.sum())
        n_steps = (10**4 if quick else 10**5) * (10 if method == "population" else 1)
        args = (spectrum, w_star, n_steps, 0.01)
        return (
            lambda: phase_retrieval_dynamics(*args, method, random_state=0),
            lambda: phase_retrieval_dynamics(*args, method, max_work=1e-9),
        )

    return make


def _averaged_langevin(quick):
    from sklearn_iclr.datasets import make_single_index
    from sklearn_iclr.single_index import AveragedLangevinRegressor

    X, y, _ = make_single_index(2000, 16, random_state=0)
    params = {"information_exponent": 3, "max_iter": 50 if quick else 500}
    return (
        lambda: AveragedLangevinRegressor(random_state=0, **params).fit(X, y),
        lambda: AveragedLangevinRegressor(max_gradient_evaluations=1, **params).fit(
            X, y
        ),
    )


def _chain_of_thought(quick):
    from sklearn_iclr.datasets import make_cot_parity
    from sklearn_iclr.sequence import ChainOfThoughtClassifier

    X, y, sequences = make_cot_parity(2000, 20, random_state=0)
    params = {"n_rl_rounds": 1 if quick else 5, "max_iter": 20}
    return (
        lambda: ChainOfThoughtClassifier(random_state=0, **params).fit(
            X, y, sequences=sequences
        ),
        lambda: ChainOfThoughtClassifier(max_sampled_tokens=1, **params).fit(
            X, y, sequences=sequences
        ),
    )


def _contrast_maximization(quick):
    from sklearn_iclr.datasets import make_moving_edges
    from sklearn_iclr.events import ContrastMaximizationMotion

    X = make_moving_edges(5000 if quick else 50000, random_state=0)
    params = {"max_iter": 20, "tol": 0.0}
    return (
        lambda: ContrastMaximizationMotion(**params).fit(X),
        lambda: ContrastMaximizationMotion(max_events=1, **params).fit(X),
    )


def _event_frames(quick):
    from sklearn_iclr.events import EventFrameBinner

    side = 256 if quick else 1024
    rng = np.random.default_rng(0)
    n_packets = 32
    X = np.column_stack(
        [
            rng.uniform(0, side, 1000),
            rng.uniform(0, side, 1000),
            np.linspace(0, 1, 1000),
            np.ones(1000),
            np.repeat(np.arange(n_packets), -(-1000 // n_packets))[:1000],
        ]
    )
    shape = (side, side)

    def tiny():
        # Pixels per packet, for all packets.
        EventFrameBinner(shape=shape, max_pixels=1).fit(X)

    def count(work):
        return {"frame_pixel": work["frame_pixel"] * n_packets}

    return (
        lambda: EventFrameBinner(shape=shape).fit_transform(X),
        tiny,
        count,
    )


def _simulate(quick):
    from sklearn_iclr.bandits import MatchingMarket, RobustETGS, simulate
    from sklearn_iclr.datasets import make_matching_market

    means, arm_preferences, _ = make_matching_market(5, 5, gap=0.2, random_state=0)
    market = MatchingMarket(means, arm_preferences, noise_std=1.0, random_state=0)
    horizon = 50_000 if quick else 500_000
    return (
        lambda: simulate(market, RobustETGS(0.0), horizon, n_runs=2, n_points=10),
        lambda: simulate(
            market, RobustETGS(0.0), horizon, n_runs=2, max_player_rounds=1
        ),
    )


def _ice_exact(quick):
    from sklearn_iclr.linear_model import ICEClassifier

    X, y = make_classification(
        60 if quick else 250, 3, n_redundant=0, flip_y=0.3, random_state=0
    )
    return (
        lambda: ICEClassifier(search="exact", max_candidates=10**12).fit(X, y),
        # Above the linear program's share, below the search's.
        lambda: ICEClassifier(search="exact", max_candidates=10_000).fit(X, y),
    )


def _ice_linear_program(quick):
    from sklearn_iclr.linear_model import ICEClassifier

    rng = np.random.default_rng(0)
    X = rng.standard_normal((100 if quick else 300, 8))
    y = (X[:, 0] > 0).astype(int)  # separable: the linear program is the fit
    return (
        lambda: ICEClassifier(degree=3).fit(X, y),
        lambda: ICEClassifier(degree=3, max_candidates=1).fit(X, y),
    )


def _quantized_table(quick):
    from sklearn_iclr.neural_network import QuantizedReLUClassifier

    rng = np.random.default_rng(0)
    n_features = 5 if quick else 7
    X = rng.integers(-1, 2, size=(400, n_features))
    y = (X.sum(axis=1) > 0).astype(int)
    params = {"hidden_layer_sizes": (), "quantization": None}
    return (
        lambda: QuantizedReLUClassifier(**params).fit(X, y),
        lambda: QuantizedReLUClassifier(max_candidates=1, **params).fit(X, y),
    )


def _quantized_search(quick):
    from sklearn_iclr.neural_network import QuantizedReLUClassifier

    rng = np.random.default_rng(0)
    X = rng.integers(-1, 2, size=(400, 3 if quick else 4))
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    params = {"hidden_layer_sizes": (2,), "quantization": None, "random_state": 0}
    fitted = {}

    def fit():
        fitted["est"] = QuantizedReLUClassifier(**params).fit(X, y)

    def count(work):
        # The searched nodes, each bounded on every distinct input, on top of
        # the pattern table (the refusal's count).
        n_inputs = len(np.unique(X, axis=0))
        return {**work, "node_input": float(fitted["est"].n_nodes_) * n_inputs}

    return (
        fit,
        lambda: QuantizedReLUClassifier(max_candidates=1, **params).fit(X, y),
        count,
    )


def _dense_eigh(quick):
    from scipy.linalg import eigh

    from sklearn_iclr.dynamical import hankel_matrix

    window = 256 if quick else 1024
    matrix = hankel_matrix(window)

    def tiny():
        raise WorkBudgetError("", work={"eigh_cube": float(window) ** 3}, seconds=0)

    return lambda: eigh(matrix), tiny


WORKLOADS = [
    ("multiply_add", "EscapeDirection, diabetes", _escape_direction),
    ("multiply_add", "SmallInitMLPRegressor, diabetes", _small_init_mlp),
    ("multiply_add", "BReLUAttentionEncoder, 500 pairs", _brelu_attention),
    ("multiply_add", "RandomEmbeddingRecallClassifier, adam", _random_embedding_recall),
    ("controller_step", "GPCController.run, memory 10", _gpc_controller),
    ("multiply_add", "PhaseRetrievalRegressor, gd", _phase_retrieval),
    ("torch_multiply_add", "InfoNCEEncoder, 64-256-32", _infonce),
    ("torch_step", "SpuriousRobustSGD, linear, batch 8", _spurious_sgd_steps),
    ("coordinate_update", "phase_retrieval_dynamics", _phase_dynamics("population")),
    (
        "sgd_coordinate_update",
        "phase_retrieval_dynamics",
        _phase_dynamics("online_sgd"),
    ),
    ("langevin_coordinate", "AveragedLangevinRegressor", _averaged_langevin),
    ("sampled_token", "ChainOfThoughtClassifier, STaR", _chain_of_thought),
    ("event_warp", "ContrastMaximizationMotion", _contrast_maximization),
    ("frame_pixel", "EventFrameBinner, 32 packets", _event_frames),
    ("player_round", "simulate, RobustETGS", _simulate),
    ("hyperplane_examination", "ICEClassifier, exact, 3 features", _ice_exact),
    ("lp_entry", "ICEClassifier, degree 3, separable", _ice_linear_program),
    ("unit_evaluation", "QuantizedReLUClassifier, one unit", _quantized_table),
    ("node_input", "QuantizedReLUClassifier, width 2", _quantized_search),
    ("eigh_cube", "scipy.linalg.eigh, Hankel", _dense_eigh),
]


def measure(unit, name, make, quick):
    """One row: the workload's counts, CPU time and cost per unit."""
    fit, tiny, *count = make(quick)
    fit()  # compiles numba kernels, loads torch, warms caches
    work = refused_work(tiny)
    before = anchor_seconds()
    seconds = cpu_seconds(fit)
    anchor = (before + anchor_seconds()) / 2
    if count:
        work = count[0](work)
    # This machine's seconds per reference second.
    speed = anchor * REFERENCE_MULTIPLY_ADDS_PER_SECOND
    others = sum(COSTS[u].seconds * n for u, n in work.items() if u != unit) * speed
    measured = max(seconds - others, 0.0) / work[unit] / speed
    return {
        "unit": unit,
        "workload": name,
        "count": float(work[unit]),
        "cpu s": seconds,
        "table": COSTS[unit].seconds,
        "measured": measured,
        "measured / table": measured / COSTS[unit].seconds,
        "anchor ns/MA": anchor * 1e9,
    }


def main(argv=None):
    args = bench_arguments(__doc__.splitlines()[0], argv)
    rows = []
    # Short fits stop early or warn of it: the warnings do not matter here.
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_threads = _torch_threads(1)
        try:
            for unit, name, make in WORKLOADS:
                rows.append(measure(unit, name, make, args.quick))
                print(
                    f"{unit:24s} {name:40s} x{rows[-1]['measured / table']:.2f}",
                    flush=True,
                )
        finally:
            _torch_threads(torch_threads)
    units = sorted({row["unit"] for row in rows}, key=list(COSTS).index)
    summary = {
        unit: statistics.median(r["measured"] for r in rows if r["unit"] == unit)
        for unit in units
    }
    report(
        "cost",
        rows,
        title=(
            "Reference seconds per unit of work: the table's and this machine's "
            "(CPU, one thread), measured against the reference product in the "
            f"same run; load average {os.getloadavg()[0]:.2f}"
        ),
        meta={
            "reference_multiply_adds_per_second": REFERENCE_MULTIPLY_ADDS_PER_SECOND,
            "median_measured_per_unit": summary,
            "load_average": os.getloadavg(),
            "quick": args.quick,
        },
    )


def _torch_threads(n):
    """Set torch's CPU threads (if torch is installed); return the old count."""
    try:
        import torch
    except ImportError:
        return n
    old = torch.get_num_threads()
    torch.set_num_threads(n)
    return old


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "The cost table of the budget checks",
    "estimators": {},
    "claim": """
        Not a paper's claim but the package's: every budget check
        (``max_work``) reads one calibrated table of reference seconds per unit
        of work, so that a refusal's time estimate holds on the machine that
        calibrated it. Each entry is measured against a reference matrix
        product timed in the same run.
    """,
    "findings": """
        ``measured / table`` far from 1 means that an entry, or an estimator's
        count of its work, is stale. Written by the helper that built the
        table; the findings of its calibration runs belong here.
    """,
    "sections": [
        {
            "title": "Measured against the table",
            "figures": [
                {
                    "results": "cost",
                    "kind": "bar",
                    "x": "workload",
                    "y": "measured / table",
                    "hline": [{"y": 1.0, "label": "the table"}],
                    "xlabel": "",
                    "ylabel": "measured / table",
                    "caption": "Reference seconds per unit measured on this "
                    "machine over the table's, per workload.",
                }
            ],
            "tables": [{"results": "cost"}],
        }
    ],
}


if __name__ == "__main__":
    main()
