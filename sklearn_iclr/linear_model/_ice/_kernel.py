"""The compiled pencil sweep of :class:`ICEClassifier` (numba).

One pencil at a time: an orthonormal basis of the 2-dimensional null space of
its d - 1 homogeneous points (a Householder QR of the first d - 2, shared by
the pencils of that prefix, then a rotation about the last), the pseudo-angle at
which the rotating plane meets every other point, a sort, the grouping of
points met at the same angle (within ``ANGLE_TOL`` plus a bound on the
rounding error of both angles), and the weighted off-plane errors of every
group's plane in both orientations, by prefix sums along the sweep. This is
the numpy ``_Sweep`` of ``_search`` (kept there as the test oracle)
without its temporary arrays: the same quantities, the same tolerances, the
same candidates. Under ownership (an exhaustive search) a pencil needs only
the planes it owns, those through points of index above its largest:
``_sweep_owned`` sorts only those and locates the others among them, by
counting the eligible angles below each (up to ``SMALL_ELIGIBLE`` of them)
or through a table of them; with up to ``DENSE_ELIGIBLE`` eligible points,
``_dense_owned`` first evaluates each one's plane against every point,
without a sort, and leaves to ``_sweep_owned`` only the pencils where a
point lies too near an eligible angle to tell whether the sweep joins them.

The kernels are compiled on first use and cached on disk (``cache=True``):
numba writes the cache next to this file, or, where the installation is
read-only, under the user-wide cache folder (``NUMBA_CACHE_DIR`` overrides
both). A counter passed to a compiled helper starts as ``np.int64(0)``, not
``0``: numba types the call before it unifies the counter's definitions, and
would compile the helper once more for the literal type.
"""

import enum
from typing import NamedTuple

import numpy as np
from numba import njit

from ._tolerances import (
    ANGLE_TOL,
    FLAT_TOL,
    LINE_TOL,
    PLANE_TOL,
    PREFIX_FLAT_TOL,
    RANK_TOL,
    ROUNDING,
)

# The forced-error bound is computed in windows of this many prefixes while
# it skips at least two pencils per prefix (finding the lines costs about two
# swept pencils); after a window below that it rests for BOUND_REST windows
# and is tried again (``scan``).
BOUND_WINDOW = 256
BOUND_REST = 8
# Up to this many eligible points, ``_sweep_owned`` locates every other point
# by counting the eligible angles below it (a loop the compiler vectorises);
# above, through a table (measured: 48 is the fastest of 16-128 on Caesarian
# and no slower on the integer grid of the ``ties`` benchmark).
SMALL_ELIGIBLE = 48
# Up to this many eligible points, ``_dense_owned`` evaluates each one's
# plane against every point instead (measured with an earlier form of its
# passes, the whole search on Caesarian: 32 0.73x, 48 0.70x, 64 0.70x of the
# time with ``_sweep_owned`` alone; 64 is 4 % slower on Haberman and on 400
# points in general position in D = 3, 48 is not).
DENSE_ELIGIBLE = 48


class Prune(enum.IntFlag):
    """What ``scan`` skips. Over all the pencils of an exhaustive
    enumeration, every combination gives the same result; only the
    examinations differ."""

    NONE = 0
    #: The pencils that own none of their planes (their flat holds more
    #: points than their own d - 1 and they are not its greedy owner, or no
    #: point has an index above their largest), with ``exhaustive``.
    FOREIGN = 1
    #: The pencils whose forced-error bound (``_pencil_bound``) reaches the
    #: best cost found so far, for d >= 3 (computed while it pays, see
    #: ``BOUND_WINDOW``).
    BOUND = 2
    #: Every plane but those a pencil owns (``_dense_owned``,
    #: ``_sweep_owned``), with ``exhaustive``: a plane is then found in its
    #: first pencil only, so a chunk of pencils may miss a plane that an
    #: earlier chunk holds.
    OWNED = 4
    ALL = FOREIGN | BOUND | OWNED


# numba compiles no ``enum.IntFlag``: ``scan`` takes ``int(prune)`` and tests
# these bits.
_FOREIGN, _BOUND, _OWNED = int(Prune.FOREIGN), int(Prune.BOUND), int(Prune.OWNED)
# A fixed direction (irrational ratios) whose dot product sorts the lines.
_KEY = (0.5773502691896258, 0.7071067811865476, 0.4082482904638631)


@njit(cache=True)
def compiled_tolerances():
    """The tolerances the loaded kernels were compiled with (numba's cache
    keeps them when ``_tolerances`` is edited), in the order ``RANK_TOL``,
    ``FLAT_TOL``, ``ANGLE_TOL``, ``ROUNDING``, ``LINE_TOL``, ``PLANE_TOL``,
    ``PREFIX_FLAT_TOL``."""
    return (
        RANK_TOL,
        FLAT_TOL,
        ANGLE_TOL,
        ROUNDING,
        LINE_TOL,
        PLANE_TOL,
        PREFIX_FLAT_TOL,
    )


@njit(cache=True, nogil=True)
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
def _reflect(v, start, x, width):
    """Apply the Householder reflection I - 2 v v^T (``v`` a unit vector,
    zero before ``start``) to ``x`` in place."""
    dot = 0.0
    for c in range(start, width):
        dot += v[c] * x[c]
    for c in range(start, width):
        x[c] -= 2.0 * dot * v[c]


@njit(cache=True, nogil=True)
def _prefix(Z, ZT, pencil, d, units, frame, projected, columns):
    """Project the points onto the null space of the pencil's first d - 2
    points: an orthonormal ``frame`` of 3 vectors, the last columns of Q in
    the Householder QR of those points (``columns``, a (d + 1, d + 1) work
    array, holds them, one per row, and ``units`` the reflectors), and
    ``projected`` (3, m), the coordinates of every point in it. Returns
    (largest norm, least |R_kk|) of the prefix's points: |R_kk| is the
    residual of point k against the earlier ones."""
    width = d + 1
    n = d - 2
    largest, least = 0.0, np.inf
    for k in range(n):
        row = Z[pencil[k]]
        norm = 0.0
        for c in range(width):
            columns[k, c] = row[c]
            norm += row[c] * row[c]
        largest = max(largest, np.sqrt(norm))
    for k in range(n):
        v, column = units[k], columns[k]
        norm = 0.0
        for c in range(k, width):
            norm += column[c] * column[c]
        residual = np.sqrt(norm)
        least = min(least, residual)
        # v: column k below row k, less -sign * its norm in row k, normalised
        # (zero, the identity, for a dependent point).
        for c in range(width):
            v[c] = column[c] if c >= k else 0.0
        v[k] += residual if column[k] >= 0.0 else -residual
        norm = 0.0
        for c in range(k, width):
            norm += v[c] * v[c]
        if norm > 0.0:
            scale = 1.0 / np.sqrt(norm)
            for c in range(k, width):
                v[c] *= scale
        for later in range(k + 1, n):
            _reflect(v, k, columns[later], width)
    # Q e_c for the last 3 columns c: the reflections in reverse order.
    for slot in range(3):
        f = frame[slot]
        for c in range(width):
            f[c] = 0.0
        f[n + slot] = 1.0
        for k in range(n - 1, -1, -1):
            _reflect(units[k], k, f, width)
    # projected = frame @ Z.T, by coordinate (the compiler vectorises over
    # the points).
    p0, p1, p2 = projected[0], projected[1], projected[2]
    for c in range(width):
        column = ZT[c]
        f0, f1, f2 = frame[0, c], frame[1, c], frame[2, c]
        if c == 0:
            for i in range(column.shape[0]):
                p0[i] = column[i] * f0
                p1[i] = column[i] * f1
                p2[i] = column[i] * f2
        else:
            for i in range(column.shape[0]):
                p0[i] += column[i] * f0
                p1[i] += column[i] * f1
                p2[i] += column[i] * f2
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
    u0, u1, u2 = projected[0, last], projected[1, last], projected[2, last]
    residual = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
    least = min(prefix[1], residual)
    if not least > RANK_TOL * largest:
        return residual, 0.0
    return residual, largest / least


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True, error_model="numpy")
def _norms(projected, norms):
    """The distance of every point from the prefix's flat (the norm of its
    row of the prefix frame)."""
    px, py, pz = projected[0], projected[1], projected[2]
    for i in range(norms.shape[0]):
        norms[i] = np.sqrt(px[i] * px[i] + py[i] * py[i] + pz[i] * pz[i])


@njit(cache=True, nogil=True)
def _prefix_owns(Z, norms, pencil, d, flat, units):
    """Whether the greedy owner (``_owns``) of the flat of a pencil of this
    prefix can start with the prefix's own d - 2 points. The points within
    ``FLAT_TOL / 2`` of the prefix's flat lie on the flat of every pencil of
    the prefix (``_pseudo_angles`` measures the distance from the pencil's
    axis in the 1-norm, at most sqrt(2) times this); when the greedy choice
    among those up to the prefix's largest (``flat``, a work array) takes
    another point, it takes it from every such flat, whatever else lies on
    it (the choices before that point are the same), and no pencil of the
    prefix owns any of its planes."""
    top = pencil[d - 3]
    n_flat = np.int64(0)  # not a literal (module docstring)
    for j in range(top + 1):
        flat[n_flat] = j
        n_flat += norms[j] <= 0.5 * FLAT_TOL
    if n_flat <= d - 2:  # the prefix's own points only
        return True
    return _owns(Z, flat, n_flat, pencil, d - 1, units)


@njit(cache=True, nogil=True)
def _on_line_below(projected, norms, last):
    """Whether a point of lower index than ``last`` lies on the line through
    the prefix's flat and ``last`` (the pencil's flat): then the pencil owns
    none of its planes (``_angles``). Parallel rows of the prefix frame: a
    cross product within ``LINE_TOL`` of the product of the norms, a sine
    far below what the sweep's ``FLAT_TOL`` puts on the flat; points near
    the prefix's flat (the prefix's own) are left out."""
    px, py, pz = projected[0], projected[1], projected[2]
    u0, u1, u2 = px[last], py[last], pz[last]
    scale = LINE_TOL * norms[last]
    found = 0
    for j in range(last):
        c0 = py[j] * u2 - pz[j] * u1
        c1 = pz[j] * u0 - px[j] * u2
        c2 = px[j] * u1 - py[j] * u0
        largest = max(abs(c0), max(abs(c1), abs(c2)))
        found += (largest <= scale * norms[j]) & (norms[j] > PREFIX_FLAT_TOL)
    return found > 0


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
    m = projected.shape[1]
    key, unit, side = lwork[6, :m], lwork[7:10, :m], lwork[10, :m]
    sorted_key = lwork[11, :m]
    order, count, line = liwork[0], liwork[1], liwork[2]
    for i in range(m):
        p0, p1, p2 = projected[0, i], projected[1, i], projected[2, i]
        norm = np.sqrt(p0 * p0 + p1 * p1 + p2 * p2)
        skip = norm <= PREFIX_FLAT_TOL  # near the prefix's flat: left out (safe)
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
                n_lines += 1
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
    u0 = projected[0, last] / residual
    u1 = projected[1, last] / residual
    u2 = projected[2, last] / residual
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


@njit(cache=True, nogil=True, error_model="numpy")
def _pseudo_angles(px, py, pz, e1, e2, angle, norm, direction):
    """For every point, the pseudo-angle in [0, 2) at which the plane rotating
    about the pencil's axis meets it (+inf on the pencil's flat), its 1-norm
    in the frame (e1, e2) of the axis (the rounding bound of the angle is
    inversely proportional to it, see ``_slacks``) and the orientation (+-1)
    of its side before the plane meets it: (alpha, beta) folded to beta >= 0,
    the angle 1 - alpha / (|alpha| + |beta|). Branch-free (vectorised)."""
    for i in range(px.shape[0]):
        alpha = px[i] * e1[0] + py[i] * e1[1] + pz[i] * e1[2]
        beta = px[i] * e2[0] + py[i] * e2[1] + pz[i] * e2[2]
        back = (beta < 0.0) | ((beta == 0.0) & (alpha < 0.0))
        fold = -1.0 if back else 1.0
        alpha *= fold
        r = abs(alpha) + abs(beta)
        direction[i] = fold
        norm[i] = r
        angle[i] = np.inf if r <= FLAT_TOL else 1.0 - alpha / r


@njit(cache=True, nogil=True, error_model="numpy")
def _slacks(work, m, rounding):
    """The rounding bound of every angle of ``_pseudo_angles`` into
    ``work[1]`` (``rounding`` on the pencil's flat), for the sweeps that
    compare angles one by one."""
    angle, norm, slack = work[0], work[7], work[1]
    for i in range(m):
        slack[i] = rounding if angle[i] == np.inf else rounding / norm[i]


# Inlined into its callers by numba (as ``workspace``, and ``_dense_owned``):
# Caesarian's pruned scan took 0.96-0.98x the time of the calls, alternating.
# The small vectorised helpers are not: inlined, they lose their ``fastmath``
# flags to the caller and their reductions are no longer vectorised (2.5x).
@njit(cache=True, nogil=True, inline="always")
def _angles(Z, ZT, pencil, d, work, prefix, projected, foreign, units):
    """The pseudo-angle, its norm and the fold of every point about one
    pencil's axis, into ``work[0]``, ``work[7]`` and ``work[5]``.

    Returns ``(n_swept, largest rounding bound of a swept angle, the
    pencil's rounding)`` (``_slacks`` writes the bounds); ``n_swept`` is -1
    when the pencil's points are affinely dependent, and, with ``foreign``
    (a work array of m integers), -2 when the pencil's flat holds more points
    than its own d - 1 and the pencil does not own them (``_owns``): every
    plane of it holds more than d points and is evaluated in its owner pencil
    only, so it cannot contribute.

    ``projected`` holds the points in the frame of the null space of the
    pencil's first d - 2 points (``_prefix``), ``prefix`` the (largest norm,
    least residual) of those points.
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
        u0, u1, u2 = projected[0, last], projected[1, last], projected[2, last]
        residual = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        least = min(prefix[1], residual)
        if not least > RANK_TOL * largest:
            return -1, 0.0, 0.0
        condition = largest / least
        # e1: the standard axis least aligned with u, minus its u component.
        e1, e2 = _axis_frame(u0 / residual, u1 / residual, u2 / residual)
    angle, norm, direction = work[0, :m], work[7, :m], work[5, :m]
    rounding = ROUNDING * width * condition
    if d == 1:
        # The points (x, 1) themselves: (alpha, beta) = (x, 1); the third
        # coordinate is multiplied by the zeros of e1 and e2.
        _pseudo_angles(ZT[0], ZT[1], ZT[1], e1, e2, angle, norm, direction)
    else:
        px, py, pz = projected[0], projected[1], projected[2]
        _pseudo_angles(px, py, pz, e1, e2, angle, norm, direction)
    n_swept = 0
    for i in range(m):
        n_swept += angle[i] != np.inf
    # The least swept norm in four independent minima (the compiler does not
    # vectorise a float minimum, and one chain of them waits on each step):
    # Caesarian's pruned scan took 0.98x the time of one chain, alternating.
    least_norm, least1, least2, least3 = np.inf, np.inf, np.inf, np.inf
    quads = m - m % 4
    for i in range(0, quads, 4):
        least_norm = min(least_norm, norm[i] if angle[i] != np.inf else np.inf)
        least1 = min(least1, norm[i + 1] if angle[i + 1] != np.inf else np.inf)
        least2 = min(least2, norm[i + 2] if angle[i + 2] != np.inf else np.inf)
        least3 = min(least3, norm[i + 3] if angle[i + 3] != np.inf else np.inf)
    for i in range(quads, m):
        least_norm = min(least_norm, norm[i] if angle[i] != np.inf else np.inf)
    least_norm = min(min(least_norm, least1), min(least2, least3))
    # The largest bound, rounding / norm, of the least norm (division is
    # monotone, so this is the largest of the bounds ``_slacks`` writes).
    widest_slack = rounding / least_norm if n_swept > 0 else 0.0
    if foreign.shape[0] > 0 and m - n_swept > d - 1:
        n_flat = np.int64(0)  # not a literal (module docstring)
        for i in range(m):
            if angle[i] == np.inf:
                foreign[n_flat] = i
                n_flat += 1
        flat = foreign[:n_flat]  # ascending, as ``_owns`` needs
        if not _owns(Z, flat, n_flat, pencil, d, units):
            return -2, 0.0, 0.0
    return n_swept, widest_slack, rounding


@njit(cache=True, nogil=True)
def _sweep(
    Z, ZT, signed_weight, pencil, d, work, iwork, prefix, projected, foreign, units
):
    """Sweep one pencil into the work arrays: ``_angles``, then ``_order``.
    Returns ``n_swept`` (negative: see ``_angles``)."""
    n_swept, _, rounding = _angles(
        Z, ZT, pencil, d, work, prefix, projected, foreign, units
    )
    if n_swept < 0:
        return n_swept
    _slacks(work, Z.shape[0], rounding)
    _order(signed_weight, n_swept, work, iwork)
    return n_swept


@njit(cache=True, nogil=True)
def _order(signed_weight, n_swept, work, iwork):
    """Sort the angles of ``_angles`` and group and prefix-sum them (their
    rounding bounds, ``work[1]``, written by ``_slacks``).

    Afterwards, for positions ``j`` along the sweep: ``iwork[1, j]`` the
    point met (points on the pencil's flat last), ``work[2, j]`` its side
    just before the plane meets it, ``iwork[2, j]`` 1 at the first position of
    a group (plane), ``work[3]`` and ``work[4]`` (length m + 1) the prefix
    sums of ``|signed weight|`` and of the weight of the errors before the
    plane passes. The sweep starts right after the widest gap between
    consecutive angles.
    """
    m = signed_weight.shape[0]
    angle, slack, direction = work[0, :m], work[1, :m], work[5, :m]
    order = iwork[0]
    sorted_angle = work[6, :m]
    _argsort(angle, order, sorted_angle, iwork[3], m)
    if n_swept == 0:
        for j in range(m):
            iwork[1, j] = order[j]
            iwork[2, j] = 0
        return
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


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _dense_weights(angle, direction, signed_weight, off_c, off_w, weight):
    """The per-point inputs of ``_plane_cost`` and ``_near_weight`` for one
    pencil: the weight of a swept point and, of that, its error before
    (``off_w``) and after (``off_c``) the plane passes it (0 on the pencil's
    flat, whose angle, +inf, is beyond every reach). Returns the swept
    weight, summed in any order (exact for integer weights)."""
    total = 0.0
    for i in range(angle.shape[0]):
        phi = angle[i]
        s = signed_weight[i]
        swept = phi != np.inf
        a = abs(s) if swept else 0.0
        wrong = a if direction[i] * s < 0.0 else 0.0
        off_w[i] = wrong
        off_c[i] = a - wrong
        weight[i] = a
        total += a
    return total


@njit(cache=True, nogil=True)
def _near_below(angle, theta, reach, tight, point):
    """How many points of index below ``point`` lie within ``reach`` and
    within ``tight`` of the angle ``theta``."""
    n_reach, n_tight = 0, 0
    for i in range(point):
        delta = abs(angle[i] - theta)
        n_reach += delta <= reach
        n_tight += delta <= tight
    return n_reach, n_tight


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _plane_cost(angle, off_c, off_w, theta, reach):
    """For the plane at angle ``theta``: the errors of the points more than
    ``reach`` from it, after passing (``off_c``) below it and before passing
    (``off_w``) above it, and the number of points within ``reach``. Summed
    in any order, so that the compiler vectorises the loop (exact for
    integer weights)."""
    plus, n_near = 0.0, 0
    for i in range(angle.shape[0]):
        delta = angle[i] - theta
        low = delta < -reach
        high = delta > reach
        plus += (off_c[i] if low else 0.0) + (off_w[i] if high else 0.0)
        n_near += not (low or high)
    return plus, n_near


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _near_weight(angle, weight, theta, reach):
    """The weight of the points within ``reach`` of the angle ``theta``."""
    near_weight = 0.0
    for i in range(angle.shape[0]):
        near_weight += weight[i] if abs(angle[i] - theta) <= reach else 0.0
    return near_weight


# Inlined into ``scan`` (see ``_angles``).
@njit(cache=True, nogil=True, inline="always")
def _dense_owned(signed_weight, last, n_swept, widest_slack, work, owork, oiwork):
    """``_sweep_owned`` without sorting, for up to ``DENSE_ELIGIBLE``
    eligible points: the plane of each eligible point is evaluated against
    every point (vectorised loops), k m steps for k eligible points instead
    of about m + k log k.

    The plane at the angle theta of an eligible point has passed the points
    below theta: in one orientation its off-plane cost is the errors after
    passing of those (``off_c``) plus the errors before passing of the points
    above (``off_w``); in the other, the rest. Its group is the points within
    ``reach`` (2 ``ANGLE_TOL`` plus 4 rounding bounds) of theta, which are
    checked to lie within ``tight`` (0.45 ``ANGLE_TOL``) of it: the sweep
    then joins them to each other, and separates them from every other point
    (a gap of more than ``reach - tight``, less two rounding bounds, exceeds
    ``ANGLE_TOL``). Each eligible point checks the points of lower index
    within ``reach`` of its angle, which covers every pair in a group of
    eligible points; with one, it is not its group's least point and writes
    nothing. A group is written from its least point, when that point is
    eligible (then all are), as ``_sweep_owned`` writes it. All eligible
    points are checked first and the least points compacted without a
    branch, then only their planes are costed: a branch per eligible point on
    whether it is a least point mispredicts often (Caesarian's kernel took
    1.10x the time with it).

    Returns -1 (``scan`` then calls ``_sweep_owned``) with more eligible
    points, with a point between ``tight`` and ``reach`` of an eligible
    angle (one of lower index), with an eligible angle within 2 ``reach`` of
    0 or 2 (the groups are found on a line, not on the circle of the sweep),
    or where ``_sweep_owned`` would; otherwise the number of groups.
    """
    m = signed_weight.shape[0]
    angle, direction = work[0, :m], work[5, :m]
    if not 2.0 / n_swept - 2.0 * widest_slack > 2.0 * ANGLE_TOL:
        return -1
    reach = 2.0 * ANGLE_TOL + 4.0 * widest_slack
    tight = 0.45 * ANGLE_TOL
    eligible = oiwork[0]
    k = np.int64(0)  # not a literal (module docstring)
    for i in range(last + 1, m):
        phi = angle[i]
        if phi != np.inf:
            if k == DENSE_ELIGIBLE or phi < 2.0 * reach or phi > 2.0 - 2.0 * reach:
                return -1
            eligible[k] = i
            k += 1
    off_c, off_w, weight = owork[1, :m], owork[2, :m], owork[3, :m]
    total = _dense_weights(angle, direction, signed_weight, off_c, off_w, weight)
    n_flat = m - n_swept
    lower_out, size_out, least_out = owork[8], oiwork[1], oiwork[2]
    # First the eligible points with no point of lower index within reach
    # (each its group's least point), compacted without a branch; a point
    # between tight and reach of one declines the pencil.
    leaders = oiwork[3]
    n_leaders, n_loose = np.int64(0), 0
    for t in range(k):
        point = eligible[t]
        n_reach, n_tight = _near_below(angle, angle[point], reach, tight, point)
        n_loose += n_reach != n_tight
        leaders[n_leaders] = point
        n_leaders += n_reach == 0
    if n_loose > 0:
        return -1
    # The planes' costs in one orientation and sizes; the weight on the
    # plane of the groups of more than one point (compacted, as above).
    plus_out, tied = owork[0], oiwork[4]
    n_tied = np.int64(0)  # not a literal (module docstring)
    for t in range(n_leaders):
        point = leaders[t]
        plus, n_near = _plane_cost(angle, off_c, off_w, angle[point], reach)
        plus_out[t] = plus
        lower_out[t] = weight[point]
        size_out[t] = n_near + n_flat
        least_out[t] = point
        tied[n_tied] = t
        n_tied += n_near > 1
    for u in range(n_tied):
        t = tied[u]
        lower_out[t] = _near_weight(angle, weight, angle[least_out[t]], reach)
    for t in range(n_leaders):
        minus = total - lower_out[t] - plus_out[t]
        lower_out[t] = min(plus_out[t], minus)
    return n_leaders


@njit(cache=True, nogil=True, inline="always")
def _joins(gap, eligible_slack, value, after, angle, slack, last, widest_slack):
    """1 when the sweep joins an eligible point and the nearest other point
    (of angle ``value``, index at most ``last``; ``after``: it follows the
    eligible point) into one group, 0 otherwise: the test of ``_order``
    (``gap`` less the preceding point's rounding bound, less the following
    one's, within ``ANGLE_TOL``), decided without the other point's bound
    unless that bound matters."""
    if not gap - eligible_slack > ANGLE_TOL:
        return 1  # whatever the other point's bound
    if gap - eligible_slack - widest_slack > ANGLE_TOL and (
        gap - widest_slack - eligible_slack > ANGLE_TOL
    ):
        return 0
    # The first (``after``) or last point of that angle in the sweep's order
    # (equal angles: by index).
    other = 0.0
    for i in range(last + 1):
        if angle[i] == value:
            other = slack[i]
            if after:
                break
    if after:
        return 0 if gap - eligible_slack - other > ANGLE_TOL else 1
    return 0 if gap - other - eligible_slack > ANGLE_TOL else 1


@njit(cache=True, nogil=True)
def _sweep_owned(signed_weight, last, n_swept, widest_slack, work, owork, oiwork):
    """The planes of one pencil that it owns, without sorting every point.

    Under ownership (``scan`` with ``exhaustive``) a plane is a candidate of
    the pencil only when every point the sweep puts on it, besides the
    pencil's flat, has an index above the pencil's largest, ``last``: a plane
    through exactly d points in the pencil of its d - 1 least points (the
    first of its d pencils in lexicographic order, the only one that can
    report it first), a plane through more than d points in its greedy owner.
    So only the ``k`` such *eligible* points are sorted; every other swept
    point is located among them (by counting the eligible angles below it, up
    to ``SMALL_ELIGIBLE`` of them, or through a table) and only summed per
    gap (its weights, the least and largest angle with their rounding
    bounds).
    A gap holding such a point ends the group before it, and the group next
    to it is not a candidate when the nearest such point joins it by the
    sweep's own test (the angle difference less both rounding bounds within
    ``ANGLE_TOL``): the groups of eligible points found here are exactly
    those of ``_order``. That holds when ``_order``'s start, the widest gap,
    is a break between groups, which is certain when ``2 / n_swept`` exceeds
    twice the largest rounding bound plus ``2 * ANGLE_TOL``; otherwise -1 is
    returned (``scan`` then sweeps the pencil in full). The rounding bounds,
    ``work[1]``, are ``_slacks``'.

    Returns the number of groups written: ``owork[8, g]`` the off-plane cost
    of group ``g`` in the cheaper orientation, ``oiwork[1, g]`` its number of
    points and ``oiwork[2, g]`` its least point index.
    """
    m = signed_weight.shape[0]
    angle, slack, direction = work[0, :m], work[1, :m], work[5, :m]
    if not 2.0 / n_swept - 2.0 * widest_slack > 2.0 * ANGLE_TOL:
        return -1
    # The eligible points, sorted by angle (ties by index, as ``_argsort``).
    e_angle, e_slack = owork[1], owork[2]
    e_point = oiwork[0]
    k = np.int64(0)  # not a literal (module docstring)
    for i in range(last + 1, m):
        if angle[i] != np.inf:
            e_angle[k] = angle[i]
            e_point[k] = i
            k += 1
    if k == 0:
        return 0
    if k <= 32:
        # By rank (branch-free): the number of angles below, or equal at a
        # lower index.
        e_key, e_count = owork[0], oiwork[2]
        for j in range(k):
            e_key[j] = e_angle[j]
            e_count[j] = e_point[j]
        for j in range(k):
            key = e_key[j]
            rank = 0
            for i in range(k):
                rank += (e_key[i] < key) | ((e_key[i] == key) & (i < j))
            e_angle[rank] = key
            e_point[rank] = e_count[j]
    else:
        e_key, e_order, e_count = owork[0], oiwork[1], oiwork[2]
        for t in range(k):
            e_key[t] = e_angle[t]
            e_count[t] = e_point[t]
        _argsort(e_key, e_order, e_angle, oiwork[3], k)
        for t in range(k):
            e_point[t] = e_count[e_order[t]]
    for t in range(k):
        e_slack[t] = slack[e_point[t]]
    # A table of the eligible angles below each of ``cells`` equal cells
    # of [0, 2] (a power of two: the cell of an angle is exact) starts the
    # search for an angle's gap; +inf ends it.
    e_angle[k] = np.inf
    small = k <= SMALL_ELIGIBLE  # locate by counting the angles below
    cells = 16
    while not small and cells < 4 * k:
        cells *= 2
    half = cells / 2.0
    below = oiwork[7]
    if not small:
        for c in range(cells + 2):
            below[c] = 0
        for t in range(k):
            below[int(e_angle[t] * half) + 1] += 1
        for c in range(1, cells + 1):
            below[c] += below[c - 1]
    # Gap p (0 <= p <= k) holds the other swept points with p eligible
    # angles below theirs (gaps 0 and k are one gap, across the wrap at 2).
    g_w, g_pos, g_neg = owork[3], owork[4], owork[5]
    g_lo, g_hi = owork[6], owork[9]
    for p in range(k + 1):
        g_w[p], g_pos[p], g_neg[p] = 0.0, 0.0, 0.0
        g_lo[p], g_hi[p] = np.inf, -np.inf
    gap_of = oiwork[8]
    if small:
        for i in range(last + 1):
            phi = min(angle[i], 2.0)  # the flat's points: dropped below
            p = 0
            for t in range(k):
                p += e_angle[t] < phi
            gap_of[i] = p
    else:
        for i in range(last + 1):
            phi = min(angle[i], 2.0)  # the flat's points: dropped below
            p = below[int(phi * half)]
            p += e_angle[p] < phi
            p += e_angle[p] < phi
            while e_angle[p] < phi:
                p += 1
            gap_of[i] = p
    for i in range(last + 1):
        phi = angle[i]
        if phi == np.inf:
            continue
        p = gap_of[i]
        s = signed_weight[i]
        a = abs(s)
        wrong = direction[i] * s < 0.0  # an error before the plane passes
        g_w[p] += a
        g_pos[p] += a * wrong
        g_neg[p] += a - a * wrong
        lo, hi = g_lo[p], g_hi[p]
        g_lo[p] = phi if phi < lo else lo
        g_hi[p] = phi if phi > hi else hi
    # Group breaks before each eligible position, and whether the group
    # reaching a position from the left (right) takes in another point.
    brk, left, right = oiwork[4], oiwork[5], oiwork[6]
    for t in range(k):
        left[t], right[t] = 0, 0
    for t in range(1, k):
        if g_lo[t] == np.inf:
            gap = e_angle[t] - e_angle[t - 1]
            brk[t] = 1 if gap - e_slack[t - 1] - e_slack[t] > ANGLE_TOL else 0
        else:
            brk[t] = 1
            gap = g_lo[t] - e_angle[t - 1]
            right[t - 1] = _joins(
                gap, e_slack[t - 1], g_lo[t], True, angle, slack, last, widest_slack
            )
            gap = e_angle[t] - g_hi[t]
            left[t] = _joins(
                gap, e_slack[t], g_hi[t], False, angle, slack, last, widest_slack
            )
    if g_lo[0] == np.inf and g_lo[k] == np.inf:
        if k == 1:
            brk[0] = 1
        else:
            gap = e_angle[0] - e_angle[k - 1] + 2.0
            brk[0] = 1 if gap - e_slack[k - 1] - e_slack[0] > ANGLE_TOL else 0
    else:
        brk[0] = 1
        if g_lo[k] != np.inf:
            gap, lo = g_lo[k] - e_angle[k - 1], g_lo[k]
        else:
            gap, lo = g_lo[0] - e_angle[k - 1] + 2.0, g_lo[0]
        right[k - 1] = _joins(
            gap, e_slack[k - 1], lo, True, angle, slack, last, widest_slack
        )
        if g_lo[0] != np.inf:
            gap, hi = e_angle[0] - g_hi[0], g_hi[0]
        else:
            gap, hi = e_angle[0] - g_hi[k] + 2.0, g_hi[k]
        left[0] = _joins(gap, e_slack[0], hi, False, angle, slack, last, widest_slack)
    start = -1
    for t in range(k):
        if brk[t]:
            start = t
            break
    if start < 0:
        return -1
    # Prefix sums along the sweep started at eligible position ``start``:
    # what lies below its angle comes last, on the other side.
    g_pre_w, g_pre_b, g_post_w, g_post_b = owork[11], owork[12], owork[13], owork[14]
    g_size, g_least, g_skip = oiwork[7], oiwork[8], oiwork[9]
    total, before = 0.0, 0.0
    n_groups = -1
    # The open group's figures stay in locals and are stored when it closes.
    size, least, skip, post_w, post_b = 0, m, 0, 0.0, 0.0
    for r in range(k):
        t = start + r
        if t >= k:
            t -= k
        if brk[t]:
            if n_groups >= 0:
                g_size[n_groups], g_least[n_groups] = size, least
                g_skip[n_groups] = skip
                g_post_w[n_groups], g_post_b[n_groups] = post_w, post_b
            n_groups += 1
            g_pre_w[n_groups], g_pre_b[n_groups] = total, before
            size, least, skip = 0, m, left[t]
        point = e_point[t]
        s = signed_weight[point]
        side = direction[point] if t >= start else -direction[point]
        total += abs(s)
        if side * s < 0.0:
            before += abs(s)
        size += 1
        least = min(least, point)
        post_w, post_b = total, before
        skip |= right[t]
        # The gap after position t (after the last: gaps k and 0).
        p = t + 1
        if p < k:
            total += g_w[p]
            before += g_neg[p] if p <= start else g_pos[p]
        else:
            total += g_w[k]
            before += g_pos[k]
            total += g_w[0]
            before += g_neg[0]
    g_size[n_groups], g_least[n_groups] = size, least
    g_skip[n_groups] = skip
    g_post_w[n_groups], g_post_b[n_groups] = post_w, post_b
    n_flat = m - n_swept
    lower_out, size_out, least_out = owork[8], oiwork[1], oiwork[2]
    n_out = 0
    for g in range(n_groups + 1):
        if g_skip[g]:
            continue
        passed = g_pre_w[g] - g_pre_b[g]
        plus = passed + before - g_post_b[g]
        minus = total - (g_post_w[g] - g_pre_w[g]) - plus
        lower_out[n_out] = plus if plus < minus else minus
        size_out[n_out] = g_size[g] + n_flat
        least_out[n_out] = g_least[g]
        n_out += 1
    return n_out


class Workspace(NamedTuple):
    """The work arrays of the sweeps of one chunk of pencils (m points in
    dimension d), allocated once by ``workspace`` and reused pencil after
    pencil."""

    #: (d + 1, m): the homogeneous points by coordinate.
    ZT: np.ndarray
    #: (max(d - 1, 1), d + 1): Householder reflectors (``_prefix``) and
    #: Gram-Schmidt units (``_owns``).
    units: np.ndarray
    #: (3, d + 1): the prefix frame, an orthonormal basis of the null space
    #: of the pencil's first d - 2 points, and (d + 1, d + 1) the work array
    #: of its Householder QR (``_prefix``).
    frame: np.ndarray
    columns: np.ndarray
    #: (3, m): every point in the prefix frame, and (2,) the largest norm and
    #: least Gram-Schmidt residual of the prefix's points (``_prefix``).
    projected: np.ndarray
    prefix: np.ndarray
    #: (m,): every point's distance from the prefix's flat (``_norms``).
    norms: np.ndarray
    #: (8, m + 1) and (4, m + 1) int: the rows of ``_angles`` and ``_order``.
    sweep: np.ndarray
    sweep_index: np.ndarray
    #: (15, 2m + 2) and (10, 8m + 32) int: the rows of ``_dense_owned`` and
    #: ``_sweep_owned`` (m = 0 unless asked for). Row 7 of ``owned_index``
    #: holds the location table, ``cells`` + 2 entries, where ``cells``, the
    #: least power of two from 16 up that reaches 4k for k eligible points,
    #: is 16 or below 8k: at most 8m + 18 entries.
    owned: np.ndarray
    owned_index: np.ndarray
    #: (13, m + 1) and (3, m + 1) int: the rows of ``_lines`` and
    #: ``_pencil_bound`` (0 wide unless asked for).
    lines: np.ndarray
    line_index: np.ndarray


@njit(cache=True, nogil=True, inline="always")
def workspace(Z, d, owned, bounded):
    """The ``Workspace`` of the sweeps of the points ``Z`` (m, d + 1), with
    the rows of the owned sweeps when ``owned`` and those of the forced-error
    bound when ``bounded``."""
    m = Z.shape[0]
    m_owned = m if owned else 0
    m_lines = m + 1 if bounded else 0
    return Workspace(
        np.ascontiguousarray(Z.T),
        np.empty((max(d - 1, 1), d + 1)),
        np.empty((3, d + 1)),
        np.empty((d + 1, d + 1)),
        np.empty((3, m)),
        np.empty(2),
        np.empty(m),
        np.empty((8, m + 1)),
        np.empty((4, m + 1), dtype=np.int64),
        np.empty((15, 2 * m_owned + 2)),
        np.empty((10, 8 * m_owned + 32), dtype=np.int64),
        np.empty((13, m_lines)),
        np.empty((3, m_lines), dtype=np.int64),
    )


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
    n_chosen = np.int64(0)  # not a literal (module docstring)
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


class ScanResult(NamedTuple):
    """What ``scan`` found in a run of pencils (numbered as in ``pencils``)."""

    #: The first pencil not swept.
    stop: int
    #: The planes examined (sweep groups).
    n_examined: int
    #: The least cost below ``bound`` of a plane through exactly d points
    #: (not ``exhaustive``: of any plane, its on-plane points at their
    #: heavier label; ``bound`` when none), its pencil (-1 when none) and the
    #: least index of the points its group holds (equal costs: the first
    #: pencil, then the least such index).
    best_cost: float
    best_pencil: int
    best_point: int
    #: When ``exhaustive``, every plane through more than d points whose
    #: off-plane cost is below the best found before its pencil, in its owner
    #: pencil only: that pencil, the least point index of its group and its
    #: off-plane cost (the on-plane sub-problems are the caller's).
    tied_pencil: np.ndarray
    tied_point: np.ndarray
    tied_lower: np.ndarray
    #: The pencils skipped unswept because their bound reached the best cost
    #: found so far (``Prune.BOUND``) and because they own none of their
    #: planes (``Prune.FOREIGN``): neither could have improved the best, so
    #: the result is the same.
    n_pruned: int
    n_foreign: int


@njit(cache=True, nogil=True)
def scan(Z, signed_weight, pencils, d, bound, exhaustive, start, capacity, prune):
    """Sweep the pencils ``start:`` in order, until the end or until the
    buffer of tied candidates could overflow.

    ``prune`` is ``int(Prune)``, the rules that apply. Returns a
    ``ScanResult``.
    """
    m = Z.shape[0]
    n_pencils = pencils.shape[0]
    check_owner = exhaustive and d > 1
    owned = check_owner and prune & _OWNED != 0
    bounding = prune & _BOUND and d > 2
    # The workspace unpacked, and ``workspace`` inlined: LLVM then sees the
    # arrays allocated here, apart from each other (on Caesarian the loop
    # took 1.07x the time reading them through the tuple, 1.05x with the
    # tuple unpacked but not inlined).
    (
        ZT,
        units,
        frame,
        columns,
        projected,
        prefix,
        norms,
        work,
        iwork,
        owork,
        oiwork,
        lwork,
        liwork,
    ) = workspace(Z, d, owned, bounding)
    flat = np.empty(m, dtype=np.int64)
    tied_pencil = np.empty(capacity, dtype=np.int64)
    tied_point = np.empty(capacity, dtype=np.int64)
    tied_lower = np.empty(capacity)
    n_tied = 0
    best, best_pencil, best_point = bound, -1, -1
    n_examined, n_pruned, n_foreign = 0, 0, 0
    g_lower = np.empty(m + 1)
    g_size = np.empty(m + 1, dtype=np.int64)
    g_least = np.empty(m + 1, dtype=np.int64)
    g_heavier = np.empty(m + 1)  # only filled by ``_groups``
    n_forced, forced = 0, 0.0
    # With pruning, pencils that own none of their planes are not sorted.
    foreign = np.empty(m if prune & _FOREIGN and check_owner else 0, dtype=np.int64)
    bounded = bounding  # the bound is on in this window of prefixes
    foreign_prefix = False  # no pencil of the prefix owns a plane
    window_prefixes, window_pruned, resting = 0, 0, 0
    b = start
    while b < n_pencils and n_tied + m <= capacity:
        pencil = pencils[b]
        if d > 1 and (b == start or _new_prefix(pencils, b, d)):
            prefix[0], prefix[1] = _prefix(
                Z, ZT, pencil, d, units, frame, projected, columns
            )
            if foreign.shape[0] > 0 and d > 2:
                _norms(projected, norms)
                foreign_prefix = not _prefix_owns(Z, norms, pencil, d, flat, units)
            if bounding and not foreign_prefix:
                if window_prefixes == BOUND_WINDOW:
                    if bounded:
                        bounded = window_pruned >= 2 * BOUND_WINDOW
                    else:
                        resting += 1
                        bounded = resting == BOUND_REST
                        resting = 0 if bounded else resting
                    window_prefixes, window_pruned = 0, 0
                window_prefixes += 1
                if bounded:
                    n_forced, forced = _lines(
                        projected, signed_weight, pencil, d, lwork, liwork
                    )
        last = pencil[d - 2] if d > 1 else -1
        if foreign_prefix or (owned and last == m - 1):
            # Another point in the owner of the prefix's flat
            # (``_prefix_owns``), or no point above the pencil's largest: the
            # pencil owns no plane.
            n_foreign += 1
            b += 1
            continue
        if foreign.shape[0] > 0 and d > 2 and _on_line_below(projected, norms, last):
            # A point of lower index on the line of the pencil's last point
            # (through the prefix's flat) lies on the pencil's flat: then
            # the pencil owns none of its planes (``_angles``).
            n_foreign += 1
            b += 1
            continue
        if bounded and forced >= best:
            residual, condition = _condition(Z, pencil, d, prefix, projected)
            if condition > 0.0:
                lower = _pencil_bound(
                    projected,
                    last,
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
                    window_pruned += 1
                    b += 1
                    continue
        n_swept, widest_slack, rounding = _angles(
            Z, ZT, pencil, d, work, prefix, projected, foreign, units
        )
        b += 1
        if n_swept == -2:
            n_foreign += 1
        if n_swept <= 0:
            continue
        n_flat = m - n_swept
        n_groups = -1
        if owned:
            n_groups = _dense_owned(
                signed_weight, last, n_swept, widest_slack, work, owork, oiwork
            )
            if n_groups < 0:
                _slacks(work, m, rounding)
                n_groups = _sweep_owned(
                    signed_weight, last, n_swept, widest_slack, work, owork, oiwork
                )
            for g in range(n_groups):
                g_lower[g] = owork[8, g]
                g_size[g] = oiwork[1, g]
                g_least[g] = oiwork[2, g]
        if n_groups < 0:
            if not owned:
                _slacks(work, m, rounding)
            _order(signed_weight, n_swept, work, iwork)
            n_groups = _groups(
                iwork, work, n_swept, signed_weight, g_lower, g_size, g_least, g_heavier
            )
        # With more points on the pencil's flat than its own, the owner of
        # each of its tied planes is the greedy choice among the flat's
        # points alone (every other on-plane point has a larger index): one
        # check per pencil.
        owner = True
        if check_owner and n_flat > d - 1 and foreign.shape[0] == 0:
            n_on_flat = np.int64(0)  # not a literal (module docstring)
            for i in range(m):
                if work[0, i] == np.inf:
                    flat[n_on_flat] = i
                    n_on_flat += 1
            owner = _owns(Z, flat, n_on_flat, pencil, d, units)
        best_before = best
        n_examined += n_groups
        for g in range(n_groups):
            lower = g_lower[g]
            n_on = g_size[g]
            least = g_least[g]
            if n_on == d or (not exhaustive and n_on < m):
                # Through exactly d points, every on-plane labelling is
                # reachable. Through more, a heuristic (not exhaustive)
                # gives the on-plane points their heavier label (the plane
                # shifted off them) instead of solving their sub-problem.
                cost = lower if n_on == d else lower + g_heavier[g]
                if cost < best or (
                    cost == best and best_pencil == b - 1 and least < best_point
                ):
                    best, best_pencil, best_point = cost, b - 1, least
            elif (
                lower < best_before
                and owner
                and n_on < m
                and (not check_owner or least > last)
            ):
                tied_pencil[n_tied] = b - 1
                tied_point[n_tied] = least
                tied_lower[n_tied] = lower
                n_tied += 1
    return ScanResult(
        b,
        n_examined,
        best,
        best_pencil,
        best_point,
        tied_pencil[:n_tied],
        tied_point[:n_tied],
        tied_lower[:n_tied],
        n_pruned,
        n_foreign,
    )


@njit(cache=True, nogil=True)
def _groups(iwork, work, n_swept, signed_weight, g_lower, g_size, g_least, g_heavier):
    """The groups of ``_order``'s sweep: for each, the off-plane cost in the
    cheaper orientation, the number of points on its plane (the flat's
    included), the least index of the points of the group and the cost of
    the heavier label on its plane (the lighter label's weight there)."""
    m = iwork.shape[1] - 1
    met, is_first = iwork[1, :m], iwork[2, :m]
    total, before = work[3], work[4]
    n_flat = m - n_swept
    all_w, all_b = total[m], before[m]
    flat_plus, flat_minus = 0.0, 0.0
    for j in range(n_swept, m):
        s = signed_weight[met[j]]
        flat_plus += max(s, 0.0)
        flat_minus += max(-s, 0.0)
    n_groups = 0
    gs = 0
    while gs < n_swept:
        ge = gs
        least = met[gs]
        on_plus, on_minus = flat_plus, flat_minus
        while ge < n_swept and (ge == gs or is_first[ge] == 0):
            least = min(least, met[ge])
            s = signed_weight[met[ge]]
            on_plus += max(s, 0.0)
            on_minus += max(-s, 0.0)
            ge += 1
        passed = total[gs] - before[gs]
        plus = passed + all_b - before[ge]
        minus = all_w - (total[ge] - total[gs]) - plus
        g_lower[n_groups] = plus if plus < minus else minus
        g_size[n_groups] = ge - gs + n_flat
        g_least[n_groups] = least
        g_heavier[n_groups] = min(on_plus, on_minus)
        n_groups += 1
        gs = ge
    return n_groups


@njit(cache=True, nogil=True)
def plane_labels(Z, signed_weight, pencil, d, point):
    """Labels (+-1) of the best cell next to the plane of the group holding
    ``point`` off the plane, in the cheaper orientation, the sorted on-plane
    points (whose labels are the caller's) and the sweep position where the
    group starts."""
    m = Z.shape[0]
    ws = workspace(Z, d, False, False)
    work, iwork = ws.sweep, ws.sweep_index
    if d > 1:
        ws.prefix[0], ws.prefix[1] = _prefix(
            Z, ws.ZT, pencil, d, ws.units, ws.frame, ws.projected, ws.columns
        )
    foreign = np.empty(0, dtype=np.int64)
    n_swept = _sweep(
        Z,
        ws.ZT,
        signed_weight,
        pencil,
        d,
        work,
        iwork,
        ws.prefix,
        ws.projected,
        foreign,
        ws.units,
    )
    met, is_first, sign = iwork[1, :m], iwork[2, :m], work[2, :m]
    total, before = work[3], work[4]
    gs = 0
    while met[gs] != point:
        gs += 1
    while is_first[gs] == 0:
        gs -= 1
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
    # The group's points and the flat's, in ascending order.
    is_on = np.zeros(m, dtype=np.bool_)
    for j in range(gs, ge):
        is_on[met[j]] = True
    for j in range(n_swept, m):
        is_on[met[j]] = True
    on_plane = np.empty(ge - gs + m - n_swept, dtype=np.int64)
    n_on = 0
    for i in range(m):
        if is_on[i]:
            on_plane[n_on] = i
            n_on += 1
    return labels, on_plane, gs
