"""Shared utilities: estimator discovery, input validation and torch glue."""

from ._torch import import_torch, resolve_device, seed_from_random_state, torch_seeded
from .discovery import all_estimators

__all__ = [
    "all_estimators",
    "import_torch",
    "resolve_device",
    "seed_from_random_state",
    "torch_seeded",
]
