"""Data sets: loaders for shipped real data and ``make_*`` generators.

The generators reproduce the data models of the papers the estimators come
from; tests, examples and benchmarks use them, and so can users.
"""

from ._cnf import make_random_kcnf, read_dimacs_cnf
from ._contrastive import (
    make_laplace_classification,
    make_long_tailed_sparse_coding,
    make_sparse_coding_pairs,
)
from ._cot_parity import make_cot_parity
from ._heavy_tailed import heavy_tailed_population_ridge, make_heavy_tailed_regression
from ._ising import make_regular_coupling, make_truncated_ising
from ._lds import make_lds
from ._matching import make_matching_market
from ._mdp import make_linear_mdp_dataset, make_tabular_mdp
from ._moving_edges import make_moving_edges
from ._patch_anomalies import make_patch_anomalies
from ._phase_retrieval import make_power_law_phase_retrieval, power_law_spectrum
from ._single_index import make_single_index, make_tensor_pca
from ._sparse_token import load_digit_bags, make_sparse_token
from ._spectral_bias import make_multifrequency_sine
from ._spurious import load_spurious_digits, make_spurious_correlation
from ._token_recall import make_token_recall
from ._uci import load_caesarian, load_haberman, load_voicepath

__all__ = [
    "heavy_tailed_population_ridge",
    "load_caesarian",
    "load_digit_bags",
    "load_haberman",
    "load_spurious_digits",
    "load_voicepath",
    "make_cot_parity",
    "make_heavy_tailed_regression",
    "make_laplace_classification",
    "make_lds",
    "make_linear_mdp_dataset",
    "make_matching_market",
    "make_moving_edges",
    "make_long_tailed_sparse_coding",
    "make_multifrequency_sine",
    "make_patch_anomalies",
    "make_power_law_phase_retrieval",
    "make_random_kcnf",
    "make_regular_coupling",
    "make_single_index",
    "make_sparse_token",
    "make_spurious_correlation",
    "make_tabular_mdp",
    "make_tensor_pca",
    "make_truncated_ising",
    "power_law_spectrum",
    "read_dimacs_cnf",
    "make_token_recall",
    "make_sparse_coding_pairs",
]
