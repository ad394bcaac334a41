"""Measure replicability: how often two runs on independent samples agree."""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.stats import norm
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.parallel import Parallel, delayed

from ..utils._compat import Interval, validate_params


class ReplicabilityResult(NamedTuple):
    """Outcome of :func:`replicability_rate` (a tuple: unpack or use names).

    Attributes
    ----------
    rate : float
        Fraction of pairs whose attributes were exactly equal.
    ci_low, ci_high : float
        Wilson score confidence interval of the rate.
    n_identical : int
        Number of identical pairs.
    n_pairs : int
        Number of pairs.
    """

    rate: float
    ci_low: float
    ci_high: float
    n_identical: int
    n_pairs: int


@validate_params(
    {
        "successes": [Interval(Integral, 0, None, closed="left")],
        "trials": [Interval(Integral, 1, None, closed="left")],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
    },
    prefer_skip_nested_validation=True,
)
def wilson_interval(successes, trials, confidence=0.95):
    """Wilson score interval of a binomial proportion.

    Parameters
    ----------
    successes : int
        Number of successes.
    trials : int
        Number of trials (positive).
    confidence : float, default=0.95
        Coverage of the interval.

    Returns
    -------
    low, high : float
        The interval, inside ``[0, 1]``.

    Examples
    --------
    >>> low, high = wilson_interval(200, 200)
    >>> round(low, 4), high
    (0.9812, 1.0)
    """
    if successes > trials:
        raise ValueError(
            f"successes={successes} exceeds trials={trials}: a proportion is at most 1."
        )
    z = norm.ppf(0.5 + confidence / 2)
    p = successes / trials
    denom = 1 + z**2 / trials
    centre = (p + z**2 / (2 * trials)) / denom
    half = z * np.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2)) / denom
    return float(max(0.0, centre - half)), float(min(1.0, centre + half))


def _fit_attributes(estimator, data, attributes):
    """Fit ``estimator`` on ``data`` (``X`` or ``(X, y)``) and read attributes."""
    fitted = estimator.fit(*data) if isinstance(data, tuple) else estimator.fit(data)
    return [np.asarray(getattr(fitted, name)) for name in attributes]


def _run_pair(estimator, sampler, attributes, data_seeds, shared_seed):
    """Fit two clones sharing ``shared_seed`` on two independent samples."""
    outputs = []
    for seed in data_seeds:
        est = clone(estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=shared_seed)
        outputs.append(_fit_attributes(est, sampler(int(seed)), attributes))
    first, second = outputs
    return all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


@validate_params(
    {
        "estimator": [object],
        "sampler": [callable],
        "n_pairs": [Interval(Integral, 1, None, closed="left")],
        "attributes": [tuple, list],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "confidence": [Interval(Real, 0, 1, closed="neither")],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def replicability_rate(
    estimator,
    sampler,
    n_pairs=200,
    *,
    attributes=("coef_", "intercept_"),
    random_state=None,
    n_jobs=None,
    confidence=0.95,
    verbose=0,
):
    """Estimate how often two runs sharing their randomness agree exactly.

    Following the definition of replicability (Impagliazzo et al., STOC 2022)
    used by Eaton et al., "Replicable Reinforcement Learning with Linear Function
    Approximation" (ICLR 2026): for each of ``n_pairs`` pairs, draw two
    independent data sets from ``sampler``, fit two clones of ``estimator`` with
    the same fresh ``random_state`` (the shared randomness ``r``), and count the
    pair as identical when every attribute in ``attributes`` is bit-for-bit
    equal (``np.array_equal``). Pairs run in parallel with joblib.

    Parameters
    ----------
    estimator : estimator
        The estimator to measure. If it has a ``random_state`` parameter, both
        clones of a pair get the same integer seed, new for every pair.
    sampler : callable
        ``sampler(seed) -> (X, y)`` or ``X``: an independent data set of fixed
        size for each integer ``seed``.
    n_pairs : int, default=200
        Number of pairs.
    attributes : tuple of str
        Fitted attributes that must be equal; the default is
        ``("coef_", "intercept_")``.
    random_state : int, RandomState instance or None, default=None
        Draws the data seeds and shared seeds of all pairs.
    n_jobs : int, default=None
        Parallel jobs over pairs (``None`` means 1 unless in a joblib context).
    confidence : float, default=0.95
        Coverage of the Wilson interval.
    verbose : int, default=0
        Verbosity of :class:`joblib.Parallel`.

    Returns
    -------
    result : ReplicabilityResult
        ``(rate, ci_low, ci_high, n_identical, n_pairs)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import Ridge
    >>> from sklearn_iclr import ReplicableLinearRegressor
    >>> from sklearn_iclr.metrics import replicability_rate
    >>> def sampler(seed):
    ...     rng = np.random.default_rng(seed)
    ...     X = rng.normal(size=(5000, 3))
    ...     return X, X @ [1.0, 0.0, -1.0] + rng.normal(size=5000)
    >>> replicability_rate(Ridge(), sampler, n_pairs=20, random_state=0).rate
    0.0
    >>> result = replicability_rate(
    ...     ReplicableLinearRegressor(rho=0.1), sampler, n_pairs=20, random_state=0
    ... )
    >>> result.n_identical >= 16
    True
    """
    rng = check_random_state(random_state)
    data_seeds = rng.randint(np.iinfo(np.int32).max, size=(n_pairs, 2))
    shared_seeds = rng.randint(np.iinfo(np.int32).max, size=n_pairs)
    identical = Parallel(n_jobs=n_jobs, verbose=verbose)(
        delayed(_run_pair)(estimator, sampler, tuple(attributes), seeds, int(shared))
        for seeds, shared in zip(data_seeds, shared_seeds, strict=True)
    )
    n_identical = int(np.sum(identical))
    low, high = wilson_interval(n_identical, n_pairs, confidence)
    return ReplicabilityResult(n_identical / n_pairs, low, high, n_identical, n_pairs)
