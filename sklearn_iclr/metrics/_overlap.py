"""Overlap between directions: the absolute cosine of the angle between them."""

import numpy as np


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
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if not np.isfinite(norms) or norms == 0:
        raise ValueError("overlap needs two finite, non-zero vectors.")
    return float(min(abs(u @ v) / norms, 1.0))
