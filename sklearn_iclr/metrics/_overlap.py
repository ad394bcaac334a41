"""Overlap between directions: the absolute cosine of the angle between them."""

import numpy as np

from ..utils._compat import validate_params


@validate_params(
    {"u": ["array-like"], "v": ["array-like"]}, prefer_skip_nested_validation=True
)
def overlap(u, v):
    """Absolute cosine similarity ``|<u, v>| / (|u| |v|)`` of two directions.

    A single-index or tensor-PCA direction is identifiable only up to sign, so
    the overlap ignores it: 1 means the same line, about ``1 / sqrt(d)`` is what
    a random direction in dimension ``d`` gets.

    Parameters
    ----------
    u, v : array-like of shape (n_features,)
        Non-zero vectors of the same length.

    Returns
    -------
    overlap : float
        In ``[0, 1]``.

    Examples
    --------
    >>> overlap([1.0, 0.0], [-2.0, 0.0])
    1.0
    >>> round(overlap([1.0, 1.0], [1.0, 0.0]), 4)
    0.7071
    """
    u = np.asarray(u, dtype=np.float64).ravel()
    v = np.asarray(v, dtype=np.float64).ravel()
    if u.shape != v.shape:
        raise ValueError(
            f"overlap needs two vectors of the same length, got {u.size} and {v.size}."
        )
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
        raise ValueError("overlap needs two finite vectors; got NaN or infinity.")
    # Divided by their largest entries first, so that the norms of vectors of
    # any finite magnitude (1e-300 to 1e300) neither overflow nor underflow.
    u_max, v_max = np.abs(u).max(initial=0.0), np.abs(v).max(initial=0.0)
    if u_max == 0 or v_max == 0:
        raise ValueError("overlap needs two non-zero vectors.")
    u, v = u / u_max, v / v_max
    return float(min(abs(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v)), 1.0))
