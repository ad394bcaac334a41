"""Dask input for the estimators that reduce data to small sufficient statistics.

Dask is optional (the ``[dask]`` extra) and never imported for other input:
:func:`is_dask_collection` looks at the type's module and at ``sys.modules``
only. A fit on a ``dask.array.Array`` (or a ``dask.dataframe``) computes its
statistics block by block of rows; each block returns a few small arrays
(``d x d`` at most) and only their total reaches the client.

Summation order. The per-block partial statistics are combined in a fixed
tree: groups of ``FANOUT`` consecutive blocks, in block order, then groups of
those, up to the root. The graph depends on the row chunks only, never on the
number of workers or on which task finishes first, so for one chunking the
totals are the same bits on any cluster whose workers run BLAS on one thread
(distributed's default; blocks a worker received at unaligned addresses are
first copied, see ``_aligned``). Two chunkings sum in different orders and
agree up to floating-point rounding: each total within a few units
of ``1e-16`` times the sum of the absolute values of its terms (times the
depth of the tree, ``log_8`` of the number of blocks, plus the BLAS error
inside a block).

Bad input. Every block checks its own rows for NaN and infinity in the same
task that computes its statistics, so a non-finite entry is found in the one
pass that fits, and the error names the array, the block index and its rows.
"""

import sys

import numpy as np

from ._compat import _check_feature_names, _check_n_features

# Partial statistics combined per node of the reduction tree.
FANOUT = 8


def is_dask_collection(X):
    """Whether ``X`` is a Dask collection, without importing Dask.

    Parameters
    ----------
    X : object
        Any input.

    Returns
    -------
    is_dask : bool

    Examples
    --------
    >>> import numpy as np
    >>> is_dask_collection(np.ones(3))
    False
    """
    if sys.modules.get("dask") is None:
        return False
    return type(X).__module__.split(".", 1)[0] in ("dask", "dask_expr")


def any_dask(*arrays):
    """Whether any of ``arrays`` (None allowed) is a Dask collection."""
    return any(is_dask_collection(a) for a in arrays if a is not None)


def _as_dask_array(values, name, row_chunks=None):
    """A float64 ``dask.array.Array`` of ``values`` (array, DataFrame, ndarray)."""
    import dask.array as da

    if hasattr(values, "to_dask_array"):
        # dask.dataframe DataFrame or Series: lengths=True computes the
        # partitions' lengths (a count per partition, no data to the client).
        values = values.to_dask_array(lengths=True)
    if not isinstance(values, da.Array):
        values = np.asarray(values)
        if row_chunks is None or values.ndim == 0 or len(values) != sum(row_chunks):
            # A length mismatch is reported by the caller, not by dask.
            values = da.from_array(values)
        else:
            chunks = (row_chunks,) + tuple((n,) for n in values.shape[1:])
            values = da.from_array(values, chunks=chunks)
    if any(np.isnan(c) for c in values.chunks[0]):
        raise ValueError(
            f"{name} has unknown chunk sizes along its rows; call "
            f"{name}.compute_chunk_sizes() (or build it with "
            "to_dask_array(lengths=True)) first."
        )
    kind = values.dtype.kind
    if kind not in "biuf":
        raise ValueError(
            f"{name} has dtype {values.dtype}; a real numeric Dask array is expected."
        )
    if values.dtype != np.float64:
        values = values.astype(np.float64)
    return values


def validate_dask_data(estimator, X, *, reset, ensure_min_samples=1):
    """Check a Dask ``X`` like ``validate_data``, without computing it.

    Sets or checks ``n_features_in_`` and ``feature_names_in_`` (from a
    ``dask.dataframe``'s columns), converts to a float64 ``dask.array`` with
    one chunk along the columns. Finiteness is checked later, block by block,
    in the pass that uses the data.

    Parameters
    ----------
    estimator : estimator instance
    X : dask.array.Array or dask.dataframe.DataFrame
    reset : bool
        Whether this is the first fit (set the feature attributes).
    ensure_min_samples : int, default=1

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features)
    """
    # A dask.dataframe's column names are those of its (empty) pandas meta,
    # which scikit-learn reads like any DataFrame.
    _check_feature_names(
        estimator, X._meta if hasattr(X, "columns") else X, reset=reset
    )
    X = _as_dask_array(X, "X")
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D Dask array for X, got {X.ndim} dimension(s) with "
            f"shape {X.shape}; reshape a single feature with X.reshape(-1, 1)."
        )
    if X.shape[1] == 0:
        raise ValueError("X has 0 feature(s); at least 1 is required.")
    if X.shape[0] < ensure_min_samples:
        raise ValueError(
            f"X has {X.shape[0]} sample(s); at least {ensure_min_samples} are required."
        )
    _check_n_features(estimator, X, reset=reset)
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return X


def align_rows(X, values, name, *, ndim):
    """``values`` as a Dask array with the row chunks of ``X``.

    A Dask array with other row chunks is rechunked to those of ``X`` (lazy;
    it moves rows between workers, so building both with the same chunks is
    faster); a NumPy array is split along them.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
    values : array-like, dask.array.Array or dask.dataframe object
    name : str
        Used in error messages.
    ndim : {1, 2}
        Expected dimensions of ``values``.

    Returns
    -------
    values : dask.array.Array
    """
    values = _as_dask_array(values, name, row_chunks=X.chunks[0])
    if ndim == 1 and values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != ndim:
        raise ValueError(
            f"{name} should have {ndim} dimension(s), got shape {values.shape}."
        )
    if values.shape[0] != X.shape[0]:
        raise ValueError(
            f"{name} has {values.shape[0]} rows but X has {X.shape[0]}: one row "
            "per sample is required."
        )
    if values.chunks[0] != X.chunks[0]:
        values = values.rechunk({0: X.chunks[0]})
    if ndim == 2 and len(values.chunks[1]) > 1:
        values = values.rechunk({1: -1})
    return values


def _aligned(block):
    """``block`` C-contiguous and aligned (copied only when it is not).

    Blocks deserialised on a distributed worker can arrive at addresses that
    are not multiples of 8 bytes; numpy then leaves BLAS for other loops, and
    ``X.T @ X`` or ``X.T @ y`` of the same numbers differ in the last bit from
    one task to the next.
    """
    return None if block is None else np.require(block, requirements=["C", "A"])


def _all_finite(block):
    """Whether ``block`` holds no NaN or infinity.

    Its sum first (a reduction, where ``np.isfinite`` allocates a mask of the
    block's size); only a sum that overflowed is checked entry by entry.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(block)):
            return True
    return bool(np.isfinite(block).all())


def _block_partial(block_stats, index, names, args, check_finite, *blocks):
    """Statistics of one block of rows, or the first non-finite input named."""
    blocks = [_aligned(block) for block in blocks]
    if check_finite:
        for name, block in zip(names, blocks, strict=True):
            if block is not None and not _all_finite(block):
                return {"_bad": (index, name)}
    return block_stats(*blocks, *args)


def _merge_moments(a, b):
    """Chan, Golub and LeVeque's pairwise update of weighted moments.

    ``a`` and ``b`` hold a total weight ``w``, a weighted ``mean`` and the
    centred cross-products ``m2``; the merge is stable where the raw sums
    ``sum w x x^T - W mean mean^T`` would cancel.
    """
    if b["w"] == 0:
        return a
    if a["w"] == 0:
        return b
    w = a["w"] + b["w"]
    delta = b["mean"] - a["mean"]
    return {
        "w": w,
        "mean": a["mean"] + delta * (b["w"] / w),
        "m2": a["m2"] + b["m2"] + np.outer(delta, delta) * (a["w"] * b["w"] / w),
    }


def _combine(*partials):
    """Combine partial statistics in the given order.

    Keys starting with ``max_`` take the maximum, ``moments_`` the merge of
    weighted moments (``_merge_moments``), the others the sum.
    """
    bad = [p["_bad"] for p in partials if "_bad" in p]
    if bad:
        return {"_bad": min(bad)}
    total = {}
    for key in partials[0]:
        value = partials[0][key]
        for p in partials[1:]:
            if key.startswith("max_"):
                value = np.maximum(value, p[key])
            elif key.startswith("moments_"):
                value = _merge_moments(value, p[key])
            else:
                value = value + p[key]
        total[key] = value
    return total


def reduce_blocks(block_stats, arrays, names, args=(), *, check_finite=True):
    """Totals of per-block statistics over the row blocks of aligned arrays.

    One pass over the data: ``block_stats(*blocks, *args)`` runs once per
    block of rows (``None`` for an absent array) and returns a dict of
    ndarrays or floats; keys starting with ``max_`` are combined by maximum,
    ``moments_`` by the stable merge of weighted moments (a dict of ``w``,
    ``mean`` and ``m2``), the others by summation, in the fixed tree of the
    module docstring. Every
    block is checked for NaN and infinity in the same task.

    Parameters
    ----------
    block_stats : callable
        Module-level function (it is shipped to the workers).
    arrays : list of dask.array.Array or None
        Same row chunks (see :func:`align_rows`); the first is ``X``.
    names : list of str
        Names of ``arrays``, for the error message.
    args : tuple, default=()
        Extra arguments of ``block_stats`` (small: coefficients, means).
    check_finite : bool, default=True
        Check every block for NaN and infinity. False only for a later pass
        over the same arrays, whose blocks an earlier pass checked.

    Returns
    -------
    totals : dict

    Raises
    ------
    ValueError
        If a block holds NaN or infinity (when ``check_finite``): the message
        names the array, the block index and its rows.
    """
    import dask

    X = arrays[0]
    n_blocks = len(X.chunks[0])
    # Not optimised array by array: blocks the arrays share (X, y and X_next
    # sliced from one generated block, say) keep one key, computed once.
    per_array = [
        [None] * n_blocks
        if a is None
        else list(a.to_delayed(optimize_graph=False).ravel())
        for a in arrays
    ]
    partial = dask.delayed(_block_partial, pure=True)
    combine = dask.delayed(_combine, pure=True)
    # Empty blocks (an empty partition of a dask.dataframe, say) hold no
    # statistics, and a block function's max of nothing would fail.
    level = [
        partial(
            block_stats,
            i,
            tuple(names),
            tuple(args),
            check_finite,
            *[b[i] for b in per_array],
        )
        for i in range(n_blocks)
        if X.chunks[0][i] > 0
    ]
    while len(level) > 1:
        level = [combine(*level[k : k + FANOUT]) for k in range(0, len(level), FANOUT)]
    (total,) = dask.compute(level[0])
    if "_bad" in total:
        index, name = total["_bad"]
        start = int(np.sum(X.chunks[0][:index]))
        stop = start + X.chunks[0][index]
        raise ValueError(
            f"Input {name} contains NaN or infinity in block {index} of "
            f"{n_blocks} (rows {start} to {stop - 1}). Drop or impute those rows, "
            f"e.g. {name}[{start}:{stop}], before fitting."
        )
    return total


def r2_sums(target, prediction, sample_weight=None):
    """One block's sums for the R^2 of ``prediction`` against ``target``.

    Weighted moments of the target (merged stably across blocks by
    :func:`reduce_blocks`) and the weighted squared error. Pass the totals to
    :func:`r2_from_sums`.

    Parameters
    ----------
    target, prediction : ndarray of shape (n_rows,)
    sample_weight : ndarray of shape (n_rows,) or None, default=None

    Returns
    -------
    sums : dict
    """
    w = np.ones(len(target)) if sample_weight is None else sample_weight
    total = float(w.sum())
    mean = np.array([w @ target / total]) if total > 0 else np.zeros(1)
    centred = target - mean[0]
    error = target - prediction
    return {
        "moments_target": {
            "w": total,
            "mean": mean,
            "m2": np.array([[w @ (centred * centred)]]),
        },
        "squared_error": float(w @ (error * error)),
    }


def r2_from_sums(sums):
    """R^2 from the totals of :func:`r2_sums`, as ``sklearn.metrics.r2_score``.

    A constant target gives 1.0 when predicted exactly and 0.0 otherwise.

    Parameters
    ----------
    sums : dict

    Returns
    -------
    r2 : float
    """
    total = float(sums["moments_target"]["m2"][0, 0])
    error = float(sums["squared_error"])
    if total <= 0:
        return 1.0 if error == 0 else 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        return float(1.0 - error / total)


def _checked_block(block, func, kwargs, block_info=None):
    block = _aligned(block)
    if not _all_finite(block):
        if not block_info:
            raise ValueError("Input X contains NaN or infinity.")
        info = block_info[0]
        index, n_blocks = info["chunk-location"][0], info["num-chunks"][0]
        start, stop = info["array-location"][0]
        raise ValueError(
            f"Input X contains NaN or infinity in block {index} of {n_blocks} "
            f"(rows {start} to {stop - 1}). Drop or impute those rows, e.g. "
            f"X[{start}:{stop}], before predicting."
        )
    return func(block, **kwargs)


def map_rows(func, X, *, n_columns=None, **kwargs):
    """Lazy ``func(block, **kwargs)`` on every block of rows of ``X``.

    Each block is checked for NaN and infinity when it is computed.

    Parameters
    ----------
    func : callable
        Maps a block of shape (rows, n_features) to shape (rows,) or
        (rows, n_columns).
    X : dask.array.Array of shape (n_samples, n_features)
    n_columns : int or None, default=None
        None for a 1-D result.
    **kwargs
        Small constant arguments of ``func`` (coefficients).

    Returns
    -------
    result : dask.array.Array
    """
    if n_columns is None:
        return X.map_blocks(_checked_block, func, kwargs, drop_axis=1, dtype=np.float64)
    return X.map_blocks(
        _checked_block,
        func,
        kwargs,
        chunks=(X.chunks[0], (n_columns,)),
        dtype=np.float64,
    )
