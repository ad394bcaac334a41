"""Render the tables of ``benchmarks/README.md`` from the JSON results.

A table in the README is written between two markers::

    <!-- results: NAME -->
    (generated: do not edit)
    <!-- /results -->

and this script replaces what lies between them with the rows of
``benchmarks/results/NAME.json`` as a markdown table (the columns the benchmark
printed, in its order), followed by one line of provenance: the commit, the
cores, the BLAS and the package versions of the run. The prose around the
markers is the maintainers'; the numbers are the benchmark's.

Two clauses may follow the name in the opening marker:

``columns: key; key=Label; ...``
    choose, order and label the columns: the cells still come from the JSON,
    only the header and the column order are the README's.
``pivot: KEY=VALUE``
    one line per distinct combination of the ``columns`` (which are then
    required), and one more column per distinct value of ``KEY``, in the
    order of the rows, headed by that value and holding ``VALUE``. For
    example ``<!-- results: cells columns: k; d pivot: n=overlap -->`` turns
    rows ``{k, d, n, overlap}`` into a ``k x d`` table with a column per ``n``.

A results table outside such a block must say why on the line just above it,
``(hand-written: <reason>)``; a table that holds no results (an index)
carries ``<!-- not results -->`` there instead.

``python -m benchmarks.render`` rewrites the README; ``--check`` changes
nothing and exits with status 1 when a table differs from its JSON or when a
table is neither rendered nor marked, as CI runs it.
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
    r"(<!-- results: (?P<name>[\w.-]+)(?P<options>[^\n]*?) -->\n)"
    r"(?P<body>.*?)(?P<tail><!-- /results -->)",
    flags=re.S,
)
_CLAUSE = re.compile(r"\s(columns|pivot):\s")
_EXEMPT = re.compile(r"\(hand-written: [^)]+\)|<!-- not results -->")
_PLAIN_RULE = re.compile(r"^\s*-{2,}(\s+-{2,})+\s*$")  # format_table's rule


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


def _parse_options(options):
    """``{"columns": spec, "pivot": spec}`` from the text after a marker's name."""
    parts = _CLAUSE.split(" " + options.strip()) if options.strip() else [""]
    if parts[0].strip():
        raise ValueError(f"cannot read marker options {options.strip()!r}")
    clauses = dict(zip(parts[1::2], (p.strip() for p in parts[2::2]), strict=True))
    if len(clauses) != len(parts[1::2]):
        raise ValueError(f"a clause is repeated in {options.strip()!r}")
    return clauses


def _split(item, known):
    """``(key, label)`` of ``key=Label`` or ``key``; a key may itself hold ``=``."""
    item = item.strip()
    if item in known:
        return item, item
    for i, char in enumerate(item):
        if char == "=" and item[:i].strip() in known:
            return item[:i].strip(), item[i + 1 :].strip() or item[:i].strip()
    raise KeyError(f"column {item.partition('=')[0].strip()!r} is not in the rows")


def _columns(spec, rows):
    """``[(key, label), ...]`` from a marker's ``key; key=Label`` list."""
    known = set(k for r in rows for k in r)
    return [_split(item, known) for item in spec.split(";")]


def _pivot(rows, index, spec):
    """Rows keyed by ``index`` with one column per value of ``spec``'s KEY."""
    known = set(k for r in rows for k in r)
    key, value = _split(spec, known)
    if value not in known or value == key:
        raise KeyError(f"pivot value {value!r} is not in the rows")
    lines = {}
    for r in rows:
        keys = tuple(_cell(r.get(c)) for c in index)
        line = lines.setdefault(keys, {})
        if _cell(r.get(key)) in line:
            raise ValueError(f"two rows for {keys} and {key}={r.get(key)!r}")
        line[_cell(r.get(key))] = r.get(value)
    heads = list(dict.fromkeys(_cell(r.get(key)) for r in rows))
    body = [
        list(keys) + [_cell(cells.get(h)) for h in heads]
        for keys, cells in lines.items()
    ]
    return heads, body


def render_table(name, spec=None, pivot=None):
    """The markdown of ``results/NAME.json``: the table and its provenance line.

    ``spec`` (``"key; key=Label"``) chooses, orders and labels the columns;
    ``pivot`` (``"KEY=VALUE"``) spreads ``VALUE`` over one column per ``KEY``.
    """
    payload = json.loads((RESULTS / f"{name}.json").read_text())
    rows = payload["rows"]
    if pivot and not spec:
        raise ValueError(f"{name}: a pivot needs the columns that key its lines")
    if spec:
        columns, labels = zip(*_columns(spec, rows), strict=True)
    else:
        columns = payload.get("columns") or list(
            dict.fromkeys(k for r in rows for k in r)
        )
        labels = columns
    if pivot:
        heads, body = _pivot(rows, columns, pivot)
        labels = list(labels) + heads
    else:
        body = [[_cell(r.get(c)) for c in columns] for r in rows]
    lines = [
        "| " + " | ".join(_cell(c) for c in labels) + " |",
        "|" + "---|" * len(labels),
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    lines += ["", _provenance(payload.get("machine")), ""]
    return "\n".join(lines)


def _render_block(match):
    options = _parse_options(match["options"])
    table = render_table(match["name"], options.get("columns"), options.get("pivot"))
    return match.group(1) + table + match.group("tail")


def render(text):
    """``text`` with every results block regenerated; and the names found."""
    names = []

    def replace(match):
        names.append(match["name"])
        return _render_block(match)

    return _BLOCK.sub(replace, text), names


def stale_blocks(text):
    """The names of the blocks of ``text`` whose table differs from the JSON."""
    return [m["name"] for m in _BLOCK.finditer(text) if _render_block(m) != m[0]]


def unrendered_tables(text):
    """The tables of ``text`` outside results blocks: ``[(line, chapter, head)]``.

    A table is a markdown pipe table or a fenced plain-text table (a rule of
    dashes, as ``_harness.format_table`` prints); ``chapter`` is the ``## ``
    heading it is under. A table whose line above
    (the nearest non-blank one) says ``(hand-written: reason)`` or
    ``<!-- not results -->`` is not listed.
    """
    blocked = set()
    for m in _BLOCK.finditer(text):
        first = text.count("\n", 0, m.start())
        blocked.update(range(first, first + m[0].count("\n") + 1))
    lines = text.split("\n")
    found, section, fence_start, previous = [], "", None, ""
    for i, line in enumerate(lines):
        if line.startswith("## ") and fence_start is None:
            section = line
        if line.startswith("```"):
            fence_start = i if fence_start is None else None
            if fence_start is not None:
                caption, fenced_table = previous, False
            previous = line
            continue
        if i in blocked:
            previous = line if line.strip() else previous
            continue
        if fence_start is not None:
            if _PLAIN_RULE.match(line) and not fenced_table:
                fenced_table = True
                if not _EXEMPT.search(caption):
                    found.append((fence_start + 2, section, lines[fence_start + 1]))
            continue
        is_start = line.startswith("|") and not lines[i - 1].startswith("|")
        if is_start and not _EXEMPT.search(previous):
            found.append((i + 1, section, line))
        if line.strip():
            previous = line
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="report stale tables, change nothing"
    )
    args = parser.parse_args(argv)
    text = README.read_text()
    if not args.check:
        rendered, names = render(text)
        README.write_text(rendered)
        print(f"rendered {len(names)} tables into {README.name}")
        return 0
    status = 0
    names = [m["name"] for m in _BLOCK.finditer(text)]
    stale = stale_blocks(text)
    if stale:
        print(f"tables out of date with their JSON: {', '.join(stale)}")
        print("run: python -m benchmarks.render")
        status = 1
    else:
        print(f"{len(names)} tables match their JSON results")
    for line, chapter, head in unrendered_tables(text):
        print(
            f"README.md:{line} ({chapter}): table neither rendered nor marked "
            "hand-written"
        )
        print(f"    {head[:80]}")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
