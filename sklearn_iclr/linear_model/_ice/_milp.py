"""The weighted 0-1 loss as a mixed-integer program, solved by HiGHS (highspy).

On the points ``Y`` (m, d) of the search (scaled to [-1, 1]), labels ``y`` in
{-1, +1} and positive weights ``s``:

    min  sum_i s_i z_i
    s.t. y_i (w . Y_i + b) >= MARGIN - M z_i,   z_i in {0, 1},
         |w_j| <= 1,  |b| <= d + 1,             M = MARGIN + 2 d + 1.

``z_i = 1`` lets point i take the wrong side; ``M`` bounds ``|w . Y_i + b|``.
Every boundary with ``max |w_j| = 1`` and margin at least ``MARGIN`` is
feasible, so a proof by HiGHS holds over those boundaries: a labelling that
only a boundary of smaller margin realises is not seen (the sweep has no such
limit). The feasibility and integrality tolerances are set far below
``MARGIN`` (HiGHS's defaults, 1e-7 and 1e-6, would let ``z_i = 1e-6`` excuse
an error), and every solution HiGHS reports is checked in float64 before it
is shared: its labelling is the sign pattern of its own boundary.

highspy rather than ``scipy.optimize.milp`` (the same solver): it takes a
starting solution, reports each improving solution and the dual bound through
callbacks, accepts new solutions during the search and can be interrupted, so
the MILP runs in a thread next to the sweep and the two share incumbents.
"""

import time

import numpy as np
from scipy import sparse

from ._separator import max_margin_separator

# Least margin of a feasible boundary (features in [-1, 1], max |w_j| = 1).
MARGIN = 1e-6
# HiGHS's primal feasibility and integrality tolerances (far below MARGIN).
FEASIBILITY_TOL = 1e-9
# HiGHS's absolute optimality gap, in units of the least sample weight (its
# default): costs within it count as equal.
ABSOLUTE_GAP = 1e-6
# A reported boundary must put every point at least this far from it to be
# trusted (float64 rounding of w . Y_i + b is below 1e-13 for d <= 1000).
SIGN_TOL = 1e-11


class MilpResult:
    """What the MILP did: ``status`` (``"optimal"``, ``"stopped"``, ``"time
    limit"`` or ``"error"``), ``seconds`` (wall), ``dual_bound`` (in the
    weights' units) and ``message`` (HiGHS's status, for the error case)."""

    def __init__(self, status, seconds, dual_bound=-np.inf, message=""):
        self.status, self.seconds = status, seconds
        self.dual_bound, self.message = dual_bound, message


def milp_bytes(m, d):
    """Peak bytes HiGHS needs for the MILP of m points in dimension d: its
    model, presolved copy, LP factors and search tree, about 8 MiB plus 2 KB
    per point and 400 B per nonzero of the constraints (fitted to the growth
    of the resident memory over 8 s of search, from 1000 x 3 to 50000 x 5
    and 2000 x 60: within 1.3 times)."""
    return int(8 * 2**20 + 2000 * m + 400 * m * (d + 2))


def solve_milp(Y, y, w, incumbent, rank, time_limit=np.inf):
    """Solve the MILP, sharing incumbents with a concurrent search.

    Parameters
    ----------
    Y : ndarray of shape (m, d)
        Points, scaled to [-1, 1].
    y : ndarray of shape (m,)
        Labels in {-1, +1}.
    w : ndarray of shape (m,)
        Positive weights.
    incumbent : Incumbent
        The shared best labelling (``_portfolio.Incumbent``): its labelling at
        the start is HiGHS's starting solution; a better one found later is
        given to HiGHS during its search; every improving solution of HiGHS
        is offered to it (ranked ``rank``); HiGHS stops when its ``stop`` flag
        is set, and proves the incumbent optimal (``incumbent.prove("milp")``)
        when its dual bound reaches the incumbent's cost.
    rank : int
        The rank of the MILP's offers (ties go to the lower rank).
    time_limit : float, default=inf
        Seconds.

    Returns
    -------
    result : MilpResult
    """
    import highspy

    start = time.perf_counter()
    m, d = Y.shape
    unit = float(w.min())
    try:
        highs = _quiet_highs(highspy)
        model = _model(highspy, Y, y, w / unit)
        if highs.passModel(model) == highspy.HighsStatus.kError:
            return MilpResult(
                "error", time.perf_counter() - start, message="it rejected the model"
            )
        for name, value in {
            "threads": 1,
            "mip_rel_gap": 0.0,
            "mip_abs_gap": ABSOLUTE_GAP,
            "mip_feasibility_tolerance": FEASIBILITY_TOL,
            "primal_feasibility_tolerance": FEASIBILITY_TOL,
            "time_limit": float(min(time_limit, 1e30)),
        }.items():
            highs.setOptionValue(name, value)
        sharing = _Sharing(Y, y, w, incumbent, rank, unit)
        errors = sharing.start_solution()
        highs.setSolution(m, np.arange(d + 1, d + 1 + m, dtype=np.int32), errors)
        highs.cbMipImprovingSolution.subscribe(sharing.improving)
        highs.cbMipUserSolution.subscribe(sharing.user_solution)
        highs.cbMipInterrupt.subscribe(sharing.mip_interrupt)
        highs.cbSimplexInterrupt.subscribe(sharing.interrupt)
        highs.cbIpmInterrupt.subscribe(sharing.interrupt)
        highs.run()
        status = highs.getModelStatus()
        info = highs.getInfo()
    except Exception as exc:  # a rejected model or an error inside HiGHS
        return MilpResult("error", time.perf_counter() - start, message=repr(exc))
    seconds = time.perf_counter() - start
    dual_bound = float(info.mip_dual_bound) * unit
    statuses = highspy.HighsModelStatus
    if status == statuses.kOptimal:
        solution = np.asarray(highs.getSolution().col_value)
        sharing.offer(solution)
        if sharing.proves(info.mip_dual_bound):
            incumbent.prove("milp")
        return MilpResult("optimal", seconds, dual_bound)
    if status == statuses.kInterrupt:
        return MilpResult("stopped", seconds, dual_bound)
    if status == statuses.kTimeLimit:
        return MilpResult("time limit", seconds, dual_bound)
    return MilpResult(
        "error", seconds, dual_bound, message=highs.modelStatusToString(status)
    )


def _quiet_highs(highspy):
    """A ``highspy.Highs`` that prints nothing: HiGHS writes its banner at the
    first call made with ``output_flag`` on, and ``Highs()`` makes one
    (setting its callback) before options can be set."""

    class QuietHighs(highspy.Highs):
        def enableCallbacks(self):
            self.setOptionValue("output_flag", False)
            super().enableCallbacks()

    return QuietHighs()


def _model(highspy, Y, y, s):
    m, d = Y.shape
    signs = y.astype(np.float64)
    big_m = MARGIN + 2 * d + 1
    matrix = sparse.hstack(
        [signs[:, None] * Y, signs[:, None], big_m * sparse.identity(m)],
        format="csc",
    )
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = d + 1 + m, m
    lp.col_cost_ = np.r_[np.zeros(d + 1), s]
    lp.col_lower_ = np.r_[-np.ones(d), -(d + 1.0), np.zeros(m)]
    lp.col_upper_ = np.r_[np.ones(d), d + 1.0, np.ones(m)]
    lp.row_lower_ = np.full(m, MARGIN)
    lp.row_upper_ = np.full(m, np.inf)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr
    lp.a_matrix_.index_ = matrix.indices
    lp.a_matrix_.value_ = matrix.data
    kind = highspy.HighsVarType
    lp.integrality_ = [kind.kContinuous] * (d + 1) + [kind.kInteger] * m
    return lp


class _Sharing:
    """HiGHS's callbacks: incumbents in both directions, stop and proof."""

    def __init__(self, Y, y, w, incumbent, rank, unit):
        self.Y, self.y, self.w = Y, y, w
        self.incumbent, self.rank, self.unit = incumbent, rank, unit
        self.given = incumbent.version  # the last incumbent handed to HiGHS
        self.dual_bound = -np.inf  # HiGHS's latest (its units)

    def start_solution(self):
        """The error indicators of the incumbent's labelling."""
        labels = self.incumbent.best()[1]
        return (labels != self.y).astype(np.float64)

    def offer(self, solution):
        """Check a HiGHS solution in float64 and offer its labelling."""
        d = self.Y.shape[1]
        decision = self.Y @ solution[:d] + solution[d]
        if not np.all(np.abs(decision) > SIGN_TOL):
            return
        labels = np.where(decision > 0, 1, -1).astype(np.int8)
        cost = float(np.sum(self.w[labels != self.y]))
        self.incumbent.offer(cost, labels, self.rank)

    def proves(self, dual_bound):
        """Whether HiGHS's dual bound (in its units) reaches the incumbent."""
        return dual_bound * self.unit >= (
            self.incumbent.cost - ABSOLUTE_GAP * self.unit
        )

    def improving(self, event):
        self.offer(np.asarray(event.data_out.mip_solution))

    def user_solution(self, event):
        """Give HiGHS the incumbent when it is better than HiGHS's own and a
        boundary of margin MARGIN realises it."""
        version = self.incumbent.version
        if version == self.given:
            return
        self.given = version
        cost, labels = self.incumbent.best()
        if cost >= event.data_out.mip_primal_bound * self.unit:
            return
        coef, intercept = max_margin_separator(self.Y, labels)
        margin = np.min(labels * (self.Y @ coef + intercept))
        if not margin >= MARGIN * (1 + 1e-6):
            return
        errors = (labels != self.y).astype(np.float64)
        event.data_in.setSolution(np.r_[coef, intercept, errors])
        event.data_in.user_has_solution = True

    def mip_interrupt(self, event):
        self.dual_bound = event.data_out.mip_dual_bound
        if not self.incumbent.stop.is_set() and self.proves(self.dual_bound):
            self.incumbent.prove("milp")
        self.interrupt(event)

    def interrupt(self, event):
        """Stop when the race has ended; else the portfolio may hold HiGHS
        back here (its last dual bound: LP callbacks carry none)."""
        if not self.incumbent.stop.is_set():
            self.incumbent.hold_milp(self.dual_bound * self.unit)
        if self.incumbent.stop.is_set():
            event.interrupt()
