"""Size and coupling of the package's code: the figures issue #39 asks for.

Prints three tables for the ``sklearn_iclr`` tree under ``--root`` (default:
this checkout):

* the largest modules, in lines (as ``wc -l`` counts them);
* the longest functions and methods, in lines from ``def`` to the last line of
  the body (decorators and docstrings included);
* private cross-family imports: an import in one top-level subpackage of
  ``sklearn_iclr`` (a family, ``utils``, ``datasets``, ``_replicable``...) of a
  private module or a private name of another one, counted by imported
  package; those between families (not into the shared ``utils`` and
  ``_replicable``) are listed.

Run ``python -m benchmarks.code_metrics [--root DIR] [--top N]``. The figures
count code, not time, so they need no load average.
"""

import argparse
import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Packages meant to be shared: utils (generic helpers; _compat is the one door
# to private scikit-learn names) and _replicable (maths two families share).
SHARED = ("utils", "_replicable")


def module_lines(package):
    """(lines, path) of every module, largest first."""
    rows = [
        (len(path.read_text().splitlines()), path.relative_to(package.parent))
        for path in package.rglob("*.py")
    ]
    return sorted(rows, key=lambda row: (-row[0], str(row[1])))


def function_lines(package):
    """(lines, qualified name) of every function and method, longest first."""
    rows = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text())
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        stack = [(tree, module)]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef | ast.FunctionDef):
                    name = f"{prefix}.{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        start = min(
                            [child.lineno] + [d.lineno for d in child.decorator_list]
                        )
                        rows.append((child.end_lineno - start + 1, name))
                    stack.append((child, name))
    return sorted(rows, key=lambda row: (-row[0], row[1]))


def _top_level(parts):
    """The top-level subpackage of ``sklearn_iclr`` a dotted path lies in."""
    return parts[1] if len(parts) > 2 else None


def private_cross_family_imports(package):
    """(importing module, imported module, names) of each private import."""
    rows = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        is_package = path.name == "__init__.py"
        source = _top_level(parts + ("x",)) if is_package else _top_level(parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = list(parts if is_package else parts[:-1])
                base = base[: len(base) - node.level + 1]
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.startswith("sklearn_iclr"):
                target = node.module.split(".")
            else:
                continue
            names = [alias.name for alias in node.names]
            target_top = target[1] if len(target) > 1 else None
            if target_top is None or target_top == source:
                continue
            private_module = any(p.startswith("_") for p in target[1:])
            private_names = [n for n in names if n.startswith("_")]
            if private_module or private_names:
                rows.append((".".join(parts), ".".join(target), names))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    package = args.root / "sklearn_iclr"
    modules = module_lines(package)
    print(f"Largest modules ({len(modules)} modules, ", end="")
    print(f"{sum(n for n, _ in modules)} lines in all):")
    for n, path in modules[: args.top]:
        print(f"  {n:5d}  {path}")
    print("Longest functions:")
    for n, name in function_lines(package)[:10]:
        print(f"  {n:5d}  {name}")
    imports = private_cross_family_imports(package)
    by_target = Counter(target.split(".")[1] for _, target, _ in imports)
    counts = ", ".join(f"{top} {n}" for top, n in by_target.most_common())
    print(f"Private cross-family imports: {len(imports)} (by package: {counts})")
    print("  of which between families (neither utils nor _replicable):")
    for source, target, names in imports:
        if target.split(".")[1] not in SHARED:
            print(f"  {source} <- {target}: {', '.join(names)}")


if __name__ == "__main__":
    main()
