"""Default constructors on the data a user brings, next to a scikit-learn anchor.

Issue #38's table "default constructor on the user's data", rerun after every
fix of a default:

1. ``tables``: every estimator that takes a plain table, constructed with no
   argument, on scikit-learn's bundled data (``load_diabetes`` for the
   regressors, ``load_breast_cancer`` for the classifiers and the covariance
   models, ``load_digits`` for the encoders and the anomaly detector), raw and
   after ``StandardScaler``, on a 75/25 split. The anchor is the scikit-learn
   estimator a user would otherwise reach for, fitted on the same split in
   the same run.
2. ``generators``: the token, event, time-series, spin and MDP estimators,
   constructed with their defaults (and the data's own arguments, such as the
   coupling of an Ising model), on the package's own generators at their
   default settings.

Each row gives the score and the anchor's, the estimator's fit CPU time
(``time.process_time``, all threads), the warnings it raised (count and the
distinct messages) and the error, if the fit refused. numba's one-time
compilation is measured apart (``compile_s``, wall seconds), torch is imported
before any fit, so neither counts in a fit's time. ``--only NAME,...``
runs some estimators; ``--quick`` runs three fast ones.
"""

import time
import traceback
import warnings

import numpy as np
from _harness import bench_arguments, report
from sklearn.covariance import EmpiricalCovariance
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.decomposition import PCA
from sklearn.ensemble import IsolationForest
from sklearn.linear_model import LogisticRegression, Ridge, RidgeCV
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import sklearn_iclr
from sklearn_iclr import datasets
from sklearn_iclr.utils import CompileTimer

QUICK = ("ReplicableLinearRegressor", "GaussianEmbeddingModel", "LSTDQEvaluator")
_MESSAGE = 90  # characters kept of each distinct warning or error


def measure(fit):
    """``(result, cpu_seconds, compile_seconds, warnings, error)`` of ``fit()``.

    The CPU time leaves out numba's one-time compilation, which is measured
    (in wall seconds) apart.
    """
    with warnings.catch_warnings(record=True) as caught, CompileTimer() as timer:
        warnings.simplefilter("always")
        start = time.process_time()
        try:
            result, error = fit(), None
        except Exception as exc:  # the row reports the refusal
            result = None
            error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:_MESSAGE]
            if not isinstance(exc, ValueError | ImportError):
                traceback.print_exc()
        cpu = time.process_time() - start
    messages = [" ".join(str(w.message).split())[:_MESSAGE] for w in caught]
    return result, max(cpu - timer.seconds, 0.0), timer.seconds, messages, error


def _row(name, data, preprocessing, metric, anchor, anchor_score, measured):
    score, cpu, compile_seconds, messages, error = measured
    return {
        "estimator": name,
        "data": data,
        "preprocessing": preprocessing,
        "metric": metric,
        "score": None if score is None else float(score),
        "anchor": anchor,
        "anchor_score": None if anchor_score is None else float(anchor_score),
        "fit_cpu_s": cpu,
        "compile_s": compile_seconds,
        "warnings": len(messages),
        "messages": "; ".join(dict.fromkeys(messages)),
        "error": error,
    }


# -- plain tables ------------------------------------------------------------


def _regressor(Estimator, split):
    X_train, X_test, y_train, y_test = split

    def fit():
        return Estimator().fit(X_train, y_train).score(X_test, y_test)

    anchor = RidgeCV().fit(X_train, y_train).score(X_test, y_test)
    return "R^2", "RidgeCV", anchor, measure(fit)


def _classifier(Estimator, split):
    X_train, X_test, y_train, y_test = split

    def fit():
        return Estimator().fit(X_train, y_train).score(X_test, y_test)

    anchor = LogisticRegression(max_iter=5000).fit(X_train, y_train)
    return "accuracy", "LogisticRegression", anchor.score(X_test, y_test), measure(fit)


def _covariance(Estimator, split):
    X_train, X_test, _, _ = split

    def fit():
        return Estimator().fit(X_train).score(X_test)

    anchor = EmpiricalCovariance().fit(X_train).score(X_test)
    return "mean log-likelihood", "EmpiricalCovariance", anchor, measure(fit)


def _encoder(Estimator, split):
    """A logistic-regression probe on the embedding, against PCA of its width."""
    X_train, X_test, y_train, y_test = split
    probe = LogisticRegression(max_iter=5000)

    def fit():
        model = make_pipeline(Estimator(), probe).fit(X_train, y_train)
        return model.score(X_test, y_test), model[0].transform(X_test[:1]).shape[1]

    result, *rest = measure(fit)
    if result is None:
        return "probe accuracy", "PCA + probe", None, (None, *rest)
    score, width = result
    anchor = make_pipeline(PCA(width), LogisticRegression(max_iter=5000))
    anchor_score = anchor.fit(X_train, y_train).score(X_test, y_test)
    return "probe accuracy", f"PCA({width}) + probe", anchor_score, (score, *rest)


def _detector(Estimator, split):
    """One class (the training images of digit 0) as normal; AUROC on the test."""
    X_train, X_test, y_train, y_test = split
    normal = X_train[y_train == 0]
    is_normal = (y_test == 0).astype(int)

    def fit():
        return roc_auc_score(is_normal, Estimator().fit(normal).score_samples(X_test))

    anchor = IsolationForest(random_state=0).fit(normal).score_samples(X_test)
    return (
        "AUROC (digit 0 normal)",
        "IsolationForest",
        roc_auc_score(is_normal, anchor),
        measure(fit),
    )


def _escape(Estimator, split):
    X_train, _, y_train, _ = split

    def fit():
        return Estimator().fit(X_train, y_train).speed_

    return "escape speed", "-", None, measure(fit)


TABLES = {
    "AveragedLangevinRegressor": ("diabetes", _regressor),
    "EscapeDirection": ("diabetes", _escape),
    "LevenbergMarquardtMLPRegressor": ("diabetes", _regressor),
    "PhaseRetrievalRegressor": ("diabetes", _regressor),
    "ReplicableLinearRegressor": ("diabetes", _regressor),
    "SmallInitMLPRegressor": ("diabetes", _regressor),
    "ICEClassifier": ("breast_cancer", _classifier),
    "QuantizedReLUClassifier": ("breast_cancer", _classifier),
    "SparseTokenAttentionClassifier": ("breast_cancer", _classifier),
    "SpuriousRobustSGD": ("breast_cancer", _classifier),
    "GaussianEmbeddingModel": ("breast_cancer", _covariance),
    "ReplicableCovariance": ("breast_cancer", _covariance),
    "BReLUAttentionEncoder": ("digits", _encoder),
    "InfoNCEEncoder": ("digits", _encoder),
    "PatchConvAEDetector": ("digits", _detector),
}
_LOADERS = {
    "diabetes": load_diabetes,
    "breast_cancer": load_breast_cancer,
    "digits": load_digits,
}


def table_rows(names):
    rows = []
    for name in names:
        data, case = TABLES[name]
        X, y = _LOADERS[data](return_X_y=True)
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.25, random_state=0
        )
        scaler = StandardScaler().fit(X_train)
        versions = {
            "raw": (X_train, X_test),
            "StandardScaler": (scaler.transform(X_train), scaler.transform(X_test)),
        }
        for preprocessing, (train, test) in versions.items():
            metric, anchor, anchor_score, measured = case(
                getattr(sklearn_iclr, name), (train, test, y_train, y_test)
            )
            row = _row(
                name, data, preprocessing, metric, anchor, anchor_score, measured
            )
            print(f"{name:32} {data:13} {preprocessing:14} {row['score']} "
                  f"{row['anchor_score']} {row['fit_cpu_s']:.1f}s {row['error'] or ''}",
                  flush=True)  # fmt: skip
            rows.append(row)
    return rows


# -- the package's own generators ---------------------------------------------


def _sparse_token():
    from sklearn_iclr.attention._baselines import make_pooled_logistic_regression

    X, y, *_ = datasets.make_sparse_token(2000, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    est = sklearn_iclr.SparseTokenAttentionClassifier

    def fit():
        return est().fit(X_train, y_train).score(X_test, y_test)

    anchor = make_pooled_logistic_regression().fit(X_train, y_train)
    return (
        "make_sparse_token(2000)",
        "accuracy",
        "pooled LogisticRegression",
        (anchor.score(X_test, y_test)),
        measure(fit),
    )


def _token_recall():
    X, y = datasets.make_token_recall(2000, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    est = sklearn_iclr.RandomEmbeddingRecallClassifier

    def fit():
        return est().fit(X_train, y_train).score(X_test, y_test)

    anchor = make_pipeline(
        OneHotEncoder(handle_unknown="ignore"), LogisticRegression(max_iter=1000)
    ).fit(X_train, y_train)
    return (
        "make_token_recall(2000)",
        "accuracy",
        "one-hot LogisticRegression",
        (anchor.score(X_test, y_test)),
        measure(fit),
    )


def _cot_parity():
    X, y, sequences = datasets.make_cot_parity(2000, random_state=0)
    X_test, y_test, _ = datasets.make_cot_parity(1000, random_state=1)
    est = sklearn_iclr.ChainOfThoughtClassifier

    def fit():
        return est().fit(X, y, sequences=sequences).score(X_test, y_test)

    anchor = LogisticRegression(max_iter=1000).fit(X, y).score(X_test, y_test)
    return (
        "make_cot_parity(2000)",
        "accuracy",
        "LogisticRegression",
        anchor,
        (measure(fit)),
    )


def _moving_edges_binner():
    events = datasets.make_moving_edges(random_state=0)
    est = sklearn_iclr.EventFrameBinner

    def fit():
        binner = est().fit(events)
        binner.transform(events)
        return 1 - binner.n_dropped_ / len(events)

    return "make_moving_edges()", "share of events binned", "-", None, measure(fit)


def _moving_edges_motion():
    velocity = np.array([20.0, 10.0])  # make_moving_edges' default
    events = datasets.make_moving_edges(velocity=tuple(velocity), random_state=0)
    est = sklearn_iclr.ContrastMaximizationMotion

    def fit():
        model = est().fit(events)
        found = model.motion_[0, :2]  # the packet's translation, px per time unit
        return float(np.linalg.norm(found - velocity) / np.linalg.norm(velocity))

    return (
        "make_moving_edges()",
        "relative velocity error",
        "at rest",
        1.0,
        (measure(fit)),
    )


def _lds():
    lds = datasets.make_lds(2000, 1, noise=0.0, observation_noise=1.0, random_state=0)
    U, y = lds.inputs, lds.outputs[:, 0]
    half = len(y) // 2
    est = sklearn_iclr.SpectralFilterFeatures

    def fit():
        model = make_pipeline(est(), Ridge(alpha=1e-3)).fit(U[:half], y[:half])
        prediction = model.predict(U)[half:]
        return 1 - np.mean((prediction - y[half:]) ** 2) / np.var(y[half:])

    anchor = Ridge(alpha=1e-3).fit(U[:half], y[:half]).score(U[half:], y[half:])
    return (
        "make_lds(2000, 1, noise=0)",
        "R^2 (second half)",
        "Ridge on the input",
        (anchor),
        measure(fit),
    )


def _linear_mdp():
    from sklearn_iclr.rl._baselines import fitted_q_evaluation

    X, y, X_next, X_init, value, gamma = datasets.make_linear_mdp_dataset(
        4000, random_state=0
    )
    est = sklearn_iclr.LSTDQEvaluator

    def fit():
        estimate = est().fit(X, y, X_next=X_next).estimate_value(X_init)
        return abs(estimate - value) / abs(value)

    anchor, _ = fitted_q_evaluation(X, y, X_next, X_init, gamma=gamma, n_iter=50)
    return (
        "make_linear_mdp_dataset(4000)",
        "|J - J*| / |J*|",
        ("FQE, 50 Ridge steps, the generator's gamma"),
        abs(anchor - value) / abs(value),
        measure(fit),
    )


def _ising():
    n, beta = 2000, 0.5
    coupling = datasets.make_regular_coupling(n, 3, random_state=0)
    clauses = datasets.make_random_kcnf(n, 3, 5, random_state=0)
    X = datasets.make_truncated_ising(coupling, beta, clauses=clauses, random_state=0)
    est = sklearn_iclr.PseudoLikelihoodIsing

    def fit():
        return abs(est(coupling=coupling, clauses=clauses).fit(X).beta_ - beta)

    naive = est(coupling=coupling).fit(X).beta_
    return (
        "make_truncated_ising(n=2000, 3-CNF)",
        "|beta - beta*|",
        ("naive MPLE (ignores the CNF)"),
        abs(naive - beta),
        measure(fit),
    )


GENERATORS = {
    "SparseTokenAttentionClassifier": _sparse_token,
    "RandomEmbeddingRecallClassifier": _token_recall,
    "ChainOfThoughtClassifier": _cot_parity,
    "EventFrameBinner": _moving_edges_binner,
    "ContrastMaximizationMotion": _moving_edges_motion,
    "SpectralFilterFeatures": _lds,
    "LSTDQEvaluator": _linear_mdp,
    "PseudoLikelihoodIsing": _ising,
}


def generator_rows(names):
    rows = []
    for name in names:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the anchors' and the data's
            data, metric, anchor, anchor_score, measured = GENERATORS[name]()
        row = _row(name, data, "generator", metric, anchor, anchor_score, measured)
        print(f"{name:32} {row['score']} {row['anchor_score']} "
              f"{row['fit_cpu_s']:.1f}s {row['error'] or ''}", flush=True)  # fmt: skip
        rows.append(row)
    return rows


_COLUMNS = [
    "estimator",
    "data",
    "preprocessing",
    "metric",
    "score",
    "anchor",
    "anchor_score",
    "fit_cpu_s",
    "compile_s",
    "warnings",
    "messages",
    "error",
]


def main(argv=None):
    def configure(parser):
        parser.add_argument(
            "--only", default=None, help="comma-separated estimator names"
        )

    args = bench_arguments(
        __doc__.splitlines()[0],
        argv,
        configure=configure,
        tables=("tables", "generators"),
    )
    try:  # imported once here, so that no fit's time includes it
        import torch  # noqa: F401
    except ImportError:
        pass
    known = sorted(set(TABLES) | set(GENERATORS))
    only = args.only.split(",") if args.only else (QUICK if args.quick else known)
    if unknown := sorted(set(only) - set(known)):
        raise SystemExit(f"unknown estimators {unknown}; known: {known}")
    if "tables" in args.tables:
        names = [n for n in TABLES if n in only]
        report(
            "defaults_tables",
            table_rows(names),
            columns=_COLUMNS,
            title="Default constructors on scikit-learn's bundled data (75/25 split)",
        )
    if "generators" in args.tables:
        names = [n for n in GENERATORS if n in only]
        report(
            "defaults_generators",
            generator_rows(names),
            columns=_COLUMNS,
            title="Default constructors on the package's own generators",
        )


# The page of this benchmark in the docs (python -m benchmarks.render).
PAGE = {
    "title": "Default constructors on the data a user brings",
    "estimators": {},
    "claim": """
        Not a paper's claim but the package's (issue #38): an estimator built
        with no argument works on scikit-learn's bundled data, raw or
        standardised, or says clearly why not; and every estimator works with
        its defaults on the package's own generator. Each row is measured next
        to the scikit-learn estimator a user would otherwise reach for, on the
        same split in the same run. The integrator reruns this benchmark after
        the fixes of the defaults land (``python -m benchmarks defaults``).
    """,
    "findings": """
        After the fixes of issue #38 (the baseline before them is in
        ``CHANGELOG.md``):

        * **Fine on plain tables:** ``InfoNCEEncoder`` and
          ``BReLUAttentionEncoder`` (probe within 0.01 of PCA of the same width
          on scaled digits; BReLU, which diverged on digits raw and scaled,
          now trains: 0.84 raw, 0.94 scaled), ``PatchConvAEDetector`` (AUROC
          1.0), ``ICEClassifier``, ``SpuriousRobustSGD`` and
          ``SparseTokenAttentionClassifier`` (within 0.03 of logistic
          regression on breast cancer; the token model read the 30 columns as
          one-dimensional tokens, 0.63-0.72, and now warns and reads one token
          per row).
        * **Worse than the anchor, with a warning that says why:**
          ``ReplicableLinearRegressor`` falls back to its replicable constant on
          diabetes and names the n it needs, the same in any units. The
          constant is rounded on a grid drawn from the unseeded shared
          randomness, so its score is one draw: R^2 -6.1 raw and -3.0 scaled
          in this run against 0.37, where the warning quotes about -2.4 on
          average over the shared randomness (20 seeds on one split: -0.004 to
          -22.9); the replicability a user pays for at n = 331 and
          ``rho = 0.05``. ``PhaseRetrievalRegressor`` warns that the squared
          model does not fit (R^2 -2.5); ``ReplicableCovariance`` scores -210
          raw and -inf scaled held out on breast cancer and warns that the
          sample is too small for its budget;
          ``GaussianEmbeddingModel`` on raw breast cancer (-117.9 against
          29.4) warns that the features' variances span 4.6e10 and names
          the fix (scaled: -15.1 against -10.6).
        * **Worse than the anchor by design:** ``LevenbergMarquardtMLPRegressor``
          fits diabetes exactly, the paper's point (R^2 -1.0 raw, -0.54
          scaled against 0.37); its docstring points to ``alpha`` (5-fold CV
          0.50 against RidgeCV's 0.49) and ``early_stopping`` for noisy data.
        * **Refused up front:** ``QuantizedReLUClassifier`` on the 30 features
          (a budget error in milliseconds, with the estimate).
        * **Own generators:** every token, event, time-series, spin and MDP
          estimator beats its anchor with defaults. ``LSTDQEvaluator`` is
          within 0.6 % of the exact value (fitted-Q evaluation: 2.3 %) since
          its default discount is the generators' 0.9 (at the former 0.99 it
          was 9 times off); ``ContrastMaximizationMotion`` recovers the
          generator's motion within 1.1e-4 from rest.
    """,
    "sections": [
        {
            "title": "Plain tables: scikit-learn's bundled data",
            "text": """
                75/25 split; ``fit_cpu_s`` is the process CPU time of the fit
                (numba's compilation is in ``compile_s``, and torch is imported
                before); an empty score means the fit refused (``error``).
            """,
            "figures": [
                {
                    "results": "defaults_tables",
                    "kind": "bar",
                    "x": "estimator",
                    "y": ["score", "anchor_score"],
                    "where": {"metric": "R^2", "preprocessing": "StandardScaler"},
                    "labels": {
                        "score": "default constructor",
                        "anchor_score": "RidgeCV",
                    },
                    "xlabel": "",
                    "ylabel": "held-out R^2",
                    "caption": "Regressors with their defaults on load_diabetes "
                    "after StandardScaler, next to RidgeCV.",
                },
                {
                    "results": "defaults_tables",
                    "kind": "bar",
                    "x": "estimator",
                    "y": ["score", "anchor_score"],
                    "where": {"metric": "accuracy"},
                    "by": "preprocessing",
                    "labels": {
                        "score": "default constructor",
                        "anchor_score": "LogisticRegression",
                    },
                    "xlabel": "",
                    "ylabel": "held-out accuracy",
                    "caption": "Classifiers with their defaults on "
                    "load_breast_cancer, raw and standardised (no bar: refused).",
                },
            ],
            "tables": [
                {
                    "results": "defaults_tables",
                    "columns": "estimator; data; preprocessing; metric; score; "
                    "anchor; anchor_score=anchor score; fit_cpu_s=fit CPU s; "
                    "compile_s=compile s; warnings; messages=first words of the "
                    "warnings; error",
                }
            ],
        },
        {
            "title": "The package's own generators",
            "tables": [
                {
                    "results": "defaults_generators",
                    "columns": "estimator; data; metric; score; anchor; "
                    "anchor_score=anchor score; fit_cpu_s=fit CPU s; "
                    "compile_s=compile s; warnings; messages=first words of the "
                    "warnings; error",
                }
            ],
        },
    ],
}


if __name__ == "__main__":
    main()
