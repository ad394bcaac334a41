"""``check_invariants``: property-based checks of what an estimator promises."""

import math
import pickle
import tracemalloc
import warnings
from numbers import Integral

import numpy as np
from scipy.sparse import issparse
from sklearn.base import clone, is_classifier

from ..utils import WorkBudgetError
from ..utils._compat import HasMethods, Interval, validate_params
from ._declarations import OUTPUT_METHODS, FitData, Invariants
from ._registry import declared_invariants

CHECKS = ("budget", "clone_pickle", "deterministic", "no_nan", "row_order", "scale")
# Largest power-of-two exponent drawn: 2**996 is about 6.7e299.
MAX_EXPONENT = 996
# Messages of numpy, scipy and scikit-learn that a user should never see: an
# estimator that raises them let bad numbers reach a library call.
INTERNAL_MESSAGES = (
    "array must not contain infs or NaNs",
    "contains NaN",
    "contains infinity",
    "SVD did not converge",
    "Singular matrix",
    "math domain error",
    "cannot convert float",
)

# A refused fit may allocate this much beyond a few copies of its data.
REFUSAL_SLACK_BYTES = 4 * 2**20
REFUSAL_DATA_COPIES = 8


class _Failure(AssertionError):
    """One broken invariant (collected, then raised together)."""


def _import_hypothesis():
    try:
        import hypothesis
    except ImportError as exc:
        raise ImportError(
            "check_invariants draws its examples with hypothesis, which is not "
            "installed. Install the optional extra: "
            'pip install "sklearn-iclr[testing]".'
        ) from exc
    return hypothesis


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "data": [FitData, callable, None],
        "invariants": [Invariants, None],
        "checks": [list, tuple, None],
        "max_examples": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left")],
    },
    prefer_skip_nested_validation=False,
)
def check_invariants(
    estimator,
    data=None,
    *,
    invariants=None,
    checks=None,
    max_examples=3,
    random_state=0,
):
    """Check the invariants an estimator promises, on examples hypothesis draws.

    In the spirit of scikit-learn's ``check_estimator``, but property-based:
    instead of fixed inputs, hypothesis draws the transformations of one
    training problem under which the estimator's outputs must behave as its
    declaration (:class:`Invariants`) says:

    - ``scale``: ``X`` (and ``y`` where declared) times exact powers of two
      from about 1e-300 to 1e300 (the two extremes are always tried) gives the
      declared outputs, or the fit refuses with a clear ``ValueError`` (never
      a numpy or scipy message, never a numpy ``RuntimeWarning``);
    - ``row_order``: a drawn permutation of the training rows changes no
      output;
    - ``deterministic``: two fits of clones agree exactly;
    - ``clone_pickle``: a clone has the same parameters, and a pickled and
      restored fitted estimator gives identical outputs;
    - ``budget``: with the declared budget parameter too small, ``fit`` raises
      :class:`~sklearn_iclr.utils.WorkBudgetError` before allocating more
      than a few copies of the data (measured with ``tracemalloc``, on a
      second refusal so that lazy imports do not count);
    - ``no_nan``: no output of any fit above, and no float attribute of the
      reference fit, holds NaN; ``predict``, ``decision_function``,
      ``predict_proba`` and ``transform`` are finite.

    Outputs are those of ``decision_function``, ``predict_proba``,
    ``predict``, ``transform`` and ``score_samples`` that the estimator has,
    on the training ``X``.

    Parameters
    ----------
    estimator : estimator instance
        An unfitted estimator (it is cloned). Its ``random_state``, if it has
        one, is set to ``random_state``.
    data : FitData or callable, default=None
        The training problem, or ``data(random_state) -> FitData``. ``None``
        takes the declaration's.
    invariants : Invariants, default=None
        What the estimator promises. ``None`` looks up the declaration of a
        sklearn_iclr estimator (:func:`declared_invariants`); an estimator of
        your own needs one.
    checks : sequence of str, default=None
        The checks to run, among the promised ones; ``None`` runs them all.
    max_examples : int, default=3
        Examples hypothesis draws per property (on top of the two scale
        extremes).
    random_state : int, default=0
        Seeds the data, the estimator and hypothesis, so that a failure
        reproduces.

    Raises
    ------
    AssertionError
        Listing every broken invariant, with the example that broke it.
    ImportError
        If hypothesis (the ``[testing]`` extra) is not installed.

    See Also
    --------
    declared_invariants : the declarations of the estimators of sklearn_iclr.

    Examples
    --------
    An estimator of sklearn_iclr, with its declared invariants:

    >>> from sklearn_iclr import ICEClassifier
    >>> from sklearn_iclr.testing import FitData, Invariants, check_invariants
    >>> check_invariants(ICEClassifier(max_candidates=200_000))

    Any other estimator, with a declaration of what it promises: here that a
    regression tree predicts in the units of ``y`` whatever those of ``X``.
    The tiny ``y`` makes every impurity decrease underflow to zero, and the
    tree silently predicts one constant:

    >>> from sklearn.datasets import make_regression
    >>> from sklearn.tree import DecisionTreeRegressor
    >>> def data(random_state):
    ...     return FitData(*make_regression(40, 3, random_state=random_state))
    >>> promises = Invariants(scale={"predict": (0, 1)})
    >>> check_invariants(DecisionTreeRegressor(), data, invariants=promises)
    Traceback (most recent call last):
    ...
    AssertionError: DecisionTreeRegressor breaks 1 invariant(s):
    - scale: predict changed with X * 2**0 and y * 2**-996:...
    """
    _import_hypothesis()
    declaration = declared_invariants(estimator) if invariants is None else invariants
    data = declaration.data if data is None else data
    if data is None:
        raise ValueError(
            f"No data to check {type(estimator).__name__} on: pass data=FitData(...) "
            "or a callable data(random_state) -> FitData."
        )
    if callable(data):
        data = data(random_state)
    if not isinstance(data, FitData):
        raise TypeError(f"data must give a FitData, got {type(data).__name__}.")
    promised = declaration.promised()
    chosen = promised if checks is None else list(checks)
    unknown = sorted(set(chosen) - set(CHECKS))
    if unknown:
        raise ValueError(f"Unknown checks {unknown}; choose among {list(CHECKS)}.")
    skipped = sorted(set(chosen) - set(promised))
    if skipped:
        raise ValueError(
            f"{type(estimator).__name__} does not promise {skipped}: "
            f"{ {k: declaration.reasons()[k] for k in skipped} }"
        )
    estimator = clone(estimator)
    if "random_state" in estimator.get_params():
        estimator.set_params(random_state=random_state)
    run = _Run(estimator, data, declaration, max_examples, random_state)
    failures = []
    for name in sorted(chosen):
        try:
            getattr(run, name)()
        except _Failure as failure:
            failures.append(f"{name}: {failure}")
    if failures:
        raise AssertionError(
            f"{type(estimator).__name__} breaks {len(failures)} invariant(s):\n- "
            + "\n- ".join(failures)
        )


class _Run:
    """The checks of one estimator on one problem, sharing the reference fit."""

    def __init__(self, estimator, data, declaration, max_examples, random_state):
        self.estimator = estimator
        self.data = data
        self.declaration = declaration
        self.max_examples = max_examples
        self.random_state = random_state
        self._reference = None

    # -- helpers -----------------------------------------------------------

    def _fit(self, data, estimator=None):
        """Fit a clone on ``data``; numpy RuntimeWarnings are failures."""
        est = clone(self.estimator if estimator is None else estimator)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.fit(*data.fit_args(), **data.fit_params)
        _no_runtime_warning(caught, "fit")
        return est

    def _outputs(self, fitted, X, names=None):
        """``{name: output}``: methods applied to ``X``, fitted attributes."""
        if names is None:
            names = _methods(fitted)
            rule = self.declaration.scale
            names += (
                [] if isinstance(rule, str) else [n for n in rule if n not in names]
            )
        outputs = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for name in names:
                value = getattr(fitted, name)
                outputs[name] = np.asarray(value if name.endswith("_") else value(X))
        _no_runtime_warning(caught, "an output method")
        _no_nan(outputs)
        return outputs

    @property
    def reference(self):
        """(fitted estimator, its outputs) on the unchanged problem."""
        if self._reference is None:
            fitted = self._fit(self.data)
            self._reference = fitted, self._outputs(fitted, self.data.X)
        return self._reference

    def _compared(self):
        """Continuous outputs where the estimator has any, else all."""
        outputs = self.reference[1]
        continuous = [m for m in outputs if outputs[m].dtype.kind == "f"]
        if is_classifier(self.estimator):
            continuous = [m for m in continuous if m != "predict"]
        return continuous or list(outputs)

    def _given(self, test, **strategies):
        hypothesis = _import_hypothesis()
        settings = hypothesis.settings(
            max_examples=self.max_examples,
            deadline=None,
            database=None,
            phases=(hypothesis.Phase.explicit, hypothesis.Phase.generate),
            suppress_health_check=list(hypothesis.HealthCheck),
            report_multiple_bugs=False,
        )
        wrapped = hypothesis.seed(self.random_state)(
            settings(hypothesis.given(**strategies)(test))
        )
        try:
            wrapped()
        except _Failure:
            raise
        except AssertionError as error:  # hypothesis' report of a failure
            raise _Failure(str(error)) from error

    # -- the checks ----------------------------------------------------------

    def no_nan(self):
        fitted, _ = self.reference
        for name, value in vars(fitted).items():
            if name.endswith("_") and not name.startswith("_"):
                array = np.asarray(value) if _is_numeric(value) else None
                if array is not None and array.dtype.kind in "fc":
                    if np.isnan(array).any():
                        raise _Failure(f"the fitted attribute {name} holds NaN")
        if not isinstance(self.declaration.scale, str):
            return  # the scale check fits the extremes and compares them
        # Without a scale promise, the extremes must still give finite outputs
        # or a clear error.
        for exponent in (-MAX_EXPONENT, MAX_EXPONENT):
            scaled = self.data.scaled(math.ldexp(1.0, exponent))
            try:
                fitted = self._fit(scaled)
            except ValueError as error:
                _clear_error(error, f"with X * 2**{exponent}")
                continue
            self._outputs(fitted, scaled.X)

    def clone_pickle(self):
        params = self.estimator.get_params(deep=False)
        cloned = clone(self.estimator).get_params(deep=False)
        for name, value in params.items():
            if not _same_param(value, cloned[name]):
                raise _Failure(f"clone changed the parameter {name}")
        fitted, outputs = self.reference
        restored = pickle.loads(pickle.dumps(fitted))
        _assert_identical(
            outputs, self._outputs(restored, self.data.X), "after a pickle round trip"
        )

    def deterministic(self):
        _, outputs = self.reference
        refit = self._fit(self.data)
        _assert_identical(outputs, self._outputs(refit, self.data.X), "on a refit")

    def row_order(self):
        from hypothesis import strategies as st

        _, outputs = self.reference
        methods = self._compared()
        n = self.data.n_samples

        def test(permutation):
            order = np.asarray(permutation)
            fitted = self._fit(self.data.permuted(order))
            got = self._outputs(fitted, self.data.X, methods)
            _assert_close(
                {m: outputs[m] for m in methods},
                got,
                self.declaration,
                f"after fitting on the rows in the order {_short(order)}",
            )

        self._given(test, permutation=st.permutations(range(n)))

    def scale(self):
        from hypothesis import example
        from hypothesis import strategies as st

        rule = self.declaration.scale
        _, outputs = self.reference
        methods = list(rule)
        scales_y = any(rule[m][1] for m in methods) and self.data.y is not None

        def test(exponents):
            x_exponent, y_exponent = exponents
            scaled = self.data.scaled(
                math.ldexp(1.0, x_exponent), math.ldexp(1.0, y_exponent)
            )
            where = f"with X * 2**{x_exponent} and y * 2**{y_exponent}"
            estimator = self._with_units(x_exponent, y_exponent)
            if estimator is None:
                return  # a parameter in the data's units leaves the float range
            try:
                fitted = self._fit(scaled, estimator)
            except ValueError as error:
                _clear_error(error, where)
                return
            got = self._outputs(fitted, scaled.X, methods)
            unscaled = {
                m: np.ldexp(
                    got[m], -(rule[m][0] * x_exponent + rule[m][1] * y_exponent)
                )
                if got[m].dtype.kind == "f"
                else got[m]
                for m in methods
            }
            _assert_close(
                {m: outputs[m] for m in methods}, unscaled, self.declaration, where
            )

        # Exponent pairs under which the declared outputs and the ratio
        # c_y / c_x (the unit of a coefficient) stay within the float range;
        # the extremes are always tried.
        degrees = [rule[m] for m in methods] + [(1, -1)]
        pairs = st.tuples(
            st.integers(-MAX_EXPONENT, MAX_EXPONENT),
            st.integers(-MAX_EXPONENT, MAX_EXPONENT) if scales_y else st.just(0),
        ).filter(
            lambda e: all(
                abs(dx * e[0] + dy * e[1]) <= MAX_EXPONENT for dx, dy in degrees
            )
        )
        extremes = [(MAX_EXPONENT, 0), (-MAX_EXPONENT, 0)]
        if scales_y:
            extremes += [(0, MAX_EXPONENT), (0, -MAX_EXPONENT)]
        for exponents in extremes:
            test = example(exponents)(test)
        self._given(test, exponents=pairs)

    def _with_units(self, x_exponent, y_exponent):
        """The estimator with its parameters in the data's units rescaled."""
        params = {}
        for name, (dx, dy) in self.declaration.units.items():
            value = self.estimator.get_params()[name]
            try:
                scaled = math.ldexp(value, dx * x_exponent + dy * y_exponent)
            except OverflowError:
                return None
            if value != 0 and scaled == 0:
                return None
            params[name] = scaled
        return clone(self.estimator).set_params(**params)

    def budget(self):
        parameter, value = self.declaration.budget
        estimator = clone(self.estimator).set_params(**{parameter: value})
        data = self.data
        for _ in range(2):  # the first attempt loads lazy imports
            fitted = clone(estimator)
            tracemalloc.start()
            try:
                fitted.fit(*data.fit_args(), **data.fit_params)
            except WorkBudgetError:
                peak = tracemalloc.get_traced_memory()[1]
            except Exception as error:
                raise _Failure(
                    f"{parameter}={value!r} should refuse the fit with a "
                    f"WorkBudgetError, got {type(error).__name__}: {error}"
                ) from error
            else:
                raise _Failure(f"{parameter}={value!r} did not refuse the fit")
            finally:
                tracemalloc.stop()
        data_bytes = sum(
            np.asarray(a).nbytes
            for a in (data.X, data.y, *data.fit_params.values())
            if _is_numeric(a)
        )
        limit = REFUSAL_DATA_COPIES * data_bytes + REFUSAL_SLACK_BYTES
        if peak > limit:
            raise _Failure(
                f"the refused fit allocated {peak / 2**20:.3g} MiB before refusing "
                f"(the data take {data_bytes / 2**20:.3g} MiB): refuse before any "
                "allocation of the work"
            )


def _methods(fitted):
    return [m for m in OUTPUT_METHODS if hasattr(fitted, m)]


def _is_numeric(value):
    try:
        return np.asarray(value).dtype.kind in "biufc"
    except (ValueError, TypeError):
        return False


def _short(order, size=8):
    text = ", ".join(str(i) for i in order[:size])
    return f"[{text}{', ...' if len(order) > size else ''}]"


def _same_param(a, b):
    if issparse(a) or issparse(b):
        return issparse(a) and issparse(b) and (a != b).nnz == 0
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if hasattr(a, "get_params") and hasattr(b, "get_params"):
        return type(a) is type(b) and a.get_params() == b.get_params()
    return a is b or a == b


def _no_runtime_warning(caught, where):
    for warning in caught:
        if issubclass(warning.category, RuntimeWarning):
            raise _Failure(
                f"{where} let a numpy warning through: {warning.message} "
                f"({warning.filename}:{warning.lineno})"
            )


def _no_nan(outputs):
    for method, values in outputs.items():
        if values.dtype.kind in "fc":
            if np.isnan(values).any():
                raise _Failure(f"{method} returned NaN")
            if method != "score_samples" and not np.isfinite(values).all():
                raise _Failure(f"{method} returned infinity")


def _clear_error(error, where):
    message = str(error)
    if isinstance(error, np.linalg.LinAlgError) or any(
        internal.lower() in message.lower() for internal in INTERNAL_MESSAGES
    ):
        raise _Failure(
            f"{where}, the fit raised an internal error, not a clear one: "
            f"{type(error).__name__}: {message}"
        )


def _assert_identical(expected, got, where):
    for method, values in expected.items():
        if not np.array_equal(values, got[method], equal_nan=values.dtype.kind == "f"):
            raise _Failure(f"{method} differs {where}")


def _assert_close(expected, got, declaration, where):
    for method, values in expected.items():
        if values.dtype.kind not in "fc":
            if not np.array_equal(values, got[method]):
                raise _Failure(f"{method} changed {where}")
            continue
        scale = np.abs(values).max(initial=0.0)
        atol = declaration.atol * (scale if np.isfinite(scale) else 1.0)
        try:
            np.testing.assert_allclose(
                got[method], values, rtol=declaration.rtol, atol=atol
            )
        except AssertionError as error:
            raise _Failure(f"{method} changed {where}:{error}") from None
