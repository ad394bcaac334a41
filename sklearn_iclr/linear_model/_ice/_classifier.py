"""ICEClassifier: exact minimum 0-1 loss linear and polynomial classification."""

import time
import warnings
from math import comb
from numbers import Integral

import numpy as np
from scipy.optimize import linprog
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from scipy.spatial import cKDTree
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import PolynomialFeatures
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ...utils import (
    check_count_budget,
    estimate_seconds,
    format_duration,
    warn_user,
)
from ...utils._compat import Interval, StrOptions, _fit_context
from ...utils.validation import check_binary_target, check_nonnegative_sample_weight
from ._search import (
    affine_coordinates,
    combinations_array,
    constant_labels,
    count_examinations,
    exhaustive_chunks,
    exhaustive_chunks_bytes,
    scan_pencils,
)
from ._tolerances import MERGE_TOL

# Pencils per parallel task: coarse enough to amortise the task overhead.
_EXAMINATIONS_PER_CHUNK = 2_000_000
# Rounds of the heuristic search (each at most max_candidates / rounds).
_HEURISTIC_ROUNDS = 4
# Largest ratio of the total weight to the least positive weight: the least
# weight is then about 45 units in the last place of the total (2^52 / 1e14).
_MAX_WEIGHT_RATIO = 1e14
# Most bytes of pencil indices an exact search may hold at once.
_MAX_PENCIL_BYTES = 2 * 2**30
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
    paper. The result is exact on real data with ties (many points on one
    hyperplane), without jitter.

    Parameters
    ----------
    degree : int, default=1
        Degree of the decision boundary. For ``degree > 1`` the search runs
        on the monomials of degree 1 to ``degree`` (the Veronese embedding,
        ``PolynomialFeatures(include_bias=False)``), of dimension
        ``G = C(n_features + degree, degree) - 1``.
    search : {"auto", "exact"}, default="auto"
        ``"exact"`` raises a ``ValueError`` (with the count and a time
        estimate) when the exhaustive search needs more than
        ``max_candidates`` examinations. ``"auto"`` is exact within the
        budget and otherwise warns and runs a heuristic (pencils through the
        points nearest the current best boundary, improved over a few
        rounds, starting from logistic regression; the points of a plane
        through more than D of them all take their heavier label), up to
        ``max_candidates`` examinations, and sets ``optimal_ = False``.
    max_candidates : int, default=2_400_000_000
        Budget of candidate-hyperplane examinations. An exhaustive search over
        N distinct points spanning D dimensions makes ``D * C(N, D)`` of them
        (each hyperplane through D points, once per pencil containing it).
        A refusal estimates its time from the package's cost table
        (:func:`sklearn_iclr.utils.estimate_seconds`). The
        separating linear programs, solved before any search with one variable
        per monomial feature, count against it too, as the examinations that
        take as long: a fit whose linear programs alone exceed the budget
        (e.g. ``degree=4`` on 20 features: 10,625 monomials) is refused before
        any work, in either search mode, and so is an exact search within the
        budget whose pencil indices would take more than 2 GiB at once.
    n_jobs : int, default=None
        Parallel tasks (chunks of pencils) through joblib, threads by default
        (the compiled sweep releases the GIL). ``None`` means 1 unless in a
        ``joblib.parallel_config`` context, so
        ``parallel_config(backend="dask")`` runs the search on a Dask
        cluster. The result does not depend on ``n_jobs``; more jobs than
        chunks of work are not started. BLAS runs on one thread during the
        fit (its linear algebra is small; idle BLAS threads would spin on
        the cores the search needs).
    verbose : int, default=0
        Print progress (chunks done, examinations, best loss, ETA) when > 0.

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
    n_errors_ : float
        Weighted training 0-1 loss of the fitted boundary (the number of
        training errors without sample weights): ``predict`` on the training
        data makes exactly these errors. Training feature vectors closer
        than 1e-9 in every coordinate after min-max scaling to [-1, 1]
        (directly or through a chain of such vectors) count as one location
        and share one label, so their lighter label's rows are errors even
        where a boundary squeezed between them would do better; likewise a
        point met within 1e-9 radians of a candidate hyperplane through D
        others counts as on it (see Notes). When ``optimal_`` is True,
        ``n_errors_`` is the optimum of that problem.
    optimal_ : bool
        True when the search was exhaustive and the refitted boundary
        realises the best labelling it found, so ``n_errors_`` is the
        optimum. False after the heuristic search, and (with a warning) in
        the rare case where the refit does not realise the best labelling
        found: a margin below about 1e-10 of the feature range, or points
        within ~1e-7 of each other next to planes through others, at the
        edge of the tolerances; ``n_errors_`` then counts the errors of the
        boundary returned.
    n_candidates_ : int
        Candidate hyperplanes examined (0 when the data were separable or
        trivial and no search was needed). The exact search skips, without
        examining their planes, the pencils that cannot improve on the best
        boundary found so far, and examines each plane in one pencil only
        (see the user guide), so this is at most, and often well below, the
        count the budget is set in.
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
    (solved recursively). In general position the on-plane term is 0 (the paper's
    "defining points are free"); on integer-coded data it is not, which is why
    raw Haberman and Caesarian have larger optima than counts that treat every
    on-plane point as free.

    Duplicated feature vectors are one location, costing the smaller weight of
    its labels; the training loss counts every row. The returned boundary is the
    maximum-margin separator of the optimal labelling (a HiGHS LP), so no training
    point lies on it. Tolerances, on features min-max scaled to [-1, 1]: feature
    vectors within 1e-9 (max-norm, single linkage) are one location, and a point
    within 1e-9 radians (plus the angles' rounding bound) of a candidate plane is
    on it, so the search and the refit agree on which points share a label.

    The proof of exactness is in the user guide (:ref:`ice-details`).


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
    >>> clf.n_errors_, clf.optimal_
    (19.0, True)
    >>> int((clf.predict(X) != y).sum())
    19
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 1, None, closed="left")],
        "search": [StrOptions({"auto", "exact"})],
        "max_candidates": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        degree=1,
        *,
        search="auto",
        max_candidates=2_400_000_000,
        n_jobs=None,
        verbose=0,
    ):
        self.degree = degree
        self.search = search
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
        labels, optimal, n_candidates = self._search(problem)
        w, b = _max_margin_separator(*problem.member_labels(labels))
        # Undo the scaling x_s = 2 (x - low) / span - 1 (constant columns: 0).
        w = np.where(span > 0, w, 0.0)
        self.coef_ = (2.0 * w / _safe(span))[None, :]
        intercept = b - np.sum(w * (2.0 * low / _safe(span) + 1.0))
        decision = features @ self.coef_[0]
        self.intercept_ = np.array([_off_the_boundary(decision, intercept)])
        predicted = np.where(decision + self.intercept_[0] > 0, 1, -1)
        self.n_errors_ = float(np.sum(weight[predicted != y_signed]))
        searched = float(problem.cost(problem.expand(labels)))
        if not np.isclose(self.n_errors_, searched, rtol=1e-12, atol=0.0):
            # Only near-degenerate data at the edge of the tolerances get here.
            warn_user(
                f"ICEClassifier: the refitted boundary makes {self.n_errors_:g} "
                f"errors, not the {searched:g} of the best labelling found: that "
                "labelling has a margin below the linear program's resolution "
                "(about 1e-10 of the feature range), or some points are too "
                "close to each other or to a hyperplane through others for the "
                "search's tolerances. optimal_ is set to False. Rounding the "
                "features avoids this.",
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
        work = {"lp_entry": n_samples * float(n_out) ** 2}
        check_count_budget(
            estimate_seconds(work) / estimate_seconds({"hyperplane_examination": 1}),
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

    def _search(self, problem):
        """Return (labels of problem.points, optimal?, candidates examined)."""
        points, y, w = problem.points, problem.labels, problem.weights
        if len(points) == 0 or np.all(y == y[0]):
            return y, True, 0
        if _max_margin_separator(points, y, check_only=True):
            return y, True, 0
        Y = affine_coordinates(points)
        m, d = Y.shape
        bound_labels, bound_plane = _surrogate(Y, y, w)
        total = count_examinations(m, d)
        if total <= self.max_candidates:
            per_chunk = _pencils_per_chunk(m, d)
            _check_pencil_memory(exhaustive_chunks_bytes(m, d, per_chunk), m, d)
            chunks = exhaustive_chunks(m, d, per_chunk)
            found, n_candidates = self._run(Y, y, w, chunks, bound_labels, True, total)
            return found, True, n_candidates
        if self.search == "exact":
            check_count_budget(
                total,
                self.max_candidates,
                what=(
                    "candidate-hyperplane examinations for search='exact' "
                    f"({m} distinct points in dimension {d})"
                ),
                work={"hyperplane_examination": total},
                parameter="max_candidates",
                advice="Or use search='auto' (a heuristic), or fewer samples, "
                "features or a lower degree.",
            )
        # Warned before the heuristic starts: it may run for its whole budget.
        heuristic = estimate_seconds({"hyperplane_examination": self.max_candidates})
        warn_user(
            f"The exact search needs {total:.3g} examinations, more than "
            f"max_candidates={self.max_candidates}; ICEClassifier runs a "
            "heuristic instead (at most max_candidates examinations, about "
            f"{format_duration(heuristic)}), "
            "so the training 0-1 loss may not be optimal (optimal_ is False). "
            "Raise max_candidates for an exact fit.",
            UserWarning,
        )
        found, n_candidates = self._heuristic(Y, y, w, bound_labels, bound_plane)
        return found, False, n_candidates

    def _run(self, Y, y, w, chunks, bound_labels, exhaustive, total):
        """Scan chunks of pencils in parallel; the first best candidate wins."""
        bound = _cost(bound_labels, y, w)
        n_jobs = self.n_jobs
        if n_jobs is not None and n_jobs > 0:
            # No more workers than tasks (an exhaustive scan makes at most one
            # chunk per point): a huge n_jobs would overflow inside joblib.
            n_tasks = len(chunks) if hasattr(chunks, "__len__") else len(Y)
            n_jobs = min(n_jobs, max(n_tasks, 1))
        # The compiled sweep releases the GIL: threads share its compiled
        # code and the points (a joblib backend set by the user still rules).
        results = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(_scan_chunk)(Y, y, w, pencils, bound, exhaustive)
            for pencils in chunks
        )
        best_cost, best_labels, n_candidates = bound, bound_labels, 0
        start = time.perf_counter()
        for k, (cost, labels, n_examined) in enumerate(results, 1):
            n_candidates += n_examined
            if labels is not None and cost < best_cost:
                best_cost, best_labels = cost, labels
            if self.verbose:
                self._progress(k, n_candidates, total, best_cost, start)
        return best_labels, n_candidates

    def _heuristic(self, Y, y, w, labels, plane):
        """Pencils through the points nearest the best boundary, in rounds."""
        m, d = Y.shape
        budget = self.max_candidates // _HEURISTIC_ROUNDS
        pool = d - 1
        while pool < m and comb(pool + 1, d - 1) * m <= budget:
            pool += 1
        n_candidates, cost = 0, _cost(labels, y, w)
        if comb(pool, d - 1) * m > budget:  # not even one pencil fits
            return labels, n_candidates
        for _ in range(_HEURISTIC_ROUNDS):
            distance = np.abs(np.column_stack([Y, np.ones(m)]) @ plane)
            nearest = np.sort(np.argsort(distance, kind="stable")[:pool])
            pencils = nearest[combinations_array(pool, d - 1)]
            chunks = np.array_split(
                pencils, -(-len(pencils) // _pencils_per_chunk(m, d))
            )
            found, examined = self._run(Y, y, w, chunks, labels, False, budget)
            n_candidates += examined
            found_cost = _cost(found, y, w)
            if found_cost >= cost:
                break
            labels, cost = found, found_cost
            plane = np.append(*_max_margin_separator(Y, labels))
        return labels, n_candidates

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


def _scan_chunk(Y, y, w, pencils, bound, exhaustive):
    """One parallel task: the best candidate of a chunk of pencils."""
    cost, _, labels, n_examined = scan_pencils(
        Y, y, w, pencils, bound, exhaustive=exhaustive
    )
    return cost, labels, n_examined


def _pencils_per_chunk(m, d):
    return max(1, _EXAMINATIONS_PER_CHUNK // max(m - d + 1, 1))


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


def _check_pencil_memory(n_bytes, m, d):
    """Refuse an exact search whose pencil index tables would not fit."""
    if n_bytes > _MAX_PENCIL_BYTES:
        raise ValueError(
            f"The exact search over {m} distinct points in dimension {d} would "
            f"hold {n_bytes / 2**30:.3g} GiB of pencil indices at once (all "
            f"pencils through one point), more than {_MAX_PENCIL_BYTES / 2**30:g} "
            "GiB. Lower max_candidates (search='auto' then runs a heuristic), "
            "or use fewer samples, features or a lower degree."
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


def _max_margin_separator(X, labels, check_only=False):
    """Maximum-margin (``max |w_j| <= 1``) separator of a strict labelling.

    Solves ``min u`` subject to ``labels_i (w . x_i + b) >= 1`` and
    ``-u <= w_j <= u`` with HiGHS, and returns ``(w / u, b / u)``, whose
    margin ``1 / u`` is the largest under ``max |w_j| <= 1``. Asking for
    margin 1 rather than maximising a small margin keeps HiGHS's feasibility
    tolerance (1e-7) from flipping a sign when the margin is tiny. When
    HiGHS finds the labelling not strictly separable, returns the least-hinge
    separator instead (the caller checks the signs); with ``check_only``,
    returns whether the solution HiGHS finds meets every margin.
    """
    n, p = X.shape
    s = labels.astype(np.float64)
    if n == 0 or np.all(s == s[0]):
        return True if check_only else (np.zeros(p), float(s[0]) if n else 1.0)
    # variables (w, b, u); rows: -s_i (w . x_i + b) <= -1, w_j - u <= 0,
    # -w_j - u <= 0
    A = np.vstack(
        [
            np.column_stack([-s[:, None] * X, -s, np.zeros(n)]),
            np.column_stack([np.eye(p), np.zeros(p), -np.ones(p)]),
            np.column_stack([-np.eye(p), np.zeros(p), -np.ones(p)]),
        ]
    )
    result = linprog(
        np.r_[np.zeros(p + 1), 1.0],
        A_ub=A,
        b_ub=np.r_[-np.ones(n), np.zeros(2 * p)],
        bounds=[(None, None)] * (p + 1) + [(0, None)],
        method="highs",
    )
    # HiGHS may call a nearly separable labelling feasible within its
    # tolerances; only a solution that meets every margin is accepted.
    separable = result.status == 0 and np.all(
        s * (X @ result.x[:p] + result.x[p]) > 0.5
    )
    if check_only:
        return separable
    if not separable:
        return _least_hinge_separator(X, s)
    u = result.x[-1]
    return result.x[:p] / u, float(result.x[p] / u)


def _least_hinge_separator(X, s):
    """``min sum_i xi_i`` subject to ``s_i (w . x_i + b) >= 1 - xi_i``,
    ``xi >= 0``: the fallback when HiGHS finds no strict separator of the
    labelling, which happens only when its margin is below ~1e-10."""
    n, p = X.shape
    result = linprog(
        np.r_[np.zeros(p + 1), np.ones(n)],
        A_ub=np.column_stack([-s[:, None] * X, -s, -np.eye(n)]),
        b_ub=-np.ones(n),
        bounds=[(None, None)] * (p + 1) + [(0, None)] * n,
        method="highs",
    )
    if result.status != 0:
        return np.zeros(p), 1.0
    scale = max(np.abs(result.x[:p]).max(), np.finfo(float).tiny)
    return result.x[:p] / scale, float(result.x[p] / scale)


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
