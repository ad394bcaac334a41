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
# Pruning (``_lines``, ``_pencil_bound``). Points of one line through the
# prefix flat are merged only when their unit directions agree this closely
# (a tight test: a missed merge only weakens the bound) ...
LINE_TOL = 1e-12
# ... and two lines count as coplanar with a pencil's axis when their angles
# about it differ by less than this plus both angles' rounding bounds (a loose
# test, 10x the sweep's ``ANGLE_TOL``: a wrong merge only weakens the bound).
PLANE_TOL = 1e-8
# A fixed direction (irrational ratios) whose dot product sorts the lines.
_KEY = (0.5773502691896258, 0.7071067811865476, 0.4082482904638631)


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
def _condition(Z, pencil, d, prefix, projected):
    """(residual of the pencil's last point in the prefix frame, the pencil's
    condition number), as ``_sweep`` computes them; condition 0 when the
    pencil's points are affinely dependent."""
    last = pencil[d - 2]
    norm = 0.0
    for c in range(d + 1):
        norm += Z[last, c] * Z[last, c]
    largest = max(prefix[0], np.sqrt(norm))
    u0, u1, u2 = projected[last, 0], projected[last, 1], projected[last, 2]
    residual = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    least = min(prefix[1], residual)
    if not least > RANK_TOL * largest:
        return residual, 0.0
    return residual, largest / least


@njit(cache=True, nogil=True, inline="always")
def _axis_frame(u0, u1, u2):
    """Two unit vectors completing the unit vector u to a right-handed
    orthonormal basis (the same construction in ``_sweep`` and the bound)."""
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
    return e1, e2


@njit(cache=True, nogil=True)
def _lines(projected, signed_weight, pencil, d, lwork, liwork):
    """The forced errors of a prefix: a lower bound for pruning.

    Every plane of the pencils sharing a prefix T (the first d - 2 points)
    contains the flat of T. Two points on one line through that flat (in the
    3-dimensional prefix frame: parallel ``projected`` rows) lie on the same
    side of such a plane when on the same ray and on opposite sides
    otherwise, unless the plane contains the line. So a line whose points
    would need both orientations forces ``min(A+, A-)`` errors on every plane
    not containing it (``A+-``: the weight its points would have wrong in
    either orientation). Writes, for each line of positive forced cost, its
    unit direction (``lwork[0:3]``), cost (``lwork[3]``) and least and
    largest point norm (``lwork[4:6]``); returns (number of such lines, their
    total cost).
    """
    m = projected.shape[0]
    key, unit, side = lwork[6, :m], lwork[7:10, :m], lwork[10, :m]
    sorted_key = lwork[11, :m]
    order, count, line = liwork[0], liwork[1], liwork[2]
    for i in range(m):
        p0, p1, p2 = projected[i, 0], projected[i, 1], projected[i, 2]
        norm = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
        skip = norm <= 1e-6  # near the prefix's flat: left out (safe)
        liwork[3, i] = -1
        liwork[4, i] = i
        for k in range(d - 2):
            if pencil[k] == i:
                skip = True
        if skip:  # a point of the prefix (or on its flat): on every plane
            key[i] = np.inf
            side[i] = 0.0
            continue
        p0, p1, p2 = p0 / norm, p1 / norm, p2 / norm
        a0, a1, a2 = abs(p0), abs(p1), abs(p2)
        big = p0 if (a0 >= a1 and a0 >= a2) else (p1 if a1 >= a2 else p2)
        fold = 1.0 if big > 0.0 else -1.0
        unit[0, i], unit[1, i], unit[2, i] = fold * p0, fold * p1, fold * p2
        side[i] = fold * norm  # signed distance along the line
        key[i] = 1.0 + fold * (p0 * _KEY[0] + p1 * _KEY[1] + p2 * _KEY[2]) / 2.0
    _argsort(key, order, sorted_key, count, m)
    n_lines, total = 0, 0.0
    j = 0
    while j < m and sorted_key[j] <= 2.0:
        # A run of equal keys (within the tolerance) holds few lines: merge
        # its points pairwise against the run's lines.
        run_end = j + 1
        while run_end < m and sorted_key[run_end] - sorted_key[run_end - 1] <= LINE_TOL:
            run_end += 1
        first_line = n_lines
        for t in range(j, run_end):
            i = order[t]
            found = -1
            for ell in range(first_line, n_lines):
                rep = line[ell]
                if (
                    abs(unit[0, i] - unit[0, rep]) <= LINE_TOL
                    and abs(unit[1, i] - unit[1, rep]) <= LINE_TOL
                    and abs(unit[2, i] - unit[2, rep]) <= LINE_TOL
                ):
                    found = ell
                    break
            if found < 0:
                found = n_lines
                line[found] = i
                lwork[3, found], lwork[12, found] = 0.0, 0.0  # A+, A-
                lwork[4, found], lwork[5, found] = np.inf, 0.0
                liwork[5, found] = i
                n_lines += 1
            liwork[3, i] = found
            liwork[5, found] = min(liwork[5, found], i)
            # The side of the point when the line's direction is positive,
            # times its label: agreement in the + orientation.
            s = side[i] * signed_weight[i]
            if s > 0.0:
                lwork[3, found] += abs(signed_weight[i])
            else:
                lwork[12, found] += abs(signed_weight[i])
            norm = abs(side[i])
            lwork[4, found] = min(lwork[4, found], norm)
            lwork[5, found] = max(lwork[5, found], norm)
        j = run_end
    # The least point index of each point's line (``_sweep``'s owner test).
    for i in range(m):
        if liwork[3, i] >= 0:
            liwork[4, i] = liwork[5, liwork[3, i]]
    # Keep the lines with a positive forced cost, compacted.
    n_forced = 0
    for ell in range(n_lines):
        forced = min(lwork[3, ell], lwork[12, ell])
        if forced > 0.0:
            rep = line[ell]
            lwork[0, n_forced] = unit[0, rep]
            lwork[1, n_forced] = unit[1, rep]
            lwork[2, n_forced] = unit[2, rep]
            lwork[3, n_forced] = forced
            lwork[4, n_forced] = lwork[4, ell]
            lwork[5, n_forced] = lwork[5, ell]
            total += forced
            n_forced += 1
    return n_forced, total


@njit(cache=True, nogil=True)
def _pencil_bound(
    projected, last, residual, condition, d, n_forced, total, lwork, liwork
):
    """A lower bound on the off-plane cost of every plane of the pencil whose
    last point is ``last``: the prefix's forced cost less the most any one
    plane of the pencil can hold. Its planes all contain the pencil's axis (the
    line of ``last``); a forced line lies on one of them only at its angle
    about the axis, so the most is the forced cost of the lines parallel to
    the axis plus the largest total of lines at one angle (grouped with a
    loose tolerance that covers the sweep's own grouping and rounding)."""
    u0 = projected[last, 0] / residual
    u1 = projected[last, 1] / residual
    u2 = projected[last, 2] / residual
    e1, e2 = _axis_frame(u0, u1, u2)
    rounding = ROUNDING * (d + 1) * condition
    angle, slack = lwork[6, :n_forced], lwork[7, :n_forced]
    sorted_angle = lwork[8, :n_forced]
    order, count = liwork[0], liwork[1]
    always = 0.0
    n_angled = 0
    for ell in range(n_forced):
        v0, v1, v2 = lwork[0, ell], lwork[1, ell], lwork[2, ell]
        alpha = v0 * e1[0] + v1 * e1[1] + v2 * e1[2]
        beta = v0 * e2[0] + v1 * e2[1] + v2 * e2[2]
        if beta < 0.0 or (beta == 0.0 and alpha < 0.0):
            alpha, beta = -alpha, -beta
        r = abs(alpha) + beta
        # Parallel to the axis, or some point of the line on the pencil's
        # flat at the sweep's tolerance (with a margin): on every plane.
        if r <= 1e3 * PLANE_TOL or lwork[4, ell] * r <= 10.0 * FLAT_TOL:
            always += lwork[3, ell]
            angle[ell] = np.inf
            slack[ell] = 0.0
        else:
            angle[ell] = 1.0 - alpha / r
            slack[ell] = (rounding / lwork[4, ell] + 4.0 * LINE_TOL) / r
            n_angled += 1
    if total - always <= 0.0:
        return total - always
    _argsort(angle, order, sorted_angle, count, n_forced)
    best_group, group, first_group = 0.0, 0.0, -1.0
    for t in range(n_angled):
        ell = order[t]
        if t > 0:
            prev = order[t - 1]
            if (
                sorted_angle[t] - sorted_angle[t - 1]
                > PLANE_TOL + slack[prev] + slack[ell]
            ):
                if first_group < 0.0:
                    first_group = group
                best_group = max(best_group, group)
                group = 0.0
        group += lwork[3, ell]
    if n_angled > 0:
        if first_group < 0.0:  # one group
            best_group = max(best_group, group)
        else:
            best_group = max(best_group, group)
            # The pseudo-angles wrap at 2: the last group may continue the first.
            head, tail = order[0], order[n_angled - 1]
            wrap = sorted_angle[0] + 2.0 - sorted_angle[n_angled - 1]
            if wrap <= PLANE_TOL + slack[head] + slack[tail]:
                best_group = max(best_group, group + first_group)
    return total - always - best_group


@njit(cache=True, nogil=True)
def _sweep(Z, signed_weight, pencil, d, work, iwork, prefix, projected, foreign, units):
    """Sweep one pencil into the work arrays.

    With ``foreign`` (a work array of m integers), a pencil whose flat holds
    more points than its own d - 1 and which does not own them (``_owns``)
    is not sorted: every plane of it holds more than d points and is
    evaluated in its owner pencil only, so it cannot contribute; -2 is
    returned.

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
        # e1: the standard axis least aligned with u, minus its u component.
        e1, e2 = _axis_frame(u0 / residual, u1 / residual, u2 / residual)
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
    if foreign.shape[0] > 0 and m - n_swept > d - 1:
        n_flat = 0
        for i in range(m):
            if angle[i] == np.inf:
                foreign[n_flat] = i
                n_flat += 1
        flat = foreign[:n_flat]
        flat.sort()
        if not _owns(Z, flat, n_flat, pencil, d, units):
            return -2
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
def scan(Z, signed_weight, pencils, d, bound, exhaustive, start, capacity, prune):
    """Sweep the pencils ``start:`` in order, until the end or until the
    buffer of tied candidates could overflow.

    Returns ``(stop, n_examined, best_cost, best_pencil, best_start,
    cand_pencil, cand_start, cand_lower, n_pruned, n_foreign)``: the first
    pencil not
    swept; the planes examined; the least cost below ``bound`` of a plane
    through exactly d points, its pencil (-1 when none) and the sweep
    position of its group; every plane through more than d points whose
    off-plane cost is below the best found so far (only in its owner pencil
    when ``exhaustive``), by pencil and sweep position; and the pencils
    skipped unswept (with ``prune``, for d >= 3) because their lower bound
    (``_pencil_bound``) already reached the best cost found so far, and those
    (with ``prune`` and ``exhaustive``) that own none of their planes (see
    ``_sweep``): neither could have improved the best, so the result is the
    same.
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
    n_examined, n_pruned, n_foreign = 0, 0, 0
    check_owner = exhaustive and d > 1
    lwork = np.empty((13, m + 1))
    liwork = np.empty((6, m + 1), dtype=np.int64)
    n_forced, forced = 0, 0.0
    # With pruning, pencils that own none of their planes are not sorted.
    foreign = np.empty(m if prune & 1 and check_owner else 0, dtype=np.int64)
    bounded = prune & 2 and d > 2
    b = start
    while b < n_pencils and n_cand + m <= capacity:
        pencil = pencils[b]
        if d > 1 and (b == start or _new_prefix(pencils, b, d)):
            prefix[0], prefix[1] = _prefix(Z, pencil, d, units, frame, projected)
            if bounded or foreign.shape[0] > 0 and d > 2:
                n_forced, forced = _lines(
                    projected, signed_weight, pencil, d, lwork, liwork
                )
        if foreign.shape[0] > 0 and d > 2 and liwork[4, pencil[d - 2]] < pencil[d - 2]:
            # A point of lower index on the line of the pencil's last point
            # (through the prefix's flat) lies on the pencil's flat: then
            # the pencil owns none of its planes (``_sweep``).
            n_foreign += 1
            b += 1
            continue
        if bounded and forced >= best:
            residual, condition = _condition(Z, pencil, d, prefix, projected)
            if condition > 0.0:
                lower = _pencil_bound(
                    projected,
                    pencil[d - 2],
                    residual,
                    condition,
                    d,
                    n_forced,
                    forced,
                    lwork,
                    liwork,
                )
                if lower >= best:
                    n_pruned += 1
                    b += 1
                    continue
        n_swept = _sweep(
            Z, signed_weight, pencil, d, work, iwork, prefix, projected, foreign, units
        )
        b += 1
        if n_swept == -2:
            n_foreign += 1
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
        if check_owner and n_flat > d - 1 and foreign.shape[0] == 0:
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
        n_pruned,
        n_foreign,
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
    foreign = np.empty(0, dtype=np.int64)
    n_swept = _sweep(
        Z, signed_weight, pencil, d, work, iwork, prefix, projected, foreign, units
    )
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
