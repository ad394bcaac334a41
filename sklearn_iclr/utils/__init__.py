"""Shared utilities: estimator discovery, input validation and torch glue.

Nothing here imports torch at import time; the torch helpers load it when
called. ``utils`` holds only what two or more families share
(docs/conventions.rst); paper-specific maths lives in its family, and the
family's data generators in ``sklearn_iclr.datasets`` import it from there.
The private modules and the families that use them
(``tests/test_conventions.py`` checks the list):

* ``_budget``, ``_cost``: up-front refusals of work (``check_work_budget``,
  ``check_count_budget``) and the one calibrated cost table they read, in most
  families;
* ``_compat``: every private scikit-learn and skorch name, in every family;
* ``_warnings``: ``warn_user``, in most families;
* ``_torch``, ``_skorch``: torch import, seeding, devices and skorch training,
  in ``neural_network``, ``linear_model``, ``events`` (and ``single_index`` for
  ``_torch``);
* ``_compile_timer``: ``CompileTimer``, numba's compilation time apart from
  run time, for the tour and the benchmarks;
* ``_estimator_checks``: ``expected_failed_checks``, the scikit-learn checks each
  estimator fails by design and why (the table lives in
  ``sklearn_iclr/_expected_failed_checks.py``), for users' and the project's
  common tests;
* ``_dask``: Dask input (type detection without importing Dask, blockwise
  sufficient statistics, lazy row-wise outputs), in ``rl``, ``linear_model`` and
  ``covariance``.
"""

from ._budget import WorkBudgetError, check_count_budget, check_work_budget
from ._compile_timer import CompileTimer
from ._cost import estimate_seconds, format_duration
from ._estimator_checks import expected_failed_checks
from ._skorch import (
    build_mlp,
    epoch_history,
    fit_skorch_net,
    module_outputs,
    torch_num_threads,
)
from ._torch import import_torch, resolve_device, seed_from_random_state, torch_seeded
from ._warnings import warn_user
from .discovery import all_estimators

__all__ = [
    "CompileTimer",
    "WorkBudgetError",
    "all_estimators",
    "build_mlp",
    "check_count_budget",
    "check_work_budget",
    "epoch_history",
    "estimate_seconds",
    "expected_failed_checks",
    "fit_skorch_net",
    "format_duration",
    "import_torch",
    "module_outputs",
    "resolve_device",
    "seed_from_random_state",
    "torch_num_threads",
    "torch_seeded",
    "warn_user",
]
