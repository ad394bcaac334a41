"""Package-level contracts: lazy torch, documented estimators, the tour."""

import inspect
import subprocess
import sys

import pytest
from _estimator_params import CHECK_PARAMS
from sklearn.base import is_classifier, is_regressor
from sklearn.datasets import make_classification, make_regression
from sklearn.utils import get_tags

from sklearn_iclr.utils import all_estimators


def test_import_does_not_load_torch():
    code = (
        "import sys, sklearn_iclr, sklearn_iclr.utils, sklearn_iclr.datasets, "
        "sklearn_iclr.metrics\n"
        "from sklearn_iclr.utils import all_estimators\n"
        "all_estimators()\n"
        "assert 'torch' not in sys.modules, 'importing sklearn_iclr loaded torch'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_estimator_is_reexported_at_top_level():
    import sklearn_iclr

    for name, est in all_estimators():
        assert getattr(sklearn_iclr, name) is est, f"{name} missing from sklearn_iclr"
        assert name in sklearn_iclr.__all__


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_docstring_documents_parameters_and_attributes(name, Estimator):
    numpydoc = pytest.importorskip("numpydoc.docscrape")
    doc = numpydoc.ClassDoc(Estimator)
    documented = {p.name.split(":")[0].strip() for p in doc["Parameters"]}
    for param in inspect.signature(Estimator.__init__).parameters:
        if param != "self":
            assert param in documented, f"{name}: parameter {param!r} undocumented"
    assert doc["Attributes"], f"{name}: no Attributes section"
    assert doc["Examples"], f"{name}: no Examples section"
    assert "ICLR" in "\n".join(
        doc["Summary"] + doc["Extended Summary"] + doc["Notes"] + doc["References"]
    ), f"{name}: the paper is not cited"


@pytest.mark.parametrize("name, Estimator", all_estimators())
def test_fitted_attributes_are_documented(name, Estimator):
    numpydoc = pytest.importorskip("numpydoc.docscrape")
    documented = {
        a.name.split(":")[0].strip() for a in numpydoc.ClassDoc(Estimator)["Attributes"]
    }
    est = Estimator(**CHECK_PARAMS.get(name, {}))
    if is_classifier(est):
        X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    else:
        X, y = make_regression(n_samples=60, n_features=4, random_state=0)
        y = y if is_regressor(est) or get_tags(est).target_tags.required else None
    est.fit(X) if y is None else est.fit(X, y)
    fitted = {k for k in vars(est) if k.endswith("_") and not k.startswith("_")}
    missing = sorted(fitted - documented)
    assert not missing, f"{name}: fitted attributes not documented: {missing}"


def test_tour_lists_and_runs_cleanly(capsys):
    from sklearn_iclr.__main__ import main

    assert main(["--list"]) == 0
    listed = capsys.readouterr().out
    from sklearn_iclr._tour import tour_entries

    for entry in tour_entries():
        assert entry.name in listed
        assert entry.name in dict(all_estimators()), f"{entry.name} is not an estimator"


def test_tour_rejects_unknown_names():
    from sklearn_iclr.__main__ import main

    with pytest.raises(SystemExit):
        main(["--only", "NoSuchEstimator"])


def test_gallery_examples_compile():
    import py_compile
    from pathlib import Path

    examples = sorted((Path(__file__).parent.parent / "examples").glob("plot_*.py"))
    assert examples, "no examples/plot_*.py found: the gallery is empty"
    for path in examples:
        py_compile.compile(str(path), doraise=True)


def test_every_estimator_has_a_tour_entry():
    from sklearn_iclr._tour import tour_entries

    missing = {name for name, _ in all_estimators()} - {e.name for e in tour_entries()}
    assert not missing, f"estimators without a tour entry: {sorted(missing)}"
