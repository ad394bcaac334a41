"""The multi-frequency sine target of the spectral-bias experiments."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, StrOptions, validate_params

# u(x) = (1/3) sum_k k sin((2k + 1) pi x - k), k = 1, 2, 3.
_TERMS = np.arange(1, 4)


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "sampling": [StrOptions({"grid", "uniform"})],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_multifrequency_sine(
    n_samples=256, *, sampling="grid", noise=0.0, random_state=None
):
    """Sample the three-frequency sine of the spectral-bias experiments.

    The target of Jiang, Voronin, Cyr and Southworth, "On the Convergence
    Behavior of Preconditioned Gradient Descent Toward the Rich Learning
    Regime", ICLR 2026 (arXiv:2601.03162)::

        u(x) = (1/3) sum_{k=1}^{3} k sin((2k + 1) pi x - k),   x in [-1, 1],

    a sum of sines of angular frequencies ``3 pi``, ``5 pi`` and ``7 pi`` whose
    amplitudes ``1/3, 2/3, 1`` grow with the frequency.

    Parameters
    ----------
    n_samples : int, default=256
        Number of points.
    sampling : {"grid", "uniform"}, default="grid"
        ``"grid"``: equispaced points from -1 to 1 (both included);
        ``"uniform"``: i.i.d. uniform points on [-1, 1], sorted.
    noise : float, default=0.0
        Standard deviation of Gaussian noise added to the targets.
    random_state : int, RandomState instance or None, default=None
        Seeds the uniform points and the noise.

    Returns
    -------
    X : ndarray of shape (n_samples, 1)
        The points.
    y : ndarray of shape (n_samples,)
        ``u(x)`` plus noise.
    frequencies : ndarray of shape (3,)
        The angular frequencies ``(3 pi, 5 pi, 7 pi)`` of the three terms.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_multifrequency_sine
    >>> X, y, frequencies = make_multifrequency_sine(256)
    >>> X.shape, y.shape
    ((256, 1), (256,))
    >>> [round(float(w / 3.141592653589793)) for w in frequencies]
    [3, 5, 7]
    """
    rng = check_random_state(random_state)
    if sampling == "grid":
        x = np.linspace(-1.0, 1.0, n_samples)
    else:
        x = np.sort(rng.uniform(-1.0, 1.0, n_samples))
    frequencies = (2 * _TERMS + 1) * np.pi
    y = np.sin(np.outer(x, frequencies) - _TERMS) @ _TERMS / 3.0
    if noise > 0:
        y = y + noise * rng.standard_normal(n_samples)
    return x[:, None], y, frequencies
