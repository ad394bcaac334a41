"""A small benchmark harness: median timings, ratio tables and JSON results.

Every ``bench_<name>.py`` measures its method and its anchors in one process on
the same data, prints one table with a ratio column per anchor (ratios are
stable on a shared, noisy machine; absolute seconds are not) and writes the rows
to ``benchmarks/results/<name>.json``.
"""

import argparse
import importlib.metadata
import json
import os
import platform
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
_PACKAGES = ("numpy", "scipy", "scikit-learn", "torch", "numba", "sklearn-iclr")
_output_folder = None


def bench_arguments(description, argv=None, configure=None, tables=None):
    """Parse the command line shared by every benchmark.

    ``--quick`` asks for a smoke run of seconds; ``--out DIR`` says where the
    JSON results go. A quick run without ``--out`` writes to a fresh temporary
    folder, so it never overwrites the committed full-run results in
    ``benchmarks/results``. A benchmark of several tables also gets
    ``--tables a,b`` to run some of them.

    Parameters
    ----------
    description : str
        The benchmark's one-line description (``--help``).
    argv : list of str, default=None
        The arguments; ``None`` reads ``sys.argv``.
    configure : callable, default=None
        ``configure(parser)`` adds the benchmark's own options.
    tables : sequence of str, default=None
        The names of the benchmark's tables, in the order they run.

    Returns
    -------
    args : argparse.Namespace
        With ``quick`` and ``out`` (the folder :func:`report` writes to), and
        ``tables`` (the chosen names, in the benchmark's order) when ``tables``
        is given.
    """
    global _output_folder
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="smoke-size run")
    parser.add_argument(
        "--out", type=Path, default=None, help="folder for the JSON results"
    )
    if tables is not None:
        parser.add_argument(
            "--tables",
            default=",".join(tables),
            help=f"comma-separated tables to run, among {', '.join(tables)}",
        )
    if configure is not None:
        configure(parser)
    args = parser.parse_args(argv)
    if tables is not None:
        chosen = args.tables.split(",")
        unknown = sorted(set(chosen) - set(tables))
        if unknown:
            parser.error(f"unknown tables {unknown}; choose among {list(tables)}")
        args.tables = [name for name in tables if name in chosen]
    if args.out is None:
        args.out = Path(tempfile.mkdtemp(prefix="bench-")) if args.quick else RESULTS
    _output_folder = args.out
    return args


def run_metadata():
    """Versions, commit, cores, BLAS and load of this run, stored with every result.

    ``load_average`` is ``os.getloadavg()`` when the rows are written: on a
    shared machine it says how much the absolute times may be inflated.
    """
    versions = {}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).parent,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    import numpy  # noqa: F401  (loads the BLAS that threadpool_info reports)
    from threadpoolctl import threadpool_info

    blas = [
        {k: info.get(k) for k in ("internal_api", "num_threads", "architecture")}
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]
    return {
        "python": platform.python_version(),
        "cpu": platform.machine(),
        "cores": os.cpu_count(),
        "versions": versions,
        "commit": commit or None,
        "blas": blas,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE"),
        "load_average": list(os.getloadavg()),
    }


def median_time(func, repeats=5, warmup=1):
    """Run ``func`` ``warmup`` times untimed, then ``repeats`` times timed.

    Parameters
    ----------
    func : callable
        Called with no argument.
    repeats : int, default=5
        Timed calls.
    warmup : int, default=1
        Untimed calls first (imports, caches, JIT).

    Returns
    -------
    seconds : float
        The median wall time of the timed calls.
    result : object
        What the last call returned.
    """
    result = None
    for _ in range(warmup):
        result = func()
    times = []
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def ratio(value, anchor):
    """``value / anchor`` as a float, ``inf`` when the anchor is 0."""
    return float("inf") if anchor == 0 else value / anchor


def format_table(rows, columns=None, floatfmt="{:.4g}"):
    """Format rows (dicts) as an aligned plain-text table.

    Parameters
    ----------
    rows : list of dict
        One dict per line.
    columns : list of str, default=None
        Column order; ``None`` uses the keys of the first row.
    floatfmt : str, default="{:.4g}"
        Format of float cells.

    Returns
    -------
    table : str
    """
    if not rows:
        return "(no rows)"
    columns = list(columns or rows[0])

    def cell(value):
        if isinstance(value, float):
            return floatfmt.format(value)
        return str(value)

    cells = [[cell(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += [
        "  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in cells
    ]
    return "\n".join(lines)


def report(name, rows, columns=None, title=None, meta=None, machine=None):
    """Print the table and write ``benchmarks/results/<name>.json``.

    Parameters
    ----------
    name : str
        Benchmark name (the JSON file's stem).
    rows : list of dict
        The measurements.
    columns : list of str, default=None
        Column order of the printed table.
    title : str, default=None
        A line printed above the table.
    meta : dict, default=None
        Extra facts stored with the rows (parameters, seeds).
    machine : dict, default=None
        The run's facts; ``None`` is :func:`run_metadata` of this run. A table
        that merges the rows of a rerun into an earlier run's keeps that run's.

    Returns
    -------
    path : pathlib.Path
        Where the JSON went: the folder :func:`bench_arguments` chose
        (``benchmarks/results`` for a full run, a temporary one for ``--quick``).
    """
    if title:
        print(title)
    print(format_table(rows, columns))
    print()
    folder = _output_folder or RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    payload = {
        "benchmark": name,
        "title": title,
        "columns": list(columns) if columns else None,
        "machine": machine or run_metadata(),
        "meta": meta or {},
        "rows": rows,
    }
    path.write_text(json.dumps(payload, indent=2, default=float))
    return path
