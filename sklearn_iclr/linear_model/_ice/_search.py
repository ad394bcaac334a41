"""The exact search behind :class:`ICEClassifier`: pencil sweeps with ties.

The problem solved here is: given distinct points ``X`` (m, d) whose affine
hull is all of R^d, labels ``y`` in {-1, +1} and positive weights ``w``, find
an affine function whose strict sign pattern minimises the weighted number of
disagreements with ``y``.

Candidates. Every optimal cell of the arrangement of the m dual hyperplanes
has an extreme ray in its closure; that ray is a hyperplane H through d
affinely independent data points. The best cell next to H costs the weighted
errors of the points off H for one orientation of H plus the optimum of the
same problem restricted to the points on H, in the (d - 1)-dimensional
coordinates of H: a small perturbation of H can induce on H any affine
function of those coordinates while no off-plane point changes side.

Enumeration. The hyperplanes through d - 1 affinely independent points S form
a one-parameter family, a *pencil*. Rotating a plane once around the flat
aff(S) meets every other point exactly once, so sorting the points by the
angle at which they are met and accumulating their costs evaluates every
hyperplane of the pencil (both orientations at once) in O(m log m). Each
hyperplane through d affinely independent points lies in the pencil of any
d - 1 of them, so the sweeps over all (d - 1)-subsets examine every candidate,
d times C(m, d) examinations in O(m^d log m) time. Points met at the same
angle lie on one plane together: their optimal labelling is the recursive
sub-problem, solved once per on-plane set and cached.
"""

from functools import lru_cache
from math import comb

import numpy as np

from . import _kernel
from ._memory import check_memory
from ._tolerances import ANGLE_TOL, FLAT_TOL, RANK_TOL, ROUNDING

# Entries (pencils x points) processed per vectorised batch.
BATCH_ENTRIES = 1 << 18
_TINY = np.finfo(float).tiny
# Pencil tables of at most this many entries are built once per shape and
# kept (128 of them, 4 MiB at most).
SMALL_TABLE = 4096


class SearchCancelled(Exception):
    """Raised inside a search whose stop flag was set (another method of the
    portfolio proved the optimum first)."""


class SubProblems:
    """The on-plane sub-problems of one search, solved once for all its levels.

    The points on a plane through more than d points of a search form a
    sub-problem, searched in dimension d - 1, whose own planes nest further.
    One set of points is met at many nodes: by every plane that holds it,
    at every level (where each nested sub-problem loses only one point, a
    few thousand sets can be met hundreds of thousands of times). Their
    solutions are kept in one table, keyed by the points' indices in the
    top-level problem and shared by every level (:meth:`nested`) and by the
    chunks of the search.

    Each level also keeps ``floor``, the largest lower bound known of the
    optimum of a sub-problem it met. A sub-problem's points are a subset of
    the level's, and a labelling restricted to a subset makes no more
    errors, so the level's own optimum is at least ``floor``: once it
    reaches the level's best cost, no candidate can beat that cost and the
    level's search stops (on 63 points in D = 60 the first chain of nested
    sub-problems proves that no labelling makes fewer than 2 errors).

    Parameters
    ----------
    table : dict, default=None
        The table of another level of the same search (None: a new one).
    index : ndarray of shape (m,), default=None
        The indices of this level's points in the top-level problem (None:
        the top level).
    """

    def __init__(self, table=None, index=None):
        self.table = {} if table is None else table
        self.index = index
        self.floor = -np.inf

    def __len__(self):
        return len(self.table)

    def _top_level(self, on_plane):
        """The indices in the top-level problem of this level's ``on_plane``."""
        return on_plane if self.index is None else self.index[on_plane]

    def key(self, on_plane):
        """The table's key of the points ``on_plane`` (sorted indices)."""
        return self._top_level(on_plane).tobytes()

    def nested(self, on_plane):
        """The sub-problem of the points ``on_plane`` as a level of its own."""
        return SubProblems(self.table, self._top_level(on_plane))


class SearchControl:
    """What the nested searches of :func:`solve_exact` obey.

    Parameters
    ----------
    stop : threading.Event, default=None
        Once set, :meth:`check` raises :class:`SearchCancelled`.
    estimate : callable, default=None
        ``estimate(Y, y, w, bound)`` is called instead of each nested search
        (the cost model's probe prices sub-problems without solving them);
        the sub-problem then answers with its constant labelling.
    tally : callable, default=None
        ``tally(m, d, pencils, start, found)`` is called after each call of
        the compiled sweep, here and in the nested searches, with the shape
        of its problem, its chunk of pencils, the first it swept and its
        ``_kernel.ScanResult`` (the cost model counts the work of a search
        it runs in part); it may raise :class:`SearchCancelled`.
    """

    def __init__(self, stop=None, estimate=None, tally=None):
        self.stop, self.estimate, self.tally = stop, estimate, tally

    def check(self):
        if self.stop is not None and self.stop.is_set():
            raise SearchCancelled


def combinations_array(n, k):
    """All k-subsets of ``range(n)`` in lexicographic order.

    Parameters
    ----------
    n, k : int
        Ground set size and subset size.

    Returns
    -------
    subsets : ndarray of shape (comb(n, k), k), dtype int64

    Examples
    --------
    >>> combinations_array(4, 2).tolist()
    [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    """
    subsets = np.zeros((1, 0), dtype=np.int64)
    for j in range(k):
        last = subsets[:, -1] if j else np.full(len(subsets), -1, dtype=np.int64)
        # Extend each subset by every element after its last one that still
        # leaves room for the k - j - 1 elements that follow.
        counts = np.maximum(n - (k - j - 1) - (last + 1), 0)
        rows = np.repeat(np.arange(len(subsets)), counts)
        first_row = np.cumsum(counts) - counts
        offsets = np.arange(counts.sum()) - np.repeat(first_row, counts)
        subsets = np.column_stack([subsets[rows], last[rows] + 1 + offsets])
    return subsets


def count_examinations(m, d):
    """Number of (pencil, point) examinations of an exhaustive sweep.

    Parameters
    ----------
    m : int
        Distinct points.
    d : int
        Dimension of their affine hull.

    Returns
    -------
    count : int
        ``d * comb(m, d)``: each hyperplane through d points is examined once
        from each of the d pencils that contain it.

    Examples
    --------
    >>> count_examinations(10, 2)
    90
    """
    return d * comb(m, d) if d > 0 else 0


def affine_coordinates(X, max_dim=None):
    """Coordinates of points in their affine hull, scaled to [-1, 1].

    Parameters
    ----------
    X : ndarray of shape (m, p)
        Points.
    max_dim : int, default=None
        Largest dimension of the hull. Points that the search found on one
        hyperplane at its tolerances are given coordinates in at most
        ``d - 1`` dimensions (their best-fitting flat), whatever their
        smallest singular value.

    Returns
    -------
    Y : ndarray of shape (m, d)
        Coordinates in an orthonormal basis of the hull (``d`` its dimension),
        each column min-max scaled to [-1, 1]. The 0-1 loss problem is
        invariant under invertible affine maps, so ``Y`` and ``X`` have the
        same optimal labellings.

    Examples
    --------
    >>> import numpy as np
    >>> affine_coordinates(np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])).ravel()
    array([-1.,  0.,  1.])
    """
    if len(X) < 2:
        return np.zeros((len(X), 0))
    centred = X - X.sum(axis=0) / len(X)
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    scale = singular[0] if singular.size else 0.0
    rank = np.count_nonzero(singular > RANK_TOL * max(scale, _TINY))
    if max_dim is not None:
        rank = min(rank, max_dim)
    Y = centred @ vt[:rank].T
    low, high = Y.min(axis=0), Y.max(axis=0)
    # 2 (Y - low) / (high - low) - 1, in place (nested sub-problems call
    # this hundreds of times on a few points each)
    Y -= low
    Y *= 2.0
    Y /= high - low
    Y -= 1.0
    return Y


def _pencil_bases(Z, pencils, d):
    """Orthonormal bases of the 2-dimensional null spaces of the pencils.

    Returns ``basis`` (B, d + 1, 2), ``valid`` (B,), False when the d - 1
    points of a pencil are affinely dependent, and ``condition`` (B,), the
    ratio of their largest norm to their least Gram-Schmidt residual (the
    factor by which rounding errors grow in the basis).
    """
    if d == 1:
        n_pencils = len(pencils)
        return (
            np.broadcast_to(np.eye(2), (n_pencils, 2, 2)),
            np.ones(n_pencils, dtype=bool),
            np.ones(n_pencils),
        )
    rows = np.swapaxes(Z[pencils], 1, 2)  # (B, d + 1, d - 1)
    q, r = np.linalg.qr(rows, mode="complete")
    diagonal = np.abs(np.diagonal(r, axis1=1, axis2=2)).min(axis=1)
    largest = np.linalg.norm(rows, axis=1).max(axis=1)
    # Gram-Schmidt order: R_kk is the residual of point k against the others.
    valid = diagonal > RANK_TOL * largest
    condition = largest / np.where(valid, diagonal, largest)
    return q[:, :, d - 1 :], valid, condition


class _Sweep:
    """Every hyperplane of a batch of pencils, evaluated in both orientations.

    Attributes (B pencils, m points; position ``j`` counts along the sweep):
    ``order`` (B, m) the point met at each position (points on the pencil's
    flat last), ``sign`` (B, m) that point's side just before the sweep meets
    it, ``n_swept`` (B,) points not on the flat, ``start``/``stop`` (B, m)
    the positions of the group (plane) a position belongs to, ``is_first``
    (B, m) True at the first position of each group, ``cost_plus`` and
    ``cost_minus`` (B, m) the weighted off-plane errors of the group's plane
    in its two orientations, ``n_on_plane`` (B, m).
    """

    def __init__(self, Z, signed_weight, pencils, d):
        n_pencils, m = len(pencils), len(Z)
        basis, valid, condition = _pencil_bases(Z, pencils, d)
        projected = np.matmul(Z, basis)  # (B, m, 2)
        alpha, beta = projected[..., 0], projected[..., 1]
        # Directions are lines: fold them into the upper half-plane and sort
        # them by a pseudo-angle in [0, 2), monotone in the true angle.
        direction = np.where((beta < 0) | ((beta == 0) & (alpha < 0)), -1.0, 1.0)
        alpha *= direction
        beta *= direction
        norm = np.abs(alpha) + beta
        on_flat = norm <= FLAT_TOL
        angle = 1.0 - alpha / np.where(on_flat, 1.0, norm)
        angle[on_flat] = np.inf
        # Bound on the rounding error of each angle: errors of order eps in
        # the basis (times its condition) and in alpha, beta, over the norm.
        slack = (ROUNDING * (d + 1)) * condition[:, None] / np.where(on_flat, 1.0, norm)
        order = np.argsort(angle, axis=1)
        angle = _take(angle, order)
        slack = _take(slack, order)
        n_swept = m - on_flat.sum(axis=1)
        position = np.arange(m)
        swept = position < n_swept[:, None]
        safe_n = np.maximum(n_swept, 1)[:, None]
        following = np.where(position + 1 < n_swept[:, None], position + 1, 0)
        gap = _take(angle, following) - angle
        gap[:, :] = np.where(position == n_swept[:, None] - 1, gap + 2.0, gap)
        gap[~swept] = -np.inf
        # Start the sweep right after the widest gap: no group straddles it.
        first = (np.argmax(gap, axis=1)[:, None] + 1) % safe_n
        rotation = np.where(swept, (position + first) % safe_n, position)
        order = _take(order, rotation)
        # Consecutive points are on different planes when their angles differ
        # by more than the tolerance plus both rounding-error bounds.
        separation = gap - slack - _take(slack, following)
        is_first = _take(separation, (rotation - 1) % safe_n) > ANGLE_TOL
        is_first &= swept
        is_first[:, 0] = True

        # Before the plane meets a point, its side is the folded direction's
        # sign, reversed for points that were folded back across the start.
        self.sign = _take(direction, order)
        self.sign[rotation < first] *= -1
        signed = np.where(swept, signed_weight[order], 0.0)
        weight_sum = _cumsum0(np.abs(signed))
        # error while the plane has not passed the point (after: the rest)
        before_sum = _cumsum0(np.maximum(-self.sign * signed, 0.0))
        if is_first[swept].all():  # general position: one point per plane
            group_start = np.broadcast_to(position, order.shape)
            group_stop = np.broadcast_to(position + 1, order.shape)
        else:
            group_start = np.maximum.accumulate(np.where(is_first, position, 0), axis=1)
            marks = np.where(is_first, position, m)
            next_first = np.minimum.accumulate(marks[:, ::-1], axis=1)[:, ::-1]
            group_stop = np.minimum(
                np.concatenate([next_first[:, 1:], np.full((n_pencils, 1), m)], axis=1),
                n_swept[:, None],
            )
        passed = _take(weight_sum, group_start) - _take(before_sum, group_start)
        self.cost_plus = passed + before_sum[:, -1:] - _take(before_sum, group_stop)
        off_plane = weight_sum[:, -1:] - (
            _take(weight_sum, group_stop) - _take(weight_sum, group_start)
        )
        self.cost_minus = off_plane - self.cost_plus
        self.n_on_plane = group_stop - group_start + (m - n_swept)[:, None]
        self.is_first = is_first & swept & valid[:, None]
        self.order, self.n_swept = order, n_swept
        self.start, self.stop = group_start, group_stop
        self._segment = is_first | (position == n_swept[:, None])

    @property
    def group_min(self):
        """The least point index of each position's group (segmented minimum),
        used to tell which pencil owns a plane that several pencils contain."""
        starts = np.flatnonzero(self._segment)
        least = np.minimum.reduceat(self.order.ravel(), starts)
        index = np.cumsum(self._segment.ravel()) - 1
        return least[index].reshape(self.order.shape)

    def on_plane(self, b, j):
        """Indices of the points on the plane of group position (b, j)."""
        flat = self.order[b, self.n_swept[b] :]
        return np.sort(
            np.concatenate([self.order[b, self.start[b, j] : self.stop[b, j]], flat])
        )

    def labels(self, b, j, on_plane_labels, y):
        """The full labelling of the best cell next to group (b, j).

        Off-plane points take the side of the cheaper orientation, on-plane
        points the labels of the on-plane sub-problem.
        """
        side = self.sign[b].copy()
        side[: self.start[b, j]] *= -1
        if self.cost_minus[b, j] < self.cost_plus[b, j]:
            side = -side
        labels = np.empty(len(y), dtype=np.int8)
        labels[self.order[b]] = side
        on_plane = self.on_plane(b, j)
        labels[on_plane] = on_plane_labels
        return labels


def _take(values, index):
    """``np.take_along_axis(values, index, axis=1)`` for 2-d arrays, faster."""
    rows = np.arange(values.shape[0])[:, None] * values.shape[1]
    return values.ravel()[rows + index]


def _cumsum0(values):
    out = np.zeros((values.shape[0], values.shape[1] + 1))
    np.cumsum(values, axis=1, out=out[:, 1:])
    return out


def scan_pencils(
    X,
    y,
    w,
    pencils,
    upper_bound=np.inf,
    cache=None,
    exhaustive=True,
    compiled=True,
    prune=True,
    stats=None,
    control=None,
):
    """Find the best candidate hyperplane over the given pencils.

    Parameters
    ----------
    X : ndarray of shape (m, d)
        Distinct points, affine hull of full dimension d >= 1, scaled to
        [-1, 1].
    y : ndarray of shape (m,)
        Labels in {-1, +1}.
    w : ndarray of shape (m,)
        Positive weights.
    pencils : ndarray of shape (n_pencils, d - 1)
        Indices of the d - 1 points that define each pencil.
    upper_bound : float, default=inf
        Only candidates of cost at most this are of interest.
    cache : SubProblems, default=None
        On-plane sub-problem solutions, shared between calls on the same
        points and with the nested searches; the compiled sweep stops once
        its ``floor`` reaches the best cost.
    exhaustive : bool, default=True
        Whether ``pencils`` are part of an enumeration of all pencils. Then a
        plane with more than d points is evaluated only in the pencil that
        owns it (its d - 1 greedily chosen affinely independent points of
        least index), not once per pencil it lies in. Otherwise (the
        heuristic's subsets of pencils) such a plane's on-plane sub-problem
        is not solved: its points all take their heavier label (the plane
        shifted off them), a cell that bounds the plane's best from above.
    compiled : bool, default=True
        Sweep with the numba kernel (``_kernel``). ``False`` runs the
        vectorised numpy sweep, kept only as the tests' oracle; it also breaks
        ties between equal candidates differently (first key), so the two
        agree on the cost, not always on the labelling.
    prune : bool or _kernel.Prune, default=True
        The rules by which the compiled sweep skips work (``True``: all of
        them, ``Prune.ALL``): pencils whose lower bound (the prefix's forced
        errors, see ``_kernel._lines``) already reaches the best cost found
        so far (d >= 3), with ``Prune.BOUND`` also every pencil left once an
        on-plane sub-problem's optimum reaches it (``SubProblems``), and,
        when ``exhaustive``, pencils that own none of
        their planes, and in each pencil every plane it does not own (a plane
        through exactly d points is evaluated only in the first of its d
        pencils). The result over all the pencils of an enumeration is the
        same (a chunk of it may miss a plane that an earlier chunk holds);
        only ``n_examined`` is smaller.
    stats : dict, default=None
        When given, ``stats["pruned"]`` is increased by the number of pencils
        skipped by the bound and ``stats["foreign"]`` by those skipped because
        they own none of their planes.
    control : SearchControl, default=None
        Passed to the on-plane sub-problems (compiled sweep), which check it
        before each chunk of their pencils.

    Returns
    -------
    cost : float
        The least weighted 0-1 loss of a cell next to a candidate, ``inf``
        when no candidate reaches ``upper_bound``.
    key : tuple of int or None
        ``(pencil row, sweep position)`` of the first candidate reaching it.
    labels : ndarray of shape (m,) or None
        The labelling (in {-1, +1}) of that cell.
    n_examined : int
        Candidate hyperplanes examined (sweep groups).
    """
    cache = SubProblems() if cache is None else cache
    if isinstance(prune, bool):
        prune = _kernel.Prune.ALL if prune else _kernel.Prune.NONE
    if not compiled:
        return _scan_numpy(X, y, w, pencils, upper_bound, cache, exhaustive)
    *result, (n_pruned, n_foreign) = _scan_compiled(
        X, y, w, pencils, upper_bound, cache, exhaustive, prune, control
    )
    if stats is not None:
        stats["pruned"] = stats.get("pruned", 0) + n_pruned
        stats["foreign"] = stats.get("foreign", 0) + n_foreign
    return tuple(result)


def _scan_numpy(X, y, w, pencils, upper_bound, cache, exhaustive):
    """:func:`scan_pencils` by the vectorised numpy sweep, in batches of pencils."""
    m, d = X.shape
    Z = np.column_stack([X, np.ones(m)])
    signed_weight = y * w
    best_cost, best_key, best_labels = float(upper_bound), None, None
    n_examined = 0
    step = chunk_target(m)
    for offset in range(0, len(pencils), step):
        batch = pencils[offset : offset + step]
        sweep = _Sweep(Z, signed_weight, batch, d)
        n_examined += int(sweep.is_first.sum())
        best_cost, best_key, batch_best = _best_in_batch(
            X, y, w, Z, sweep, batch, offset, best_cost, best_key, cache, exhaustive
        )
        if batch_best is not None:
            b, j, on_plane_labels = batch_best
            best_labels = sweep.labels(b, j, on_plane_labels, y)
    if best_key is None:
        return np.inf, None, None, n_examined
    return best_cost, best_key, best_labels, n_examined


def _best_in_batch(
    X, y, w, Z, sweep, batch, offset, best_cost, best_key, cache, exhaustive
):
    """Improve the best candidate with one batch of swept pencils.

    Returns the new ``best_cost`` and ``best_key``, and ``(b, j,
    on_plane_labels)`` of the batch's winner when it beat the previous best
    (None otherwise).
    """
    m, d = X.shape
    lower = np.minimum(sweep.cost_plus, sweep.cost_minus)
    simple = sweep.is_first & (sweep.n_on_plane == d)
    # (All m points on one plane cannot happen in full dimension; the
    # guard keeps a numerically flat input from recursing forever.)
    tied = sweep.is_first & (sweep.n_on_plane > d) & (sweep.n_on_plane < m)
    batch_best = None
    # Candidates through exactly d points: every on-plane labelling is
    # reachable, so the cell costs the off-plane errors alone.
    flat_cost = np.where(simple, lower, np.inf).ravel()
    index = int(np.argmin(flat_cost))
    b, j = divmod(index, m)
    if _better(flat_cost[index], (offset + b, j), best_cost, best_key):
        best_cost, best_key = float(flat_cost[index]), (offset + b, j)
        on_plane = sweep.on_plane(b, j)
        batch_best = (b, j, y[on_plane].astype(np.int8))
    # Candidates with more than d points on the plane: add the optimum of
    # the on-plane sub-problem, when the off-plane part leaves room (a
    # heuristic scan: the cost of their heavier label, see ``scan_pencils``).
    if exhaustive and d > 1:
        # Extra points on the pencil's own flat need an explicit check.
        to_check = m - sweep.n_swept > d - 1
        if tied.any():
            # An owner's points have the least indices of the plane, so a
            # group with a point of smaller index belongs to another one.
            tied &= sweep.group_min > batch[:, -1:]
    rows, cols = np.nonzero(tied & (lower <= best_cost))
    for b, j in sorted(zip(rows, cols, strict=True), key=lambda t: lower[t]):
        key = (offset + int(b), int(j))
        if not _better(lower[b, j], key, best_cost, best_key):
            continue
        on_plane = sweep.on_plane(b, j)
        if exhaustive and d > 1 and to_check[b]:
            if not _owns(Z, on_plane, batch[b], d):
                continue
        if exhaustive:
            sub_cost, sub_labels = _solve_cached(X, y, w, on_plane, cache, False)
        else:
            sub_cost, sub_labels = constant_labels(y[on_plane], w[on_plane])
        cost = float(lower[b, j]) + sub_cost
        if _better(cost, key, best_cost, best_key):
            best_cost, best_key = cost, key
            batch_best = (int(b), int(j), sub_labels)
    return best_cost, best_key, batch_best


def _scan_compiled(X, y, w, pencils, upper_bound, cache, exhaustive, prune, control):
    """``scan_pencils`` with the numba sweep: the kernel returns the best plane
    through exactly d points and the tied planes that may beat it; their
    on-plane sub-problems are solved here, cheapest off-plane cost first."""
    m, d = X.shape
    Z = np.empty((m, d + 1))
    Z[:, :d] = X
    Z[:, d] = 1.0
    signed_weight = np.ascontiguousarray(y * w, dtype=np.float64)
    pencils = np.ascontiguousarray(pencils, dtype=np.int64).reshape(len(pencils), -1)
    best_cost, best_key, sub_labels = float(upper_bound), None, None
    n_examined, n_pruned, n_foreign, start = 0, 0, 0, 0
    # The buffer of tied candidates (the kernel returns before it may
    # overflow: with m + 1, after the first pencil holding one), small in
    # the first calls: their sub-problems are solved as soon as it fills,
    # and the first one may end the scan (``floor``) before the kernel has
    # swept the whole chunk.
    capacity, most = m + 1, 4 * m + 4096
    # Once a sub-problem's optimum reaches the best cost, so does this
    # problem's: nothing left can beat it (a rule of ``Prune.BOUND``).
    use_floor = bool(prune & _kernel.Prune.BOUND)
    while start < len(pencils) and not (use_floor and cache.floor >= best_cost):
        found = _kernel.scan(
            Z,
            signed_weight,
            pencils,
            d,
            best_cost,
            bool(exhaustive),
            start,
            capacity,
            int(prune),
        )
        if control is not None and control.tally is not None:
            control.tally(m, d, pencils, start, found)
        start, capacity = found.stop, min(2 * capacity - m, most)
        n_pruned += found.n_pruned
        n_foreign += found.n_foreign
        n_examined += found.n_examined
        if found.best_pencil >= 0:
            best_cost, sub_labels = found.best_cost, None
            best_key = (int(found.best_pencil), int(found.best_point))
        # Planes through more than d points: the off-plane cost plus the
        # on-plane optimum, cheapest off-plane cost first (then by pencil and
        # least point index, as the kernel orders the planes of one cost).
        tied_lower = found.tied_lower
        for k in np.lexsort((found.tied_point, found.tied_pencil, tied_lower)):
            if not tied_lower[k] < best_cost or (
                use_floor and cache.floor >= best_cost
            ):
                break
            key = (int(found.tied_pencil[k]), int(found.tied_point[k]))
            _, on_plane, _ = _kernel.plane_labels(
                Z, signed_weight, pencils[key[0]], d, key[1]
            )
            # Only a sub-problem optimum below best - lower can win (with a
            # margin for the rounding of the sum).
            limit = (best_cost - tied_lower[k]) * (1 + 1e-9) + 1e-12
            sub_cost, labels = _solve_cached(
                X, y, w, on_plane, cache, True, limit, control
            )
            cost = float(tied_lower[k]) + sub_cost
            if labels is not None and cost < best_cost:
                best_cost, best_key, sub_labels = cost, key, labels
    if best_key is None:
        return np.inf, None, None, int(n_examined), (n_pruned, n_foreign)
    labels, on_plane, position = _kernel.plane_labels(
        Z, signed_weight, pencils[best_key[0]], d, best_key[1]
    )
    if sub_labels is None:  # the kernel's plane
        if len(on_plane) == d:  # every labelling of d points is reachable
            sub_labels = y[on_plane]
        else:  # a heuristic's tied plane: the heavier label
            sub_labels = constant_labels(y[on_plane], w[on_plane])[1]
    labels[on_plane] = sub_labels
    best_key = (best_key[0], int(position))
    return float(best_cost), best_key, labels, int(n_examined), (n_pruned, n_foreign)


def _owns(Z, on_plane, pencil, d):
    """Whether ``pencil`` (affinely independent) is the owner of the plane.

    The greedy choice always takes the least on-plane index first and takes
    the d - 1 least ones when they are the pencil's own points; only other
    cases need the Gram-Schmidt pass.
    """
    if on_plane[0] != pencil[0]:
        return False
    if np.array_equal(on_plane[: d - 1], pencil):
        return True
    return np.array_equal(_owner(Z, on_plane, d), pencil)


def _owner(Z, on_plane, d):
    """The d - 1 affinely independent points of least index, chosen greedily."""
    chosen, basis = [], []
    for index in on_plane:
        # Gram-Schmidt residual of the homogeneous point against the chosen.
        residual = Z[index].copy()
        for unit in basis:
            residual -= (unit @ residual) * unit
        norm = np.linalg.norm(residual)
        if norm > RANK_TOL * np.linalg.norm(Z[index]):
            chosen.append(index)
            basis.append(residual / norm)
            if len(chosen) == d - 1:
                break
    return np.array(chosen)


def _better(cost, key, best_cost, best_key):
    """Lexicographic (cost, key) comparison; ``best_key=None`` is a bound."""
    if not np.isfinite(cost):
        return False
    if cost < best_cost:
        return True
    return cost == best_cost and (best_key is None or key < best_key)


def _solve_cached(X, y, w, on_plane, cache, compiled, limit=np.inf, control=None):
    """The on-plane sub-problem's ``(cost, labels)``, or ``(bound, None)``
    when its optimum is known to be at least ``bound >= limit`` (then the
    plane cannot beat the caller's best). Either way its cost bounds the
    optimum of the caller's problem from below (``cache.floor``), unless
    the sub-problem was only priced (``control.estimate``)."""
    key = cache.key(on_plane)
    entry = cache.table.get(key)
    if entry is None or (entry[1] is None and entry[0] < limit):
        entry = solve_exact(
            X[on_plane],
            y[on_plane],
            w[on_plane],
            max_dim=X.shape[1] - 1,
            compiled=compiled,
            upper_bound=limit,
            control=control,
            cache=cache.nested(on_plane),
        )
        cache.table[key] = entry
    if control is None or control.estimate is None:
        cache.floor = max(cache.floor, entry[0])
    return entry


def solve_exact(
    X,
    y,
    w,
    max_dim=None,
    *,
    compiled=True,
    upper_bound=np.inf,
    control=None,
    cache=None,
):
    """Exact minimum weighted 0-1 loss labelling of distinct points (serial).

    Parameters
    ----------
    X : ndarray of shape (m, p)
        Distinct points (any affine hull).
    y : ndarray of shape (m,)
        Labels in {-1, +1}.
    w : ndarray of shape (m,)
        Positive weights.
    max_dim : int, default=None
        Solve in at most this many dimensions (see ``affine_coordinates``).
    compiled : bool, default=True
        Use the numba sweep (``False``: the numpy oracle, for tests).
    upper_bound : float, default=inf
        Only an optimum below this is of interest: when the optimum is not,
        ``(upper_bound, None)`` may be returned instead.
    control : SearchControl, default=None
        Checked before each chunk of pencils, here and in the nested
        sub-problems.
    cache : SubProblems, default=None
        The solutions of the sub-problems met so far by the search this one
        is nested in (None: a search of its own).

    Returns
    -------
    cost : float
        The optimum.
    labels : ndarray of shape (m,), dtype int8
        An optimal strict labelling (realisable by an affine function that is
        non-zero on every point).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> cost, labels = solve_exact(X, np.array([-1, 1, -1, 1]), np.ones(4))
    >>> cost, labels.tolist()
    (1.0, [-1, 1, 1, 1])
    """
    y = y.astype(np.int8)
    bound, constant = constant_labels(y, w)
    if bound == 0 or len(X) == 1:
        return 0.0, y.copy()
    Y = affine_coordinates(X, max_dim)
    d = Y.shape[1]
    if d == 0:  # one location (at the tolerances): one label
        return bound, constant
    if d >= len(Y) - 1:  # affinely independent points: every labelling
        return 0.0, y.copy()
    if d == len(Y) - 2:  # one affine dependency: no search needed
        return _one_circuit(Y, y, w)
    if control is not None and control.estimate is not None:
        control.estimate(Y, y, w, min(bound, upper_bound))
        return (bound, constant) if bound < upper_bound else (upper_bound, None)
    check_memory(
        exhaustive_chunks_bytes(len(Y), d, chunk_target(len(Y))),
        f"The pencil tables of an on-plane sub-problem of {len(Y)} points in "
        f"dimension {d}",
        "Use fewer samples or features, or solver='milp'.",
    )
    cache = SubProblems() if cache is None else cache
    best_cost, best_labels = search_chunks(
        Y, y, w, min(bound, upper_bound), cache, compiled=compiled, control=control
    )
    if best_labels is None:
        if upper_bound < bound:  # nothing below upper_bound
            return float(upper_bound), None
        return bound, constant  # the constant classifier is optimal
    return best_cost, best_labels


def chunk_target(m):
    """Pencils per chunk of an exhaustive search of m points: about
    ``BATCH_ENTRIES`` indices' worth of tables."""
    return max(1, BATCH_ENTRIES // m)


def search_chunks(Y, y, w, best_cost, cache, *, compiled=True, control=None):
    """The exhaustive search of ``Y`` in chunks of pencils (memory), each
    searched below the best of the earlier ones; ``(cost, labels)`` of the
    best labelling below ``best_cost``, or ``(best_cost, None)``. The
    compiled search stops after a chunk once a sub-problem's optimum reaches
    the best cost (``cache.floor``), before the next chunk is built (the
    numpy oracle searches on)."""
    best_labels = None
    for pencils in exhaustive_chunks(len(Y), Y.shape[1], chunk_target(len(Y))):
        if control is not None:
            control.check()
        cost, _, labels, _ = scan_pencils(
            Y, y, w, pencils, best_cost, cache, compiled=compiled, control=control
        )
        if labels is not None:
            best_cost, best_labels = cost, labels
        if compiled and cache.floor >= best_cost:
            break
    return best_cost, best_labels


def _one_circuit(Y, y, w):
    """The optimum of d + 2 points spanning dimension d, in closed form.

    Their homogeneous coordinates have a one-dimensional space of affine
    dependencies ``sum_i lambda_i (Y_i, 1) = 0``. By Gordan's theorem a
    strict labelling ``s`` is not realisable exactly when some ``mu >= 0``,
    not zero, has ``sum_i mu_i s_i (Y_i, 1) = 0``, that is when ``s_i`` is
    the sign of ``lambda_i`` on the whole support of ``lambda`` (a Radon
    partition), or its opposite everywhere there. So ``y`` is optimal unless
    it is one of those two patterns, and then flipping the lightest point of
    the support is. (Nested sub-problems of data with D close to N are often
    of this size: 31 points on a plane of 33 in D = 30.)
    """
    homogeneous = np.column_stack([Y, np.ones(len(Y))])
    dependency = np.linalg.svd(homogeneous.T)[2][-1]
    support = np.abs(dependency) > RANK_TOL * np.abs(dependency).max()
    sides = np.sign(dependency[support]) * y[support]
    if np.any(sides != sides[0]):
        return 0.0, y.copy()
    lightest = np.flatnonzero(support)[np.argmin(w[support])]
    labels = y.copy()
    labels[lightest] = -labels[lightest]
    return float(w[lightest]), labels


def constant_labels(y, w):
    """``(cost, labels)`` of the better constant labelling (ties: +1)."""
    positive, negative = w[y > 0].sum(), w[y < 0].sum()
    label = 1 if positive >= negative else -1
    return float(min(positive, negative)), np.full(len(y), label, dtype=np.int8)


def exhaustive_chunks_bytes(m, d, target):
    """Most bytes of index arrays :func:`exhaustive_chunks` holds at once:
    chunks of at most twice ``max(target, m)`` rows, held twice while one
    is assembled, and its tables of subsets (at most one per size, each of
    at most ``max(target, m)`` rows). An upper bound, reached where the
    tables of every size are full; :func:`exhaustive_chunks_peak_bytes`
    counts the actual peak.

    Examples
    --------
    >>> exhaustive_chunks_bytes(72, 5, 29_000)
    7424000
    """
    k = max(d - 1, 1)
    rows = min(max(target, m), comb(m, d - 1) if d > 1 else 1)
    return 8 * k * rows * (4 + k)


def exhaustive_chunks_peak_bytes(m, d, target, max_blocks=4096, first_chunk=False):
    """The peak bytes of index arrays :func:`exhaustive_chunks` holds, counted
    by walking its blocks without building them: its tables of subsets (and
    the table being built, twice its size while ``combinations_array`` runs),
    the blocks of the chunk being assembled, and the chunk with its blocks
    while the consumer holds it (with ``first_chunk``, until the consumer
    holds the first chunk: a search that stops there). Enumerations of more
    than ``max_blocks`` blocks get the upper bound
    :func:`exhaustive_chunks_bytes` instead.

    Examples
    --------
    >>> exhaustive_chunks_peak_bytes(32, 29, 8192) / 2**20  # the bound: 56 MiB
    9.01...
    """
    if d == 1:
        return 0
    k = d - 1
    tables, parts, peak = {}, 0, 0
    for n_block, (_, start, size) in enumerate(_blocks(m, k, target)):
        if n_block == max_blocks:
            return exhaustive_chunks_bytes(m, d, target)
        n = m - start
        if size not in tables or tables[size][0] < n:
            rows = _table_rows(m, n, size, target)
            building = 2 * comb(rows, size) * size
            peak = max(peak, sum(t[1] for t in tables.values()) + parts + building)
            tables[size] = (rows, comb(rows, size) * size)
        parts += comb(n, size) * k
        held = sum(t[1] for t in tables.values()) + parts
        if parts >= target * k:  # the chunk is assembled next to its blocks
            held += parts
            parts = 0
            if first_chunk:
                return 8 * max(peak, held)
        peak = max(peak, held)
    return 8 * max(peak, sum(t[1] for t in tables.values()) + 2 * parts)


def _table_rows(m, n, k, target):
    """The points of the table of k-subsets that serves the suffix of ``n``
    points: the largest range of at most ``target`` subsets (or ``n``)."""
    size = n
    while size < m and comb(size + 1, k) <= target:
        size += 1
    return size


def _blocks(m, k, target, prefix=(), start=0):
    """``(prefix, start, k)`` of each block of :func:`exhaustive_chunks`: the
    k-subsets of ``range(start, m)`` after ``prefix``, split by first element
    until a run of them is small enough to take from a table."""
    if k == 1 or comb(m - start, k) <= target:
        yield prefix, start, k
        return
    for first in range(start, m - k + 1):
        yield from _blocks(m, k - 1, target, (*prefix, first), first + 1)


@lru_cache(maxsize=128)
def _small_table(n, k):
    """``combinations_array(n, k)`` of at most ``SMALL_TABLE`` entries, kept
    for the many on-plane sub-problems of one shape (callers get a copy)."""
    return combinations_array(n, k)


def exhaustive_chunks(m, d, target):
    """All (d - 1)-subsets of ``range(m)``, lexicographic, in chunks.

    The subsets are built from tables of at most ``max(target, m)`` rows, so
    the memory held is bounded whatever the number of subsets
    (:func:`exhaustive_chunks_bytes`).

    Parameters
    ----------
    m, d : int
        Points and hull dimension (d >= 1).
    target : int
        Approximate number of pencils per chunk (at most twice ``max(target,
        m)``).

    Yields
    ------
    pencils : ndarray of shape (n_pencils, d - 1)
    """
    if d == 1:
        yield np.zeros((1, 0), dtype=np.int64)
        return
    n_pencils = comb(m, d - 1)
    if n_pencils <= target and n_pencils * (d - 1) <= SMALL_TABLE:  # sub-problems
        yield _small_table(m, d - 1).copy()
        return
    # The k-subsets of range(start, m) are the last rows of the table of
    # those of range(m - size, m), for any size >= m - start: one table per
    # k, of the largest such range of at most ``target`` subsets.
    tables = {}
    parts, size = [], 0
    for prefix, start, k in _blocks(m, d - 1, target):
        n = m - start
        if k not in tables or tables[k][0] < n:
            rows = _table_rows(m, n, k, target)
            tables[k] = (rows, combinations_array(rows, k) + (m - rows))
        table = tables[k][1]
        rest = table[len(table) - comb(n, k) :]
        block = np.empty((len(rest), d - 1), dtype=np.int64)
        block[:, : len(prefix)] = prefix
        block[:, len(prefix) :] = rest
        parts.append(block)
        size += len(rest)
        if size >= target:
            yield np.concatenate(parts)
            parts, size = [], 0
    if parts:
        yield np.concatenate(parts)
