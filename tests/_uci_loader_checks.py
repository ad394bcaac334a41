"""Checks shared by the tests of the shipped UCI loaders (test_datasets_<name>.py).

Each loader reads one CSV from ``sklearn_iclr/datasets/data``; the checks pin
what a user relies on: shapes and dtypes, the Bunch's fields, the file's
provenance (its SHA-256 and its row in ``data/README.md``), determinism and
that nothing is fetched from the network.
"""

import hashlib
import socket
from importlib import resources

import numpy as np


def data_file(filename):
    return resources.files("sklearn_iclr.datasets") / "data" / filename


def check_shapes_and_dtypes(loader, shape):
    X, y = loader(return_X_y=True)
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],) and y.dtype == np.int64
    assert set(np.unique(y)) == {-1, 1}  # binary, both classes present
    assert np.all(np.isfinite(X))


def check_bunch(loader, filename, title):
    bunch = loader()
    X, y = loader(return_X_y=True)
    np.testing.assert_array_equal(bunch.data, X)
    np.testing.assert_array_equal(bunch.target, y)
    assert bunch.filename == filename
    assert title in bunch.DESCR and "UCI" in bunch.DESCR
    # the docstring's example states the same shape
    assert f"{X.shape}" in loader.__doc__


def check_provenance(filename, sha256, n_rows):
    digest = hashlib.sha256(data_file(filename).read_bytes()).hexdigest()
    assert digest == sha256, f"{filename} changed: update data/README.md and the tests"
    readme = data_file("README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith(f"| {filename}"))
    assert f"| {n_rows}" in row, row


def check_deterministic_and_fresh(loader):
    X1, y1 = loader(return_X_y=True)
    X1[:] = np.nan  # the caller owns the arrays: no cache is shared
    y1[:] = 0
    X2, y2 = loader(return_X_y=True)
    X3, y3 = loader(return_X_y=True)
    assert np.all(np.isfinite(X2)) and set(np.unique(y2)) == {-1, 1}
    np.testing.assert_array_equal(X2, X3)
    np.testing.assert_array_equal(y2, y3)


def check_no_network(loader, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the loader tried to open a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    X, _ = loader(return_X_y=True)
    assert X.shape[0] > 0
