"""The data sources of ``benchmarks/bench_scale.py``: one task per block."""

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench_scale(monkeypatch):
    # The benchmarks import their harness as a top-level module.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import bench_scale

    return bench_scale


def _graph(arrays):
    graph = {}
    for array in arrays:
        graph.update(dict(array.__dask_graph__()))
    return graph


@pytest.mark.parametrize("source", ["generated", "resampled"])
def test_a_source_draws_block_i_of_every_array_in_one_task(bench_scale, source):
    n, d, chunk = 120_000, 4, 50_000
    data = bench_scale.data_source("lstdq", source)
    arrays = data(n, d, chunk)
    # 3 blocks: one task drawing each, one taking each array's item from it.
    assert len(_graph(arrays)) == 3 + 3 * 3
    assert [a.chunks[0] for a in arrays] == [(50_000, 50_000, 20_000)] * 3

    import dask

    X, y, X_next = dask.compute(*arrays, scheduler="synchronous")
    assert X.shape == X_next.shape == (n, d) and y.shape == (n,)
    if source == "generated":
        # Row i + 1 of a block is the next state of row i; its last row is
        # terminal.
        for start, stop in [(0, 50_000), (50_000, 100_000), (100_000, n)]:
            np.testing.assert_array_equal(
                X_next[start : stop - 1], 0.9 * X[start + 1 : stop]
            )
            np.testing.assert_array_equal(X_next[stop - 1], 0.0)


def test_persisted_arrays_have_one_key_per_block_held_on_one_worker(bench_scale):
    from distributed import Client, LocalCluster

    n, d, chunk = 200_000, 4, 50_000
    with (
        LocalCluster(
            n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        arrays = bench_scale.persist_together(
            client, bench_scale.lstdq_generated(n, d, chunk)
        )
        graph = _graph(arrays)
        assert len(graph) == 3 * 4
        where = client.who_has()
        for i in range(4):
            keys = [a.__dask_keys__()[i] for a in arrays]
            keys = [k[0] if isinstance(k, list) else k for k in keys]
            assert len({tuple(where[key]) for key in keys}) == 1
