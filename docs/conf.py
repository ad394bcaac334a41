"""Sphinx configuration: numpydoc, autosummary over all_estimators(), gallery.

Each estimator's API page links its benchmark page (the benchmark whose
``PAGE`` gives its status, ``benchmarks/render.py``) and its gallery examples
(the examples that name it), through ``autosummary_context`` and the class template.
"""

import importlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sklearn_iclr
from benchmarks import render
from sklearn_iclr.utils import all_estimators
from sklearn_iclr.utils.discovery import SUBPACKAGES

project = "sklearn-iclr"
author = "sklearn-iclr developers"
release = sklearn_iclr.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
autosummary_generate = True
templates_path = ["_templates"]
numpydoc_show_class_members = False
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py"]
html_theme = "pydata_sphinx_theme"
# The header must fit at 1280 px: a short brand (the default title, "sklearn-iclr
# 0.1.0.dev0 documentation", takes a third of the bar), at most four top-level
# links (more go under "More"), and the search as an icon instead of the wide
# "Search Ctrl+K" field. Not checked in a browser here; see tests/test_docs_conf.py.
html_title = project
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_favicon = "_static/favicon.svg"
# Without a stored choice the theme reads an empty mode and logs a console
# error ("Got invalid theme mode"); the browser check of CI found it.
html_context = {"default_mode": "auto"}
html_theme_options = {
    "header_links_before_dropdown": 4,
    "navbar_align": "left",
    "logo": {"text": project},
    "navbar_persistent": ["search-button"],
}
intersphinx_mapping = {}
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": "/plot_",
    "download_all_examples": False,
}


def _write_api_reference():
    """Write api.rst: every public name of every family, then datasets and metrics."""
    lines = ["API reference", "=============", ""]
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"sklearn_iclr.{sub}")
        names = sorted(getattr(module, "__all__", ()))
        if not names:
            continue
        title = f"sklearn_iclr.{sub}"
        lines += [title, "-" * len(title), "", f".. automodule:: {title}", ""]
        lines += [f".. currentmodule:: {title}", ""]
        lines += [".. autosummary::", "   :toctree: generated/", ""]
        lines += [f"   {n}" for n in names] + [""]
    for module in ("datasets", "metrics", "testing"):
        title = f"sklearn_iclr.{module}"
        lines += [title, "-" * len(title), "", f".. automodule:: {title}"]
        lines += ["   :members:", ""]
    (Path(__file__).parent / "api.rst").write_text("\n".join(lines))


_write_api_reference()


def _estimator_links():
    """``({class name: benchmark}, {class name: [example stems]})``."""
    # A benchmark without a PAGE yet is skipped here; render --check fails on it.
    pages = {name: render.read_page(name) for name in render.benchmark_names()}
    benchmarks = {
        cls: name
        for name, page in pages.items()
        if page is not None
        for cls in page["estimators"]
    }
    examples = {}
    sources = {
        p.stem: p.read_text() for p in sorted((ROOT / "examples").glob("plot_*.py"))
    }
    for name, _ in all_estimators():
        examples[name] = [
            stem for stem, text in sources.items() if re.search(rf"\b{name}\b", text)
        ]
    return benchmarks, examples


_benchmark_pages, _example_pages = _estimator_links()
autosummary_context = {
    "benchmark_pages": _benchmark_pages,
    "example_pages": _example_pages,
}


def _write_estimator_table():
    """Write estimators.rst: every estimator, its family and its summary line."""
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - estimator"]
    lines += ["     - family", "     - what it does"]
    for name, cls in all_estimators():
        family = cls.__module__.split(".")[1]
        summary = (cls.__doc__ or "").strip().splitlines()[0]
        lines += [f"   * - :class:`~sklearn_iclr.{name}`", f"     - ``{family}``"]
        lines += [f"     - {summary}"]
    (Path(__file__).parent / "estimators.rst").write_text("\n".join(lines) + "\n")


_write_estimator_table()


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document only what sklearn_iclr defines (not sklearn's inherited API)."""
    module = getattr(obj, "__module__", None) or ""
    if what == "class" and not module.startswith("sklearn_iclr"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_members)
