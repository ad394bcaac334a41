"""load_voicepath: the Voice path data (UCI), with its duplicated rows."""

import numpy as np
from _uci_loader_checks import (
    check_bunch,
    check_deterministic_and_fresh,
    check_no_network,
    check_provenance,
    check_shapes_and_dtypes,
)

from sklearn_iclr.datasets import load_voicepath

FILE = "voicepath_data.csv"


def test_shapes_dtypes_and_labels():
    check_shapes_and_dtypes(load_voicepath, (707, 2))


def test_bunch_fields():
    check_bunch(load_voicepath, FILE, "Voice path")


def test_provenance():
    check_provenance(
        FILE, "a873874396c8444fcf36f664fd2311a409c4785af8093a1e8f97e1400279f88d", 707
    )


def test_duplicates_are_kept_as_documented():
    # The docstring and data/README.md say 707 rows, 704 distinct feature
    # vectors: an exact 0-1 loss method must handle repeated points, so the
    # loader must not drop them.
    X, y = load_voicepath(return_X_y=True)
    assert len(np.unique(X, axis=0)) == 704
    assert "704 distinct" in load_voicepath.__doc__
    # the duplicated points carry the same label (the rows repeat whole)
    assert len(np.unique(np.column_stack([X, y]), axis=0)) == 704


def test_features_are_raw_not_scaled():
    X, _ = load_voicepath(return_X_y=True)
    assert np.all(X > 0) and not np.allclose(X.mean(axis=0), 0, atol=0.1)
    assert not np.all(X == np.round(X))  # real-valued, unlike Haberman


def test_deterministic_and_fresh_arrays():
    check_deterministic_and_fresh(load_voicepath)


def test_no_network(monkeypatch):
    check_no_network(load_voicepath, monkeypatch)
