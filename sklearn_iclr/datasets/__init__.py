"""Data sets: loaders for shipped real data and ``make_*`` generators.

The generators reproduce the data models of the papers the estimators come
from; tests, examples and benchmarks use them, and so can users.
"""

from ._heavy_tailed import heavy_tailed_population_ridge, make_heavy_tailed_regression
from ._uci import load_caesarian, load_haberman, load_voicepath

__all__ = [
    "heavy_tailed_population_ridge",
    "load_caesarian",
    "load_haberman",
    "load_voicepath",
    "make_heavy_tailed_regression",
]
