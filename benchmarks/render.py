"""Render the tables of ``benchmarks/README.md`` from the JSON results.

A table in the README is written between two markers::

    <!-- results: NAME -->
    (generated: do not edit)
    <!-- /results -->

and this script replaces what lies between them with the rows of
``benchmarks/results/NAME.json`` as a markdown table (the columns the benchmark
printed, in its order), followed by one line of provenance: the commit, the
cores, the BLAS and the package versions of the run. A marker may choose and
label the columns, ``<!-- results: NAME columns: key; key=Label; ... -->``:
the cells still come from the JSON, only the header and the column order are
the README's. The prose around the
markers is the maintainers'; the numbers are the benchmark's.

``python -m benchmarks.render`` rewrites the README; ``--check`` only reports
(exit status 1) the tables that differ from their JSON, as CI runs it.
"""

import argparse
import json
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
RESULTS = HERE / "results"
_BLOCK = re.compile(
    r"(<!-- results: (?P<name>[\w.-]+)(?: columns: (?P<spec>[^\n]*?))? -->\n)"
    r"(?P<body>.*?)(?P<tail><!-- /results -->)",
    flags=re.S,
)


def _cell(value):
    if isinstance(value, bool) or value is None:
        return "-" if value is None else str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        if 1e4 <= abs(value) < 1e12:
            return f"{value:,.0f}"  # 45,870 rather than 4.587e+04
        return f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ", ".join(_cell(v) for v in value)
    return str(value).replace("|", "\\|")


def _provenance(machine):
    if not machine or "versions" not in machine:
        return "*(run recorded before the harness stored its machine)*"
    versions = ", ".join(
        f"{name} {version}"
        for name, version in machine["versions"].items()
        if version and name != "sklearn-iclr"
    )
    blas = ", ".join(
        f"{b.get('internal_api')} {b.get('architecture') or ''} x{b.get('num_threads')}"
        for b in machine.get("blas") or []
    )
    return (
        f"*Run at commit {machine.get('commit') or '?'} on {machine.get('cores')} "
        f"cores; BLAS: {blas or '?'}; {versions}.*"
    )


def _columns(spec, rows):
    """``[(key, label), ...]`` from a marker's ``key; key=Label`` list."""
    known = set(k for r in rows for k in r)
    columns = []
    for item in spec.split(";"):
        key, _, label = item.strip().partition("=")
        key = key.strip()
        if key not in known:
            raise KeyError(f"column {key!r} is not in the rows")
        columns.append((key, label.strip() or key))
    return columns


def render_table(name, spec=None):
    """The markdown of ``results/NAME.json``: the table and its provenance line.

    ``spec`` (``"key; key=Label"``) chooses, orders and labels the columns.
    """
    payload = json.loads((RESULTS / f"{name}.json").read_text())
    rows = payload["rows"]
    if spec:
        columns, labels = zip(*_columns(spec, rows), strict=True)
    else:
        columns = payload.get("columns") or list(
            dict.fromkeys(k for r in rows for k in r)
        )
        labels = columns
    lines = [
        "| " + " | ".join(_cell(c) for c in labels) + " |",
        "|" + "---|" * len(columns),
    ]
    lines += ["| " + " | ".join(_cell(r.get(c)) for c in columns) + " |" for r in rows]
    lines += ["", _provenance(payload.get("machine")), ""]
    return "\n".join(lines)


def render(text):
    """``text`` with every results block regenerated; and the names found."""
    names = []

    def replace(match):
        names.append(match["name"])
        return (
            match.group(1)
            + render_table(match["name"], match["spec"])
            + match.group("tail")
        )

    return _BLOCK.sub(replace, text), names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="report stale tables, change nothing"
    )
    args = parser.parse_args(argv)
    text = README.read_text()
    rendered, names = render(text)
    if args.check:
        stale = [n for n in names if render(_only(text, n))[0] != _only(rendered, n)]
        if stale:
            print(f"tables out of date with their JSON: {', '.join(stale)}")
            print("run: python -m benchmarks.render")
            return 1
        print(f"{len(names)} tables match their JSON results")
        return 0
    README.write_text(rendered)
    print(f"rendered {len(names)} tables into {README.name}")
    return 0


def _only(text, name):
    match = re.search(
        rf"<!-- results: {re.escape(name)}(?: columns: [^\n]*?)? -->\n"
        r".*?<!-- /results -->",
        text,
        re.S,
    )
    return match.group(0)


if __name__ == "__main__":
    sys.exit(main())
