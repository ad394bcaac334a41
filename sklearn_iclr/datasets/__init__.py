"""Data sets: loaders for shipped real data and ``make_*`` generators.

The generators reproduce the data models of the papers the estimators come
from; tests, examples and benchmarks use them, and so can users.
"""

from ._spurious import load_spurious_digits, make_spurious_correlation
from ._uci import load_caesarian, load_haberman, load_voicepath

__all__ = [
    "load_caesarian",
    "load_haberman",
    "load_spurious_digits",
    "load_voicepath",
    "make_spurious_correlation",
]
