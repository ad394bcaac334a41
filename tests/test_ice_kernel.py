"""ICEClassifier's compiled sweep against the numpy sweep (the test oracle).

The numba kernel (``_ice._kernel``) and the vectorised numpy sweep
(``scan_pencils(..., compiled=False)``) compute the same candidates with
different arithmetic (Householder frames shared by pencils with a common
prefix against one QR per pencil; a bucket sort against ``argsort``). Both
must find the same optimum on tied data, where most candidate planes hold
more than D points and the on-plane sub-problems decide the cost.

Under ``NUMBA_DISABLE_JIT=1`` the kernels run as Python, which gives them
coverage; the largest comparisons then take every ``SAMPLE``-th pencil, or
a smaller problem, with the same assertions (their counts scaled).
"""

import itertools

import numba
import numpy as np
import pytest
from _separability import strictly_separable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sklearn_iclr.linear_model._ice import _kernel, _search, _tolerances
from sklearn_iclr.linear_model._ice._search import (
    SubProblems,
    affine_coordinates,
    combinations_array,
    count_examinations,
    exhaustive_chunks,
    scan_pencils,
    solve_exact,
)
from sklearn_iclr.linear_model._ice._tolerances import ANGLE_TOL

pytestmark = pytest.mark.kernel
PURE_PYTHON = numba.config.DISABLE_JIT
SAMPLE = 10 if PURE_PYTHON else 1

AGREE = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def tied_problems(draw, max_points=24, max_dim=3, levels=4, real_weights=False):
    """Distinct points on a small integer grid (many coplanar), labels and
    positive integer weights (``real_weights``: floats from 0.1 to 3, whose
    sums depend on their order)."""
    d = draw(st.integers(1, max_dim))
    n = draw(st.integers(2, max_points))
    grid = draw(arrays(np.int64, (n, d), elements=st.integers(0, levels - 1)))
    X = np.unique(grid.astype(float), axis=0)
    m = len(X)
    y = draw(arrays(np.int8, m, elements=st.sampled_from([-1, 1])))
    if real_weights:
        weights = st.floats(0.1, 3.0, allow_nan=False, allow_infinity=False)
        w = draw(arrays(np.float64, m, elements=weights))
    else:
        w = draw(arrays(np.int64, m, elements=st.integers(1, 3))).astype(float)
    return X, y, w


def _every_pencil(problem):
    """``(Y, y, w, pencils)``: the problem in its affine hull and all its
    pencils, or None when it is too small to need a search."""
    X, y, w = problem
    Y = affine_coordinates(X)
    m, d = Y.shape
    if d == 0 or m <= d + 1:
        return None
    return Y, y, w, combinations_array(m, d - 1)


def weighted_cost(labels, y, w):
    return float(np.sum(w[labels != y]))


def test_kernels_are_compiled_with_the_current_tolerances():
    """numba's cache keeps the constants a kernel was compiled with: a stale
    cache after an edit of ``_tolerances`` would make the kernel and the
    oracle test different conditions."""
    names = (
        "RANK_TOL",
        "FLAT_TOL",
        "ANGLE_TOL",
        "ROUNDING",
        "LINE_TOL",
        "PLANE_TOL",
        "PREFIX_FLAT_TOL",
    )
    current = tuple(getattr(_tolerances, name) for name in names)
    assert _kernel.compiled_tolerances() == current


@AGREE
@given(tied_problems())
def test_compiled_and_numpy_sweeps_find_the_same_optimum(problem):
    X, y, w = problem
    compiled_cost, compiled_labels = solve_exact(X, y, w)
    numpy_cost, numpy_labels = solve_exact(X, y, w, compiled=False)
    assert compiled_cost == numpy_cost
    # Each labelling realises its reported cost.
    assert weighted_cost(compiled_labels, y, w) == compiled_cost
    assert weighted_cost(numpy_labels, y, w) == numpy_cost


@AGREE
@given(tied_problems(real_weights=True))
def test_compiled_and_numpy_sweeps_agree_on_real_valued_weights(problem):
    """The compiled sweep sums weights in any order (``fastmath`` reassociation,
    exact for integer weights only): with real-valued weights its optimum is
    the numpy oracle's up to rounding, and each labelling realises its cost."""
    X, y, w = problem
    rounding = 1e-12 * w.sum()
    compiled_cost, compiled_labels = solve_exact(X, y, w)
    numpy_cost, numpy_labels = solve_exact(X, y, w, compiled=False)
    assert abs(compiled_cost - numpy_cost) <= rounding
    assert abs(weighted_cost(compiled_labels, y, w) - compiled_cost) <= rounding
    assert abs(weighted_cost(numpy_labels, y, w) - numpy_cost) <= rounding


@AGREE
@given(tied_problems(max_points=14), st.booleans())
def test_compiled_and_numpy_scans_agree_pencil_set_by_pencil_set(problem, exhaustive):
    """Same examinations (without pruning), same best cost, for the full
    pencil set or any subset of it (the heuristic scans subsets without
    ownership)."""
    if (search := _every_pencil(problem)) is None:
        return
    Y, y, w, pencils = search
    if not exhaustive:
        pencils = pencils[::2]
    bound = float(min(w[y > 0].sum(), w[y < 0].sum()))
    compiled = scan_pencils(Y, y, w, pencils, bound, exhaustive=exhaustive, prune=False)
    oracle = scan_pencils(
        Y, y, w, pencils, bound, exhaustive=exhaustive, compiled=False
    )
    assert compiled[3] == oracle[3]
    assert compiled[0] == oracle[0] or (compiled[0] >= bound and oracle[0] >= bound)
    if compiled[2] is not None:
        assert weighted_cost(compiled[2], y, w) == compiled[0]


@AGREE
@given(tied_problems(max_points=16), st.booleans())
def test_heuristic_scan_gives_a_tied_planes_points_their_heavier_label(
    problem, compiled
):
    """Without ownership (the heuristic), a plane through more than d points
    is not solved: its points all take their heavier label. The best cell
    then costs at least the optimum, its labelling realises its cost and is
    strictly separable (HiGHS), and no sub-problem is solved."""
    if (search := _every_pencil(problem)) is None:
        return
    Y, y, w, pencils = search
    optimum = scan_pencils(Y, y, w, pencils, np.inf)[0]
    cache = SubProblems()
    cost, _, labels, _ = scan_pencils(
        Y, y, w, pencils, np.inf, cache, exhaustive=False, compiled=compiled
    )
    assert len(cache) == 0
    assert cost >= optimum
    assert weighted_cost(labels, y, w) == cost
    assert strictly_separable(Y, labels.astype(float))


def test_solve_exact_in_many_chunks_keeps_the_optimum(monkeypatch):
    """``solve_exact`` scans its pencils in chunks of ``BATCH_ENTRIES``
    entries (memory), each below the best of the earlier ones."""
    rng = np.random.default_rng(5)
    X = rng.integers(0, 3, size=(40, 3)).astype(float)
    X = np.unique(X, axis=0)
    y = np.where(X.sum(axis=1) + rng.normal(0, 1, len(X)) > 3, 1, -1).astype(np.int8)
    w = rng.integers(1, 4, len(X)).astype(float)
    whole = solve_exact(X, y, w)[0]
    monkeypatch.setattr(_search, "BATCH_ENTRIES", 64)
    assert len(list(exhaustive_chunks(len(X), 3, max(1, 64 // len(X))))) > 5
    cost, labels = solve_exact(X, y, w)
    assert cost == whole == solve_exact(X, y, w, compiled=False)[0]
    assert weighted_cost(labels, y, w) == cost


@pytest.mark.parametrize(
    "m, d, target", [(9, 4, 5), (12, 6, 40), (9, 7, 3), (10, 9, 2)]
)
def test_exhaustive_chunks_enumerate_every_pencil_once_in_order(m, d, target):
    """Against itertools, with d far from m (one table of tails for all
    chunks) and near it (tails per first point: the table would be larger
    than the pencils, 3.2 GB for m = 63, d = 60)."""
    chunks = list(exhaustive_chunks(m, d, target))
    assert len(chunks) > 1
    expected = np.array(list(itertools.combinations(range(m), d - 1)))
    np.testing.assert_array_equal(np.concatenate(chunks), expected)


def test_exhaustive_chunks_small_tables_are_not_shared():
    """A small enumeration (one chunk, from the kept table of its shape) gives
    each caller its own array: writing to it leaves the next one intact."""
    first = next(exhaustive_chunks(8, 3, 1000))
    expected = np.array(list(itertools.combinations(range(8), 2)))
    np.testing.assert_array_equal(first, expected)
    first[:] = -1
    np.testing.assert_array_equal(next(exhaustive_chunks(8, 3, 1000)), expected)


@pytest.mark.parametrize("d", [2, 3, 4])
def test_general_position_examines_every_candidate(d):
    rng = np.random.default_rng(d)
    X = rng.standard_normal((9 + d, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(len(X)) > 0, 1, -1).astype(np.int8)
    w = np.ones(len(X))
    Y = affine_coordinates(X)
    n_examined = sum(
        scan_pencils(Y, y, w, pencils, np.inf, prune=False)[3]
        for pencils in exhaustive_chunks(len(Y), d, 7)
    )
    assert n_examined == count_examinations(len(Y), d)
    assert solve_exact(X, y, w)[0] == solve_exact(X, y, w, compiled=False)[0]


@AGREE
@given(tied_problems(max_points=20, max_dim=3, levels=3))
def test_each_pencil_has_the_same_best_plane_in_both_sweeps(problem):
    """Pencil by pencil (no ownership, no bound), so that the best plane of a
    pencil is often one through more than D points: the tied planes' off-plane
    costs and on-plane sub-problems must agree, not only the global optimum
    (which a plane through exactly D points often attains as well)."""
    X, y, w = problem
    Y = affine_coordinates(X)
    m, d = Y.shape
    if d == 0 or m <= d + 1:
        return
    for pencil in combinations_array(m, d - 1)[:40]:
        pencils = pencil[None, :]
        compiled = scan_pencils(Y, y, w, pencils, np.inf, exhaustive=False)
        oracle = scan_pencils(
            Y, y, w, pencils, np.inf, exhaustive=False, compiled=False
        )
        assert compiled[0] == oracle[0]
        assert compiled[3] == oracle[3]
        if compiled[2] is not None:
            assert weighted_cost(compiled[2], y, w) == compiled[0]


def _first_best(results, bound):
    """The result over chunks as ``ICEClassifier`` combines them: the first
    chunk whose cost is strictly below the best so far (from ``bound``)."""
    best = (bound, None, None, None)
    for index, (cost, key, labels, _) in enumerate(results):
        if labels is not None and cost < best[0]:
            best = (cost, index, key, labels)
    return best


@AGREE
@given(
    tied_problems(max_points=22, max_dim=4, levels=3),
    st.sampled_from(["surrogate", "optimum", "optimum+"]),
)
def test_pruning_changes_nothing_but_the_examinations(problem, incumbent):
    """Skipping pencils (those that own none of their planes, and those
    whose forced-error bound reaches the incumbent) and evaluating in each
    pencil only the planes it owns returns the same cost, key and labelling
    as the full sweep over all chunks (a plane through exactly D points is
    then evaluated in its first pencil only, so a later chunk may miss it),
    for a loose incumbent, the optimum itself (nothing strictly better
    exists) and the optimum plus half a unit; the numpy oracle agrees on the
    cost."""
    X, y, w = problem
    Y = affine_coordinates(X)
    m, d = Y.shape
    if d == 0 or m <= d + 1:
        return
    full = float(min(w[y > 0].sum(), w[y < 0].sum()))
    optimum = solve_exact(X, y, w, compiled=False)[0]
    bound = {"surrogate": full, "optimum": optimum, "optimum+": optimum + 0.5}
    bound = bound[incumbent]
    pruned, unpruned, oracle = [], [], []
    n_pencils, n_skipped = 0, 0
    for pencils in exhaustive_chunks(m, d, 25):
        stats = {}
        pruned.append(scan_pencils(Y, y, w, pencils, bound, stats=stats))
        unpruned.append(scan_pencils(Y, y, w, pencils, bound, prune=False))
        oracle.append(scan_pencils(Y, y, w, pencils, bound, compiled=False))
        assert pruned[-1][0] >= unpruned[-1][0]
        assert pruned[-1][3] <= unpruned[-1][3]
        n_pencils += len(pencils)
        n_skipped += stats["pruned"] + stats["foreign"]
    assert n_skipped <= n_pencils
    pruned_best = _first_best(pruned, bound)
    unpruned_best = _first_best(unpruned, bound)
    assert pruned_best[:3] == unpruned_best[:3]
    assert _first_best(oracle, bound)[0] == pruned_best[0]
    if pruned_best[3] is not None:
        np.testing.assert_array_equal(pruned_best[3], unpruned_best[3])
        assert weighted_cost(pruned_best[3], y, w) == pruned_best[0]
    assert solve_exact(X, y, w)[0] == optimum


def test_pruning_skips_pencils_on_a_tied_grid():
    """On integer grids in D = 4 both rules skip pencils (a test that the
    pruning runs), and the optimum is that of the unpruned sweep (60 points;
    30 as Python)."""
    n = 30 if PURE_PYTHON else 60
    rng = np.random.default_rng(0)
    grid = np.stack(np.meshgrid(*[np.arange(4)] * 4, indexing="ij"), -1)
    X = grid.reshape(-1, 4)[rng.permutation(4**4)[:n]].astype(float)
    score = X @ np.linspace(1.0, 2.0, 4) + 2.4 * rng.standard_normal(n)
    y = np.where(score > np.median(score), 1, -1).astype(np.int8)
    w = np.ones(len(X))
    Y = affine_coordinates(X)
    m, d = Y.shape
    pencils = combinations_array(m, d - 1)
    optimum = solve_exact(X, y, w, compiled=False)[0]
    # An incumbent as good as a heuristic can give: the optimum plus 1/2.
    stats = {}
    pruned = scan_pencils(Y, y, w, pencils, optimum + 0.5, stats=stats)
    unpruned = scan_pencils(Y, y, w, pencils, optimum + 0.5, prune=False)
    assert pruned[:2] == unpruned[:2]
    assert pruned[0] == optimum
    assert stats["foreign"] > 0.1 * len(pencils)
    assert stats["pruned"] > 0
    assert pruned[3] < unpruned[3]


def test_bound_windows_change_nothing_on_a_degree_two_fit(monkeypatch):
    """The forced-error bound is computed in windows of prefixes and rests
    after windows where it does not pay (``BOUND_WINDOW``); on the five
    monomials of a noisy disc (9,880 prefixes, 38 windows) it skips pencils
    and the optimum is that of the unpruned sweep. (As Python: 24 points,
    1,771 prefixes, in windows of 16.)"""
    n = 40
    if PURE_PYTHON:  # the kernel reads the module's constants when it runs
        n = 24
        monkeypatch.setattr(_kernel, "BOUND_WINDOW", 16)
        monkeypatch.setattr(_kernel, "BOUND_REST", 2)
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (n, 2))
    y = np.where((X**2).sum(1) + 0.15 * rng.standard_normal(n) < 0.5, 1, -1)
    X = np.column_stack([X, X**2, X[:, 0] * X[:, 1]])
    y = y.astype(np.int8)
    w = np.ones(len(X))
    Y = affine_coordinates(X)
    m, d = Y.shape
    pencils = combinations_array(m, d - 1)
    optimum = solve_exact(X, y, w)[0]
    stats = {}
    pruned = scan_pencils(Y, y, w, pencils, optimum + 0.5, stats=stats)
    unpruned = scan_pencils(Y, y, w, pencils, optimum + 0.5, prune=False)
    assert pruned[0] == unpruned[0] == optimum
    assert weighted_cost(pruned[2], y, w) == optimum
    assert stats["pruned"] > 0


def _owned_and_full_groups(X, every=1, real_weights=False):
    """Per pencil (every ``every``-th) of distinct points ``X``, with random
    labels and integer weights (``real_weights``: floats from 0.1 to 3):
    its number of eligible points (above its
    largest), the groups of ``_sweep_owned`` (None where it declines), of
    ``_dense_owned`` (None where it declines) and those of the full sweep
    (``_order``, ``_groups``) made of eligible points, as sorted (cost,
    size, least point) lists. The work arrays persist across pencils, as in
    ``scan``."""
    rng = np.random.default_rng(1)
    y = rng.choice([-1, 1], len(X)).astype(np.int8)
    if real_weights:
        w = rng.uniform(0.1, 3.0, len(X))
    else:
        w = rng.integers(1, 4, len(X)).astype(float)
    Y = affine_coordinates(X)
    m, d = Y.shape
    Z = np.ascontiguousarray(np.column_stack([Y, np.ones(m)]))
    signed_weight = y * w
    ws = _kernel.workspace(Z, d, True, False)
    ZT, units, frame, columns, projected, prefix = ws[:6]
    work, iwork, owork, oiwork = ws.sweep, ws.sweep_index, ws.owned, ws.owned_index
    no_foreign = np.empty(0, dtype=np.int64)
    g_lower, g_size = np.empty(m + 1), np.empty(m + 1, dtype=np.int64)
    g_least, g_heavier = np.empty(m + 1, dtype=np.int64), np.empty(m + 1)

    def written(n_groups):
        if n_groups < 0:
            return None
        groups = owork[8, :n_groups], oiwork[1, :n_groups], oiwork[2, :n_groups]
        return sorted(zip(*groups, strict=True))

    for pencil in combinations_array(m, d - 1)[::every]:
        last = pencil[-1]
        prefix[:] = _kernel._prefix(Z, ZT, pencil, d, units, frame, projected, columns)
        n_swept, widest, rounding = _kernel._angles(
            Z, ZT, pencil, d, work, prefix, projected, no_foreign, units
        )
        if n_swept <= 0 or last == m - 1:
            continue
        _kernel._slacks(work, m, rounding)
        arguments = (signed_weight, last, n_swept, widest, work, owork, oiwork)
        owned = written(_kernel._sweep_owned(*arguments))
        dense = written(_kernel._dense_owned(*arguments))
        _kernel._order(signed_weight, n_swept, work, iwork)
        n_groups = _kernel._groups(
            iwork, work, n_swept, signed_weight, g_lower, g_size, g_least, g_heavier
        )
        full = [
            group
            for group in zip(
                g_lower[:n_groups], g_size[:n_groups], g_least[:n_groups], strict=True
            )
            if group[2] > last
        ]
        n_eligible = int(np.sum(work[0, last + 1 : m] != np.inf))
        yield n_eligible, owned, dense, sorted(full)


def _assert_same_groups(found, full, tolerance=0.0):
    """Two sweeps' groups, (cost, size, least point): the same least points
    and sizes, and costs within ``tolerance``."""
    found = sorted(found, key=lambda group: group[2])
    full = sorted(full, key=lambda group: group[2])
    assert [group[1:] for group in found] == [group[1:] for group in full]
    for (cost, *_), (full_cost, *_) in zip(found, full, strict=True):
        assert abs(cost - full_cost) <= tolerance


def _integer_grid(m_points, dimension=3, levels=10):
    """``m_points`` distinct points of {0, ..., levels - 1}^dimension, shuffled."""
    rng = np.random.default_rng(1)
    grid = rng.integers(0, levels, (3 * m_points, dimension)).astype(float)
    X = np.unique(grid, axis=0)
    return X[rng.permutation(len(X))[:m_points]]


def test_owned_sweep_equals_the_full_sweep_pencil_by_pencil_on_a_large_grid():
    """``_sweep_owned`` against the full sweep on every pencil of a
    200-point integer grid in D = 3 (every owned group: cost, size, least
    point). Most pencils have more than ``SMALL_ELIGIBLE`` eligible points
    and locate the others through the table, of up to 8m + 18 entries. (With
    ``oiwork`` 4m + 32 wide, as until the fifth round, the table overran its
    row for more than about m / 2 eligible points: 379 of these pencils
    then had wrong costs.)"""
    n_table, every = 0, 25 if PURE_PYTHON else 1
    for k, owned, _, full in _owned_and_full_groups(_integer_grid(200), every):
        if owned is not None:
            assert owned == full
            n_table += k > _kernel.SMALL_ELIGIBLE
    assert n_table > 5000 // every


@pytest.mark.parametrize("real_weights", [False, True], ids=["integer", "real"])
@pytest.mark.parametrize(
    ("X", "every", "least_dense"),
    [
        # Most pencils of 60 grid points in D = 3 have few eligible points.
        (_integer_grid(60), 1, 1000),
        # A binary table in D = 5: planes through many points, large groups.
        (_integer_grid(40, dimension=5, levels=2), 7, 1000),
    ],
    ids=["grid D=3", "binary D=5"],
)
def test_dense_owned_equals_the_full_sweep_pencil_by_pencil(
    X, every, least_dense, real_weights
):
    """``_dense_owned`` finds the groups of the full sweep, wherever it does
    not decline, on tied data: the same costs with integer weights, costs
    within rounding with real-valued ones (its sums are reassociated)."""
    n_dense = 0
    tolerance = 1e-12 * 3.0 * len(X) if real_weights else 0.0
    groups = _owned_and_full_groups(X, every * SAMPLE, real_weights)
    for _, _, dense, full in groups:
        if dense is not None:
            _assert_same_groups(dense, full, tolerance)
            n_dense += 1
    assert n_dense >= least_dense // SAMPLE


def test_dense_owned_declines_near_ties_and_scan_still_agrees():
    """Points moved by about ``ANGLE_TOL`` put other points between
    ``tight`` and ``reach`` of an eligible angle: ``_dense_owned`` declines
    there (``_sweep_owned`` sweeps those pencils) and ``scan`` keeps the
    full sweep's optimum."""
    X = _integer_grid(40)
    X[::3] += ANGLE_TOL * np.random.default_rng(2).uniform(-1, 1, X[::3].shape)
    n_declined = 0
    for _, owned, dense, full in _owned_and_full_groups(X, SAMPLE):
        if dense is None:
            if owned is not None:  # then ``scan`` takes the owned sweep's
                assert owned == full
                n_declined += 1
        else:
            assert dense == full
    assert n_declined > 0
    y = np.random.default_rng(3).choice([-1, 1], len(X)).astype(np.int8)
    w = np.ones(len(X))
    assert solve_exact(X, y, w)[0] == solve_exact(X, y, w, compiled=False)[0]
