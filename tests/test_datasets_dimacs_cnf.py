"""read_dimacs_cnf: reading DIMACS CNF text and files, and its errors."""

import pytest

from sklearn_iclr.datasets import (
    read_dimacs_cnf,
)


def test_read_dimacs_from_text_and_file(tmp_path):
    text = "c a comment\np cnf 4 3\n1 -2\n 3 0 -4 0\n2 4 0\n%\n0\n"
    expected = ([(1, -2, 3), (-4,), (2, 4)], 4)
    assert read_dimacs_cnf(text) == expected
    path = tmp_path / "f.cnf"
    path.write_text(text)
    assert read_dimacs_cnf(path) == expected
    assert read_dimacs_cnf(str(path)) == expected


@pytest.mark.parametrize(
    "text, match",
    [
        ("1 2 0\n", "before the 'p cnf' header"),
        ("p cnf 2 1\n1 3 0\n", "above the declared n_vars=2"),
        ("p cnf 2 2\n1 2 0\n", "declares 2 clauses but 1"),
        ("p cnf 2 1\n1 x 0\n", "not integers"),
        ("c nothing\n", "header found"),
    ],
)
def test_read_dimacs_errors(text, match):
    with pytest.raises(ValueError, match=match):
        read_dimacs_cnf(text)
