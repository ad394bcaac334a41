"""``python -m sklearn_iclr``: the tour of the package's estimators."""

import argparse
import sys

from sklearn_iclr._tour import run_tour, tour_entries


def main(argv=None):
    """Parse the command line and run the tour; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m sklearn_iclr",
        description="Fit every sklearn_iclr estimator on its built-in data inside "
        "a Pipeline, tune one hyperparameter with GridSearchCV and compare it "
        "with its anchor.",
    )
    parser.add_argument(
        "--only", nargs="+", metavar="NAME", help="run only these estimators"
    )
    parser.add_argument(
        "--list", action="store_true", help="list the registered entries and exit"
    )
    args = parser.parse_args(argv)
    if args.list:
        for entry in tour_entries():
            print(f"{entry.name:<30} {entry.dataset}  (anchor: {entry.anchor})")
        return 0
    known = sorted(entry.name for entry in tour_entries())
    unknown = sorted(set(args.only or ()) - set(known))
    if unknown:
        # Checked here, not by catching run_tour's ValueError, so that an error
        # raised inside an entry keeps its traceback.
        parser.error(f"Unknown tour entries {unknown}; known: {known}")
    run_tour(only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
