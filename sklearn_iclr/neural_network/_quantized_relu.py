"""Exact minimum-error training of small quantized ReLU networks."""

import itertools
import math
import time
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    check_random_state,
    validate_data,
)

from ..utils import check_count_budget, estimate_seconds, warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ._quantized_relu_kernel import free_unit_reach, label_tables, search_branch

_NUMERIC = [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8]
# Node-input evaluations of the probe run before refusing a search whose worst
# case exceeds max_candidates (about a second).
_PROBE_NODE_INPUTS = 2.5e8
_PROBE_SECONDS = estimate_seconds({"node_input": _PROBE_NODE_INPUTS})
# Largest pattern table built (int8 entries: units times distinct inputs).
_MAX_TABLE_ENTRIES = 5e8
_UNITS_PER_CHUNK = 4096
# Search nodes per call of the compiled search between two clock checks.
_NODES_PER_CHUNK = 200_000


def domain_bounds(domain_size):
    """Lowest and highest value of ``Z_d``.

    ``Z_d = {z integer : -floor((d-1)/2) <= z <= ceil((d-1)/2)}``, so
    ``Z_2 = {0, 1}``, ``Z_3 = {-1, 0, 1}`` and ``Z_4 = {-1, 0, 1, 2}``.

    Parameters
    ----------
    domain_size : int
        ``d >= 2``.

    Returns
    -------
    low, high : int

    Examples
    --------
    >>> domain_bounds(2), domain_bounds(3), domain_bounds(4)
    ((0, 1), (-1, 1), (-1, 2))
    """
    return -((domain_size - 1) // 2), domain_size // 2


def relu_d(values, top):
    """``ReLU_d``: ReLU truncated into ``Z_d``, ``min(max(values, 0), top)``.

    ``top`` is the largest value of ``Z_d`` (``ceil((d-1)/2)``) for hidden
    units; the output unit uses ``n_classes - 1`` (see
    :class:`QuantizedReLUClassifier`).
    """
    return np.clip(values, 0, top)


def quantized_forward(X, coefs, intercepts, top_hidden, top_output):
    """Output unit values of a quantized ReLU network on integer inputs.

    Every unit computes ``relu_d(inputs @ coef - bias)``; the bias is
    subtracted, as in the paper.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Integer inputs in ``Z_d``.
    coefs, intercepts : list of ndarray
        Weights ``(fan_in, fan_out)`` and biases ``(fan_out,)`` per layer.
    top_hidden, top_output : int
        Upper clip of the hidden units and of the output unit.

    Returns
    -------
    output : ndarray of shape (n_samples,)
    """
    values = np.asarray(X, dtype=np.int64)
    for layer, (coef, bias) in enumerate(zip(coefs, intercepts, strict=True)):
        top = top_output if layer == len(coefs) - 1 else top_hidden
        values = relu_d(values @ coef - bias, top)
    return values[:, 0]


def _weight_vectors(low, high, size):
    """All vectors of ``Z_d^size``, sparsest first (then lexicographic)."""
    grid = np.array(list(itertools.product(range(low, high + 1), repeat=size)))
    grid = grid.reshape(-1, size)
    order = np.lexsort((*grid.T[::-1], np.abs(grid).sum(axis=1)))
    return grid[order]


def _compress(digits, y_index, weight, base, n_classes):
    """Distinct rows of ``digits`` (entries ``0..base-1``) and class weights.

    Rows are coded as base-``base`` integers, so that compression is one
    linear pass (a ``bincount`` when ``base^alpha`` is small) instead of a
    sort of the rows.
    """
    n_features = digits.shape[1]
    if n_features * math.log2(base) > 60:
        inputs, inverse = np.unique(digits, axis=0, return_inverse=True)
        counts = np.zeros((len(inputs), n_classes))
        np.add.at(
            counts, (np.ravel(inverse), y_index), 1.0 if weight is None else weight
        )
        return inputs, counts
    code = np.zeros(len(digits), dtype=np.int64)
    for column in digits.T[::-1]:  # Horner: no integer matrix product
        code *= base
        code += column
    if base**n_features * n_classes <= max(4 * len(code), 1 << 20):
        flat = np.bincount(
            code * n_classes + y_index,
            weights=weight,
            minlength=base**n_features * n_classes,
        ).reshape(-1, n_classes)
        distinct = np.flatnonzero(flat.sum(axis=1) > 0)
        counts = flat[distinct].astype(np.float64)
    else:
        distinct, inverse = np.unique(code, return_inverse=True)
        counts = np.zeros((len(distinct), n_classes))
        np.add.at(counts, (inverse, y_index), 1.0 if weight is None else weight)
    inputs = (distinct[:, None] // base ** np.arange(n_features)) % base
    return inputs.astype(np.int64), counts


def _unit_values(inputs, units, top):
    """Values ``(n_units, n_inputs)`` (int8) of every unit, in chunks."""
    values = np.empty((len(units), len(inputs)), dtype=np.int8)
    for start in range(0, len(units), _UNITS_PER_CHUNK):
        chunk = units[start : start + _UNITS_PER_CHUNK]
        values[start : start + len(chunk)] = relu_d(
            chunk[:, :-1] @ inputs.T - chunk[:, -1:], top
        )
    return values


def _run_branches(problem, branches, best, stop_at, deadline, max_nodes=math.inf):
    """Search ``branches`` in order with a shared incumbent.

    Returns ``(best, best_branch, best_index, unfinished, nodes, capped)``
    where ``unfinished`` lists the branches cut by the deadline or by
    ``max_nodes`` (then ``capped`` is True).
    """
    patterns, totals, best_in_range, top, high_value = problem
    width = branches[0][0].shape[0]
    best_branch, best_index, unfinished, nodes = None, np.zeros(width, np.int64), [], 0
    capped = False
    for position, (out_coef, out_bias) in enumerate(branches):
        if best <= stop_at or (best < math.inf and time.monotonic() > deadline):
            unfinished.extend(range(position, len(branches)))
            break
        rest_low, rest_high = free_unit_reach(out_coef, high_value)
        index, depth, found = np.zeros(width, np.int64), 0, best_index.copy()
        while depth >= 0:
            new_best, depth, count = search_branch(
                patterns,
                totals,
                best_in_range,
                out_coef,
                out_bias,
                top,
                rest_low,
                rest_high,
                best,
                found,
                index,
                depth,
                stop_at,
                int(min(_NODES_PER_CHUNK, max_nodes - nodes)),
            )
            nodes += count
            if new_best < best:
                best, best_branch, best_index = new_best, position, found.copy()
            capped = depth >= 0 and nodes >= max_nodes
            if capped or (
                depth >= 0 and best < math.inf and time.monotonic() > deadline
            ):
                unfinished.append(position)
                unfinished.extend(range(position + 1, len(branches)))
                break
        if unfinished:
            break
    return best, best_branch, best_index, unfinished, nodes, capped


class QuantizedReLUClassifier(ClassifierMixin, BaseEstimator):
    """Exact minimum-error training of a quantized ReLU network (ICLR 2026).

    Implements the exact trainer behind "Tractability via Low Dimensionality:
    The Parameterized Complexity of Training Quantized Neural Networks",
    ICLR 2026 (OpenReview BAQNrsr987; the copies are anonymous). Weights,
    biases and inputs live in the integer domain
    ``Z_d = {-floor((d-1)/2), ..., ceil((d-1)/2)}`` (``Z_2 = {0, 1}``,
    ``Z_3 = {-1, 0, 1}``) and every unit computes::

        h = ReLU_d(sum_i w_i z_i - b),   ReLU_d(t) = min(max(t, 0), top)

    with ``top = ceil((d-1)/2)``, the largest value of ``Z_d``, for the
    hidden units. The output unit clips at ``top = n_classes - 1`` and its
    value is the index of the predicted class in ``classes_`` (so the number
    of classes is at most ``ceil((d-1)/2) + 1``: two classes for ``d = 2, 3``,
    three for ``d = 4, 5``). For ``n_classes = ceil((d-1)/2) + 1`` this is the
    paper's ``ReLU_d`` everywhere. The fit returns weights that minimise the
    number of misclassified training points (weighted by ``sample_weight``).

    Parameters
    ----------
    domain_size : int, default=3
        ``d``, the size of the integer domain of weights, biases and inputs.
    hidden_layer_sizes : tuple of int, default=(2,)
        ``()`` (a single neuron) or ``(width,)`` (one hidden layer); deeper
        networks raise a ``ValueError``.
    quantization : {"auto", "uniform"} or None, default="auto"
        How ``X`` is mapped into ``Z_d``. ``None``: ``X`` must be
        integer-valued within ``Z_d`` (otherwise a ``ValueError``).
        ``"uniform"``: each feature's training range ``[min, max]`` (over the
        rows of positive weight) is cut into ``d`` equal-width bins numbered
        ``low, ..., high`` of ``Z_d`` (like ``KBinsDiscretizer(strategy=
        "uniform")``); values outside the training range fall into the end
        bins and a constant feature maps to 0. ``"auto"``: ``None`` when the
        training ``X`` is integer-valued within ``Z_d``, ``"uniform"``
        otherwise; ``quantization_`` says which was used.
    max_errors : float or None, default=None
        ``l`` of the paper's decision problem: stop as soon as a network with
        at most this many errors is found (then ``optimal_`` is True only if
        it is also minimal). ``None`` searches for the minimum. A warning says
        when no network meets the bound.
    time_limit : float or None, default=None
        Seconds after which the search stops with the best network found
        (``optimal_`` False unless it was already certified) and a lower bound
        ``lower_bound_``. With a time limit the search-size budget is not
        checked (the pattern table still is).
    max_candidates : int, default=10_000_000_000
        Work budget in unit evaluations. A pattern table (``d^(alpha+1)``
        weight vectors times ``p`` distinct inputs) above it is refused before
        it is built. A search whose worst case (top branches times multisets
        of ``width`` patterns, times ``p``) exceeds it is first probed by a
        short serial search (about a second): branch and bound usually
        examines a tiny fraction of the worst case. If the probe does not
        finish, the fit is refused with the counts and a time estimate.
    n_jobs : int or None, default=None
        joblib workers over the top branches (``None`` = 1); the top branches
        are dealt round-robin to the workers, each with its own incumbent.
    random_state : int, RandomState instance or None, default=None
        Shuffles the order of top branches with equal root bound, which
        decides which of several optimal networks is returned. The minimum
        error does not depend on it.
    verbose : int, default=0
        Print the search size and result when positive.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels; the output unit value ``k`` predicts
        ``classes_[k]``.
    coefs_ : list of ndarray
        Integer weights in ``Z_d`` per layer, ``(n_features, width)`` then
        ``(width, 1)`` (only ``(n_features, 1)`` without a hidden layer).
    intercepts_ : list of ndarray
        Integer biases in ``Z_d`` per layer, ``(width,)`` then ``(1,)``. As in
        the paper they are *subtracted*: a unit computes
        ``ReLU_d(inputs @ coef - intercept)``.
    n_errors_ : int
        Training samples (of positive weight) that the fitted network
        misclassifies: the minimised objective without ``sample_weight``.
    weighted_error_ : float
        The total weight of the misclassified training samples, the minimised
        objective. Only set when ``sample_weight`` is given.
    optimal_ : bool
        Whether the objective (``n_errors_``, or ``weighted_error_`` with
        ``sample_weight``) is certified minimal. False only when
        ``time_limit`` or ``max_errors`` stopped the search first.
    lower_bound_ : float
        A lower bound on the minimum of the objective (equal to it when
        ``optimal_``).
    n_distinct_inputs_ : int
        Distinct quantized training inputs ``p`` (rows of positive weight).
    n_patterns_ : int
        Distinct hidden-unit patterns on the distinct inputs.
    n_nodes_ : int
        Search nodes examined.
    quantization_ : {"uniform"} or None
        The quantization used.
    data_min_ : ndarray of shape (n_features,) or None
        The smallest training value of each feature (``"uniform"`` only).
    data_max_ : ndarray of shape (n_features,) or None
        The largest training value of each feature (``"uniform"`` only).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.neural_network.MLPClassifier : real-valued weights by gradient
        descent.
    sklearn_iclr.linear_model.ICEClassifier : exact minimum 0-1 loss over
        real linear separators.

    Notes
    -----
    Training is NP-hard even for one neuron, but fixed-parameter tractable in the
    input dimension and the width. The fit compresses the data to its distinct
    inputs with per-class counts (so ``n`` matters only through the compression),
    enumerates every hidden unit's pattern on them, and runs a branch and bound
    that stops at a network as good as the conflict bound (distinct inputs with
    mixed labels) or at ``max_errors``. The cost is exponential in the input
    dimension ``alpha`` and in the width. Deeper networks, several outputs and the
    paper's tree-decomposition dynamic programming are not implemented.

    The search is described in the user guide (:ref:`quantized-relu-details`).


    References
    ----------
    .. [1] Anonymous. "Tractability via Low Dimensionality: The Parameterized
       Complexity of Training Quantized Neural Networks". ICLR 2026.
       OpenReview BAQNrsr987.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.neural_network import QuantizedReLUClassifier
    >>> X = np.array([[-1, -1], [-1, 1], [1, -1], [1, 1], [0, 0], [0, 1]])
    >>> y = np.array([0, 1, 1, 0, 0, 1])  # XOR-like on Z_3
    >>> clf = QuantizedReLUClassifier(domain_size=3, hidden_layer_sizes=(2,))
    >>> clf = clf.fit(X, y)
    >>> clf.n_errors_, clf.optimal_
    (0, True)
    >>> clf.predict(X)
    array([0, 1, 1, 0, 0, 1])
    """

    _parameter_constraints = {
        "domain_size": [Interval(Integral, 2, None, closed="left")],
        "hidden_layer_sizes": [tuple, list],
        "quantization": [StrOptions({"auto", "uniform"}), None],
        "max_errors": [Interval(Real, 0, None, closed="left"), None],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "max_candidates": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        domain_size=3,
        hidden_layer_sizes=(2,),
        quantization="auto",
        max_errors=None,
        time_limit=None,
        max_candidates=10_000_000_000,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.domain_size = domain_size
        self.hidden_layer_sizes = hidden_layer_sizes
        self.quantization = quantization
        self.max_errors = max_errors
        self.time_limit = time_limit
        self.max_candidates = max_candidates
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        d = self.domain_size if isinstance(self.domain_size, Integral) else 3
        tags.classifier_tags.multi_class = domain_bounds(max(d, 2))[1] >= 2
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Find weights in ``Z_d`` with the minimum number of training errors.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs: integers in ``Z_d``, or real values quantized as
            ``quantization`` says.
        y : array-like of shape (n_samples,)
            Class labels; at most ``ceil((d-1)/2) + 1`` classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; the fit minimises the weight of the
            misclassified rows.

        Returns
        -------
        self : QuantizedReLUClassifier
            The fitted estimator.
        """
        # Integer X stays integer (no float copy, no rounding test).
        X, y = validate_data(self, X, y, dtype=_NUMERIC)
        widths = tuple(self.hidden_layer_sizes)
        if len(widths) > 1 or any(
            not isinstance(w, Integral) or isinstance(w, bool) or w < 1 for w in widths
        ):
            raise ValueError(
                "hidden_layer_sizes must be () (a single neuron) or (width,) with "
                f"an integer width >= 1, got {self.hidden_layer_sizes!r}; deeper "
                "networks are not supported by the exact search."
            )
        low, high = domain_bounds(self.domain_size)
        self.classes_ = _unique_labels(y)
        y_index = _class_index(y, self.classes_)
        # The distinct labels decide the target type (the same answer as on
        # y, without a second pass over it).
        check_classification_targets(self.classes_)
        n_classes = len(self.classes_)
        if n_classes > high + 1:
            raise ValueError(
                ("Only binary classification is supported. " if high == 1 else "")
                + f"With domain_size={self.domain_size} the output unit takes the "
                f"values 0..{high}, so at most {high + 1} classes can be "
                f"predicted; y has {n_classes} classes. Raise domain_size to "
                f"{2 * n_classes - 2} or more."
            )
        weight, keep = None, slice(None)
        if sample_weight is not None:
            weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            if np.any(weight < 0):
                raise ValueError("sample_weight must be non-negative.")
            keep = weight > 0
            if not np.any(keep):
                raise ValueError("sample_weight is zero for every sample.")
        Z = self._fit_quantizer(X, keep, low, high)
        digits, labels = Z - low, y_index
        if weight is not None and not np.all(keep):
            digits, labels, weight = digits[keep], labels[keep], weight[keep]
        inputs, counts = _compress(digits, labels, weight, self.domain_size, n_classes)
        inputs += low
        self.n_distinct_inputs_ = len(inputs)

        top_out = n_classes - 1
        conflict = float(np.sum(counts.sum(axis=1) - counts.max(axis=1)))
        coefs, intercepts, errors, lower = self._train(
            inputs, counts, low, high, top_out, conflict, widths
        )
        self.coefs_, self.intercepts_ = coefs, intercepts
        if sample_weight is None:
            self.n_errors_ = int(round(errors))
        else:
            self.weighted_error_ = float(errors)
            output = quantized_forward(Z, coefs, intercepts, high, top_out)
            self.n_errors_ = int(np.sum((output != y_index)[keep]))
        self.lower_bound_ = float(lower)
        self.optimal_ = bool(lower >= errors - 1e-9 * max(1.0, errors))
        if self.max_errors is not None and errors > self.max_errors:
            warn_user(
                f"No network has at most max_errors={self.max_errors} errors "
                f"(the minimum is {errors:g}); the fitted network is the optimum."
                if self.optimal_
                else f"No network with at most max_errors={self.max_errors} "
                f"errors was found within time_limit={self.time_limit} (best "
                f"{errors:g}, lower bound {lower:g})."
            )
        if self.verbose:
            print(
                f"[QuantizedReLUClassifier] {self.n_distinct_inputs_} distinct "
                f"inputs, {self.n_patterns_} patterns, {self.n_nodes_} nodes, "
                f"errors {errors:g} (lower bound {lower:g})"
            )
        return self

    def _fit_quantizer(self, X, keep, low, high):
        integral_in_domain = _in_domain(X, low, high)
        if self.quantization is None and not integral_in_domain:
            raise ValueError(
                "With quantization=None, "
                + _describe_domain_error(X, low, high, self.domain_size)
                + " Map X into Z_d or use quantization='uniform'."
            )
        if self.quantization is None or (
            self.quantization == "auto" and integral_in_domain
        ):
            self.quantization_, self.data_min_, self.data_max_ = None, None, None
            return X.astype(np.int64)
        self.quantization_ = "uniform"
        self.data_min_ = X[keep].min(axis=0).astype(np.float64)
        self.data_max_ = X[keep].max(axis=0).astype(np.float64)
        return self._quantize(X)

    def _quantize(self, X):
        low, high = domain_bounds(self.domain_size)
        if self.quantization_ is None:
            if not _in_domain(X, low, high):
                raise ValueError(
                    "This classifier was fitted on integer inputs: "
                    + _describe_domain_error(X, low, high, self.domain_size)
                    + " Map X into Z_d or refit with quantization='uniform'."
                )
            return X.astype(np.int64)
        X = X.astype(np.float64, copy=False)
        # Divide by the largest magnitude first so that ranges near the float
        # limits neither overflow (1e308 - (-1e308)) nor lose all precision.
        scale = np.maximum(np.abs(self.data_min_), np.abs(self.data_max_))
        scale[scale == 0] = 1.0
        lo, hi = self.data_min_ / scale, self.data_max_ / scale
        span = hi - lo
        constant = span <= 0
        span[constant] = 1.0
        position = (X / scale - lo) / span
        bins = np.clip(np.floor(position * self.domain_size), 0, self.domain_size - 1)
        bins[:, constant] = -low  # the bin of value 0
        return bins.astype(np.int64) + low

    def _train(self, inputs, counts, low, high, top_out, conflict, widths):
        """Return (coefs, intercepts, errors, lower bound) and set search stats."""
        n_inputs, n_features = inputs.shape
        if top_out == 0:  # one class: the constant 0 network is exact
            self.n_patterns_, self.n_nodes_ = 0, 0
            coefs = [np.zeros((n_features, w), np.int64) for w in widths]
            coefs.append(np.zeros((widths[0] if widths else n_features, 1), np.int64))
            intercepts = [np.zeros(w, np.int64) for w in widths] + [
                np.zeros(1, np.int64)
            ]
            return coefs, intercepts, conflict, conflict
        n_candidates = float(self.domain_size) ** (n_features + 1)
        check_count_budget(
            n_candidates * n_inputs,
            self.max_candidates,
            what=(
                f"unit evaluations for the pattern table ({n_candidates:.3g} "
                f"weight vectors on {n_inputs} distinct inputs)"
            ),
            work={"unit_evaluation": n_candidates * n_inputs},
            parameter="max_candidates",
            advice="Use fewer features or a smaller domain_size.",
        )
        if n_candidates * n_inputs > _MAX_TABLE_ENTRIES:
            raise ValueError(
                f"The pattern table would hold {n_candidates * n_inputs:.3g} "
                f"entries ({n_candidates:.3g} weight vectors on {n_inputs} "
                f"distinct inputs, about {n_candidates * n_inputs / 1e9:.3g} GB), "
                f"more than the {_MAX_TABLE_ENTRIES:.3g} this estimator builds. "
                "Use fewer features or a smaller domain_size."
            )
        if widths and self.time_limit is None:
            self._refuse_unprobeable_search(n_candidates, n_inputs, widths[0])
        units = _weight_vectors(low, high, n_features + 1)
        totals = counts.sum(axis=1)
        best_in_range = label_tables(counts)
        deadline = (
            math.inf
            if self.time_limit is None
            else time.monotonic() + float(self.time_limit)
        )
        stop_at = conflict
        if self.max_errors is not None:
            stop_at = max(conflict, self.max_errors)
        stop_at += 1e-9 * max(1.0, float(totals.sum()))

        if not widths:  # a single neuron: every weight vector, vectorised
            values = _unit_values(inputs, units, top_out)
            errors = totals.sum() - counts[np.arange(n_inputs), values].sum(axis=1)
            best = int(np.argmin(errors))
            self.n_patterns_, self.n_nodes_ = len(units), len(units)
            coefs = [units[best, :-1].reshape(-1, 1)]
            intercepts = [units[best, -1:].copy()]
            return coefs, intercepts, float(errors[best]), float(errors[best])

        width = widths[0]
        values = _unit_values(inputs, units, high)
        patterns, first = np.unique(values, axis=0, return_index=True)
        order = np.argsort(first)  # keep the sparsest representative's order
        patterns, first = np.ascontiguousarray(patterns[order]), first[order]
        self.n_patterns_ = len(patterns)
        rng = check_random_state(self.random_state)
        branches = [
            (np.array(coef, dtype=np.int64), bias)
            for coef in itertools.combinations_with_replacement(
                range(low, high + 1), width
            )
            for bias in range(low, high + 1)
        ]
        n_multisets = math.comb(len(patterns) + width - 1, width)
        worst = _worst_case(len(branches), len(patterns), width, n_inputs)
        root = np.array(
            [_root_bound(counts, coef, bias, high, top_out) for coef, bias in branches]
        )
        shuffle = rng.permutation(len(branches))
        order = shuffle[np.argsort(root[shuffle], kind="stable")]
        problem = (patterns.astype(np.int64), totals, best_in_range, top_out, high)
        if self.verbose:
            print(
                f"[QuantizedReLUClassifier] searching {len(branches)} output "
                f"layers x {n_multisets:.3g} multisets of {width} of "
                f"{len(patterns)} patterns on {n_inputs} distinct inputs"
            )
        results = None
        if self.time_limit is None and worst > self.max_candidates:
            # The worst case is loose (the bounds prune most of it): probe with
            # a short serial search and refuse only if the probe does not end.
            probe = _run_branches(
                problem,
                [branches[b] for b in order],
                math.inf,
                stop_at,
                math.inf,
                max_nodes=max(1, int(_PROBE_NODE_INPUTS // n_inputs)),
            )
            if probe[-1]:
                check_count_budget(
                    worst,
                    self.max_candidates,
                    what=(
                        f"node-input evaluations in the worst case "
                        f"({len(branches)} output layers x {n_multisets:.3g} "
                        f"multisets of {width} of the {len(patterns)} hidden-unit "
                        f"patterns on {n_inputs} distinct inputs; a probe of "
                        f"{probe[4]} nodes did not finish)"
                    ),
                    work={"node_input": worst},
                    parameter="max_candidates",
                    advice=(
                        "Use fewer features, a smaller width or domain_size, or "
                        "set time_limit for the best network found in that time."
                    ),
                )
            results, groups = [probe], [order]
        if results is None:
            n_jobs = min(effective_n_jobs(self.n_jobs), len(branches))
            groups = [order[job::n_jobs] for job in range(n_jobs)]
            results = Parallel(n_jobs=n_jobs)(
                delayed(_run_branches)(
                    problem, [branches[b] for b in group], math.inf, stop_at, deadline
                )
                for group in groups
            )
        best, lower, best_coef = math.inf, math.inf, None
        self.n_nodes_ = 0
        for group, (found, where, index, unfinished, nodes, _) in zip(
            groups, results, strict=True
        ):
            self.n_nodes_ += nodes
            if where is not None and found < best:
                best = found
                best_coef, best_bias = branches[group[where]]
                best_units = first[index]
            for position in unfinished:
                lower = min(lower, root[group[position]])
        lower = min(lower, best)
        if self.max_errors is not None and best <= stop_at:
            # The branch where max_errors stopped the search is not exhausted:
            # only the root bounds and the conflict bound remain certified.
            lower = min(lower, root.min())
        if best <= conflict + 1e-9 * max(1.0, best):
            lower = best
        else:
            lower = max(conflict, lower)
        hidden = units[best_units]
        coefs = [hidden[:, :-1].T.copy(), best_coef.reshape(-1, 1)]
        intercepts = [hidden[:, -1].copy(), np.array([best_bias], dtype=np.int64)]
        return coefs, intercepts, best, lower

    def _refuse_unprobeable_search(self, n_candidates, n_inputs, width):
        """Refuse, before the pattern table is built, a search no probe can vouch for.

        A search whose worst case exceeds ``max_candidates`` is probed, and the
        probe needs the pattern table. When the table alone costs more than
        the probe (200 x 12 random rows: 1.6e6 weight vectors, a 30 s table),
        the worst case is judged with every weight vector a distinct pattern.
        """
        table_seconds = estimate_seconds({"unit_evaluation": n_candidates * n_inputs})
        if table_seconds <= _PROBE_SECONDS:
            return
        d = self.domain_size
        n_branches = math.comb(d + width - 1, width) * d
        # Hidden units take the values 0..top on each distinct input.
        top = domain_bounds(d)[1]
        log_patterns = min(math.log(n_candidates), n_inputs * math.log(top + 1))
        n_patterns = round(math.exp(log_patterns))
        worst = _worst_case(n_branches, n_patterns, width, n_inputs)
        check_count_budget(
            worst,
            self.max_candidates,
            what=(
                f"node-input evaluations in the worst case ({n_branches} output "
                f"layers x multisets of {width} of up to {n_patterns:.3g} "
                f"hidden-unit patterns on {n_inputs} distinct inputs; the "
                "pattern table that a probe of the search needs would take "
                f"about {table_seconds:.2g} s by itself)"
            ),
            work={"node_input": worst},
            parameter="max_candidates",
            advice=(
                "Use fewer features, a smaller width or domain_size, or set "
                "time_limit for the best network found in that time."
            ),
        )

    def predict(self, X):
        """Predict class labels with the quantized network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, quantized as during ``fit``.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=_NUMERIC, reset=False)
        Z = self._quantize(X)
        top_hidden = domain_bounds(self.domain_size)[1]
        output = quantized_forward(
            Z, self.coefs_, self.intercepts_, top_hidden, len(self.classes_) - 1
        )
        return self.classes_[output]


def _worst_case(n_branches, n_patterns, width, n_inputs):
    """Node-input evaluations of a search that prunes nothing."""
    return float(n_branches) * math.comb(n_patterns + width - 1, width) * n_inputs


def _root_bound(counts, out_coef, out_bias, high, top_out):
    """Errors that no choice of hidden units avoids under fixed output weights."""
    low_sum = np.minimum(out_coef, 0).sum() * high - out_bias
    high_sum = np.maximum(out_coef, 0).sum() * high - out_bias
    lo = min(max(low_sum, 0), top_out)
    hi = min(max(high_sum, 0), top_out)
    return float(np.sum(counts.sum(axis=1) - counts[:, lo : hi + 1].max(axis=1)))


def _in_domain(X, low, high):
    """Whether every entry of ``X`` is an integer of ``Z_d = [low, high]``."""
    if not (X.min() >= low and X.max() <= high):
        return False
    return X.dtype.kind in "iub" or bool(np.all(X == np.round(X)))


def _unique_labels(y):
    """``np.unique(y)``, by counting for small non-negative integer labels."""
    if y.dtype.kind in "iu" and len(y) and y.min() >= 0 and y.max() < 1 << 16:
        return np.flatnonzero(np.bincount(y)).astype(y.dtype)
    return np.unique(y)


def _class_index(y, classes):
    """Index of each label in the sorted ``classes`` (``np.unique``'s inverse)."""
    if len(classes) == 1:
        return np.zeros(len(y), dtype=np.int64)
    if y.dtype.kind in "iu" and classes[0] >= 0 and classes[-1] < 1 << 16:
        rank = np.zeros(int(classes[-1]) + 1, dtype=np.int64)
        rank[classes] = np.arange(len(classes))
        return rank[y]  # a lookup instead of a binary search per label
    try:
        return np.searchsorted(classes, y)
    except TypeError:  # labels numpy cannot compare with searchsorted
        return np.unique(y, return_inverse=True)[1]


def _describe_domain_error(X, low, high, domain_size):
    integers = bool(np.all(X == np.round(X)))
    return (
        f"X must hold integers in Z_d = {{{low}, ..., {high}}} "
        f"(domain_size={domain_size}); got values in [{X.min():g}, {X.max():g}]"
        + ("" if integers else ", not all integers")
        + "."
    )
