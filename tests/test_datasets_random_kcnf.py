"""make_random_kcnf: formula structure and the literal ordering."""

import numpy as np

from sklearn_iclr.datasets import (
    make_random_kcnf,
)
from sklearn_iclr.graphical._cnf import check_cnf


def test_random_kcnf_structure():
    clauses = make_random_kcnf(200, 4, 3, random_state=0)
    assert clauses.shape == (150, 4)
    variables = np.sort(np.abs(clauses), axis=1)
    assert np.all(variables[:, 1:] != variables[:, :-1])
    assert np.all(np.bincount(np.abs(clauses).ravel(), minlength=201)[1:] == 3)
    assert np.array_equal(clauses, make_random_kcnf(200, 4, 3, random_state=0))


def test_vertex_literals_counting_sort_is_the_stable_argsort():
    cnf = check_cnf(make_random_kcnf(500, 4, 3, random_state=0), 500)
    order, ptr = cnf.vertex_literals()
    np.testing.assert_array_equal(order, np.argsort(cnf.lit_var, kind="stable"))
    np.testing.assert_array_equal(np.diff(ptr), np.bincount(cnf.lit_var, minlength=500))
