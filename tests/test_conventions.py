"""The package conventions (docs/conventions.rst), checked on every public class.

Every estimator that ``all_estimators()`` finds, and every public class that
follows the parameter API without fitting data (controllers, bandit policies),
is checked here: a new one follows the conventions from its first commit.
"""

import importlib
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _estimator_params import CHECK_PARAMS
from sklearn.base import BaseEstimator, is_classifier
from sklearn.datasets import make_classification, make_regression
from sklearn.utils._tags import get_tags

from sklearn_iclr.utils import all_estimators, warn_user
from sklearn_iclr.utils.discovery import SUBPACKAGES

PACKAGE = Path(__file__).resolve().parent.parent / "sklearn_iclr"


def _parameter_api_classes():
    found = {}
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"sklearn_iclr.{sub}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
                found[name] = obj
    return sorted(found.items())


CLASSES = _parameter_api_classes()


@pytest.mark.parametrize("name, cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_parameters_are_keyword_only_after_the_first_optional(name, cls):
    # As in scikit-learn: required parameters (Pipeline's steps, a controller's
    # A and B) and at most the first optional one (Ridge's alpha) are
    # positional; every other parameter is keyword-only.
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    optional = [p.name for p in positional if p.default is not inspect.Parameter.empty]
    assert len(optional) <= 1, (
        f"{name}: parameters {optional[1:]} should be keyword-only "
        "(def __init__(self, required, first_optional=..., *, ...))"
    )


def _fitted(name, Estimator):
    est = Estimator(**CHECK_PARAMS.get(name, {}))
    tags = get_tags(est)
    if tags.input_tags.two_d_array is False:
        pytest.skip(f"{name} does not take a 2-D array")
    if is_classifier(est):
        X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    else:
        X, y = make_regression(n_samples=60, n_features=4, random_state=0)
    if tags.input_tags.categorical:  # token ids, as scikit-learn's checks do
        X = np.abs(X).round().astype(int)
    if tags.target_tags.required:
        est.fit(X, y)
    else:
        est.fit(X)
    return est, X


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_fitted_attributes_are_lower_case(name, Estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, _ = _fitted(name, Estimator)
    upper = [k for k in vars(est) if k.endswith("_") and k != k.lower()]
    assert not upper, f"{name}: fitted attributes must be lower case: {upper}"


@pytest.mark.parametrize("name, Estimator", all_estimators("classifier"))
def test_binary_linear_classifiers_have_sklearn_shapes(name, Estimator):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, X = _fitted(name, Estimator)
    if not hasattr(est, "coef_"):
        pytest.skip(f"{name} is not a linear classifier")
    assert np.ndim(est.coef_) == 2 and np.shape(est.coef_)[0] == 1, name
    assert np.shape(est.intercept_) == (1,), name


def test_warnings_go_through_warn_user():
    # warn_user attributes a warning to the user's line; a bare warnings.warn
    # with a fixed stacklevel points into scikit-learn's decorators.
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_warnings.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\bwarnings\.warn\(", line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}")
    assert not offenders, f"use sklearn_iclr.utils.warn_user: {offenders}"


def test_private_sklearn_and_skorch_imports_go_through_compat():
    offenders = []
    pattern = re.compile(
        r"from sklearn\.\S*\._\w+ import|from sklearn\.\S* import .*\b_\w+|"
        r"\._set_training\("
    )
    for path in PACKAGE.rglob("*.py"):
        if path.name == "_compat.py":
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(
                    f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
                )
    assert not offenders, "route through sklearn_iclr.utils._compat:\n" + "\n".join(
        offenders
    )


def test_a_warning_points_at_the_users_line():
    import numpy as np

    from sklearn_iclr import PseudoLikelihoodIsing

    A = np.ones((4, 4)) - np.eye(4)
    spins = np.ones((5, 4))  # all aligned: the MPLE runs to the bound and warns
    with pytest.warns(UserWarning, match="MPLE") as record:
        line = sys._getframe().f_lineno + 1
        PseudoLikelihoodIsing(coupling=A, beta_bound=0.5).fit(spins)
    assert (record[0].filename, record[0].lineno) == (__file__, line)


def test_one_filter_on_the_module_selects_the_packages_warnings():
    def warn_from_the_package():
        warn_user("raise max_iter")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", module="sklearn_iclr")
        warn_from_the_package()
        warnings.warn("the user's own warning", stacklevel=1)
    assert [str(w.message) for w in caught] == ["the user's own warning"]
    # "default" still shows a warning once per line of the user's code.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for _ in range(3):
            warn_user("raise max_iter")
        warn_user("raise max_iter")
    assert [w.lineno for w in caught[1:]] == [caught[0].lineno + 1]


# Baselines that are part of an issue's API, the only public ones
# (docs/conventions.rst, "Layout"). Every other anchor lives in its family's
# private _baselines.py.
PUBLIC_BASELINES = {
    "GPCController": "#18: a controller with its GPC and LQR baselines",
    "LQRController": "#18: a controller with its GPC and LQR baselines",
    "ETGS": "#22: the vanilla policy next to the robust ones",
}
PUBLIC_MODULES = (*SUBPACKAGES, "datasets", "metrics", "utils")


def _public_objects():
    """(qualified public name, object) for every name of every public __all__."""
    import sklearn_iclr

    yield from (
        (f"sklearn_iclr.{n}", getattr(sklearn_iclr, n)) for n in sklearn_iclr.__all__
    )
    for sub in PUBLIC_MODULES:
        module = importlib.import_module(f"sklearn_iclr.{sub}")
        for name in module.__all__:
            yield f"sklearn_iclr.{sub}.{name}", getattr(module, name)


def _describes_a_baseline(obj):
    """Whether the summary of ``obj`` or of its module calls it a baseline/anchor."""
    doc = inspect.getdoc(obj) or ""
    summary = re.split(r"\n(?:Parameters|Attributes|See Also|Notes)\n-{3,}", doc)[0]
    module = inspect.getmodule(obj)
    module_summary = (module.__doc__ or "").split("\n\n")[0] if module else ""
    pattern = r"\b(?:baseline|anchor)s?\b"
    return bool(re.search(pattern, f"{summary}\n{module_summary}", re.IGNORECASE))


def test_anchors_in_baselines_modules_are_exported_nowhere():
    exported = [
        qualified
        for qualified, obj in _public_objects()
        if getattr(obj, "__module__", "").endswith("._baselines")
    ]
    assert not exported, (
        f"{exported} are anchors (defined in a _baselines.py): do not export them "
        "(docs/conventions.rst, Layout)"
    )


def test_public_baselines_are_the_documented_ones():
    marked = {
        qualified
        for qualified, obj in _public_objects()
        if (inspect.isclass(obj) or inspect.isfunction(obj))
        and _describes_a_baseline(obj)
        and obj.__name__ not in PUBLIC_BASELINES
    }
    assert not marked, (
        f"{sorted(marked)} describe themselves as baselines: move them to the "
        "family's _baselines.py, or, if an issue's API asks for them, add them to "
        "PUBLIC_BASELINES and to docs/conventions.rst"
    )
    public = {qualified.rsplit(".", 1)[1] for qualified, _ in _public_objects()}
    assert set(PUBLIC_BASELINES) <= public
    conventions = (PACKAGE.parent / "docs" / "conventions.rst").read_text()
    assert all(f"``{name}``" in conventions for name in PUBLIC_BASELINES)


def test_baselines_modules_say_they_are_private():
    modules = sorted(PACKAGE.glob("*/_baselines.py"))
    assert modules, "no family _baselines.py found"
    for path in modules:
        module = importlib.import_module(f"sklearn_iclr.{path.parent.name}._baselines")
        assert "not part of the public api" in " ".join(module.__doc__.lower().split())


UTILS_MODULES = sorted(p.stem for p in (PACKAGE / "utils").glob("*.py"))
PAPER_MARKERS = ("arXiv", "ICLR", "et al.")


@pytest.mark.parametrize("utils_module", UTILS_MODULES)
def test_utils_holds_nothing_paper_specific(utils_module):
    # docs/conventions.rst: utils/ is generic; paper maths lives next to the
    # estimator that uses it, or in a private package (_replicable) where two
    # families share it. A utils module names no estimator and no paper, and
    # imports nothing from a family.
    source = (PACKAGE / "utils" / f"{utils_module}.py").read_text()
    named = [name for name, _ in all_estimators() if re.search(rf"\b{name}\b", source)]
    papers = [marker for marker in PAPER_MARKERS if marker in source]
    families = re.findall(rf"from \.\.({'|'.join(SUBPACKAGES)}|_replicable)\b", source)
    assert not (named or papers or families), (
        f"utils/{utils_module}.py is paper-specific (estimators {named}, paper "
        f"markers {papers}, family imports {families}): move it next to its "
        "estimator"
    )


# Data functions whose test file is named after the family of data rather than
# after the function (docs/conventions.rst): a helper tested with its generator,
# or a name that predates the rule.
DATASET_TEST_FILES = {
    "heavy_tailed_population_ridge": "heavy_tailed_regression",  # its sampler's
    "make_matching_market": "matching",
    "make_power_law_phase_retrieval": "phase_retrieval",
    "power_law_spectrum": "phase_retrieval",  # the generator's spectrum
    "read_dimacs_cnf": "dimacs_cnf",
}


def _dataset_functions():
    return sorted(importlib.import_module("sklearn_iclr.datasets").__all__)


@pytest.mark.parametrize("name", _dataset_functions())
def test_every_data_function_has_its_test_file(name):
    stem = DATASET_TEST_FILES.get(
        name, name.removeprefix("make_").removeprefix("load_")
    )
    path = PACKAGE.parent / "tests" / f"test_datasets_{stem}.py"
    assert path.exists(), f"{name} needs tests/{path.name}"
    assert name in path.read_text(), f"tests/{path.name} does not call {name}"


# Class docstrings say what a user needs at the call site; derivations and
# longer discussion live in the family's user-guide page (docs/conventions.rst).
NOTES_MAX_LINES = 20
# Everything but the Parameters and Attributes blocks (long by necessity when
# an estimator has many options): summary, See Also, Notes, References, Examples.
DOCSTRING_MAX_LINES = 70


def _docstring_sections(doc):
    """{section title: number of body lines}, and the docstring's line count."""
    lines = inspect.cleandoc(doc or "").splitlines()
    heads = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip()
        and re.fullmatch(r"-{3,}", lines[i + 1].strip())
        and len(lines[i + 1].strip()) == len(lines[i].strip())
    ]
    sections = {}
    for k, i in enumerate(heads):
        body = lines[i + 2 : heads[k + 1] if k + 1 < len(heads) else len(lines)]
        while body and not body[-1].strip():
            body.pop()
        sections[lines[i].strip()] = len(body)
    return sections, len(lines)


@pytest.mark.parametrize("name, cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_class_docstrings_are_short(name, cls):
    sections, n_lines = _docstring_sections(cls.__doc__)
    notes = sections.get("Notes", 0)
    assert notes <= NOTES_MAX_LINES, (
        f"{name}: Notes has {notes} lines (budget {NOTES_MAX_LINES}); keep what a "
        "user needs at the call site and move the rest to docs/user_guide/"
    )
    long_blocks = sum(sections.get(s, 0) + 2 for s in ("Parameters", "Attributes"))
    rest = n_lines - long_blocks
    assert rest <= DOCSTRING_MAX_LINES, (
        f"{name}: {rest} docstring lines besides Parameters and Attributes "
        f"(budget {DOCSTRING_MAX_LINES})"
    )


@pytest.mark.parametrize("family", SUBPACKAGES)
def test_family_docstring_names_its_torch_estimators(family):
    # A family docstring that mentions torch says which estimators use it, and
    # does not call the whole family torch-backed when some are numpy/scipy.
    module = importlib.import_module(f"sklearn_iclr.{family}")
    doc = module.__doc__ or ""
    estimators = {
        name: getattr(module, name)
        for name in module.__all__
        if inspect.isclass(getattr(module, name))
        and hasattr(getattr(module, name), "fit")
    }
    uses_torch = {
        name
        for name, cls in estimators.items()
        if "import_torch(" in Path(inspect.getsourcefile(cls)).read_text()
    }
    if "torch" not in doc.lower():
        return
    assert all(name in doc for name in uses_torch), (family, sorted(uses_torch))
    if uses_torch != set(estimators):
        assert not doc.lower().startswith("torch"), (
            f"sklearn_iclr.{family} is not all torch: "
            f"{sorted(set(estimators) - uses_torch)} are numpy/scipy"
        )


def test_one_import_spelling_per_utils_helper():
    # A helper that sklearn_iclr.utils exports is imported from there, never
    # from the private module that defines it.
    import sklearn_iclr.utils as utils

    pattern = re.compile(
        r"from (?:\.\.\.?|sklearn_iclr\.)utils\._\w+ import ([^\n(]*|\([^)]*\))"
    )
    offenders = []
    for path in [*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "tests").glob("*.py")]:
        if path.parent.name == "utils":
            continue
        for match in pattern.finditer(path.read_text()):
            names = {
                n.split(" as ")[0].strip() for n in match[1].strip("()").split(",")
            }
            if names & set(utils.__all__):
                offenders.append(f"{path.name}: {match[0]}")
    assert not offenders, "import these from sklearn_iclr.utils:\n" + "\n".join(
        offenders
    )


# -- public functions (issue #39, section 2) ---------------------------------

# Modules whose public functions a user calls: every subpackage, and the public
# modules that testing's __all__ names.
FUNCTION_MODULES = (
    *SUBPACKAGES,
    "datasets",
    "metrics",
    "utils",
    "testing",
    "testing.invariants",
    "testing.strategies",
)
# As scikit-learn's make_classification(n_samples=100, n_features=20, *, ...):
# at most the first two optional parameters may be positional.
MAX_POSITIONAL_OPTIONALS = 2


def _public_functions():
    found = {}
    for sub in FUNCTION_MODULES:
        module = importlib.import_module(f"sklearn_iclr.{sub}")
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found[f"{sub}.{name}"] = obj
    return sorted(found.items())


FUNCTIONS = _public_functions()


def _named_parameters(func):
    return [
        p
        for p in inspect.signature(func).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


@pytest.mark.parametrize("name, func", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_public_functions_validate_their_parameters(name, func):
    # As scikit-learn's public functions: @validate_params declares a
    # constraint for every parameter, and a value outside it is refused with
    # an InvalidParameterError naming the parameter, before any work.
    from sklearn_iclr.utils._compat import (
        InvalidParameterError,
        generate_invalid_param_val,
        generate_valid_param,
        make_constraint,
    )

    params = _named_parameters(func)
    if not params:
        return
    constraints = getattr(func, "_skl_parameter_constraints", None)
    assert constraints is not None, f"{name} needs @validate_params"
    assert set(constraints) == {p.name for p in params}, (
        f"{name}: constraints for {sorted(constraints)}, parameters "
        f"{sorted(p.name for p in params)}"
    )
    valid = {}
    for p in params:
        if p.default is not inspect.Parameter.empty:
            valid[p.name] = p.default
            continue
        try:
            valid[p.name] = generate_valid_param(
                make_constraint(constraints[p.name][0])
            )
        except (TypeError, NotImplementedError):
            return  # no value of a required type to call with (a MatchingMarket)
    for p in params:
        options = [make_constraint(c) for c in constraints[p.name]]
        try:
            bad = generate_invalid_param_val(options[0])
        except NotImplementedError:
            continue  # "array-like", object, callable...: nothing is invalid
        if any(option.is_satisfied_by(bad) for option in options):
            continue
        with pytest.raises(InvalidParameterError, match=rf"'{p.name}' parameter"):
            func(**{**valid, p.name: bad})


@pytest.mark.parametrize("name, func", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_public_functions_take_optional_parameters_by_keyword(name, func):
    positional = [
        p.name
        for p in _named_parameters(func)
        if p.kind is not inspect.Parameter.KEYWORD_ONLY
        and p.default is not inspect.Parameter.empty
    ]
    assert len(positional) <= MAX_POSITIONAL_OPTIONALS, (
        f"{name}: {positional[MAX_POSITIONAL_OPTIONALS:]} should be keyword-only "
        "(as make_classification(n_samples=100, n_features=20, *, ...))"
    )


# -- one vocabulary (docs/conventions.rst, "Parameters") ---------------------

# Names that the vocabulary replaces, with the name to use.
RETIRED_NAMES = {
    "n_steps": "max_iter (full-batch steps) or max_epochs (passes of minibatches)",
    "pretrain_epochs": "max_epochs",
    "n_epochs": "max_epochs",
    "epochs": "max_epochs",
    "lr": "learning_rate",
    "step_size": "learning_rate",
    "l2_regularization": "alpha",
    "weight_decay": "alpha",
    "init_std": "init_scale",
}
# max_work: one meaning, the estimated reference seconds of the fit.
MAX_WORK_DEFAULT = 3600.0


def _constraints(cls):
    constraints = dict(getattr(cls, "_parameter_constraints", {}))
    return {
        name: constraints.get(name)
        for name in list(inspect.signature(cls.__init__).parameters)[1:]
    }


def _parameter_doc(cls, name):
    """The docstring entry of parameter ``name`` of ``cls``."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    match = re.search(
        rf"^{name} : .*?(?=^\w[\w, ]* : |^[A-Z][a-z ]+\n-{{3,}}|\Z)",
        doc,
        re.MULTILINE | re.DOTALL,
    )
    return match[0] if match else ""


def _is_interval(constraint, left, closed_left, right=None):
    from sklearn_iclr.utils._compat import Interval

    return (
        isinstance(constraint, Interval)
        and constraint.left == left
        and constraint.right == right
        and (constraint.closed in ("left", "both")) == closed_left
    )


@pytest.mark.parametrize("name, cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_parameter_names_follow_the_vocabulary(name, cls):
    retired = {p: RETIRED_NAMES[p] for p in _constraints(cls) if p in RETIRED_NAMES}
    assert not retired, f"{name}: rename {retired}"


@pytest.mark.parametrize("name, cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_shared_parameters_have_one_type_contract(name, cls):
    from numbers import Integral, Real

    from sklearn_iclr.utils._compat import DeviceOptions, Interval, StrOptions

    problems = []
    for param, constraints in _constraints(cls).items():
        constraints = constraints or []
        if param == "learning_rate":
            # A float > 0 (>= 0 where 0 freezes an online learner's weights),
            # or "auto" where the estimator picks the step.
            ok = all(
                (isinstance(c, Interval) and c.type is Real and c.left == 0)
                or (isinstance(c, StrOptions) and c.options == {"auto"})
                for c in constraints
            )
            ok = ok and any(isinstance(c, Interval) for c in constraints)
        elif param == "device":
            ok = len(constraints) == 1 and isinstance(constraints[0], DeviceOptions)
        elif param in ("max_iter", "max_epochs"):
            # An int (0 may mean "no training": the initial model), or "auto"
            # where the estimator derives the budget from the data.
            counts = [c for c in constraints if isinstance(c, Interval)]
            ok = (
                len(counts) == 1
                and any(_is_interval(counts[0], left, True) for left in (0, 1))
                and counts[0].type is Integral
                and all(
                    isinstance(c, StrOptions) and c.options == {"auto"}
                    for c in constraints
                    if c is not counts[0]
                )
            )
        elif param == "alpha":
            # >= 0, or > 0 where the fit needs a unique minimiser.
            ok = len(constraints) == 1 and any(
                _is_interval(constraints[0], 0, closed) for closed in (True, False)
            )
        elif param == "init_scale":
            ok = len(constraints) == 1 and _is_interval(constraints[0], 0, False)
        elif param == "stability_margin":
            # 1 - the spectral radius: in [0, 1) (0: marginally stable) or
            # (0, 1), or None where it is read from the system.
            margins = [c for c in constraints if c is not None]
            ok = len(margins) == 1 and any(
                _is_interval(margins[0], 0, closed, right=1.0)
                for closed in (True, False)
            )
        elif param == "gamma":
            # A discount factor, never a margin (stability_margin is that).
            ok = (
                all(
                    isinstance(c, Interval) and c.left >= 0 and c.right <= 1
                    for c in constraints
                )
                and "discount" in _parameter_doc(cls, "gamma").lower()
            )
        elif param == "max_work":
            default = inspect.signature(cls.__init__).parameters[param].default
            ok = (
                len(constraints) == 1
                and _is_interval(constraints[0], 0, False)
                and default == MAX_WORK_DEFAULT
                and "reference" in _parameter_doc(cls, "max_work")
            )
        else:
            continue
        if not ok:
            problems.append(f"{param}: {[str(c) for c in constraints]}")
    assert not problems, (
        f"{name}: parameters outside the vocabulary's contract "
        f"(docs/conventions.rst): {problems}"
    )


def _reads_outside_init(cls, param):
    """Whether ``param`` is read outside ``__init__``: in a module of ``cls``'s
    family (where helpers such as bandits.simulate read a market's attributes)
    or of one of its base classes (scikit-learn's EmpiricalCovariance reads
    store_precision)."""
    import ast

    family = PACKAGE / cls.__module__.split(".")[1]
    sources = set(family.rglob("*.py"))
    for klass in cls.__mro__[1:]:
        if klass.__module__.split(".")[0] not in ("sklearn_iclr", "sklearn"):
            continue
        if klass.__module__ == "sklearn.base":
            continue  # BaseEstimator's get_params reads every parameter
        sources.add(Path(inspect.getsourcefile(klass)))
    for source in sorted(sources):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "__init__":
                node.body = []
            if isinstance(node, ast.ClassDef):
                node.body = [
                    n
                    for n in node.body
                    if not (
                        isinstance(n, ast.Assign | ast.AnnAssign)
                        and "_parameter_constraints" in ast.unparse(n)
                    )
                ]
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == param:
                return True
            if isinstance(node, ast.Constant) and node.value == param:
                return True
    return False


@pytest.mark.parametrize("name, cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_no_inert_parameters(name, cls):
    # A parameter that the fit never reads is a promise the estimator does not
    # keep (ContrastMaximizationMotion.random_state was documented "unused").
    inert = [p for p in _constraints(cls) if not _reads_outside_init(cls, p)]
    documented_inert = [
        p
        for p in _constraints(cls)
        if re.match(
            r"\w+ : [^\n]*\n\s*(Unused|Ignored|Not used|Has no effect)\b",
            _parameter_doc(cls, p),
        )
    ]
    assert not (inert or documented_inert), (
        f"{name}: parameters never read {inert}, documented as unused "
        f"{documented_inert}: remove them"
    )


# -- what fitted attributes mean (docs/conventions.rst, "Fitted attributes") --

RETIRED_ATTRIBUTES = {
    "record_epochs_": "history_",
    "record_iterations_": "history_",
    "weight_history_": "history_",
    "mask_history_": "history_",
    "singular_values_history_": "history_",
}
HISTORY_STEP_KEYS = ("epoch", "iter", "round")


def _fitted_on_declared_data(name, Estimator):
    from sklearn_iclr.testing import declared_invariants

    declaration = declared_invariants(Estimator)
    data = declaration.data(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = Estimator(**declaration.params).fit(*data.fit_args(), **data.fit_params)
    return est


@pytest.fixture(scope="module")
def fitted_estimators():
    return {
        name: _fitted_on_declared_data(name, Estimator)
        for name, Estimator in all_estimators()
    }


def _is_int(value):
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_float(value):
    return isinstance(value, float | np.floating)


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_fitted_attributes_mean_one_thing(name, Estimator, fitted_estimators):
    est = fitted_estimators[name]
    attributes = vars(est)
    problems = [
        f"{old} is now {new}"
        for old, new in RETIRED_ATTRIBUTES.items()
        if old in attributes
    ]
    if "scale_" in attributes:
        scale = attributes["scale_"]
        if not (isinstance(scale, np.ndarray) and scale.shape == (est.n_features_in_,)):
            problems.append(
                "scale_ must be an ndarray of shape (n_features,) (a scalar "
                f"data scale is x_scale_), got {type(scale).__name__} "
                f"{np.shape(scale)}"
            )
    if "x_scale_" in attributes and not _is_float(attributes["x_scale_"]):
        problems.append("x_scale_ must be a float")
    for count in ("n_iter_", "n_errors_"):
        if count in attributes and not _is_int(attributes[count]):
            problems.append(
                f"{count} must be an int, got {type(attributes[count]).__name__}"
            )
    if "loss_curve_" in attributes:
        curve = attributes["loss_curve_"]
        if not (isinstance(curve, list) and all(_is_float(v) for v in curve)):
            problems.append("loss_curve_ must be a list of floats")
    if "history_" in attributes:
        history = attributes["history_"]
        if not (
            isinstance(history, list)
            and history
            and all(isinstance(h, dict) for h in history)
            and all(any(k in h for k in HISTORY_STEP_KEYS) for h in history)
        ):
            problems.append(
                f"history_ must be a non-empty list of dicts, each with one of "
                f"{HISTORY_STEP_KEYS}"
            )
    assert not problems, f"{name}: {problems}"


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_iterative_estimators_report_iterations_and_loss(
    name, Estimator, fitted_estimators
):
    params = inspect.signature(Estimator.__init__).parameters
    if not ({"max_iter", "max_epochs"} & set(params)):
        pytest.skip(f"{name} is not iterative")
    est = fitted_estimators[name]
    assert _is_int(getattr(est, "n_iter_", None)), f"{name}: n_iter_ must be an int"
    curve = getattr(est, "loss_curve_", None)
    assert isinstance(curve, list), f"{name}: loss_curve_ must be a list of floats"
    assert len(curve) == est.n_iter_, (
        f"{name}: loss_curve_ has {len(curve)} values for n_iter_={est.n_iter_} "
        "(one per iteration or epoch)"
    )


def test_no_wall_clock_asserts_in_tests():
    # DESIGN: tests never assert on time (a loaded machine fails them, an idle
    # one hides a regression); speed goals are same-run ratios in benchmarks/.
    clock = re.compile(r"\btime\.(perf_counter|process_time|monotonic|time)\(")
    offenders = [
        f"{path.name}:{number}"
        for path in sorted((PACKAGE.parent / "tests").glob("*.py"))
        if path.name != Path(__file__).name
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if clock.search(line)
    ]
    assert not offenders, f"time a speed goal in benchmarks/ instead: {offenders}"


def test_one_cost_table_for_every_time_estimate():
    # docs/conventions.rst, "Budgets": estimates come from utils/_cost.py only
    # (there were 16 seconds-per-unit constants, five for one unit).
    constant = re.compile(
        r"\b[A-Z_]*(SECONDS_PER|PER_SECOND)[A-Z_]*\s*=|\bseconds_per_unit\b"
    )
    offenders = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "_cost.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if constant.search(line)
    ]
    assert not offenders, f"read the cost table (utils._cost) instead: {offenders}"
