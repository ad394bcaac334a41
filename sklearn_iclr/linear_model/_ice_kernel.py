"""The compiled pencil sweep of :class:`ICEClassifier` (numba).

One pencil at a time: an orthonormal basis of the 2-dimensional null space of
its d - 1 homogeneous points (modified Gram-Schmidt), the pseudo-angle at
which the rotating plane meets every other point, a sort, the grouping of
points met at the same angle (within ``ANGLE_TOL`` plus a bound on the
rounding error of both angles), and the weighted off-plane errors of every
group's plane in both orientations, by prefix sums along the sweep. This is
the numpy ``_Sweep`` of ``_ice_enumeration`` (kept there as the test oracle)
without its temporary arrays: the same quantities, the same tolerances, the
same candidates.

The kernels are compiled on first use and cached on disk (``cache=True``):
numba writes the cache next to this file, or, where the installation is
read-only, under the user-wide cache folder (``NUMBA_CACHE_DIR`` overrides
both).
"""

import numpy as np
from numba import njit

# Same tolerances as the numpy oracle (see ``_ice_enumeration``).
RANK_TOL = 1e-9
FLAT_TOL = 1e-9
ANGLE_TOL = 1e-9
ROUNDING = 16 * np.finfo(float).eps


@njit(cache=True, nogil=True, inline="always")
def _project_out(basis, count, target, row, width):
    """One Gram-Schmidt pass: subtract from ``target[row]`` its components
    along the orthonormal rows ``basis[:count]``, in order."""
    for i in range(count):
        dot = 0.0
        for c in range(width):
            dot += basis[i, c] * target[row, c]
        for c in range(width):
            target[row, c] -= dot * basis[i, c]


@njit(cache=True, nogil=True)
def _complement(units, n_units, basis, slot, e, width):
    """Set ``basis[slot]`` to the residual of the e-th standard vector against
    the units and the earlier slots; return its squared norm."""
    for c in range(width):
        basis[slot, c] = 0.0
    basis[slot, e] = 1.0
    for _ in range(2):
        _project_out(units, n_units, basis, slot, width)
        _project_out(basis, slot, basis, slot, width)
    norm = 0.0
    for c in range(width):
        norm += basis[slot, c] * basis[slot, c]
    return norm


@njit(cache=True, nogil=True)
def _prefix(Z, pencil, d, units, frame, projected):
    """Project the points onto the null space of the pencil's first d - 2
    points (an orthonormal ``frame`` of 3 vectors, by modified Gram-Schmidt
    and completion with standard vectors); return (largest norm, least
    Gram-Schmidt residual) of those points."""
    width = d + 1
    largest, least = 0.0, np.inf
    for k in range(d - 2):
        row = Z[pencil[k]]
        norm = 0.0
        for c in range(width):
            units[k, c] = row[c]
            norm += row[c] * row[c]
        largest = max(largest, np.sqrt(norm))
        for _ in range(2):  # twice is enough (Kahan-Parlett)
            _project_out(units, k, units, k, width)
        residual = 0.0
        for c in range(width):
            residual += units[k, c] * units[k, c]
        residual = np.sqrt(residual)
        least = min(least, residual)
        if residual > 0.0:
            for c in range(width):
                units[k, c] /= residual
    # Complete with the standard vectors of largest residual.
    n_units = d - 2
    for slot in range(3):
        best_norm, best_e = -1.0, 0
        for e in range(width):
            norm = _complement(units, n_units, frame, slot, e, width)
            if norm > best_norm:
                best_norm, best_e = norm, e
        norm = np.sqrt(_complement(units, n_units, frame, slot, best_e, width))
        for c in range(width):
            frame[slot, c] /= norm
    for i in range(Z.shape[0]):
        for slot in range(3):
            dot = 0.0
            for c in range(width):
                dot += Z[i, c] * frame[slot, c]
            projected[i, slot] = dot
    return largest, least


@njit(cache=True, nogil=True)
def _argsort(keys, order, sorted_keys, count, m):
    """``order[:m]`` = indices sorting ``keys[:m]`` (in [0, 2] or inf), and
    ``sorted_keys[:m]`` the keys in that order: a bucket pass, then insertion
    sort (linear time for spread-out keys)."""
    for k in range(m + 1):
        count[k] = 0
    scale = m / 2.0
    for i in range(m):
        key = keys[i]
        bucket = m if key > 2.0 else min(int(key * scale), m - 1)
        count[bucket] += 1
    total = 0
    for k in range(m + 1):
        size = count[k]
        count[k] = total
        total += size
    for i in range(m):
        key = keys[i]
        bucket = m if key > 2.0 else min(int(key * scale), m - 1)
        slot = count[bucket]
        order[slot] = i
        sorted_keys[slot] = key
        count[bucket] = slot + 1
    for j in range(1, m):
        item = order[j]
        key = sorted_keys[j]
        k = j - 1
        while k >= 0 and sorted_keys[k] > key:
            order[k + 1] = order[k]
            sorted_keys[k + 1] = sorted_keys[k]
            k -= 1
        order[k + 1] = item
        sorted_keys[k + 1] = key


@njit(cache=True, nogil=True)
def _sweep(Z, signed_weight, pencil, d, work, iwork, prefix, projected):
    """Sweep one pencil into the work arrays.

    ``projected`` holds the points in the frame of the null space of the
    pencil's first d - 2 points (``_prefix``), ``prefix`` the (largest norm,
    least residual) of those points. Returns ``n_swept`` (-1 when the
    pencil's points are affinely dependent). Afterwards, for positions ``j``
    along the sweep: ``iwork[1, j]`` the point met (points on the pencil's
    flat last), ``work[2, j]`` its side just before the plane meets it,
    ``iwork[2, j]`` 1 at the first position of a group (plane), ``work[3]``
    and ``work[4]`` (length m + 1) the prefix sums of ``|signed weight|`` and
    of the weight of the errors before the plane passes.
    """
    m = Z.shape[0]
    width = d + 1
    if d == 1:
        e1 = (1.0, 0.0, 0.0)
        e2 = (0.0, 1.0, 0.0)
        condition = 1.0
    else:
        last = pencil[d - 2]
        norm = 0.0
        for c in range(width):
            norm += Z[last, c] * Z[last, c]
        largest = max(prefix[0], np.sqrt(norm))
        u0, u1, u2 = projected[last, 0], projected[last, 1], projected[last, 2]
        residual = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        least = min(prefix[1], residual)
        if not least > RANK_TOL * largest:
            return -1
        condition = largest / least
        u0, u1, u2 = u0 / residual, u1 / residual, u2 / residual
        # e1: the standard axis least aligned with u, minus its u component.
        a0, a1, a2 = abs(u0), abs(u1), abs(u2)
        if a0 <= a1 and a0 <= a2:
            v0, v1, v2 = 1.0 - u0 * u0, -u0 * u1, -u0 * u2
        elif a1 <= a2:
            v0, v1, v2 = -u1 * u0, 1.0 - u1 * u1, -u1 * u2
        else:
            v0, v1, v2 = -u2 * u0, -u2 * u1, 1.0 - u2 * u2
        scale = np.sqrt(v0 * v0 + v1 * v1 + v2 * v2)
        e1 = (v0 / scale, v1 / scale, v2 / scale)
        e2 = (
            u1 * e1[2] - u2 * e1[1],
            u2 * e1[0] - u0 * e1[2],
            u0 * e1[1] - u1 * e1[0],
        )
    angle, slack, direction = work[0, :m], work[1, :m], work[5, :m]
    rounding = ROUNDING * width * condition
    n_swept = 0
    for i in range(m):
        if d == 1:
            alpha, beta = Z[i, 0], Z[i, 1]
        else:
            p0, p1, p2 = projected[i, 0], projected[i, 1], projected[i, 2]
            alpha = p0 * e1[0] + p1 * e1[1] + p2 * e1[2]
            beta = p0 * e2[0] + p1 * e2[1] + p2 * e2[2]
        fold = 1.0
        if beta < 0.0 or (beta == 0.0 and alpha < 0.0):
            fold = -1.0
        alpha *= fold
        beta *= fold
        direction[i] = fold
        norm = abs(alpha) + beta
        if norm <= FLAT_TOL:
            angle[i] = np.inf
            slack[i] = rounding
        else:
            angle[i] = 1.0 - alpha / norm
            slack[i] = rounding / norm
            n_swept += 1
    order = iwork[0]
    sorted_angle = work[6, :m]
    _argsort(angle, order, sorted_angle, iwork[3], m)
    if n_swept == 0:
        for j in range(m):
            iwork[1, j] = order[j]
            iwork[2, j] = 0
        return 0
    # Start right after the widest gap (the first of equal ones).
    widest, first = -np.inf, 0
    for k in range(n_swept):
        nxt = k + 1 if k + 1 < n_swept else 0
        gap = sorted_angle[nxt] - sorted_angle[k]
        if k == n_swept - 1:
            gap += 2.0
        if gap > widest:
            widest, first = gap, k
    first = (first + 1) % n_swept
    met, is_first, sign = iwork[1, :m], iwork[2, :m], work[2, :m]
    total, before = work[3], work[4]
    total[0], before[0] = 0.0, 0.0
    for j in range(m):
        if j < n_swept:
            k = j + first
            if k >= n_swept:
                k -= n_swept
            point = order[k]
            side = direction[point]
            if k < first:
                side = -side
            previous = k - 1 if k > 0 else n_swept - 1
            gap = sorted_angle[k] - sorted_angle[previous]
            if k == 0:
                gap += 2.0
            separation = gap - slack[order[previous]] - slack[point]
            is_first[j] = 1 if (j == 0 or separation > ANGLE_TOL) else 0
            s = signed_weight[point]
            total[j + 1] = total[j] + abs(s)
            error = -side * s
            before[j + 1] = before[j] + (error if error > 0.0 else 0.0)
        else:
            point = order[j]
            side = direction[point]
            is_first[j] = 0
            total[j + 1] = total[j]
            before[j + 1] = before[j]
        met[j] = point
        sign[j] = side
    return n_swept


@njit(cache=True, nogil=True)
def _owns(Z, on_plane, n_on, pencil, d, units):
    """Whether ``pencil`` is the greedy choice of the d - 1 affinely
    independent on-plane points of least index (``on_plane`` sorted)."""
    if on_plane[0] != pencil[0]:
        return False
    same = True
    for k in range(d - 1):
        if on_plane[k] != pencil[k]:
            same = False
            break
    if same:
        return True
    width = Z.shape[1]
    n_chosen = 0
    for t in range(n_on):
        index = on_plane[t]
        norm0 = 0.0
        for c in range(width):
            units[n_chosen, c] = Z[index, c]
            norm0 += Z[index, c] * Z[index, c]
        _project_out(units, n_chosen, units, n_chosen, width)
        norm = 0.0
        for c in range(width):
            norm += units[n_chosen, c] * units[n_chosen, c]
        norm = np.sqrt(norm)
        if norm > RANK_TOL * np.sqrt(norm0):
            if index != pencil[n_chosen]:
                return False
            for c in range(width):
                units[n_chosen, c] /= norm
            n_chosen += 1
            if n_chosen == d - 1:
                return True
    return False


@njit(cache=True, nogil=True)
def _new_prefix(pencils, b, d):
    for k in range(d - 2):
        if pencils[b, k] != pencils[b - 1, k]:
            return True
    return False


@njit(cache=True, nogil=True)
def scan(Z, signed_weight, pencils, d, bound, exhaustive, start, capacity):
    """Sweep the pencils ``start:`` in order, until the end or until the
    buffer of tied candidates could overflow.

    Returns ``(stop, n_examined, best_cost, best_pencil, best_start,
    cand_pencil, cand_start, cand_lower)``: the first pencil not swept; the
    planes examined; the least cost below ``bound`` of a plane through
    exactly d points, its pencil (-1 when none) and the sweep position of its
    group; and every plane through more than d points whose off-plane cost
    is below the best found so far (only in its owner pencil when
    ``exhaustive``), by pencil and sweep position.
    """
    m = Z.shape[0]
    n_pencils = pencils.shape[0]
    work = np.empty((7, m + 1))
    iwork = np.empty((4, m + 1), dtype=np.int64)
    units = np.empty((max(d - 1, 1), d + 1))
    frame = np.empty((3, d + 1))
    projected = np.empty((m, 3))
    prefix = np.empty(2)
    flat = np.empty(m, dtype=np.int64)
    cand_pencil = np.empty(capacity, dtype=np.int64)
    cand_start = np.empty(capacity, dtype=np.int64)
    cand_lower = np.empty(capacity)
    n_cand = 0
    best, best_pencil, best_start = bound, -1, -1
    n_examined = 0
    check_owner = exhaustive and d > 1
    b = start
    while b < n_pencils and n_cand + m <= capacity:
        pencil = pencils[b]
        if d > 1 and (b == start or _new_prefix(pencils, b, d)):
            prefix[0], prefix[1] = _prefix(Z, pencil, d, units, frame, projected)
        n_swept = _sweep(Z, signed_weight, pencil, d, work, iwork, prefix, projected)
        b += 1
        if n_swept <= 0:
            continue
        met, is_first = iwork[1, :m], iwork[2, :m]
        total, before = work[3], work[4]
        n_flat = m - n_swept
        all_w, all_b = total[m], before[m]
        # With more points on the pencil's flat than its own, the owner of
        # each of its tied planes is the greedy choice among the flat's
        # points alone (every other on-plane point has a larger index): one
        # check per pencil.
        owner = True
        if check_owner and n_flat > d - 1:
            for j in range(n_flat):
                flat[j] = met[n_swept + j]
            flat[:n_flat].sort()
            owner = _owns(Z, flat, n_flat, pencil, d, units)
        last = pencil[d - 2] if d > 1 else -1
        gs = 0
        while gs < n_swept:
            ge = gs + 1
            least = met[gs]
            while ge < n_swept and is_first[ge] == 0:
                least = min(least, met[ge])
                ge += 1
            n_examined += 1
            passed = total[gs] - before[gs]
            plus = passed + all_b - before[ge]
            minus = all_w - (total[ge] - total[gs]) - plus
            lower = plus if plus < minus else minus
            n_on = ge - gs + n_flat
            if lower < best:
                if n_on == d:
                    best, best_pencil, best_start = lower, b - 1, gs
                elif owner and n_on < m and (not check_owner or least > last):
                    cand_pencil[n_cand] = b - 1
                    cand_start[n_cand] = gs
                    cand_lower[n_cand] = lower
                    n_cand += 1
            gs = ge
    return (
        b,
        n_examined,
        best,
        best_pencil,
        best_start,
        cand_pencil[:n_cand],
        cand_start[:n_cand],
        cand_lower[:n_cand],
    )


@njit(cache=True, nogil=True)
def plane_labels(Z, signed_weight, pencil, d, group_start):
    """Labels (+-1) of the best cell next to the plane of a group off the
    plane, in the cheaper orientation, and the sorted on-plane points (whose
    labels are the caller's)."""
    m = Z.shape[0]
    work = np.empty((7, m + 1))
    iwork = np.empty((4, m + 1), dtype=np.int64)
    units = np.empty((max(d - 1, 1), d + 1))
    frame = np.empty((3, d + 1))
    projected = np.empty((m, 3))
    prefix = np.empty(2)
    if d > 1:
        prefix[0], prefix[1] = _prefix(Z, pencil, d, units, frame, projected)
    n_swept = _sweep(Z, signed_weight, pencil, d, work, iwork, prefix, projected)
    met, is_first, sign = iwork[1, :m], iwork[2, :m], work[2, :m]
    total, before = work[3], work[4]
    gs = group_start
    ge = gs + 1
    while ge < n_swept and is_first[ge] == 0:
        ge += 1
    plus = total[gs] - before[gs] + before[m] - before[ge]
    minus = total[m] - (total[ge] - total[gs]) - plus
    flip = -1 if minus < plus else 1
    labels = np.empty(m, dtype=np.int8)
    for j in range(m):
        side = sign[j] if j >= gs else -sign[j]
        labels[met[j]] = np.int8(flip * side)
    on_plane = np.concatenate((met[gs:ge], met[n_swept:]))
    on_plane.sort()
    return labels, on_plane
