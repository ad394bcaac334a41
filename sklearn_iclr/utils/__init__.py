"""Shared utilities: estimator discovery, input validation and torch glue.

Nothing here imports torch at import time; the torch helpers load it when
called.
"""

from ._budget import check_work_budget
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
    "all_estimators",
    "build_mlp",
    "check_work_budget",
    "epoch_history",
    "fit_skorch_net",
    "import_torch",
    "module_outputs",
    "resolve_device",
    "seed_from_random_state",
    "torch_num_threads",
    "torch_seeded",
    "warn_user",
]
