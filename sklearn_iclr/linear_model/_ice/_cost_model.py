"""Time and memory of :class:`ICEClassifier`'s searches, predicted up front.

Time. The compiled sweep (``_kernel.scan``) pays, per chunk of pencils:

* per *prefix* (the first d - 2 points, shared by consecutive pencils) an
  orthonormal frame of its null space, O(d^3), and the projection of every
  point onto it, O(m d);
* per pencil swept, the angle of every point, O(m) (a pencil skipped
  because it owns none of its planes, or because its forced-error bound
  reaches the incumbent, costs next to nothing);
* per plane examined, its cost; and per call a fixed overhead;
* per on-plane sub-problem (a plane through more than d points), the
  interpreter's work of setting it up, whether it is searched or solved in
  closed form.

:func:`chunk_seconds` prices those counts with constants fitted by least
squares to timed chunks of the suite's data (``python -m benchmarks ice
--tables cost``). The counts of a whole search are not known in advance:
pruning and the on-plane sub-problems (nested searches in dimension d - 1)
depend on the data. :func:`predict_sweep` therefore sweeps a random sample of
the prefixes (seeded: the same data give the same prediction) with the real
kernel and bound, counts what it does, including the nested sub-problems it
meets, and scales the counts to all prefixes. The prediction is deterministic
(a count, not a timing), costs a few percent of the search at most, and sees
what examinations alone miss: with D close to N the frames dominate (63 points
in D = 60 make 2.4e6 examinations but 6e5 frames of 2e5 operations each).

A search may end long before its last pencil: once an on-plane sub-problem's
optimum reaches the bound, no labelling beats the bound
(``_search.SubProblems``). A sample of prefixes cannot tell when that
happens, so the probe starts the search for real, in its own order,
sub-problems solved: first for ``HEAD_FIRST`` (small searches end there),
then after the sample for a few percent of its prediction
(``HEAD_SHARE``, at most ``HEAD_LIMIT``), its work counted by the same
constants (and per chunk :func:`setup_seconds`). Where the search ends
within that, the count is the prediction, and the search reuses the
sub-problems the probe solved (on 63 points in D = 60, whose nested
sub-problems each lose one point and one dimension, the first chain of them
proves at once that no labelling makes fewer than 2 errors).

Memory. The exhaustive search holds its pencil tables and the kernel's
workspace, and so does each on-plane sub-problem it nests (a nested search
of m points in dimension d holds ``search_bytes(m, d)``, and chains of them
run 28 deep on 33 points in D = 30): the probe records the deepest chain it
meets, each searched sub-problem's own sub-problems counted as deep as they
may nest (:func:`chain_bytes`). Where its sample meets no sub-problem at all
it tells nothing of them: on 63 points in D = 60 the search nests one in
another, each a point and a dimension smaller, down to dimension 2. The
nested memory is then bounded from the shape alone, by the deepest chain the
search may nest. The prediction is checked against the memory available
(``_memory``) before the search starts. Where the probe's start of the
search ended it, the memory is that of the chain it ran: each nested search
held its first chunk of pencils.
"""

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np
from threadpoolctl import threadpool_limits

from ._search import (
    SearchCancelled,
    SearchControl,
    SubProblems,
    chunk_target,
    exhaustive_chunks,
    exhaustive_chunks_peak_bytes,
    scan_pencils,
    search_chunks,
)

# Reference seconds (``sklearn_iclr.utils.estimate_seconds``) per unit of work
# of the compiled sweep: least squares over timed kernel calls, converted by
# the reference matrix product timed in the same run (``bench_ice.py --tables
# cost``). Pencils skipped unswept cost nothing measurable there.
FRAME_CUBE = 1.27e-9  # per prefix and (d + 1)^3
FRAME_POINT = 4.0e-9  # per prefix, point and dimension
SWEPT_POINT = 1.49e-8  # per swept pencil and point
PLANE = 4.06e-8  # per plane examined
CALL = 1.26e-5  # per call of the kernel
# Per on-plane sub-problem, solved or closed-form (its coordinates, an SVD,
# and the interpreter's work around it): 13 points in D = 10 meet 95,899 in
# 13.4 CPU s of search, whose kernel calls take a few percent of it.
SUB_PROBLEM = 1.4e-4
# Per pencil index of a chunk enumerated (``_search.exhaustive_chunks``),
# and per m (d + 1)^2 of a level's coordinates (an SVD): timed on one BLAS
# thread against the reference product, 5e-9 to 3e-8 and 2e-9 to 3e-8 (the
# larger on 13 points in D = 10, the smaller on 62 in D = 59, whose nested
# searches these costs dominate).
ENUMERATED_ENTRY = 1e-8
SVD_ENTRY = 2.5e-9

# The search is started for real, sub-problems solved, until it has done
# this much work (reference seconds, counted), before the sample; and after
# it, up to this share of the sample's prediction or this much, where that
# is at least 4 times the first: where the search ends there (it has swept
# every pencil, or a sub-problem met early proved the bound optimal), it is
# predicted exactly.
HEAD_FIRST = 0.01
HEAD_SHARE = 0.01
HEAD_LIMIT = 0.5
# A sample of prefixes costing about this long is swept to predict a search
# (at least MIN_SAMPLE prefixes, unless there are fewer) ...
PROBE_SECONDS = 0.02
MIN_SAMPLE = 16
# ... and the sub-problems it meets are sampled too, until the probe has
# swept this much; later ones are priced without pruning.
PROBE_LIMIT = 0.2

# The separating linear program (HiGHS) in the cost table's ``lp_entry``
# units (samples x features^2), with its per-row costs: 1e4 to 3e5 rows of 2
# to 20 features took 3 to 15 microseconds per row, 25 + 7.5 p entries at the
# 8e-8 s per entry measured from 30 x 500 to 300 x 2000 ...
LP_ROW_ENTRIES = 25.0
LP_FEATURE_ENTRIES = 7.5
# ... and its bytes per row and per nonzero (sparse constraints, HiGHS's
# copies; the same runs: about 700 B per row and 100 B per nonzero, measured
# as the growth of the peak resident memory).
LP_ROW_BYTES = 700
LP_NONZERO_BYTES = 100

# The compiled kernel's memory per call: per point (its workspace) and fixed
# (the buffer of tied candidates' constant part); see ``kernel_bytes``.
KERNEL_POINT_BYTES = 1300
KERNEL_CALL_BYTES = 24 * 4096


def chunk_seconds(m, d, n_pencils, n_prefixes, n_skipped, n_examined):
    """Reference seconds of one kernel call over ``n_pencils`` pencils of m
    points in dimension d, of which ``n_skipped`` were skipped unswept."""
    width = d + 1
    swept = n_pencils - n_skipped
    return (
        CALL
        + n_prefixes * (FRAME_CUBE * width**3 + FRAME_POINT * m * width)
        + swept * SWEPT_POINT * m
        + n_examined * PLANE
    )


def setup_seconds(m, d, n_entries):
    """Reference seconds of the set-up of a chunk of a search of m points in
    dimension d: its ``n_entries`` pencil indices enumerated, and its
    coordinates (an SVD of m points in dimension d + 1, see
    :func:`_search.affine_coordinates`)."""
    return ENUMERATED_ENTRY * n_entries + SVD_ENTRY * m * (d + 1) ** 2


def linear_program_entries(n, p):
    """The separating linear program of n samples and p features in the cost
    table's unit (``lp_entry``: samples x features^2): its per-row and
    per-nonzero costs added as the entries that take as long."""
    return n * (float(p) ** 2 + LP_FEATURE_ENTRIES * p + LP_ROW_ENTRIES)


def linear_program_bytes(n, p):
    """Peak bytes of the separating linear program of n samples, p features."""
    return int(n * (LP_ROW_BYTES + LP_NONZERO_BYTES * (p + 2)) + 4 * p * 24)


def count_prefixes(pencils, d):
    """Distinct runs of equal first d - 2 points among ``pencils`` (rows of
    one lexicographic enumeration)."""
    if d < 3 or len(pencils) == 0:
        return min(len(pencils), 1)
    head = pencils[:, : d - 2]
    return 1 + int(np.count_nonzero(np.any(head[1:] != head[:-1], axis=1)))


def full_sweep_seconds(m, d):
    """Seconds of an exhaustive sweep with no pencil skipped, no sub-problem:
    C(m - 1, d - 2) frames, C(m, d - 1) pencils, C(m, d) owned planes."""
    if d < 1 or m <= d:
        return 0.0
    n_prefixes = comb(m - 1, d - 2) if d >= 3 else 1
    return chunk_seconds(m, d, comb(m, d - 1), n_prefixes, 0, comb(m, d)) - CALL


class SweepPrediction(NamedTuple):
    """What :func:`predict_sweep` predicts of an exhaustive search.

    Attributes
    ----------
    seconds : float
        Reference seconds of one core: the search's, and the probe's own
        (counted the same way).
    nested_bytes : int
        Peak bytes of the on-plane sub-problems' searches, nested in one
        another (each holds its pencil tables and the kernel's workspace
        while the sub-problems it meets run): the deepest chain the probe
        meets, or where it meets no sub-problem, the deepest that m points
        in dimension d may nest; where the start of the search ended it, the
        chain that start ran.
    cost, labels : float and ndarray of shape (m,), or (bound, None)
        The best labelling the sampled pencils (or the start of the search,
        where it ended) found, when it beats the bound; the search then
        starts from it, and ``seconds`` is predicted with its cost as the
        bound.
    sub_problems : _search.SubProblems or None
        The sub-problems solved by the start of the search that proved
        ``cost`` optimal (the search then reuses them), or None.
    n_examined : int
        The planes that start of the search examined (0 when None).
    """

    seconds: float
    nested_bytes: int
    cost: float
    labels: np.ndarray | None
    sub_problems: SubProblems | None
    n_examined: int = 0


def predict_sweep(Y, y, w, bound):
    """Predicted CPU seconds (one core) and nested memory of the exhaustive
    search.

    Sweeps the pencils of a seeded random sample of prefixes with the real
    kernel, pruning rules and bound, and counts the frames, pencils and
    planes; the on-plane sub-problems it meets are predicted the same way
    (recursively, not solved). The counts are priced by
    :func:`chunk_seconds` and scaled to all prefixes. Small searches are
    counted in full. The real search soon finds a labelling better than its
    starting one and prunes with it: when the sample finds one, it is
    returned and the prediction is made again with its cost as the bound
    (with the starting bound alone, the random binary 24 x 12 table was
    predicted 12 times its measured time). Before the sample and after it,
    the search is started for real (:class:`_Head`); where it ends there,
    its count is the prediction. The probe's own work is counted in
    ``seconds``.

    Parameters
    ----------
    Y : ndarray of shape (m, d)
        Distinct points, affine hull of full dimension.
    y, w : ndarray of shape (m,)
        Labels in {-1, +1} and positive weights.
    bound : float
        The incumbent's cost (the search's starting bound).

    Returns
    -------
    prediction : SweepPrediction
    """
    first = _Head(HEAD_FIRST)
    if first.search(Y, y, w, bound):
        return first.prediction(0.0)
    spent = first.seconds  # the probe's own work, counted as the search's
    probe = _Probe()
    seconds, nested_bytes = probe.predict(Y, y, w, bound, top=True)
    spent += probe.spent
    if not probe.n_sub_problems:  # the search may still nest deep chains
        nested_bytes = chain_bytes(Y.shape[0] - 1, Y.shape[1] - 1)
    cost, labels = probe.best
    if labels is not None:
        # (The nested searches the first sample met still run before the
        # search finds its better labelling: their memory counts.)
        again = _Probe()
        seconds, more_bytes = again.predict(Y, y, w, cost)
        nested_bytes = max(nested_bytes, more_bytes)
        spent += again.spent
    bound = min(cost, bound)
    # (the sub-problems the first start solved are not solved again)
    head = _Head(min(HEAD_LIMIT, HEAD_SHARE * seconds), first)
    if head.limit >= 4 * HEAD_FIRST:
        if head.search(Y, y, w, bound, labels):
            return head.prediction(spent)
        spent += head.seconds
    return SweepPrediction(seconds + spent, nested_bytes, bound, labels, None)


def kernel_bytes(m):
    """Bytes of one call of the compiled sweep on m points: its workspace
    (``_kernel.workspace``, about 150 float64 per point) and its buffer of
    tied candidates (three arrays of 4 m + 4096)."""
    return KERNEL_CALL_BYTES + KERNEL_POINT_BYTES * m


@lru_cache(maxsize=256)
def search_bytes(m, d):
    """Bytes a nested search of m points in dimension d holds while it runs
    (besides the sub-problems it meets): its pencil tables and the kernel's
    workspace."""
    target = chunk_target(m)
    return exhaustive_chunks_peak_bytes(m, d, target) + kernel_bytes(m)


def chain_bytes(m, d):
    """Bytes of the deepest chain of sub-problems a search of m points in
    dimension d may nest: each on-plane sub-problem has at most one point
    and one dimension less, and is searched only when it has more than its
    dimension + 2 points (:func:`_search.solve_exact`)."""
    total = 0
    while d >= 2 and m > d + 2:
        total += search_bytes(m, d)
        m, d = m - 1, d - 1
    return total


class _Head:
    """The search started for real, as :func:`predict_sweep`'s first step
    and, with a longer limit, its last:
    its pencils in the order the search takes them, its nested
    sub-problems solved (on one BLAS thread: their SVDs are small), its
    work counted (per call of the kernel at any depth :func:`chunk_seconds`,
    per chunk :func:`setup_seconds`, per sub-problem ``SUB_PROBLEM``) and
    cut off past ``limit`` reference seconds. ``best`` is ``(cost,
    labels)``: the bound and the labels it was given, unless it found
    better. A head started ``after`` another of the same search reuses the
    sub-problems that one solved (their work counted there, their shapes
    here too)."""

    def __init__(self, limit, after=None):
        self.limit, self.kernel_seconds = limit, 0.0
        if after is None:
            self.shapes, self.cache = set(), SubProblems()
        else:
            self.shapes, self.cache = set(after.shapes), after.cache
        self.n_reused = len(self.cache)
        self.n_examined = 0
        self.best = (np.inf, None)

    @property
    def seconds(self):
        """Reference seconds of this head's own work."""
        return self.kernel_seconds + SUB_PROBLEM * (len(self.cache) - self.n_reused)

    def search(self, Y, y, w, bound, labels=None):
        """Whether the search ends within the limit: it sweeps all its
        pencils, or a sub-problem proves that none beats its best (``bound``,
        the cost of ``labels`` where given)."""
        m, d = Y.shape
        self.top, self.best = (m, d), (float(bound), labels)
        control = SearchControl(tally=self._tally)
        try:
            with threadpool_limits(limits=1, user_api="blas"):
                cost, found = search_chunks(
                    Y, y, w, float(bound), self.cache, control=control
                )
            if found is not None:
                self.best = (cost, found)
        except SearchCancelled:
            return False
        return True

    def prediction(self, spent):
        """The prediction of a search that ended within the head (after the
        probe's ``spent`` seconds), with the sub-problems it solved where one
        of them proved its best optimal (the search then ends at once; one
        that ended by sweeping every pencil is searched again: its kernel
        work and its sub-problems are counted again, not the kernel work of
        the sub-problems a first head solved)."""
        proved = self.cache.floor >= self.best[0]
        again = self.kernel_seconds + SUB_PROBLEM * len(self.cache)
        return SweepPrediction(
            spent + self.seconds + (0.0 if proved else again),
            self.nested_bytes(),
            *self.best,
            self.cache if proved else None,
            self.n_examined if proved else 0,
        )

    def nested_bytes(self):
        """The nested searches' memory while the head's deepest one runs: each
        of its shapes holds its first chunk of pencils and the kernel's
        workspace (they nest in one another on the data that end with the
        head)."""
        return sum(
            exhaustive_chunks_peak_bytes(m, d, chunk_target(m), first_chunk=True)
            + kernel_bytes(m)
            for m, d in self.shapes - {self.top}
        )

    def _tally(self, m, d, pencils, start, found):
        swept = pencils[start : found.stop]
        skipped = found.n_pruned + found.n_foreign
        self.kernel_seconds += chunk_seconds(
            m, d, len(swept), count_prefixes(swept, d), skipped, found.n_examined
        )
        if start == 0:  # a new chunk, with its level's coordinates
            self.kernel_seconds += setup_seconds(m, d, pencils.size)
        self.shapes.add((m, d))
        if (m, d) == self.top:  # (the search counts its own level's planes)
            self.n_examined += found.n_examined
        if self.seconds > self.limit:
            raise SearchCancelled


class _Probe:
    """The recursive sample behind :func:`predict_sweep`.

    ``spent`` counts the predicted seconds of what the probe itself swept;
    once it exceeds ``PROBE_LIMIT``, later sub-problems are priced as the
    mean of the sampled ones of their shape (m, d), or where none was, by
    :func:`full_sweep_seconds` (no pruning), and their memory by
    :func:`chain_bytes`, instead of being sampled. ``best`` is the best
    ``(cost, labels)`` the top-level sample found below its bound (labels
    None when none).
    """

    def __init__(self):
        self.spent = 0.0
        self.n_sub_problems = 0  # met, at any depth
        self.control = SearchControl(estimate=self._nested)
        self.nested_seconds, self.nested_bytes = 0.0, 0
        self.best = (np.inf, None)
        self.priced = {}  # (m, d): (seconds, count) of the sampled searches

    def predict(self, Y, y, w, bound, top=False):
        """``(seconds, nested_bytes)`` of the search of ``Y``; the top level
        lowers its bound to the best labelling its sample finds."""
        m, d = Y.shape
        if d < 2 or self.spent > PROBE_LIMIT:
            if (m, d) in self.priced:  # as the sampled ones of its shape
                total, count = self.priced[m, d]
                return total / count, chain_bytes(m - 1, d - 1)
            return full_sweep_seconds(m, d) + CALL, chain_bytes(m - 1, d - 1)
        # Sampling units: the prefixes (d >= 3), each with all its pencils,
        # or the single-point pencils (d = 2).
        n_units = comb(m - 1, d - 2) if d >= 3 else m
        per_unit = full_sweep_seconds(m, d) / n_units
        sample = max(MIN_SAMPLE, int(PROBE_SECONDS / max(per_unit, 1e-12)))
        target = chunk_target(m)
        if sample >= n_units:  # small enough to count in full
            chunks = exhaustive_chunks(m, d, target)
            scale = 1.0
        else:
            chunks = _sampled_chunks(m, d, sample, target)
            scale = n_units / sample
        outer = self.nested_seconds, self.nested_bytes
        self.nested_seconds, self.nested_bytes = 0.0, 0
        seconds, n_calls = 0.0, 0
        cache = SubProblems()
        for pencils in chunks:
            stats, n_solved = {}, len(cache)
            cost, _, labels, n_examined = scan_pencils(
                Y, y, w, pencils, bound, cache, stats=stats, control=self.control
            )
            if top and labels is not None and cost < bound:
                bound, self.best = cost, (cost, labels)
            skipped = stats.get("pruned", 0) + stats.get("foreign", 0)
            chunk = chunk_seconds(
                m, d, len(pencils), count_prefixes(pencils, d), skipped, n_examined
            )
            # each on-plane sub-problem met (a new entry of the cache)
            chunk += SUB_PROBLEM * (len(cache) - n_solved)
            self.n_sub_problems += len(cache) - n_solved
            self.spent += chunk
            seconds += chunk - CALL
            n_calls += 1
        if scale > 1:  # the search calls the kernel once per chunk, not per unit
            n_calls = -(-comb(m, d - 1) // target)
        seconds = seconds * scale + CALL * n_calls + self.nested_seconds * scale
        total, count = self.priced.get((m, d), (0.0, 0))
        self.priced[m, d] = (total + seconds, count + 1)
        nested_bytes = self.nested_bytes
        self.nested_seconds, self.nested_bytes = outer
        return seconds, nested_bytes

    def _nested(self, Y, y, w, bound):
        m, d = Y.shape
        seconds, nested_bytes = self.predict(Y, y, w, bound)
        self.nested_seconds += seconds
        # Its own sub-problems may nest as deep as they can (a sample of
        # them misses the rare deep chains that the whole search meets).
        nested_bytes = max(nested_bytes, chain_bytes(m - 1, d - 1))
        self.nested_bytes = max(self.nested_bytes, search_bytes(m, d) + nested_bytes)


def _sampled_chunks(m, d, sample, target):
    """The pencils of ``sample`` random sampling units (seeded), in chunks of
    whole units of about ``target`` pencils: one kernel call each, as the
    search makes, rather than one per unit (whose set-up would cost more
    than the sweep of a unit's few pencils). The sample is drawn once per
    shape (:func:`predict_sweep` probes twice); callers get copies."""
    return [chunk.copy() for chunk in _drawn_chunks(m, d, sample, target)]


# (A sample is priced at about PROBE_SECONDS, at least SWEPT_POINT * m per
# pencil: at most 1.3e6 / m pencils, 11 MB of indices, each kept sample.)
@lru_cache(maxsize=8)
def _drawn_chunks(m, d, sample, target):
    rng = np.random.default_rng(0)
    chunks, parts, size = [], [], 0
    for _ in range(sample):
        parts.append(_unit_pencils(rng, m, d))
        size += len(parts[-1])
        if size >= target:
            chunks.append(np.concatenate(parts))
            parts, size = [], 0
    if parts:
        chunks.append(np.concatenate(parts))
    return tuple(chunks)


def _unit_pencils(rng, m, d):
    """The pencils of a random sampling unit: a single point (d = 2), or a
    prefix (a (d - 2)-subset of the first m - 1 points) and every point after
    its last, in enumeration order."""
    if d == 2:
        return np.array([[rng.integers(m)]], dtype=np.int64)
    prefix = np.sort(rng.choice(m - 1, d - 2, replace=False))
    pencils = np.empty((m - 1 - prefix[-1], d - 1), dtype=np.int64)
    pencils[:, :-1] = prefix
    pencils[:, -1] = np.arange(prefix[-1] + 1, m)
    return pencils
