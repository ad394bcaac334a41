"""The README renderer of the benchmarks: tables come from the JSON, never by hand."""

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
    lines = render.render_table("toy").splitlines()
    assert lines[0] == "| n | rmse | seconds |"
    assert lines[2] == "| 1000 | 0.07341 | 45,870 |"
    assert lines[3] == "| 3000 | - | 1.5 |"


def test_marker_chooses_orders_and_labels_columns(results):
    text = (
        "a\n<!-- results: toy columns: seconds=wall s; n -->\n"
        "stale\n<!-- /results -->\n"
    )
    rendered, names = render.render(text)
    assert names == ["toy"]
    assert "| wall s | n |\n|---|---|\n| 45,870 | 1000 |\n| 1.5 | 3000 |" in rendered
    assert "stale" not in rendered
    # the marker line itself is kept, so a second rendering changes nothing
    assert render.render(rendered)[0] == rendered


def test_a_key_may_hold_an_equals_sign(tmp_path, monkeypatch):
    rows = [{"seeds err<=1": 5, "a": 1}]
    (tmp_path / "eq.json").write_text(json.dumps({"rows": rows}))
    monkeypatch.setattr(render, "RESULTS", tmp_path)
    lines = render.render_table("eq", "seeds err<=1; a=x=1").splitlines()
    assert lines[0] == "| seeds err<=1 | x=1 |"
    assert lines[2] == "| 5 | 1 |"


def test_unknown_column_is_an_error(results):
    with pytest.raises(KeyError, match="nope"):
        render.render_table("toy", "n; nope=Label")


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
    lines = render.render_table("cells", "k; method=Method", "n=overlap").splitlines()
    assert lines[0] == "| k | Method | 1 | 2 |"
    assert lines[1] == "|---|---|---|---|"
    # lines keep the order of first appearance; a missing cell is "-"
    assert lines[2:5] == [
        "| 3 | a | 0.5 | 0.75 |",
        "| 3 | b | 0.25 | - |",
        "| 4 | a | - | 1 |",
    ]
    assert lines[5] == ""


def test_pivot_marker_round_trips(cells):
    text = (
        "<!-- results: cells columns: k; method pivot: n=overlap -->\n"
        "old\n<!-- /results -->\n"
    )
    rendered, names = render.render(text)
    assert names == ["cells"]
    assert "| k | method | 1 | 2 |" in rendered and "old" not in rendered
    assert render.render(rendered)[0] == rendered
    assert render.stale_blocks(rendered) == []
    assert render.stale_blocks(text) == ["cells"]


def test_pivot_refuses_two_values_for_one_cell(cells):
    with pytest.raises(ValueError, match="two rows"):
        render.render_table("cells", "k", "n=overlap")


def test_pivot_needs_columns_and_known_keys(cells):
    with pytest.raises(ValueError, match="needs the columns"):
        render.render_table("cells", None, "n=overlap")
    with pytest.raises(KeyError, match="nope"):
        render.render_table("cells", "k; method", "n=nope")


def test_marker_options_are_checked():
    assert render._parse_options("") == {}
    assert render._parse_options(" columns: a; b=B pivot: c=d") == {
        "columns": "a; b=B",
        "pivot": "c=d",
    }
    with pytest.raises(ValueError, match="cannot read"):
        render._parse_options(" colums: a")
    with pytest.raises(ValueError, match="repeated"):
        render._parse_options(" columns: a columns: b")


def test_unrendered_tables_are_listed_unless_marked(results):
    text = "\n".join(
        [
            "## One",
            "Caption.",
            "",
            "| a | b |",
            "|---|---|",
            "| 1 | 2 |",
            "",
            "Figures of an old run (hand-written: the run took two hours).",
            "| a | b |",
            "|---|---|",
            "",
            "<!-- not results -->",
            "| name | what |",
            "|---|---|",
            "",
            "## Two",
            "```",
            "  n  rmse",
            "---  ----",
            "  1   0.5",
            "```",
            "```",
            "python -m benchmarks toy  # a command, not a table",
            "```",
            "<!-- results: toy -->",
            "| n | rmse | seconds |",
            "|---|---|---|",
            "<!-- /results -->",
        ]
    )
    found = render.unrendered_tables(text)
    assert [(line, chapter) for line, chapter, _ in found] == [
        (4, "## One"),
        (18, "## Two"),
    ]


def test_check_fails_on_stale_or_unmarked_tables(results, tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    monkeypatch.setattr(render, "README", readme)
    block = "<!-- results: toy -->\nstale\n<!-- /results -->\n"
    readme.write_text("## A\n" + block)
    assert render.main(["--check"]) == 1  # stale
    assert render.main([]) == 0  # rewrites it
    assert render.main(["--check"]) == 0
    readme.write_text(readme.read_text() + "\n| a |\n|---|\n")
    assert render.main(["--check"]) == 1  # a table nobody renders
    readme.write_text(
        readme.read_text().replace("\n| a |", "(hand-written: why)\n| a |")
    )
    assert render.main(["--check"]) == 0


def test_the_readme_tables_are_rendered_and_current():
    text = render.README.read_text()
    assert render.stale_blocks(text) == []
    assert list(render.unrendered_tables(text)) == []
