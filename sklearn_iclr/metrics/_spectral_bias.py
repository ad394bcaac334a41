"""Frequency components of a residual: a way to watch spectral bias."""

import numpy as np
from sklearn.utils.validation import check_array, check_consistent_length

from ..utils._compat import validate_params


@validate_params(
    {"x": ["array-like"], "residual": ["array-like"], "frequencies": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def frequency_amplitudes(x, residual, frequencies):
    """Amplitude of a residual at each of a few angular frequencies.

    Fits ``r(x) ~ c + sum_k (a_k sin(w_k x) + b_k cos(w_k x))`` by least
    squares and returns ``sqrt(a_k^2 + b_k^2)`` for every frequency ``w_k``
    (the root sum of squares over the columns of a multi-output residual).
    Tracking these amplitudes along training shows spectral bias: gradient
    descent removes the low frequencies of the error first, while
    Gauss-Newton / Levenberg-Marquardt preconditioning removes them at
    comparable rates (Jiang, Voronin, Cyr and Southworth, "On the Convergence
    Behavior of Preconditioned Gradient Descent Toward the Rich Learning
    Regime", ICLR 2026, arXiv:2601.03162).

    Parameters
    ----------
    x : array-like of shape (n_samples,) or (n_samples, 1)
        One-dimensional inputs.
    residual : array-like of shape (n_samples,) or (n_samples, n_outputs)
        Residual (prediction minus target) at ``x``.
    frequencies : array-like of shape (n_frequencies,)
        Angular frequencies ``w_k``; the sines and cosines must be linearly
        independent on ``x`` (distinct, non-zero frequencies on enough points).

    Returns
    -------
    amplitudes : ndarray of shape (n_frequencies,)
        The amplitude of the residual at each frequency.

    Raises
    ------
    ValueError
        If ``x`` has more than one column, or the sine/cosine design is rank
        deficient on ``x`` (too few points or repeated frequencies).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.metrics import frequency_amplitudes
    >>> x = np.linspace(-1, 1, 200)
    >>> r = 0.5 * np.sin(3 * np.pi * x - 1) + 2 * np.cos(7 * np.pi * x)
    >>> frequency_amplitudes(x, r, [3 * np.pi, 5 * np.pi, 7 * np.pi]).round(6)
    array([0.5, 0. , 2. ])
    """
    x = check_array(x, ensure_2d=False, dtype=np.float64)
    if x.ndim == 2:
        if x.shape[1] != 1:
            raise ValueError(
                "frequency_amplitudes needs one-dimensional inputs, got x with "
                f"{x.shape[1]} columns; project x on a direction first."
            )
        x = x[:, 0]
    residual = check_array(residual, ensure_2d=False, dtype=np.float64)
    residual = residual.reshape(len(residual), -1)
    check_consistent_length(x, residual)
    frequencies = check_array(frequencies, ensure_2d=False, dtype=np.float64).ravel()
    phases = np.outer(x, frequencies)
    design = np.column_stack([np.ones_like(x), np.sin(phases), np.cos(phases)])
    coef, _, rank, _ = np.linalg.lstsq(design, residual, rcond=None)
    if rank < design.shape[1]:
        raise ValueError(
            f"The {len(frequencies)} frequencies are not resolved by the "
            f"{len(x)} points (sine/cosine design of rank {rank} < "
            f"{design.shape[1]}); use distinct non-zero frequencies and more points."
        )
    n = len(frequencies)
    sines, cosines = coef[1 : n + 1], coef[n + 1 :]
    return np.sqrt((sines**2 + cosines**2).sum(axis=1))
