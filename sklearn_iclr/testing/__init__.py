"""Property-testing tools for sklearn_iclr estimators and for estimators of your own.

:func:`check_invariants` checks, on examples that hypothesis draws, the
invariants an estimator promises (scale equivariance from 1e-300 to 1e300,
row order, determinism, clone and pickle, budgets refused before any work, no
silent NaN); :class:`Invariants` declares them and :class:`FitData` holds the
training problem. :func:`declared_invariants` gives the declaration of each
sklearn_iclr estimator. ``sklearn_iclr.testing.strategies`` holds hypothesis
strategies that draw valid inputs for each estimator, and
``sklearn_iclr.testing.invariants`` single checks (row order, refit, class
relabelling).

hypothesis is needed here only: install the ``[testing]`` extra
(``pip install "sklearn-iclr[testing]"``). It is imported when a check runs or
the strategies are used, not when this package is imported.
"""

import importlib

from . import invariants
from ._check import check_invariants
from ._declarations import FitData, Invariants
from ._registry import declared_invariants

__all__ = [
    "FitData",
    "Invariants",
    "check_invariants",
    "declared_invariants",
    "invariants",
    "strategies",
]


def __getattr__(name):
    if name != "strategies":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return importlib.import_module(f"{__name__}.strategies")
    except ImportError as exc:
        if exc.name != "hypothesis":
            raise
        raise ImportError(
            "sklearn_iclr.testing.strategies needs hypothesis, which is not "
            "installed. Install the optional extra: "
            'pip install "sklearn-iclr[testing]".'
        ) from exc
