"""load_haberman: the de-duplicated Haberman survival data (UCI)."""

import numpy as np
from _uci_loader_checks import (
    check_bunch,
    check_deterministic_and_fresh,
    check_no_network,
    check_provenance,
    check_shapes_and_dtypes,
)

from sklearn_iclr.datasets import load_haberman

FILE = "haberman_283_3D.csv"


def test_shapes_dtypes_and_labels():
    check_shapes_and_dtypes(load_haberman, (283, 3))


def test_bunch_fields():
    check_bunch(load_haberman, FILE, "Haberman")


def test_provenance():
    check_provenance(
        FILE, "c046a3ee5329fc3652b7b884fc030b0c80bc7ffc40a63a5aea291848cd1c73e3", 283
    )


def test_values_follow_the_uci_codebook():
    # UCI: age at operation 30-83, year of operation 58-69 (19xx), positive
    # axillary nodes 0-52, all integers; 306 rows with 225 survivors (class 1,
    # here +1) and 81 deaths (-1). De-duplication removes rows, never adds.
    X, y = load_haberman(return_X_y=True)
    np.testing.assert_array_equal(X, np.round(X))
    np.testing.assert_array_equal(X.min(axis=0), [30, 58, 0])
    np.testing.assert_array_equal(X.max(axis=0), [83, 69, 52])
    n_survived, n_died = np.sum(y == 1), np.sum(y == -1)
    assert n_survived <= 225 and n_died <= 81 and n_survived > 2 * n_died
    assert len(np.unique(X, axis=0)) == len(X)  # de-duplicated


def test_deterministic_and_fresh_arrays():
    check_deterministic_and_fresh(load_haberman)


def test_no_network(monkeypatch):
    check_no_network(load_haberman, monkeypatch)
