"""ICEClassifier: exact minimum 0-1 loss linear and polynomial classification."""

import itertools
import time
import warnings
from functools import partial
from math import ceil, comb, floor, log10
from numbers import Integral

import numpy as np
from joblib import parallel_config
from joblib.parallel import get_active_backend
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ...utils import (
    WorkBudgetError,
    check_count_budget,
    estimate_seconds,
    format_duration,
    warn_user,
)
from ...utils._compat import Interval, StrOptions, _fit_context
from ...utils.validation import (
    BINARY_ONLY_MESSAGE,
    check_binary_target,
    check_nonnegative_sample_weight,
)
from . import _kernel
from ._cost_model import (
    chunk_seconds,
    kernel_bytes,
    linear_program_bytes,
    linear_program_entries,
    predict_sweep,
)
from ._memory import available_memory, check_memory, format_bytes
from ._milp import milp_bytes, solve_milp
from ._portfolio import MILP_RANK, Incumbent, race
from ._search import (
    SearchCancelled,
    SearchControl,
    SubProblems,
    affine_coordinates,
    constant_labels,
    count_examinations,
    exhaustive_chunks,
    exhaustive_chunks_bytes,
    exhaustive_chunks_peak_bytes,
    scan_pencils,
)
from ._separator import max_margin_separator
from ._tolerances import MERGE_TOL

# Pencils per parallel task: coarse enough to amortise the task overhead ...
_EXAMINATIONS_PER_CHUNK = 2_000_000
# ... and predicted to take at most this many CPU seconds, so that a stop
# (the MILP proved the optimum) and the progress report come promptly.
_CHUNK_SECONDS = 0.1
# Rounds of the heuristic search (each at most a quarter of the budget).
_HEURISTIC_ROUNDS = 4
# The heuristic's pencil tables may take this share of the available memory.
_HEURISTIC_MEMORY_SHARE = 0.25
# The MILP starts with the sweep when the sweep is predicted to take longer
# than this many seconds, and after it otherwise (small fits never start it).
_MILP_DELAY = 0.5
# A sweep predicted to take at most this many reference seconds has the
# CPU first (the MILP's thread is niced); a longer one yields it to HiGHS
# (its own thread is niced) where it runs in this process (see _portfolio),
# until HiGHS has used as much CPU as the sweep was predicted to take.
_SWEEP_FIRST = 10.0
# An exact search predicted longer than this many reference seconds (the
# package's default max_work) is announced with a warning before it starts.
_LONG_SEARCH = 3600.0
# Largest ratio of the total weight to the least positive weight: the least
# weight is then about 45 units in the last place of the total (2^52 / 1e14).
_MAX_WEIGHT_RATIO = 1e14
# Smallest column range of the monomial features that can be inverted.
_MIN_SPAN = 1e-300


class ICEClassifier(ClassifierMixin, BaseEstimator):
    """Exact minimum 0-1 loss linear (or polynomial) classifier (ICE).

    Finds a hyperplane, or a degree-``degree`` polynomial hypersurface, that
    makes the least possible weighted number of training errors, as proposed
    in "An efficient, provably optimal algorithm for the 0-1 loss linear
    classification problem" by Xi He and Max A. Little (ICLR 2026,
    arXiv:2306.12344). The problem is

    .. math::

        \\min_{w, b} \\sum_i s_i \\, [\\, y_i \\neq \\mathrm{sign}(w \\cdot
        \\phi(x_i) + b) \\,],

    with ``phi`` the monomials of degree 1 to ``degree`` and ``s_i`` the
    sample weights. Every optimal cell of the arrangement of the N points'
    dual hyperplanes touches a hyperplane through D data points, so the
    search over those candidates is finite: O(N^D log N) time here, by
    rotating a plane around every D - 1 points, against O(N^(D+1)) in the
    paper, exact on data with ties (many points on one plane), without jitter.

    Two exact methods solve the problem side by side (a *portfolio*) and the
    first proof wins: the combinatorial sweep above, and the big-M
    mixed-integer program of the same weighted 0-1 loss, solved by HiGHS. The
    sweep wins where ``D`` is small; HiGHS where ``D`` is close to ``N`` and
    the sweep's candidates explode. They share their best labellings: each
    tightens the other's bound.

    Parameters
    ----------
    degree : int, default=1
        Degree of the decision boundary. For ``degree > 1`` the search runs
        on the monomials of degree 1 to ``degree`` (the Veronese embedding,
        ``PolynomialFeatures(include_bias=False)``), of dimension
        ``G = C(n_features + degree, degree) - 1``.
    search : {"auto", "exact"}, default="auto"
        Within the budget, both run the exact search. Beyond it,
        ``"exact"`` gives HiGHS's MILP the budget's time to prove the
        optimum and raises a ``ValueError`` (with the sweep's predicted time
        and memory, and the budget that would admit it) when it does not;
        ``"auto"`` warns and runs a heuristic for the budget's time (pencils
        through the points nearest the current best boundary, improved over
        a few rounds, starting from logistic regression; the points of a
        plane through more than D of them all take their heavier label),
        next to the MILP, and sets ``optimal_`` to False unless the MILP
        proves the optimum.
    solver : {"portfolio", "sweep", "milp"}, default="portfolio"
        ``"portfolio"`` races the sweep and HiGHS and returns the first proof
        (HiGHS starts after half a second, at once when the sweep is
        predicted to take longer). On Linux the method the cost model
        expects to lose runs in a thread of lower priority (niced; the
        caller's own priority never changes), so that on a busy machine it
        takes only the CPU the other leaves; there a sweep predicted long
        also waits until HiGHS has used as much CPU as the sweep was
        predicted to take; and HiGHS, where it is expected to lose and its
        dual bound moves too slowly to prove sooner, waits until the sweep
        has used its predicted time. A sweep in worker processes (loky,
        Dask) is neither niced nor held, nor holds HiGHS. ``"sweep"`` runs
        the sweep alone: its model does not depend on ``n_jobs``, the joblib
        backend or timing.
        ``"milp"`` runs HiGHS alone, for the budget's time. A proof by HiGHS
        covers the boundaries of margin at least 1e-6 on features scaled to
        [-1, 1] (see Notes). With several optimal labellings, the one
        returned may depend on which method proves first.
    max_candidates : int, default=2_400_000_000
        Budget of the search, in candidate-hyperplane examinations of the
        compiled sweep, each worth the cost table's estimate
        (:func:`sklearn_iclr.utils.estimate_seconds`; the default is about
        a minute of a reference core). Before
        the search, a cost model predicts the sweep's time (it sweeps a
        seeded sample of the pencils, sub-problems included, and counts the
        frames, pencils and planes it would compute) and its memory; the
        exact sweep runs when both fit, the budget and the available memory.
        The separating linear programs, solved before any search with one
        variable per monomial feature, count against it too, as the
        examinations that take as long: a fit whose linear programs alone
        exceed the budget (e.g. ``degree=4`` on 20 features: 10,625
        monomials) is refused before any work, in either search mode. Every
        table above 256 MiB is checked against the memory available to the
        process before it is allocated.
    n_jobs : int, default=None
        Parallel tasks (chunks of pencils) through joblib, threads by default
        (the compiled sweep releases the GIL). ``None`` means 1 unless in a
        ``joblib.parallel_config`` context, so
        ``parallel_config(backend="dask")`` runs the search on a Dask
        cluster. With ``solver="sweep"`` the model does not depend on
        ``n_jobs``; more jobs than chunks of work are not started. HiGHS
        runs on one more thread. BLAS runs on one thread during the fit (its
        linear algebra is small; idle BLAS threads would spin on the cores
        the search needs).
    verbose : int, default=0
        Print the predicted cost, a one-time compilation of the sweep kernel
        when it happens, and progress (chunks done, examinations, best loss,
        ETA) when > 0.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels; ``classes_[1]`` is predicted where the decision
        function is positive.
    coef_ : ndarray of shape (1, n_features_out)
        Weights of the boundary on the (monomial) features.
    intercept_ : ndarray of shape (1,)
        Its intercept.
    powers_ : ndarray of shape (n_features_out, n_features_in)
        Exponents of the monomial features (the identity for ``degree=1``).
    n_errors_ : int
        Training samples the fitted boundary misclassifies: ``predict`` on
        the training data makes exactly these errors.
    weighted_error_ : float
        Their total sample weight, the weighted training 0-1 loss (equal to
        ``n_errors_`` without sample weights). Training feature vectors
        closer than 1e-9 in every coordinate after min-max scaling to
        [-1, 1] (directly or through a chain of such vectors) count as one
        location and share one label, so their lighter label's rows are
        errors even where a boundary squeezed between them would do better;
        likewise a point met within 1e-9 radians of a candidate hyperplane
        through D others counts as on it (see Notes). When ``optimal_`` is
        True, ``weighted_error_`` is the optimum of that problem.
    optimal_ : bool
        True when a method proved the optimum and the refitted boundary
        realises the best labelling found, so ``weighted_error_`` is the
        optimum. False after the heuristic search (unless HiGHS proved its
        result), and (with a warning) in the rare case where the refit does
        not realise the best labelling found: a margin below about 1e-10 of
        the feature range, or points within ~1e-7 of each other next to
        planes through others, at the edge of the tolerances;
        ``weighted_error_`` then counts the errors of the boundary returned.
    n_candidates_ : int
        Candidate hyperplanes the sweep examined (0 when the data were
        separable or trivial and no search was needed). The exact search
        skips, without examining their planes, the pencils that cannot
        improve on the best boundary found so far, and examines each plane
        in one pencil only (see the user guide).
    portfolio_ : dict
        What the search did: ``"proved_by"`` (``"sweep"``, ``"milp"``, or
        None when nothing was proven or no search was needed),
        ``"sweep_seconds"`` and ``"milp_seconds"`` (wall seconds each method
        ran, None when it did not start), ``"milp_held_seconds"`` (wall
        seconds HiGHS, predicted to lose, was held back after its head
        start; 0.0 where its progress let it run on, None where it was not
        judged: predicted to win, a sweep in worker processes, or the race
        over first), ``"milp_cpu_before_hold"`` (HiGHS's CPU seconds when it
        was judged, None likewise), ``"predicted_seconds"`` (the sweep's
        predicted reference seconds) and ``"predicted_bytes"`` (its pencil
        tables and the MILP's model).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.

    See Also
    --------
    sklearn.linear_model.LogisticRegression : A convex surrogate of the 0-1
        loss; fast, but not optimal for the 0-1 loss.

    Notes
    -----
    Exact with ties: the optimum is the minimum, over hyperplanes through ``D``
    affinely independent data points and both orientations, of the off-plane
    errors plus the optimum of the on-plane points in dimension ``D - 1``
    (solved recursively). In general position the on-plane term is 0 (the
    paper's "defining points are free"); on integer-coded data it is not.

    Duplicated feature vectors are one location, costing the smaller weight of
    its labels; the training loss counts every row. The returned boundary is the
    maximum-margin separator of the optimal labelling (a HiGHS LP), so no
    training point lies on it.

    HiGHS's proof covers boundaries of margin at least 1e-6 on features scaled
    to [-1, 1]. Without a proof in the budget, ``search="auto"`` returns the
    best labelling either method found.

    The tolerances, the MILP and the proof of exactness are in the user guide
    (:ref:`ice-details`).


    References
    ----------
    .. [1] X. He and M. A. Little, "An efficient, provably optimal algorithm
       for the 0-1 loss linear classification problem", ICLR 2026,
       arXiv:2306.12344.

    Examples
    --------
    >>> from sklearn_iclr.datasets import load_voicepath
    >>> from sklearn_iclr.linear_model import ICEClassifier
    >>> X, y = load_voicepath(return_X_y=True)
    >>> clf = ICEClassifier().fit(X, y)
    >>> clf.n_errors_, clf.optimal_, int((clf.predict(X) != y).sum())
    (19, True, 19)
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "search": [StrOptions({"auto", "exact"})],
        "solver": [StrOptions({"portfolio", "sweep", "milp"})],
        "max_candidates": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        degree=1,
        *,
        search="auto",
        solver="portfolio",
        max_candidates=2_400_000_000,
        n_jobs=None,
        verbose=0,
    ):
        self.degree = degree
        self.search = search
        self.solver = solver
        self.max_candidates = max_candidates
        self.n_jobs = n_jobs
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find a minimum weighted 0-1 loss boundary.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (finite).
        y : array-like of shape (n_samples,)
            Two class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; ``None`` counts every sample once. Their
            total may be at most 1e14 times the least positive weight
            (float64 sums of a wider range lose the lighter samples).

        Returns
        -------
        self : ICEClassifier
            The fitted classifier.
        """
        # BLAS on one thread: the fit's linear algebra is small, and idle
        # OpenBLAS threads spin for about 0.1 s after each call, taking a
        # core from the sweep (measured: Haberman on 2 threads 0.22 -> 0.15 s).
        with threadpool_limits(limits=1, user_api="blas"):
            return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        X, y = validate_data(self, X, y, dtype=np.float64)
        _check_two_classes(y)
        self.classes_, y_signed = check_binary_target(y)
        weight = check_nonnegative_sample_weight(sample_weight, X)
        _check_weight_resolution(weight)
        self._check_linear_program_budget(X.shape)
        _check_monomial_magnitudes(X, self.degree)
        self.powers_ = (
            PolynomialFeatures(self.degree, include_bias=False).fit(X).powers_
        )
        features = _monomials(X, self.powers_)
        # Samples of zero weight play no part, not even in the scaling.
        scaled, low, span = _min_max_scale(features, weight > 0)
        problem = _Problem.from_samples(scaled, y_signed, weight)
        labels, optimal, n_candidates, self.portfolio_ = self._search(problem)
        w, b = max_margin_separator(*problem.member_labels(labels))
        # Undo the scaling x_s = 2 (x - low) / span - 1 (constant columns: 0).
        w = np.where(span > 0, w, 0.0)
        self.coef_ = (2.0 * w / _safe(span))[None, :]
        intercept = b - np.sum(w * (2.0 * low / _safe(span) + 1.0))
        decision = features @ self.coef_[0]
        self.intercept_ = np.array([_off_the_boundary(decision, intercept)])
        wrong = np.where(decision + self.intercept_[0] > 0, 1, -1) != y_signed
        self.n_errors_ = int(np.count_nonzero(wrong))
        self.weighted_error_ = float(np.sum(weight[wrong]))
        searched = float(problem.cost(problem.expand(labels)))
        if not np.isclose(self.weighted_error_, searched, rtol=1e-12, atol=0.0):
            # Only near-degenerate data at the edge of the tolerances get here.
            warn_user(
                "ICEClassifier: the refitted boundary makes a weighted error of "
                f"{self.weighted_error_:g}, not the {searched:g} of the best "
                "labelling found: that labelling has a margin below the linear "
                "program's resolution (about 1e-10 of the feature range), or some "
                "points are too close to each other or to a hyperplane through "
                "others for the search's tolerances. optimal_ is set to False. "
                "Rounding the features avoids this.",
                UserWarning,
            )
            optimal = False
        self.optimal_ = optimal
        self.n_candidates_ = n_candidates
        return self

    def _check_linear_program_budget(self, shape):
        """Refuse, before the monomials exist, linear programs too large."""
        n_samples, n_features = shape
        n_out = comb(n_features + self.degree, self.degree) - 1
        work = {"lp_entry": linear_program_entries(n_samples, n_out)}
        check_count_budget(
            _examinations(estimate_seconds(work)),
            self.max_candidates,
            what=(
                f"candidate-examination equivalents (the separating linear "
                f"program over {n_out:,} monomial features of degree <= "
                f"{self.degree} and {n_samples} samples)"
            ),
            work=work,
            parameter="max_candidates",
            advice="Or lower degree, or select fewer features first.",
        )
        check_memory(
            max(8 * n_samples * n_out, linear_program_bytes(n_samples, n_out)),
            f"The monomial features and separating linear program of {n_samples} "
            f"samples and {n_out:,} monomials of degree <= {self.degree}",
            "Lower degree, or select fewer features or samples first.",
        )

    def _search(self, problem):
        """Return the labels of ``problem.points``, whether they are proven
        optimal, the candidates examined and the portfolio's report."""
        points, y, w = problem.points, problem.labels, problem.weights
        report = _report()
        if len(points) == 0 or np.all(y == y[0]):
            return y, True, 0, report
        if max_margin_separator(points, y, check_only=True):
            return y, True, 0, report
        Y = affine_coordinates(points)
        m, d = Y.shape
        labels, plane = _surrogate(Y, y, w)
        self._announce_compilation()
        prediction = predict_sweep(Y, y, w, _cost(labels, y, w))
        if prediction.labels is not None:  # the probe's sample found better
            labels = prediction.labels
        incumbent = Incumbent(_cost(labels, y, w), labels)
        seconds = prediction.seconds
        per_chunk = _pencils_per_chunk(m, d, comb(m, d - 1), seconds)
        available = available_memory()
        proved = prediction.sub_problems is not None
        table = self._sweep_bytes(m, d, per_chunk, prediction.nested_bytes, proved)
        milp = None
        if self.solver != "sweep" and milp_bytes(m, d) <= available - table:
            milp = partial(solve_milp, Y, y, w, incumbent, MILP_RANK)
        report["predicted_seconds"] = seconds
        report["predicted_bytes"] = table + (milp_bytes(m, d) if milp else 0)
        budget = _budget_seconds(self.max_candidates)
        if self.verbose:
            print(
                f"[ICEClassifier] exact sweep of {m} points in dimension {d}: "
                f"predicted {format_duration(seconds)} and {format_bytes(table)}; "
                f"budget {format_duration(budget)}",
                flush=True,
            )
        if self.solver != "milp" and seconds <= budget and table <= available:
            if seconds > _LONG_SEARCH:
                warn_user(
                    f"ICEClassifier: the exact sweep of {m} points in dimension "
                    f"{d} is predicted to take {format_duration(seconds)}, which "
                    f"max_candidates={self.max_candidates:.3g} admits. Lower "
                    "max_candidates (search='auto' then runs a heuristic), or "
                    "use fewer samples, features or a lower degree."
                    + (
                        " HiGHS's MILP runs beside it and may prove the optimum sooner."
                        if milp is not None
                        else ""
                    ),
                    UserWarning,
                )
            total = count_examinations(m, d)
            chunks = exhaustive_chunks(m, d, per_chunk)
            sweep = partial(
                self._run,
                Y,
                y,
                w,
                chunks,
                incumbent,
                True,
                total,
                sub_problems=prediction.sub_problems,
            )
            delay = 0.0 if seconds >= _MILP_DELAY else _MILP_DELAY
            niced, in_process = None, _sweeps_in_process()
            if milp is not None and seconds <= _SWEEP_FIRST:
                niced = "milp"
            elif milp is not None and in_process:
                niced = "sweep"
                sweep = _in_parallel_config(sweep)
            n_candidates, timings = race(
                sweep,
                milp,
                incumbent,
                milp_delay=delay,
                niced=niced,
                milp_yields_after=seconds,
                hold_milp=in_process,
            )
            # (with the planes the cost model's start of the search examined,
            # where it proved the optimum and the sweep had nothing left)
            n_candidates += prediction.n_examined
            return incumbent.labels, True, n_candidates, {**report, **timings}
        verdict = _sweep_verdict(
            m, d, seconds, table, available, self.max_candidates, self.solver
        )
        if self.solver != "milp" and seconds <= budget:
            # The budget admits the exact sweep but the memory does not: a
            # heuristic is not what was asked for.
            raise ValueError(
                f"{verdict} Lower max_candidates (search='auto' then runs a "
                "heuristic), or use fewer samples, features or a lower degree."
            )
        if self.solver == "milp" and milp is None:
            raise ValueError(
                f"HiGHS's MILP of {m} points in dimension {d} would need "
                f"{format_bytes(milp_bytes(m, d))} of memory; this process has "
                f"{format_bytes(available)} available. Use solver='portfolio'."
            )
        if self.search == "exact" and self.solver != "milp" and table > available:
            # Refused before any allocation: no method is tried.
            raise ValueError(f"search='exact': {verdict} {_SMALLER}")
        if self.search == "exact" and milp is None:
            raise WorkBudgetError(
                f"search='exact': {verdict} {_SMALLER}",
                work={"hyperplane_examination": _examinations(seconds)},
                seconds=seconds,
            )
        if self.solver == "milp" or self.search == "exact":
            n_candidates, timings = race(
                _no_sweep,
                partial(milp, time_limit=budget),
                incumbent,
                sweep_proves=False,
            )
            optimal = incumbent.proved_by is not None
            if not optimal:
                failure = (
                    "HiGHS's MILP did not prove the optimum within "
                    f"max_candidates={self.max_candidates} (about "
                    f"{format_duration(budget)} of a reference core)"
                )
                if self.search == "exact":
                    raise WorkBudgetError(
                        f"search='exact': {failure}. {verdict}",
                        work={"hyperplane_examination": _examinations(seconds)},
                        seconds=seconds,
                    )
                warn_user(
                    f"ICEClassifier: {failure}; optimal_ is False. {verdict}",
                    UserWarning,
                )
            return incumbent.labels, optimal, n_candidates, {**report, **timings}
        # Warned before the heuristic starts: it may run for its whole budget.
        warn_user(
            f"ICEClassifier: {verdict} A heuristic runs instead, for up to "
            f"max_candidates={self.max_candidates} (about "
            f"{format_duration(budget)} of a reference core), so the training 0-1 "
            "loss may not be "
            "optimal: optimal_ is False unless "
            + (
                "HiGHS's MILP, still trying next to it, proves it."
                if milp is not None
                else "it is proven."
            ),
            UserWarning,
        )
        heuristic = partial(self._heuristic, Y, y, w, incumbent, plane, budget)
        # HiGHS alone can prove the optimum: the heuristic yields it the CPU,
        # and on a busy machine a head start too (a round's time, at most
        # _SWEEP_FIRST).
        niced = "sweep" if milp is not None and _sweeps_in_process() else None
        n_candidates, timings = race(
            heuristic if niced is None else _in_parallel_config(heuristic),
            None if milp is None else partial(milp, time_limit=budget),
            incumbent,
            niced=niced,
            milp_yields_after=min(budget / _HEURISTIC_ROUNDS, _SWEEP_FIRST),
            sweep_proves=False,
        )
        optimal = incumbent.proved_by is not None
        return incumbent.labels, optimal, n_candidates, {**report, **timings}

    def _sweep_bytes(self, m, d, per_chunk, nested_bytes, proved=False):
        """Peak bytes of the exhaustive sweep: the enumeration's pencil
        tables, and per job two chunks in flight, the kernel's workspace and
        the nested sub-problems' searches (only these where the cost model's
        start of the search has ``proved`` the optimum: the sweep then
        builds no chunk)."""
        if proved:
            return nested_bytes
        n_jobs = 1 if self.n_jobs is None else max(abs(self.n_jobs), 1)
        per_job = 2 * per_chunk * max(d - 1, 1) * 8 + kernel_bytes(m) + nested_bytes
        return exhaustive_chunks_peak_bytes(m, d, per_chunk) + min(n_jobs, m) * per_job

    def _announce_compilation(self):
        if self.verbose and _kernel_compiles():
            print(
                "[ICEClassifier] compiling the sweep kernel with numba: a "
                "one-time cost of about 15 s; later processes load it from "
                "numba's on-disk cache",
                flush=True,
            )

    def _run(
        self, Y, y, w, chunks, incumbent, exhaustive, total, rank=0, sub_problems=None
    ):
        """Scan chunks of pencils in parallel; each starts below the
        incumbent and offers its best to it. Returns ``(candidates examined,
        whether every chunk was scanned)``: the scan stops early once the
        incumbent's ``stop`` is set. The on-plane sub-problems are solved
        once for all chunks (``sub_problems``: those the cost model's probe
        solved, see ``predict_sweep``)."""
        n_jobs = self.n_jobs
        if n_jobs is not None and n_jobs > 0:
            # No more workers than tasks (an exhaustive scan makes at most one
            # chunk per point): a huge n_jobs would overflow inside joblib.
            n_tasks = len(chunks) if hasattr(chunks, "__len__") else len(Y)
            n_jobs = min(n_jobs, max(n_tasks, 1))
        dispatched = {"all": False}
        cache = SubProblems() if sub_problems is None else sub_problems

        def tasks():
            # Each chunk reads the incumbent's bound when it is dispatched.
            for k, pencils in enumerate(_until_proved(chunks, cache, incumbent, rank)):
                if pencils is None:  # stopped
                    return
                yield delayed(_scan_chunk)(
                    Y,
                    y,
                    w,
                    pencils,
                    incumbent.bound_for(rank + k),
                    exhaustive,
                    incumbent.stop,
                    cache,
                )
            dispatched["all"] = True

        # The compiled sweep releases the GIL: threads share its compiled
        # code and the points (a joblib backend set by the user still rules).
        results = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            tasks()
        )
        n_candidates, start = 0, time.perf_counter()
        try:
            for k, (cost, labels, n_examined) in enumerate(results):
                n_candidates += n_examined
                if labels is not None:
                    incumbent.offer(cost, labels, rank + k)
                if self.verbose:
                    self._progress(k + 1, n_candidates, total, incumbent.cost, start)
        except SearchCancelled:
            return n_candidates, False
        return n_candidates, dispatched["all"]

    def _heuristic(self, Y, y, w, incumbent, plane, budget):
        """Pencils through the points nearest the best boundary, in rounds,
        each predicted to take at most a quarter of the budget's seconds."""
        m, d = Y.shape
        pool, per_chunk = _heuristic_pool(
            m,
            d,
            budget / _HEURISTIC_ROUNDS,
            self.max_candidates // _HEURISTIC_ROUNDS,
            _HEURISTIC_MEMORY_SHARE * available_memory(),
        )
        n_candidates = 0
        if pool is None:  # not even one pencil fits
            return n_candidates, True
        cost = incumbent.cost
        total = comb(pool, d - 1) * m
        for round_ in range(_HEURISTIC_ROUNDS):
            distance = np.abs(np.column_stack([Y, np.ones(m)]) @ plane)
            nearest = np.sort(np.argsort(distance, kind="stable")[:pool])
            chunks = (nearest[c] for c in exhaustive_chunks(pool, d, per_chunk))
            # Later rounds rank after earlier ones: ties keep the older cell.
            rank = round_ * 2**32
            examined, finished = self._run(
                Y, y, w, chunks, incumbent, False, total, rank
            )
            n_candidates += examined
            found_cost, labels = incumbent.best()
            if not finished or found_cost >= cost:
                return n_candidates, finished
            cost = found_cost
            plane = np.append(*max_margin_separator(Y, labels))
        return n_candidates, True

    def _progress(self, k, done, total, best, start):
        elapsed = time.perf_counter() - start
        eta = elapsed * (total - done) / done if 0 < done < total else 0.0
        print(
            f"[ICEClassifier] chunk {k}: {done:.3g}/{total:.3g} examinations, "
            f"best loss {best:g}, {elapsed:.1f} s elapsed, ETA {eta:.1f} s",
            flush=True,
        )

    def decision_function(self, X):
        """Signed value of the boundary function; positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            ``phi(X) @ coef_[0] + intercept_[0]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _monomials(X, self.powers_) @ self.coef_[0] + self.intercept_[0]

    def predict(self, X):
        """Predict class labels.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            ``classes_[1]`` where the decision function is positive, else
            ``classes_[0]``.
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class _Problem:
    """Samples merged into distinct locations with a net label and weight.

    Rows whose (scaled) feature vectors are within ``MERGE_TOL`` of each
    other in the max-norm, directly or through a chain of such rows, form one
    location (single linkage); its representative is the member of least
    lexicographic order. A location whose rows have positive weight ``a``
    with label +1 and ``c`` with label -1 costs ``min(a, c)`` whatever it is
    labelled, plus ``|a - c|`` if it takes the lighter label: so it becomes
    one point with label ``sign(a - c)`` and weight ``|a - c|`` (no point
    when ``a == c``).
    """

    def __init__(self, members, member_location, positive, negative):
        self.members, self.member_location = members, member_location
        first = np.unique(member_location, return_index=True)[1]
        self.locations = members[first]
        self.positive, self.negative = positive, negative
        net = positive - negative
        self.keep = net != 0
        self.points = self.locations[self.keep]
        self.labels = np.where(net[self.keep] > 0, 1, -1).astype(np.int8)
        self.weights = np.abs(net[self.keep])

    @classmethod
    def from_samples(cls, X, y, weight):
        used = weight > 0
        members, inverse = np.unique(X[used], axis=0, return_inverse=True)
        member_location = _merge_nearby(members, MERGE_TOL)
        location = member_location[inverse]
        positive = np.bincount(location, weights=weight[used] * (y[used] > 0))
        negative = np.bincount(location, weights=weight[used] * (y[used] < 0))
        return cls(members, member_location, positive, negative)

    def expand(self, point_labels):
        """Labels of all locations (ties between the labels take +1)."""
        labels = np.ones(len(self.locations), dtype=np.int8)
        labels[self.keep] = point_labels
        return labels

    def member_labels(self, point_labels):
        """The distinct feature vectors of the kept locations and their labels."""
        kept = self.keep[self.member_location]
        labels = self.expand(point_labels)[self.member_location]
        return self.members[kept], labels[kept]

    def cost(self, labels):
        """Weighted 0-1 loss of a labelling of the locations."""
        return np.sum(np.where(labels > 0, self.negative, self.positive))


def _merge_nearby(points, tolerance):
    """Single-linkage clusters of points closer than ``tolerance`` (max-norm).

    Returns the cluster of each point, numbered in order of first member.
    """
    pairs = cKDTree(points).query_pairs(tolerance, p=np.inf, output_type="ndarray")
    if len(pairs) == 0:
        return np.arange(len(points))
    graph = coo_matrix(
        (np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(points),) * 2
    )
    component = connected_components(graph, directed=False)[1]
    first = np.unique(component, return_index=True)[1]
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[component]


def _scan_chunk(Y, y, w, pencils, bound, exhaustive, stop, cache):
    """One parallel task: the best candidate of a chunk of pencils (none
    when the search was stopped before the task started)."""
    if stop.is_set():
        return np.inf, None, 0
    cost, _, labels, n_examined = scan_pencils(
        Y,
        y,
        w,
        pencils,
        bound,
        cache,
        exhaustive=exhaustive,
        control=SearchControl(stop),
    )
    return cost, labels, n_examined


def _until_proved(chunks, cache, incumbent, rank):
    """The chunks of a search, each built once the incumbent has its turn
    (``wait_turn``): None, and no more, once its ``stop`` is set; none
    once an on-plane sub-problem's optimum reaches the bound of the next
    (neither it nor a later one, whose bounds are no higher, can beat the
    incumbent)."""
    chunks = iter(chunks)
    for k in itertools.count():
        incumbent.wait_turn()
        if incumbent.stop.is_set():
            yield None
            return
        if cache.floor >= incumbent.bound_for(rank + k):
            return
        pencils = next(chunks, None)
        if pencils is None:
            return
        yield pencils


def _sweeps_in_process():
    """Whether the sweep's joblib backend runs it in this process, in the
    thread that calls it or threads that this one starts and ends: nicing
    that thread then cannot outlast the fit (the workers of a process
    backend, started from a niced thread, would keep its priority)."""
    backend, _ = get_active_backend(prefer="threads")
    return getattr(backend, "uses_threads", False)


def _in_parallel_config(sweep):
    """``sweep`` to run in another thread with this thread's joblib backend
    (``parallel_config`` holds it per thread)."""
    backend, _ = get_active_backend(prefer="threads")

    def run():
        with parallel_config(backend=backend):
            return sweep()

    return run


def _no_sweep():
    """The portfolio without its sweep (the MILP alone)."""
    return 0, True


def _report():
    """The portfolio's report before any search (see ``portfolio_``)."""
    return {
        "proved_by": None,
        "sweep_seconds": None,
        "milp_seconds": None,
        "milp_held_seconds": None,
        "milp_cpu_before_hold": None,
        "predicted_seconds": 0.0,
        "predicted_bytes": 0,
    }


def _pencils_per_chunk(m, d, n_pencils, seconds):
    """Pencils per task: about ``_EXAMINATIONS_PER_CHUNK`` examinations, and
    at most ``_CHUNK_SECONDS`` of a search of ``n_pencils`` predicted to take
    ``seconds``."""
    by_count = _EXAMINATIONS_PER_CHUNK // max(m - d + 1, 1)
    by_time = n_pencils * _CHUNK_SECONDS / max(seconds, 1e-9)
    return int(max(1, min(by_count, by_time)))


def _round_seconds(m, d, pool):
    """Predicted seconds of a heuristic round over every (d - 1)-subset of
    ``pool`` points (no pencil skipped, every plane examined)."""
    n_pencils = comb(pool, d - 1)
    n_prefixes = comb(pool - 1, d - 2) if d >= 3 else 1
    return chunk_seconds(m, d, n_pencils, n_prefixes, 0, n_pencils * m)


def _heuristic_pool(m, d, seconds, examinations, memory):
    """The largest pool of nearest points whose (d - 1)-subsets one heuristic
    round can sweep within ``seconds`` (predicted), ``examinations`` and
    ``memory`` (its pencil tables, held twice: indices into the pool and into
    the points), and its pencils per task; ``(None, None)`` when not even
    d - 1 points fit."""
    by_count = _pencils_per_chunk(m, d, 1, 0.0)

    def fits(pool):
        return (
            comb(pool, d - 1) * m <= examinations
            and _round_seconds(m, d, pool) <= seconds
            and 2 * exhaustive_chunks_bytes(pool, d, by_count) <= memory
        )

    pool = d - 1
    if not fits(pool):
        return None, None
    while pool < m and fits(pool + 1):
        pool += 1
    per_chunk = _pencils_per_chunk(m, d, comb(pool, d - 1), _round_seconds(m, d, pool))
    return pool, per_chunk


def _monomials(X, powers):
    if np.array_equal(powers, np.eye(X.shape[1], dtype=powers.dtype)):
        return X
    return np.prod(X[:, None, :] ** powers[None, :, :], axis=2)


def _min_max_scale(F, rows):
    """Scale columns to [-1, 1]; a column is constant (0) when its range is
    at most 1e-12 of its magnitude (a relative threshold, whatever the
    units). A varying column whose range cannot be inverted is refused."""
    low, high = F[rows].min(axis=0), F[rows].max(axis=0)
    span = high - low
    magnitude = np.maximum(np.abs(low), np.abs(high))
    span = np.where(span > 1e-12 * magnitude, span, 0.0)
    too_small = (span > 0) & (span < _MIN_SPAN)
    if too_small.any():
        j = int(np.flatnonzero(too_small)[0])
        raise ValueError(
            f"Feature column {j} (after the monomial map) varies over a range of "
            f"only {span[j]:.3g}, below {_MIN_SPAN:.0e}: float64 cannot scale it. "
            "Multiply X by a constant (the boundary does not depend on the "
            "units of a feature)."
        )
    return np.where(span > 0, 2.0 * (F - low) / _safe(span) - 1.0, 0.0), low, span


_SMALLER = (
    "Use search='auto' (a heuristic), or fewer samples, features or a lower degree."
)


def _sweep_verdict(m, d, seconds, table, available, max_candidates, solver):
    """Why the exact sweep does not run, and what would make it run: the
    smallest budget, with its time and memory, or the plain fact that it
    cannot run on this machine."""
    size = (
        f"The exact sweep over {m} distinct points in dimension {d} is predicted "
        f"to take {format_duration(seconds)} of a reference core"
    )
    if table > available:
        return (
            f"{size}, and is out of reach on this machine: its pencil tables "
            f"alone need {format_bytes(table)}, more than the "
            f"{format_bytes(available)} available."
        )
    smallest = (
        f"max_candidates={_rounded_up(_examinations(seconds)):.3g} "
        f"runs it ({format_bytes(table)} of pencil tables)"
    )
    if solver == "milp":
        return f"{size}: solver='portfolio' with {smallest}."
    return f"{size}, more than max_candidates={max_candidates:.3g} allows; {smallest}."


def _kernel_compiles():
    """Whether the next sweep compiles the kernel: it is neither loaded in
    this process nor in numba's on-disk cache for this machine (numba's
    cache index, read through its private API; None when unreadable)."""
    if _kernel.scan.signatures:
        return False
    try:
        index = _kernel.scan._cache._cache_file._load_index()
        magic = _kernel.scan.targetctx.codegen().magic_tuple()
        return not any(key[1] == magic for key in index)
    except Exception:  # another numba version: say nothing
        return None


def _check_two_classes(y):
    """Refuse multiclass targets, naming the way to a multiclass model."""
    check_classification_targets(y)
    n_classes = len(np.unique(y))
    if n_classes > 2:
        raise ValueError(
            f"{BINARY_ONLY_MESSAGE} y has {n_classes} classes; ICEClassifier "
            "fits one exact boundary between two. For a multiclass model wrap it "
            "in sklearn.multiclass.OneVsRestClassifier(ICEClassifier()), one "
            "exact fit per class against the rest."
        )


def _check_weight_resolution(weight):
    """Refuse weights whose float64 sums cannot resolve the lightest sample:
    the search compares sums of weights, so a proven optimum needs the total
    within ``_MAX_WEIGHT_RATIO`` of the least positive weight."""
    positive = weight[weight > 0]
    with np.errstate(over="ignore"):  # an infinite total or ratio is refused
        total, least = positive.sum(), positive.min()
        ratio = total / least
    if not ratio <= _MAX_WEIGHT_RATIO:
        raise ValueError(
            f"sample_weight sums to {total:.3g} while its least positive weight is "
            f"{least:.3g}: float64 sums of weights spanning a ratio above "
            f"{_MAX_WEIGHT_RATIO:.0e} lose the lighter samples, so no optimum "
            "could be proven. Give the weights a smaller range."
        )


def _check_monomial_magnitudes(X, degree):
    """Refuse magnitudes whose monomials overflow or underflow float64."""
    if X.size == 0:
        return
    peak = np.max(np.abs(X), axis=0)
    largest = float(peak.max())
    limit = (np.finfo(np.float64).max / 8) ** (1.0 / degree)
    if largest > limit:
        raise ValueError(
            f"X holds values of magnitude {largest:.3g}: its monomials of degree "
            f"{degree} (and their ranges) overflow float64 above {limit:.3g}. "
            "Divide X by a constant: the fitted boundary does not depend on "
            "the units of a feature."
        )
    nonzero = peak[peak > 0]
    smallest = float(nonzero.min()) if nonzero.size else 1.0
    if degree > 1 and smallest < _MIN_SPAN ** (1.0 / degree):
        raise ValueError(
            f"X has a column of magnitude {smallest:.3g}: its monomials of degree "
            f"{degree} underflow float64 (below {_MIN_SPAN:.0e}). Multiply X by "
            "a constant: the fitted boundary does not depend on the units of a "
            "feature."
        )


def _safe(span):
    return np.where(span > 0, span, 1.0)


def _cost(labels, y, w):
    return float(np.sum(w[labels != y]))


def _surrogate(Y, y, w):
    """Labels and plane of the better of logistic regression and a constant."""
    with warnings.catch_warnings():  # only a bound: convergence is not needed
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = LogisticRegression(C=1e4, max_iter=1000).fit(Y, y, sample_weight=w)
    plane = np.append(model.coef_[0], model.intercept_[0])
    labels = np.where(np.column_stack([Y, np.ones(len(Y))]) @ plane > 0, 1, -1)
    constant_cost, constant = constant_labels(y, w)
    if _cost(labels, y, w) > constant_cost:
        return constant, plane
    return labels.astype(np.int8), plane


def _off_the_boundary(decision, intercept):
    """An intercept that leaves no training point on the boundary.

    Moves ``intercept`` by half the least non-zero ``|decision + intercept|``
    when some point has a decision value of exactly 0, so no other point
    changes side.
    """
    values = decision + intercept
    if np.all(values != 0):
        return intercept
    nonzero = np.abs(values[values != 0])
    return intercept + (nonzero.min() / 2 if nonzero.size else 1.0)


def _rounded_up(count):
    """``count`` rounded up to 3 significant digits (advice printed with
    ``:.3g`` must not fall short)."""
    scale = 10.0 ** max(floor(log10(max(count, 1))) - 2, 0)
    return ceil(count / scale) * scale


def _examinations(seconds):
    """Candidate-examination equivalents (the unit of ``max_candidates``) of
    so many reference seconds, by the cost table."""
    return seconds / estimate_seconds({"hyperplane_examination": 1})


def _budget_seconds(max_candidates):
    """Reference seconds of a budget of ``max_candidates`` examinations."""
    return estimate_seconds({"hyperplane_examination": max_candidates})
