"""``python -m benchmarks NAME [--quick] [--out DIR] [options]``: run one benchmark.

``NAME`` is the ``<name>`` of ``benchmarks/bench_<name>.py`` (``all`` runs every
one in turn). Every benchmark takes ``--quick`` (a smoke run of seconds to a
minute, written to a temporary folder unless ``--out`` is given) and ``--out``;
``python -m benchmarks NAME --help`` lists its own options.
"""

import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def available():
    """The benchmark names, sorted."""
    return sorted(p.stem.removeprefix("bench_") for p in HERE.glob("bench_*.py"))


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    names = available()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        print("benchmarks:", ", ".join(names))
        return 0
    name, rest = argv[0], argv[1:]
    if name != "all" and name not in names:
        print(f"unknown benchmark {name!r}; known: {', '.join(names)}", file=sys.stderr)
        return 2
    # The benchmarks import their shared helpers as ``_harness``.
    sys.path.insert(0, str(HERE))
    for each in names if name == "all" else [name]:
        start = time.perf_counter()
        print(f"== bench_{each} {' '.join(rest)}", flush=True)
        importlib.import_module(f"bench_{each}").main(rest)
        print(f"== bench_{each}: {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
