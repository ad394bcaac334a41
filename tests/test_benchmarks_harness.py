"""The command line every benchmark shares (``benchmarks/_harness.py``)."""

import pytest

from benchmarks import _harness

TABLES = ("fit", "sampler", "colouring")


def test_tables_default_to_all_in_the_benchmark_s_order(tmp_path):
    args = _harness.bench_arguments("toy", ["--out", str(tmp_path)], tables=TABLES)
    assert args.tables == list(TABLES)


def test_chosen_tables_run_in_the_benchmark_s_order(tmp_path):
    argv = ["--out", str(tmp_path), "--tables", "colouring,fit"]
    args = _harness.bench_arguments("toy", argv, tables=TABLES)
    assert args.tables == ["fit", "colouring"]


def test_an_unknown_table_is_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        _harness.bench_arguments("toy", ["--tables", "fit,plots"], tables=TABLES)
    assert "unknown tables ['plots']" in capsys.readouterr().err


def test_a_quick_run_never_writes_to_the_committed_results():
    args = _harness.bench_arguments("toy", ["--quick"])
    assert args.out != _harness.RESULTS
    assert not hasattr(args, "tables")
