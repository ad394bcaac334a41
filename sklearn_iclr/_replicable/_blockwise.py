"""Blockwise (Dask) forms of the replicable rounding's data-driven quantities.

The replicable estimators fit Dask arrays from a few blockwise sums
(:mod:`sklearn_iclr.utils._dask`); the two quantities of the rounding that
depend on the whole sample (the magnitude exponent and the width
disagreement) are computed here from such sums, by the same rules as their
in-memory forms in :mod:`._rounding`.
"""

import numpy as np

from ..utils._dask import reduce_blocks
from ._rounding import log2_width_disagreement, magnitude_exponent


def _scaled_square_sums(X, exponent):
    scaled = np.ldexp(X, -exponent)
    return {"sum": float(np.sum(scaled * scaled)), "count": float(scaled.size)}


def magnitude_exponent_blockwise(X, peak, offset, safe=64):
    """:func:`._rounding.magnitude_exponent` of a Dask array.

    ``peak`` is the largest ``|X|`` (from an earlier pass). Data of ordinary
    magnitude cost nothing more; otherwise one blockwise pass computes the
    root mean square of ``X`` divided by an exact power of two near ``peak``.

    Parameters
    ----------
    X : dask.array.Array
    peak : float
    offset : float
        Shared offset in ``[0, 1)``.
    safe : int, default=64

    Returns
    -------
    exponent : int
    """
    if not np.isfinite(peak) or peak == 0 or 2.0**-safe <= peak <= 2.0**safe:
        return 0
    _, pre = np.frexp(peak)
    sums = reduce_blocks(_scaled_square_sums, [X], ["X"], args=(int(pre),))
    log2_rms = 0.5 * np.log2(sums["sum"] / sums["count"]) + int(pre)
    # The same rule, applied to one value of that root mean square.
    return magnitude_exponent(np.array([np.exp2(log2_rms)]), offset, safe=safe)


def log2_width_disagreement_from_sums(weight, total, total_sq):
    """``log2_width_disagreement`` from ``sum w``, ``sum w t`` and ``sum w t^2``.

    The spread ``sum_i w_i (t_i - mean t)^2`` is ``sum w t^2 - W mean^2``
    (clipped at zero): one blockwise pass instead of two, with a relative
    error of order ``1e-16`` times ``mean^2 / Var(t)`` on a cost estimate.

    Parameters
    ----------
    weight, total, total_sq : float

    Returns
    -------
    probability : float
    """
    if total <= 0:
        return 0.0
    mean = total / weight
    spread = max(total_sq - weight * mean * mean, 0.0)
    # log2_width_disagreement of two equal-weight terms with this mean and
    # spread: its formula, evaluated on sufficient statistics.
    half = np.sqrt(spread / weight)
    terms = np.array([mean - half, mean + half])
    return log2_width_disagreement(np.array([weight / 2, weight / 2]), terms)
