"""A small benchmark harness: median timings, ratio tables and JSON results.

Every ``bench_<name>.py`` measures its method and its anchors in one process on
the same data, prints one table with a ratio column per anchor (ratios are
stable on a shared, noisy machine; absolute seconds are not) and writes the rows
to ``benchmarks/results/<name>.json``.
"""

import json
import platform
import statistics
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


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


def report(name, rows, columns=None, title=None, meta=None):
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

    Returns
    -------
    path : pathlib.Path
        Where the JSON went.
    """
    if title:
        print(title)
    print(format_table(rows, columns))
    print()
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    payload = {
        "benchmark": name,
        "machine": {"python": platform.python_version(), "cpu": platform.machine()},
        "meta": meta or {},
        "rows": rows,
    }
    path.write_text(json.dumps(payload, indent=2, default=float))
    return path
