"""load_caesarian: the de-duplicated Caesarian section data (UCI)."""

import numpy as np
from _uci_loader_checks import (
    check_bunch,
    check_deterministic_and_fresh,
    check_no_network,
    check_provenance,
    check_shapes_and_dtypes,
)

from sklearn_iclr.datasets import load_caesarian

FILE = "caesarian_72_5D.csv"


def test_shapes_dtypes_and_labels():
    check_shapes_and_dtypes(load_caesarian, (72, 5))


def test_bunch_fields():
    check_bunch(load_caesarian, FILE, "Caesarian")


def test_provenance():
    check_provenance(
        FILE, "4f9200909a998dba934d2dddfe95bcf2a43676cc1f774620dd127c1d66625bb0", 72
    )


def test_values_follow_the_uci_codebook():
    # UCI (80 rows): age 17-40, delivery number 1-4, delivery time
    # {0 timely, 1 premature, 2 latecomer}, blood pressure {0 low, 1 normal,
    # 2 high}, heart problem {0, 1}; all integer codes.
    X, y = load_caesarian(return_X_y=True)
    np.testing.assert_array_equal(X, np.round(X))
    assert X[:, 0].min() >= 17 and X[:, 0].max() <= 40
    assert set(X[:, 1]) <= {1, 2, 3, 4}
    assert set(X[:, 2]) == {0, 1, 2} and set(X[:, 3]) == {0, 1, 2}
    assert set(X[:, 4]) == {0, 1}
    assert len(np.unique(X, axis=0)) == len(X) <= 80  # de-duplicated


def test_deterministic_and_fresh_arrays():
    check_deterministic_and_fresh(load_caesarian)


def test_no_network(monkeypatch):
    check_no_network(load_caesarian, monkeypatch)
