"""The benchmark pages: tables and figures come from the JSON, never by hand."""

import json

import pytest

from benchmarks import render


@pytest.fixture
def results(tmp_path, monkeypatch):
    payload = {
        "columns": ["n", "rmse", "seconds"],
        "machine": {},
        "rows": [
            {"n": 1000, "rmse": 0.07341, "seconds": 45870.4},
            {"n": 3000, "rmse": float("nan"), "seconds": 1.5},
        ],
    }
    (tmp_path / "toy.json").write_text(json.dumps(payload))
    monkeypatch.setattr(render, "RESULTS", tmp_path)
    return tmp_path


def test_default_columns_are_the_benchmark_s(results):
    header, body = render.table_cells("toy")
    assert header == ["n", "rmse", "seconds"]
    assert body == [["1000", "0.07341", "45,870"], ["3000", "-", "1.5"]]


def test_a_spec_chooses_orders_and_labels_columns(results):
    header, body = render.table_cells("toy", "seconds=wall s; n")
    assert header == ["wall s", "n"]
    assert body == [["45,870", "1000"], ["1.5", "3000"]]


def test_a_key_may_hold_an_equals_sign(tmp_path, monkeypatch):
    rows = [{"seeds err<=1": 5, "a": 1}]
    (tmp_path / "eq.json").write_text(json.dumps({"rows": rows}))
    monkeypatch.setattr(render, "RESULTS", tmp_path)
    header, body = render.table_cells("eq", "seeds err<=1; a=x=1")
    assert header == ["seeds err<=1", "x=1"]
    assert body == [["5", "1"]]


def test_unknown_column_is_an_error(results):
    with pytest.raises(KeyError, match="nope"):
        render.table_cells("toy", "n; nope=Label")


@pytest.fixture
def cells(tmp_path, monkeypatch):
    payload = {
        "machine": {},
        "rows": [
            {"k": 3, "method": "a", "n": 1, "overlap": 0.5, "s": 1.0},
            {"k": 3, "method": "a", "n": 2, "overlap": 0.75, "s": 2.0},
            {"k": 3, "method": "b", "n": 1, "overlap": 0.25, "s": 3.0},
            {"k": 4, "method": "a", "n": 2, "overlap": 1.0, "s": 4.0},
        ],
    }
    (tmp_path / "cells.json").write_text(json.dumps(payload))
    monkeypatch.setattr(render, "RESULTS", tmp_path)
    return tmp_path


def test_pivot_spreads_a_key_over_columns(cells):
    header, body = render.table_cells("cells", "k; method=Method", "n=overlap")
    assert header == ["k", "Method", "1", "2"]
    # lines keep the order of first appearance; a missing cell is "-"
    assert body == [
        ["3", "a", "0.5", "0.75"],
        ["3", "b", "0.25", "-"],
        ["4", "a", "-", "1"],
    ]


def test_pivot_refuses_two_values_for_one_cell(cells):
    with pytest.raises(ValueError, match="two rows"):
        render.table_cells("cells", "k", "n=overlap")


def test_pivot_needs_columns_and_known_keys(cells):
    with pytest.raises(ValueError, match="needs the columns"):
        render.table_cells("cells", None, "n=overlap")
    with pytest.raises(KeyError, match="nope"):
        render.table_cells("cells", "k; method", "n=nope")


@pytest.mark.parametrize(
    "text, escaped",
    [
        ("-0.5", "\\-0.5"),
        ("|w_z/w_y| mean", "\\|w\\_z/w\\_y\\| mean"),
        ("rmse*sqrt(n)", "rmse\\*sqrt(n)"),
        ("1. first", "\\1. first"),
        ("plain 1.5", "plain 1.5"),
    ],
)
def test_cells_are_escaped_for_rst(text, escaped):
    assert render.rst_escape(text) == escaped


def test_a_table_is_an_rst_list_table_with_its_provenance(results):
    text = render.table_rst({"results": "toy", "columns": "n; rmse=RMSE"})
    assert text.startswith(".. list-table::\n   :header-rows: 1\n\n   * - n\n")
    assert "   * - 3000\n     - \\-\n" in text  # a missing cell, escaped
    assert "     - RMSE\n   * - 1000\n     - 0.07341\n" in text
    assert "*Run recorded before the harness stored its machine.*" in text


def _page(**figure):
    figure = {"results": "toy", "x": "n", "y": "rmse", **figure}
    return {
        "title": "Toy",
        "estimators": {"Toy": "met"},
        "claim": "c",
        "findings": "f",
        "sections": [{"title": "S", "figures": [figure], "tables": []}],
    }


def test_a_page_is_checked_before_rendering():
    render.validate_page("toy", _page())
    no_figure = _page()
    no_figure["sections"][0]["figures"] = []
    with pytest.raises(render.PageError, match="no figure"):
        render.validate_page("toy", no_figure)
    bad_status = _page()
    bad_status["estimators"] = {"Toy": "done"}
    with pytest.raises(render.PageError, match="not one of"):
        render.validate_page("toy", bad_status)
    with pytest.raises(render.PageError, match="unknown"):
        render.validate_page("toy", _page(colour="red"))


def test_a_figure_is_drawn_from_its_json_and_knows_when_it_is_stale(results, tmp_path):
    figure = _page(logx=True)["sections"][0]["figures"][0]
    path = tmp_path / "figures" / "toy-1.png"
    assert render.stored_digest(path) is None
    render.draw_figure(figure, path)
    assert path.read_bytes().startswith(b"\x89PNG")
    assert render.stored_digest(path) == render.figure_digest(figure)
    # a new result in the JSON makes the figure stale
    payload = json.loads((results / "toy.json").read_text())
    payload["rows"].append({"n": 9000, "rmse": 0.01, "seconds": 2.0})
    (results / "toy.json").write_text(json.dumps(payload))
    assert render.stored_digest(path) != render.figure_digest(figure)


def test_a_figure_keeps_the_rows_of_where_and_refuses_unknown_keys(cells):
    figure = {"results": "cells", "x": "n", "y": "overlap", "where": {"k": 3}}
    assert [r["overlap"] for r in render.figure_rows(figure)] == [0.5, 0.75, 0.25]
    figure["where"] = {"method": ["b"]}
    assert [r["overlap"] for r in render.figure_rows(figure)] == [0.25]
    with pytest.raises(KeyError, match="nope"):
        render.figure_rows({"results": "cells", "x": "n", "y": "nope"})


def test_a_table_keeps_the_rows_of_where(cells):
    header, body = render.table_cells("cells", "method; n", where={"k": 3, "n": [2]})
    assert body == [["a", "2"]]


def test_an_estimator_page_ends_with_its_rows_of_the_growth_table(
    tmp_path, monkeypatch
):
    rows = [
        {"estimator": "A", "axis": "n", "slope": 1.02},
        {"estimator": "B", "axis": "n", "slope": 2.5},
        {"estimator": "A", "axis": "d", "slope": 1.9},
    ]
    (tmp_path / "growth.json").write_text(json.dumps({"rows": rows, "machine": {}}))
    monkeypatch.setattr(render, "RESULTS", tmp_path)
    monkeypatch.setattr(render, "GROWTH_COLUMNS", "estimator; axis; slope")
    lines = "\n".join(render.growth_section({"estimators": {"A": "met"}}))
    assert "Growth with the data size" in lines
    assert "1.02" in lines and "1.9" in lines and "2.5" not in lines
    assert render.growth_section({"estimators": {"C": "met"}}) == []
    assert render.growth_section({"estimators": {}}) == []


def test_every_benchmark_has_a_page_and_every_result_a_benchmark():
    pages = render.load_pages()
    assert sorted(pages) == render.benchmark_names()
    assert render.orphan_results(pages) == []


def test_the_pages_figures_and_indexes_are_rendered_and_current():
    # Issue #40: the pages, figures, docs index, benchmarks/README.md list and
    # the README's estimator table are what the JSON gives (run
    # `python -m benchmarks.render` after a benchmark run).
    assert render.check(render.load_pages()) == []


def test_the_benchmarks_readme_is_a_short_index():
    # Issue #40: the 4,702-line notebook became a 50-line index; a merge once
    # brought the old text back unnoticed, since only the rendered list is
    # checked against the JSON.
    assert len(render.BENCH_README.read_text().splitlines()) < 100
