"""Oracles that the tests and the benchmarks share: answers nobody here wrote.

Each oracle computes a reference answer with a method independent of the
estimator it checks (an exact MILP solved by HiGHS, the steady-state Kalman
filter from scipy's Riccati solver) or draws a problem whose answer is known
by construction (a planted network). The tests compare the estimators with
them on small inputs and the benchmarks at full size; one definition keeps the
two from drifting apart.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.linalg import solve_discrete_are
from scipy.optimize import Bounds, LinearConstraint, milp

from ..utils._compat import Interval, validate_params

__all__ = [
    "MILPResult",
    "distinct_input_counts",
    "kalman_predictions",
    "milp_01_loss",
    "planted_quantized_network",
]


class MILPResult(NamedTuple):
    """Outcome of :func:`milp_01_loss`.

    Attributes
    ----------
    loss : float
        The (weighted) number of training errors of the best separator found.
    gap : float
        HiGHS's relative MIP gap at the end (0 when proven optimal).
    proven : bool
        Whether HiGHS proved the loss optimal within ``mip_rel_gap``.
    """

    loss: float
    gap: float
    proven: bool


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "sample_weight": ["array-like", None],
        "box": [Interval(Real, 0, None, closed="neither")],
        "mip_rel_gap": [Interval(Real, 0, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def milp_01_loss(
    X, y, sample_weight=None, *, box=1e3, mip_rel_gap=0.0, time_limit=60.0
):
    """The least weighted 0-1 loss of a linear separator, by HiGHS's MILP.

    A big-M mixed-integer program on the features scaled to ``[-1, 1]``
    (constant features to 0)::

        min sum_i w_i z_i  s.t.  s_i (a . x_i + b) >= 1 - M z_i,
        |a_j|, |b| <= box,  z_i in {0, 1},  M = 1 + box (p + 1),

    with ``s_i = +1`` for the largest label and ``-1`` for the other. The margin
    1 and the box make the program's optimum the least loss of the separators
    whose margin is at least ``1 / box`` of the scaled features' range.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features.
    y : array-like of shape (n_samples,)
        Two classes.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights ``w_i``; ``None`` counts errors.
    box : float, default=1e3
        Bound of every coefficient and of the intercept.
    mip_rel_gap : float or None, default=0.0
        Relative gap at which HiGHS stops; 0 asks for a proof of optimality,
        ``None`` keeps HiGHS's default.
    time_limit : float, default=60.0
        Seconds HiGHS may take.

    Returns
    -------
    result : MILPResult
        ``(loss, gap, proven)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.testing.oracles import milp_01_loss
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> milp_01_loss(X, np.array([0, 1, 0, 1]))
    MILPResult(loss=1.0, gap=0.0, proven=True)
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    n, p = X.shape
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight)
    low, span = X.min(axis=0), np.ptp(X, axis=0)
    Xs = np.where(span > 0, 2 * (X - low) / np.where(span > 0, span, 1) - 1, 0.0)
    s = np.where(y == y.max(), 1.0, -1.0)
    big_m = 1 + box * (p + 1)
    options = {"time_limit": time_limit}
    if mip_rel_gap is not None:
        options["mip_rel_gap"] = mip_rel_gap
    result = milp(
        c=np.r_[np.zeros(p + 1), weight],
        integrality=np.r_[np.zeros(p + 1), np.ones(n)],
        bounds=Bounds(
            np.r_[-box * np.ones(p + 1), np.zeros(n)],
            np.r_[box * np.ones(p + 1), np.ones(n)],
        ),
        constraints=LinearConstraint(
            np.column_stack([s[:, None] * Xs, s, big_m * np.eye(n)]), lb=np.ones(n)
        ),
        options=options,
    )
    proven = result.status == 0
    gap = 0.0 if proven and mip_rel_gap == 0 else getattr(result, "mip_gap", np.nan)
    loss = np.nan if result.fun is None else float(result.fun)
    return MILPResult(loss, float(gap), bool(proven))


@validate_params(
    {
        "A": ["array-like"],
        "B": ["array-like"],
        "inputs": ["array-like"],
        "outputs": ["array-like"],
        "process_var": [Interval(Real, 0, None, closed="left")],
        "observation_var": [Interval(Real, 0, None, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def kalman_predictions(A, B, inputs, outputs, *, process_var, observation_var):
    """One-step predictions of the steady-state Kalman filter of a linear system.

    The state is ``s_t = A s_{t-1} + B u_t + w_t`` and the output
    ``y_t = s_t + v_t`` with white noises of variances ``process_var`` and
    ``observation_var``; ``y_t`` is predicted from ``u_0..u_t`` and
    ``y_0..y_{t-1}`` with the steady-state gain of scipy's discrete
    algebraic Riccati solver: the best linear predictor when the system is
    known (the oracle of spectral filtering, which does not know it).

    Parameters
    ----------
    A : array-like of shape (d, d)
        State transition.
    B : array-like of shape (d, k)
        Input matrix.
    inputs : array-like of shape (n_steps, k)
        ``u_t``.
    outputs : array-like of shape (n_steps, d)
        ``y_t``.
    process_var : float
        Variance of ``w_t`` (per coordinate).
    observation_var : float
        Variance of ``v_t`` (per coordinate), positive.

    Returns
    -------
    predictions : ndarray of shape (n_steps, d)
        The prediction of ``y_t`` made before seeing it.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.testing.oracles import kalman_predictions
    >>> A, B = np.array([[0.5]]), np.array([[1.0]])
    >>> u, y = np.ones((3, 1)), np.array([[0.0], [2.0], [4.0]])

    Without process noise the filter trusts its model: the predictions are
    the noiseless states, whatever the outputs.

    >>> kalman_predictions(A, B, u, y, process_var=0.0, observation_var=1.0)
    array([[1.  ],
           [1.5 ],
           [1.75]])
    """
    A, B = np.asarray(A, dtype=np.float64), np.asarray(B, dtype=np.float64)
    inputs = np.asarray(inputs, dtype=np.float64)
    outputs = np.asarray(outputs, dtype=np.float64)
    d = A.shape[0]
    eye = np.eye(d)
    P = solve_discrete_are(A.T, eye, process_var * eye, observation_var * eye)
    gain = P @ np.linalg.inv(P + observation_var * eye)
    estimate = np.zeros(d)
    predictions = np.empty_like(outputs)
    for t in range(len(outputs)):
        prior = A @ estimate + B @ inputs[t]
        predictions[t] = prior
        estimate = prior + gain @ (outputs[t] - prior)
    return predictions


def _domain(domain_size):
    """``Z_d``: the integers from ``-floor((d - 1) / 2)`` to ``ceil((d - 1) / 2)``."""
    return np.arange(-((domain_size - 1) // 2), domain_size // 2 + 1)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "width": [Interval(Integral, 1, None, closed="left")],
        "domain_size": [Interval(Integral, 2, None, closed="left")],
        "noise": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=True,
)
def planted_quantized_network(
    n_samples, n_features, *, width=2, domain_size=3, noise=0.0, random_state=None
):
    """Inputs on ``Z_d^a`` labelled by a random quantized ReLU network.

    The weights, biases and inputs are uniform on ``Z_d``; the label is
    ``clip(clip(X W - b, 0, top) v - c, 0, 1)`` with ``top = max Z_d``. The
    network is drawn again until between a quarter and three quarters of the
    labels are 1, then a fraction ``noise`` of the labels is flipped. Without
    noise, the planted network makes no error: an exact trainer must find an
    equally good one.

    Parameters
    ----------
    n_samples : int
        Rows.
    n_features : int
        Inputs ``a`` of the network.
    width : int, default=2
        Hidden units.
    domain_size : int, default=3
        ``d``, the size of the integer domain ``Z_d``.
    noise : float, default=0.0
        Probability of flipping each label.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the network, the inputs and the flips (a ``numpy.random.Generator``
        is used as it is, so that calls can share one stream).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Integer inputs.
    y : ndarray of shape (n_samples,)
        Labels in ``{0, 1}``.

    Examples
    --------
    >>> from sklearn_iclr.testing.oracles import planted_quantized_network
    >>> X, y = planted_quantized_network(100, 3, random_state=0)
    >>> X.shape, sorted(set(X.ravel().tolist())), bool(0.25 < y.mean() < 0.75)
    ((100, 3), [-1, 0, 1], True)
    """
    rng = (
        random_state
        if isinstance(random_state, np.random.Generator)
        else np.random.default_rng(
            random_state
            if random_state is None or isinstance(random_state, Integral)
            else random_state.randint(2**31)
        )
    )
    values = _domain(domain_size)
    top = values.max()
    while True:
        W = rng.choice(values, size=(n_features, width))
        b = rng.choice(values, size=width)
        v = rng.choice(values, size=width)
        c = rng.choice(values)
        X = rng.choice(values, size=(n_samples, n_features))
        y = np.clip(np.clip(X @ W - b, 0, top) @ v - c, 0, 1)
        if 0.25 < y.mean() < 0.75:
            break
    return X, np.where(rng.random(n_samples) < noise, 1 - y, y)


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def distinct_input_counts(X, y, n_classes=2):
    """The distinct rows of ``X`` and how often each has each label.

    The exact trainers of quantized networks work on this compressed form: an
    error count depends on the data only through it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs.
    y : array-like of shape (n_samples,)
        Labels in ``0 .. n_classes - 1``.
    n_classes : int, default=2
        Number of labels.

    Returns
    -------
    inputs : ndarray of shape (n_distinct, n_features)
        The distinct rows, sorted.
    counts : ndarray of shape (n_distinct, n_classes)
        ``counts[i, k]``: rows equal to ``inputs[i]`` with label ``k``.

    Examples
    --------
    >>> from sklearn_iclr.testing.oracles import distinct_input_counts
    >>> inputs, counts = distinct_input_counts([[1], [0], [1]], [1, 0, 0])
    >>> inputs.ravel().tolist(), counts.tolist()
    ([0, 1], [[1.0, 0.0], [1.0, 1.0]])
    """
    inputs, inverse = np.unique(np.asarray(X), axis=0, return_inverse=True)
    counts = np.zeros((len(inputs), n_classes))
    np.add.at(counts, (inverse.ravel(), np.asarray(y)), 1)
    return inputs, counts
