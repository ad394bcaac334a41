"""A linear-programming oracle (HiGHS) for the ICE tests."""

import numpy as np
from scipy.optimize import linprog


def strictly_separable(X, labels):
    """Is there (w, b) with labels_i (w . x_i + b) >= 1 for all i?"""
    n, p = X.shape
    A = -labels[:, None] * np.column_stack([X, np.ones(n)])
    result = linprog(
        np.zeros(p + 1), A_ub=A, b_ub=-np.ones(n), bounds=(None, None), method="highs"
    )
    return result.status == 0
