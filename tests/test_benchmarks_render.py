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


def test_unknown_column_is_an_error(results):
    with pytest.raises(KeyError, match="nope"):
        render.render_table("toy", "n; nope=Label")
