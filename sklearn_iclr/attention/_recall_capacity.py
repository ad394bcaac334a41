"""Measuring the recall capacity of RandomEmbeddingRecallClassifier.

The sample size a setting ``(d, L, V[, m])`` needs for a recall accuracy, found
by bracketing and bisection over fresh draws, and the log-linear scaling law
fitted to the settings (Vural, Bietti, Soltanolkotabi and Wu, ICLR 2026).
"""

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone

from ..utils._compat import Interval, validate_params
from ._random_embedding_recall import RandomEmbeddingRecallClassifier


def _check_grid(values, name, smallest, allow_empty=False):
    """Refuse a grid that is empty or holds anything but integers >= ``smallest``."""
    values = list(values)
    if (not values and not allow_empty) or not all(
        isinstance(v, Integral) and not isinstance(v, bool) and v >= smallest
        for v in values
    ):
        raise ValueError(
            f"{name} must be a non-empty sequence of integers >= {smallest}; "
            f"got {values!r}."
        )


def _draw_accuracies(estimator, n_samples, vocab_size, seq_len, n_test, seed, repeats):
    """Held-out accuracy of ``repeats`` independent draws at one sample size.

    Draw ``r`` has its own facts, sequences and embeddings: the data and the
    estimator's ``random_state`` are two independent seeds spawned from
    ``(seed, r)``, the same for every sample size (common random numbers).
    """
    from ..datasets import make_token_recall

    scores = []
    for r in range(repeats):
        data_seed, model_seed = np.random.SeedSequence([seed, r]).generate_state(2)
        X, y = make_token_recall(
            n_samples + n_test,
            vocab_size=vocab_size,
            seq_len=seq_len,
            random_state=int(data_seed),
        )
        estimator.set_params(random_state=int(model_seed))
        with warnings.catch_warnings():
            # A few sequences per fact is a regime the search must visit.
            warnings.filterwarnings("ignore", "The number of unique classes")
            estimator.fit(X[:n_samples], y[:n_samples])
        scores.append(np.mean(estimator.predict(X[n_samples:]) == y[n_samples:]))
    return np.asarray(scores)


def _crossing(evaluations, accuracy, lo, hi):
    """Log sample size where accuracy crosses ``accuracy``, and its stderr.

    Least squares of the per-draw accuracies on ``log N`` over the sizes
    evaluated within a factor 4 of the final bracket ``[lo, hi]``; the
    crossing of that line, clipped to the bracket, with the delta-method
    standard error plus the bracket's own resolution (uniform error).
    """
    log_lo, log_hi = np.log(lo), np.log(hi)
    resolution = (log_hi - log_lo) / np.sqrt(12)
    x, a = [], []
    for n, scores in evaluations:
        if log_lo - np.log(4) - 1e-9 <= np.log(n) <= log_hi + np.log(4) + 1e-9:
            x.extend([np.log(n)] * len(scores))
            a.extend(scores)
    x, a = np.asarray(x), np.asarray(a)
    if len(np.unique(x)) >= 2 and len(x) >= 3:
        slope, intercept = np.polyfit(x, a, 1)
        if slope > 0:
            resid = a - (intercept + slope * x)
            s2 = resid @ resid / max(len(x) - 2, 1)
            x_star = np.clip((accuracy - intercept) / slope, log_lo, log_hi)
            sxx = np.sum((x - x.mean()) ** 2)
            var_fit = s2 * (1 / len(x) + (x_star - x.mean()) ** 2 / sxx)
            return x_star, float(np.sqrt(var_fit / slope**2 + resolution**2))
    return (log_lo + log_hi) / 2, float((log_hi - log_lo) / 2)


def _log_linear_fit(table, names):
    """OLS of ``log n_required`` on the logs of the factors that vary."""
    rows = [r for r in table if r["reached"] and not r["censored"]]
    varying = [k for k in names if len({r[k] for r in rows}) > 1]
    result = {"exponents": {}, "exponents_stderr": {}, "intercept": np.nan}
    result.update(r2=np.nan, residuals=[None] * len(table), chi2_per_dof=np.nan)
    if len(rows) <= len(varying) + 1:
        return result
    A = np.c_[np.ones(len(rows)), [[np.log(r[k]) for k in varying] for r in rows]]
    target = np.log([r["n_required"] for r in rows])
    coef, *_ = np.linalg.lstsq(A, target, rcond=None)
    residual = target - A @ coef
    dof = len(rows) - A.shape[1]
    sigma2 = residual @ residual / dof
    cov = sigma2 * np.linalg.pinv(A.T @ A)
    total = np.sum((target - target.mean()) ** 2)
    noise = np.array([r["log_n_stderr"] for r in rows])
    result["intercept"] = float(coef[0])
    result["r2"] = float(1 - residual @ residual / total) if total > 0 else np.nan
    if np.all(noise > 0):
        result["chi2_per_dof"] = float(np.sum((residual / noise) ** 2) / dof)
    for k, name in enumerate(varying, start=1):
        result["exponents"][name] = float(coef[k])
        result["exponents_stderr"][name] = float(np.sqrt(cov[k, k]))
    fitted = iter(residual)
    result["residuals"] = [
        float(next(fitted)) if r["reached"] and not r["censored"] else None
        for r in table
    ]
    return result


def _search(est, V, L, accuracy, n_min, n_max, rtol, n_test, seed, repeats):
    """Bracket by factors of 4 from ``n_min``, then bisect on a log scale."""
    evaluations = []

    def evaluate(n):
        scores = _draw_accuracies(est, n, V, L, n_test, seed, repeats)
        evaluations.append((n, scores))
        return scores.mean()

    lo = n_min
    if evaluate(lo) >= accuracy:
        return evaluations, lo, lo, "below"
    hi = lo
    while True:
        hi = min(4 * hi, n_max)
        if evaluate(hi) >= accuracy:
            break
        if hi >= n_max:
            return evaluations, lo, None, None
        lo = hi
    while hi > (1 + rtol) * lo:
        mid = int(round(np.sqrt(lo * hi)))
        if mid <= lo or mid >= hi:
            break
        if evaluate(mid) >= accuracy:
            hi = mid
        else:
            lo = mid
    return evaluations, lo, hi, None


@validate_params(
    {
        "embedding_dims": ["array-like"],
        "seq_lens": ["array-like"],
        "vocab_sizes": ["array-like"],
        "accuracy": [Interval(Real, 0, 1, closed="right")],
        "mlp_widths": ["array-like"],
        "estimator": [RandomEmbeddingRecallClassifier, None],
        "n_min": [Interval(Integral, 1, None, closed="left"), None],
        "n_max": [Interval(Integral, 1, None, closed="left"), None],
        "rtol": [Interval(Real, 0, None, closed="neither")],
        "n_test": [Interval(Integral, 1, None, closed="left")],
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def recall_capacity(
    embedding_dims,
    seq_lens,
    vocab_sizes,
    *,
    accuracy=0.9,
    mlp_widths=(None,),
    estimator=None,
    n_min=None,
    n_max=None,
    rtol=0.2,
    n_test=1000,
    n_repeats=4,
    random_state=0,
):
    """Sample size needed for a recall accuracy, and its scaling law.

    For every setting ``(d, L, V[, m])`` of the grid, finds the smallest
    number of training sequences ``N`` of
    :func:`~sklearn_iclr.datasets.make_token_recall` at which the classifier
    reaches ``accuracy`` on ``n_test`` fresh sequences of the same facts, in
    the mean over ``n_repeats`` independent draws (facts, sequences and
    embeddings). The search brackets the crossing by factors of 4 from
    ``n_min``, bisects on a log scale until the bracket ``[lo, hi]`` has
    ``hi <= (1 + rtol) lo``, and places ``N`` inside it where a least-squares
    line of the per-draw accuracies against ``log N`` (over the sizes
    evaluated within a factor 4 of the bracket) crosses ``accuracy``; that
    line also gives the standard error of ``log N``. A setting already at
    ``accuracy`` at ``n_min`` is censored (flagged, left out of the fit).

    Then fits ``log N = c + a_d log d + a_L log L + a_V log V (+ a_m log m)``
    by least squares over the settings that reached it (factors with one
    value are left out). A multiplicative law ``N d ~ V L`` reads
    ``a_d = -1, a_L = a_V = 1``. From Vural, Bietti, Soltanolkotabi and Wu,
    "Learning to Recall with Transformers Beyond Orthogonal Embeddings" (ICLR
    2026, arXiv:2603.15923), whose capacity is multiplicative in ``N``, ``d``
    and ``L``.

    Parameters
    ----------
    embedding_dims, seq_lens, vocab_sizes : sequence of int
        The grid of ``d``, ``L`` (with the trigger) and ``V``.
    accuracy : float, default=0.9
        Held-out accuracy to reach (mean over the draws), in ``(0, 1]``.
    mlp_widths : sequence of int or None, default=(None,)
        Widths ``m`` of the attention-MLP model (``None``: attention-only).
    estimator : RandomEmbeddingRecallClassifier or None, default=None
        The model, cloned for every setting with ``embedding_dim``,
        ``mlp_width`` and ``vocab_size`` (``V + 1`` token ids) set and
        ``random_state`` redrawn for every draw;
        ``None`` uses the defaults.
    n_min, n_max : int or None, default=None
        The range of ``N``; ``None`` gives ``V`` and ``256 V``. A setting
        that misses ``accuracy`` at ``n_max`` is reported as not reached.
    rtol : float, default=0.2
        Relative width at which the bisection stops (``hi <= (1 + rtol) lo``).
    n_test : int, default=1000
        Held-out sequences per fit.
    n_repeats : int, default=4
        Independent draws per tested ``N``, the same draws (seeds spawned
        from ``random_state``) at every ``N``.
    random_state : int, default=0
        Seed of the draws.

    Returns
    -------
    result : dict
        ``"table"``: a list of dicts, one per setting, with keys
        ``"embedding_dim"``, ``"seq_len"``, ``"vocab_size"``, ``"mlp_width"``,
        ``"n_required"`` (``None`` if not reached), ``"log_n_stderr"``,
        ``"bracket"`` (``[lo, hi]``), ``"reached"``, ``"censored"`` (reached
        at ``n_min`` already), ``"evaluations"`` (``[N, mean accuracy,
        standard deviation over draws]`` for every tested ``N``) and
        ``"n_fits"``. ``"exponents"`` and ``"exponents_stderr"``: dicts keyed
        by ``"embedding_dim"``, ``"seq_len"``, ``"vocab_size"``,
        ``"mlp_width"``; ``"intercept"``; ``"r2"`` of the log-log fit;
        ``"residuals"`` (one per table row, ``None`` where left out);
        ``"chi2_per_dof"``: the mean squared residual in units of the
        settings' own ``log_n_stderr``, near 1 when the law fits within the
        measurement noise and far above 1 when the residual is structure.

    Examples
    --------
    >>> from sklearn_iclr.attention import recall_capacity
    >>> res = recall_capacity([16, 24, 32], [4], [16], accuracy=0.8,
    ...                       n_repeats=2, rtol=0.5, n_test=500)
    >>> [row["reached"] for row in res["table"]]
    [True, True, True]
    >>> sorted(res["exponents"])
    ['embedding_dim']
    """
    for values, name, smallest in (
        (embedding_dims, "embedding_dims", 1),
        (seq_lens, "seq_lens", 2),
        (vocab_sizes, "vocab_sizes", 2),
    ):
        _check_grid(values, name, smallest)
    if len(mlp_widths) == 0:
        raise ValueError(
            "mlp_widths must hold at least one width (None: the attention-only "
            "model); got an empty sequence."
        )
    _check_grid([m for m in mlp_widths if m is not None], "mlp_widths", 1, True)
    base = RandomEmbeddingRecallClassifier() if estimator is None else estimator
    table = []
    for m in mlp_widths:
        for V in vocab_sizes:
            for L in seq_lens:
                for d in embedding_dims:
                    est = clone(base).set_params(
                        embedding_dim=d, mlp_width=m, n_tokens=V + 1
                    )
                    lo_n = V if n_min is None else n_min
                    hi_n = 256 * V if n_max is None else n_max
                    evaluations, lo, hi, censored = _search(
                        est,
                        V,
                        L,
                        accuracy,
                        lo_n,
                        max(hi_n, lo_n),
                        rtol,
                        n_test,
                        random_state,
                        n_repeats,
                    )
                    reached = hi is not None
                    if censored or not reached:
                        n_required, stderr = (lo if reached else None), np.nan
                    else:
                        log_n, stderr = _crossing(evaluations, accuracy, lo, hi)
                        n_required = float(np.exp(log_n))
                    table.append(
                        {
                            "embedding_dim": d,
                            "seq_len": L,
                            "vocab_size": V,
                            "mlp_width": m,
                            "n_required": n_required,
                            "log_n_stderr": stderr,
                            "bracket": [lo, hi],
                            "reached": reached,
                            "censored": censored is not None,
                            "evaluations": [
                                [n, float(s.mean()), float(s.std())]
                                for n, s in sorted(evaluations, key=lambda e: e[0])
                            ],
                            "n_fits": len(evaluations) * n_repeats,
                        }
                    )
    names = ["embedding_dim", "seq_len", "vocab_size", "mlp_width"]
    fit = _log_linear_fit(table, names if None not in mlp_widths else names[:3])
    return {"table": table, **fit}
