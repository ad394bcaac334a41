"""Learning dynamics of phase retrieval under power-law data: flow, SGD, phases."""

import math
from numbers import Integral, Real

import numpy as np
from numba import njit
from scipy.optimize import brentq
from sklearn.utils import Bunch
from sklearn.utils.validation import check_random_state

from ..utils import check_work_budget
from ..utils._compat import Interval, StrOptions, validate_params

# The unit of the cost table (sklearn_iclr.utils._cost) that one step on one
# coordinate of each compiled loop counts as.
COST_UNIT = {"population": "coordinate_update", "online_sgd": "sgd_coordinate_update"}
PHASE_NAMES = ("T1", "T1_prime", "T2")


@njit(cache=True)
def _population_gd(
    lam, w_star, w, n_steps, lr, s_star, escape, eps, record, mse, u_out, s_out, hits
):
    """Population GD ``w <- w - lr grad L(w)``, in place; fills records and hits.

    ``grad L = 12 s Q w - 4 s* Q w - 8 u Q w*`` with ``s = w^T Q w`` and
    ``u = w^T Q w*``. ``hits`` receives the first steps of the three phase
    rules (``-1`` when not reached).
    """
    d = lam.shape[0]
    s = 0.0
    u = 0.0
    for i in range(d):
        s += lam[i] * w[i] * w[i]
        u += lam[i] * w[i] * w_star[i]
    j = 0
    n_records = record.shape[0]
    for k in range(n_steps + 1):
        _detect_phases(k, u, s, s_star, escape, eps, hits)
        if j < n_records and record[j] == k:
            mse[j] = _sign_aligned_mse(w, w_star)
            u_out[j] = u
            s_out[j] = s
            j += 1
        if k == n_steps:
            break
        c_w = 4.0 * lr * (s_star - 3.0 * s)
        c_star = 8.0 * lr * u
        s = 0.0
        u = 0.0
        for i in range(d):
            w[i] += lam[i] * (c_w * w[i] + c_star * w_star[i])
            s += lam[i] * w[i] * w[i]
            u += lam[i] * w[i] * w_star[i]
        if not (math.isfinite(s) and math.isfinite(u)):
            return k + 1
    return -1


@njit(cache=True)
def _online_sgd(
    lam,
    w_star,
    w,
    n_steps,
    lr,
    noise,
    generator,
    s_star,
    escape,
    eps,
    record,
    mse,
    u_out,
    s_out,
    hits,
):
    """One-pass SGD on fresh samples ``x ~ N(0, Q)``, ``y = <x, w*>^2 + noise``.

    Step ``w <- w - lr * 4 ((x.w)^2 - y) (x.w) x``, whose mean is the population
    gradient. Summary statistics are computed exactly from ``Q`` every step.
    """
    d = lam.shape[0]
    root = np.sqrt(lam)
    x = np.empty(d)
    s = 0.0
    u = 0.0
    for i in range(d):
        s += lam[i] * w[i] * w[i]
        u += lam[i] * w[i] * w_star[i]
    j = 0
    n_records = record.shape[0]
    for k in range(n_steps + 1):
        _detect_phases(k, u, s, s_star, escape, eps, hits)
        if j < n_records and record[j] == k:
            mse[j] = _sign_aligned_mse(w, w_star)
            u_out[j] = u
            s_out[j] = s
            j += 1
        if k == n_steps:
            break
        p = 0.0
        t = 0.0
        for i in range(d):
            x[i] = root[i] * generator.standard_normal()
            p += x[i] * w[i]
            t += x[i] * w_star[i]
        y = t * t + noise * generator.standard_normal()
        c = 4.0 * lr * (p * p - y) * p
        s = 0.0
        u = 0.0
        for i in range(d):
            w[i] -= c * x[i]
            s += lam[i] * w[i] * w[i]
            u += lam[i] * w[i] * w_star[i]
        if not (math.isfinite(s) and math.isfinite(u)):
            return k + 1
    return -1


@njit(cache=True)
def _sign_aligned_mse(w, w_star):
    """``min(|w - w*|^2, |w + w*|^2) / d``: the MSE up to the sign ambiguity."""
    minus = 0.0
    plus = 0.0
    for i in range(w.shape[0]):
        minus += (w[i] - w_star[i]) ** 2
        plus += (w[i] + w_star[i]) ** 2
    return min(minus, plus) / w.shape[0]


@njit(cache=True)
def _detect_phases(k, u, s, s_star, escape, eps, hits):
    """Record the first step of each phase rule (see phase_retrieval_dynamics)."""
    if hits[0] < 0 and abs(u) >= escape * s_star:
        hits[0] = k
    if hits[0] >= 0 and hits[1] < 0 and s >= s_star / 3.0:
        hits[1] = k
    if (
        hits[1] >= 0
        and hits[2] < 0
        and abs(u) >= (1.0 - eps) * s_star
        and abs(s - s_star) <= eps * s_star
    ):
        hits[2] = k


def record_steps(n_steps, n_records):
    """Step 0 and about ``n_records`` geometrically spaced steps up to ``n_steps``.

    Parameters
    ----------
    n_steps : int
    n_records : int

    Returns
    -------
    steps : ndarray of int64
        Distinct, increasing, starting at 0 and ending at ``n_steps``.
    """
    grid = np.geomspace(1, max(n_steps, 1), max(n_records - 1, 1))
    steps = np.unique(np.concatenate([[0], np.round(grid).astype(np.int64)]))
    steps[-1] = n_steps
    return np.unique(steps)


@validate_params(
    {"spectrum": ["array-like"], "w_star": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def escape_rate(spectrum, w_star):
    """Growth rate ``rho`` of ``u`` in phase I, from the paper's Volterra equation.

    Linearising the flow at ``w = 0`` gives ``u = a_0 + 8 K * u`` with
    ``K(t) = sum_i w*_i^2 lambda_i^2 exp(4 lambda_i t)``, so ``u`` grows like
    ``exp(rho t)`` where ``rho > 4 max(lambda)`` solves
    ``1 = 8 sum_i w*_i^2 lambda_i^2 / (rho - 4 lambda_i)`` (the Laplace
    transform of ``K``). Solved with :func:`scipy.optimize.brentq`.

    Parameters
    ----------
    spectrum : array-like of shape (n_features,)
        The eigenvalues ``lambda`` of ``Q`` (positive).
    w_star : array-like of shape (n_features,)
        The signal.

    Returns
    -------
    rho : float

    Examples
    --------
    >>> import numpy as np
    >>> rho = escape_rate(np.ones(4) / 4, np.ones(4))
    >>> round(rho, 6)  # isotropic: rho = 4 lambda + 8 ||Q w*||^2 = 1 + 2
    3.0
    """
    lam = np.asarray(spectrum, dtype=np.float64)
    weights = 8.0 * (np.asarray(w_star, dtype=np.float64) * lam) ** 2
    top = 4.0 * lam.max()
    if weights.sum() == 0:
        return top

    def characteristic(rho):
        return np.sum(weights / (rho - 4.0 * lam)) - 1.0

    low = top * (1 + 1e-15) + 1e-300
    if characteristic(low) <= 0:  # a root at the pole only when w* misses lambda_1
        return top
    high = top + weights.sum() + 1.0
    return brentq(characteristic, low, high, xtol=1e-14, rtol=1e-14)


@validate_params(
    {
        "spectrum": ["array-like"],
        "w_star": ["array-like"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "method": [StrOptions({"population", "online_sgd"})],
        "w0": ["array-like", None],
        "noise": [Interval(Real, 0, None, closed="left")],
        "escape_threshold": [Interval(Real, 0, 1, closed="neither")],
        "epsilon": [Interval(Real, 0, 2 / 3, closed="neither")],
        "n_records": [Interval(Integral, 2, None, closed="left")],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def phase_retrieval_dynamics(
    spectrum,
    w_star,
    max_iter,
    learning_rate,
    method="population",
    *,
    w0=None,
    noise=0.0,
    escape_threshold=0.1,
    epsilon=0.05,
    n_records=1000,
    max_work=3600.0,
    random_state=None,
):
    """Gradient descent for phase retrieval on power-law data, with its phases.

    Runs the learning dynamics studied by Braun, Loureiro, Minh & Imaizumi,
    "Fast Escape, Slow Convergence: Learning Dynamics of Phase Retrieval under
    Power-Law Data", ICLR 2026 (arXiv:2511.18661), for ``x ~ N(0, Q)`` with
    ``Q = diag(spectrum)`` and ``y = <x, w*>^2``. With the summary statistics
    ``s = w^T Q w``, ``u = w^T Q w*`` and ``s* = w*^T Q w*``, the population
    loss is ``L = 3 s^2 + 3 s*^2 - 4 u^2 - 2 s s*`` and

    - ``method="population"``: gradient descent on ``L`` with step
      ``eta = learning_rate``,
      ``w_i <- w_i + eta (4 lambda_i (s* - 3 s) w_i + 8 lambda_i u w*_i)``
      (the Euler scheme of the paper's gradient flow; time ``t = step * eta``);
    - ``method="online_sgd"``: one fresh sample per step,
      ``w <- w - eta 4 ((x.w)^2 - y)(x.w) x`` with ``y = <x, w*>^2 + noise``;
      its mean step is the population one.

    Parameters
    ----------
    spectrum : array-like of shape (n_features,)
        The eigenvalues ``lambda_i > 0`` of ``Q``, for example
        :func:`sklearn_iclr.datasets.power_law_spectrum`.
    w_star : array-like of shape (n_features,)
        The signal; the thresholds are relative to ``s* = w*^T Q w*``
        (1 for :func:`~sklearn_iclr.datasets.make_power_law_phase_retrieval`).
    max_iter : int
        Number of steps.
    learning_rate : float
        Step size. Population GD is stable near ``w*`` for
        ``learning_rate < 1 / (12 max(lambda) s*)``.
    method : {"population", "online_sgd"}, default="population"
        Population gradient descent or one-pass SGD on fresh samples.
    w0 : array-like of shape (n_features,), default=None
        Initial point; ``None`` draws it uniformly on the unit sphere (the
        paper's initialisation) from ``random_state``.
    noise : float, default=0.0
        Standard deviation of the label noise of ``"online_sgd"``; must be 0
        for ``"population"`` (the noise only shifts the population loss by a
        constant).
    escape_threshold : float, default=0.1
        ``|u| / s*`` that ends phase I.
    epsilon : float, default=0.05
        Tolerance ``epsilon`` of ``T2``.
    n_records : int, default=1000
        About how many geometrically spaced steps are recorded (step 0 and the
        last step always are).
    max_work : float, default=3600
        Largest estimated cost of the run, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from its
        ``max_iter * n_features`` coordinate updates; a costlier run is refused
        before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds ``w0`` (when ``None``) and the samples of ``"online_sgd"``.

    Returns
    -------
    result : :class:`~sklearn.utils.Bunch`
        With keys

        - ``step``: ndarray of int, the recorded steps;
        - ``time``: ``step * learning_rate``;
        - ``mse``: ``(1/d) min(||w - w*||^2, ||w + w*||^2)`` at those steps;
        - ``u``, ``s``: the summary statistics at those steps;
        - ``s_star``: ``w*^T Q w*``;
        - ``phase_steps``: dict ``{"T1", "T1_prime", "T2"}`` of the detected
          steps (``None`` when not reached);
        - ``phase_times``: the same as times ``step * learning_rate`` (NaN when not
          reached);
        - ``coef``: the last iterate ``w``.

    Raises
    ------
    ValueError
        On bad shapes or values, if the estimated cost exceeds ``max_work``,
        or if the iterates overflow (``learning_rate`` too large).

    See Also
    --------
    escape_rate : the phase-I growth rate ``rho``.
    sklearn_iclr.datasets.make_power_law_phase_retrieval : samples of the model.
    PhaseRetrievalRegressor : the estimator for data.

    Notes
    -----
    Both run in ``O(d)`` per step (compiled with numba). The paper's phases
    are detected at every step by three first-hitting rules:

    - ``T1`` (end of phase I, escape from the equator): the first step with
      ``|u| >= escape_threshold * s*``. The paper shows ``T1 = Theta(log d)``,
      ``u`` growing like ``exp(rho t)`` (:func:`escape_rate`). From a random
      start ``|u(0)|`` is of order ``d^(-1/2)``, so for small ``d`` the start
      may already be past the threshold (``T1 = 0``).
    - ``T1_prime`` (phase IIa): the first step at or after ``T1`` with
      ``s >= s* / 3``, the saddle value.
    - ``T2`` (end of phase IIb): the first step at or after ``T1_prime`` with
      ``|u| >= (1 - epsilon) s*`` and ``|s - s*| <= epsilon s*``. Phase III
      follows: the tail coordinates are learned one by one, and
      ``MSE(T2 + tau) ~ MSE(T2) S_d(tau)``,
      ``S_d(tau) = (1/d) sum_i exp(-16 lambda_i tau)``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_power_law_phase_retrieval
    >>> from sklearn_iclr.datasets import power_law_spectrum
    >>> from sklearn_iclr.single_index import phase_retrieval_dynamics
    >>> _, _, w_star = make_power_law_phase_retrieval(1, 100, random_state=0)
    >>> run = phase_retrieval_dynamics(
    ...     power_law_spectrum(100, 2.0), w_star, max_iter=20_000, learning_rate=0.01,
    ...     random_state=0)
    >>> steps = run.phase_steps
    >>> steps["T1"] <= steps["T1_prime"] <= steps["T2"]
    True
    >>> bool(run.mse[-1] < run.mse[0])
    True
    """
    lam = np.asarray(spectrum, dtype=np.float64)
    star = np.asarray(w_star, dtype=np.float64)
    if lam.ndim != 1 or lam.size < 1:
        raise ValueError(f"spectrum must be a 1-D array, got shape {lam.shape}.")
    if not np.all(np.isfinite(lam)) or np.any(lam <= 0):
        raise ValueError("spectrum must contain finite, positive eigenvalues.")
    if star.shape != lam.shape:
        raise ValueError(
            f"w_star has shape {star.shape}; it must match spectrum {lam.shape}."
        )
    if not np.all(np.isfinite(star)):
        raise ValueError("w_star must be finite.")
    s_star = float(np.sum(lam * star**2))
    if not np.isfinite(s_star) or s_star <= 0:
        raise ValueError(
            f"w_star must be nonzero, with a finite s* = w*^T Q w*; got s* = {s_star}."
        )
    if method == "population" and noise != 0:
        raise ValueError(
            "noise only applies to method='online_sgd': it shifts the population "
            "loss by a constant and leaves the population dynamics unchanged."
        )
    d = lam.size
    check_work_budget(
        {COST_UNIT[method]: float(max_iter) * d},
        max_work,
        detail="(max_iter * n_features)",
        advice="Or lower max_iter or n_features, or raise learning_rate.",
    )
    rng = check_random_state(random_state)
    if w0 is None:
        w = rng.standard_normal(d)
        w /= np.linalg.norm(w)
    else:
        w = np.array(w0, dtype=np.float64)
        if w.shape != lam.shape or not np.all(np.isfinite(w)):
            raise ValueError(
                f"w0 must be a finite array of shape {lam.shape}, got {w.shape}."
            )
    steps = record_steps(int(max_iter), int(n_records))
    mse, u, s = (np.full(steps.size, np.nan) for _ in range(3))
    hits = np.full(3, -1, dtype=np.int64)
    args = (float(escape_threshold), float(epsilon), steps, mse, u, s, hits)
    if method == "population":
        failed = _population_gd(
            lam, star, w, int(max_iter), float(learning_rate), s_star, *args
        )
    else:
        generator = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        failed = _online_sgd(
            lam,
            star,
            w,
            int(max_iter),
            float(learning_rate),
            float(noise),
            generator,
            s_star,
            *args,
        )
    if failed >= 0:
        raise ValueError(
            f"The iterates overflowed at step {failed}: learning_rate="
            f"{learning_rate} is too large for this spectrum (largest eigenvalue "
            f"{lam.max():.3g}, s* = {s_star:.3g}). "
            "Lower learning_rate."
        )
    phase_steps = {
        name: (int(hit) if hit >= 0 else None)
        for name, hit in zip(PHASE_NAMES, hits, strict=True)
    }
    phase_times = {
        name: (hit * learning_rate if hit is not None else float("nan"))
        for name, hit in phase_steps.items()
    }
    return Bunch(
        step=steps,
        time=steps * float(learning_rate),
        mse=mse,
        u=u,
        s=s,
        s_star=s_star,
        phase_steps=phase_steps,
        phase_times=phase_times,
        coef=w,
    )


@validate_params(
    {"spectrum": ["array-like"], "tau": ["array-like", Real]},
    prefer_skip_nested_validation=True,
)
def phase_three_decay(spectrum, tau):
    """The paper's phase-III factor ``S_d(tau) = (1/d) sum_i exp(-16 lambda_i tau)``.

    Parameters
    ----------
    spectrum : array-like of shape (n_features,)
    tau : array-like
        Times after ``T2``.

    Returns
    -------
    factor : ndarray, the shape of ``tau``

    Examples
    --------
    >>> float(phase_three_decay([0.5, 0.5], 0.0))
    1.0
    """
    lam = np.asarray(spectrum, dtype=np.float64)
    tau = np.asarray(tau, dtype=np.float64)
    return np.exp(-16.0 * np.multiply.outer(tau, lam)).mean(axis=-1)
