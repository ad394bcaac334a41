"""Separators of a given labelling: the linear programs of the refit (HiGHS).

The search decides which points take which label; these linear programs find
the boundary that realises a labelling, or tell that none does strictly.
"""

import numpy as np
from scipy import sparse
from scipy.optimize import linprog


def max_margin_separator(X, labels, check_only=False):
    """Maximum-margin (``max |w_j| <= 1``) separator of a strict labelling.

    Solves ``min u`` subject to ``labels_i (w . x_i + b) >= 1`` and
    ``-u <= w_j <= u`` with HiGHS, and returns ``(w / u, b / u)``, whose
    margin ``1 / u`` is the largest under ``max |w_j| <= 1``. Asking for
    margin 1 rather than maximising a small margin keeps HiGHS's feasibility
    tolerance (1e-7) from flipping a sign when the margin is tiny. When
    HiGHS finds the labelling not strictly separable, returns the least-hinge
    separator instead (the caller checks the signs); with ``check_only``,
    returns whether the solution HiGHS finds meets every margin.
    """
    n, p = X.shape
    s = labels.astype(np.float64)
    if n == 0 or np.all(s == s[0]):
        return True if check_only else (np.zeros(p), float(s[0]) if n else 1.0)
    # variables (w, b, u); rows: -s_i (w . x_i + b) <= -1, w_j - u <= 0,
    # -w_j - u <= 0 (sparse: the identity blocks of many monomials)
    identity = sparse.identity(p, format="csr")
    bound_column = sparse.csr_matrix(-np.ones((p, 1)))
    A = sparse.vstack(
        [
            sparse.csr_matrix(np.column_stack([-s[:, None] * X, -s, np.zeros(n)])),
            sparse.hstack([identity, sparse.csr_matrix((p, 1)), bound_column]),
            sparse.hstack([-identity, sparse.csr_matrix((p, 1)), bound_column]),
        ],
        format="csr",
    )
    result = linprog(
        np.r_[np.zeros(p + 1), 1.0],
        A_ub=A,
        b_ub=np.r_[-np.ones(n), np.zeros(2 * p)],
        bounds=[(None, None)] * (p + 1) + [(0, None)],
        method="highs",
    )
    # HiGHS may call a nearly separable labelling feasible within its
    # tolerances; only a solution that meets every margin is accepted.
    separable = result.status == 0 and np.all(
        s * (X @ result.x[:p] + result.x[p]) > 0.5
    )
    if check_only:
        return separable
    if not separable:
        return least_hinge_separator(X, s)
    u = result.x[-1]
    return result.x[:p] / u, float(result.x[p] / u)


def least_hinge_separator(X, s):
    """``min sum_i xi_i`` subject to ``s_i (w . x_i + b) >= 1 - xi_i``,
    ``xi >= 0``: the fallback when HiGHS finds no strict separator of the
    labelling, which happens only when its margin is below ~1e-10."""
    n, p = X.shape
    result = linprog(
        np.r_[np.zeros(p + 1), np.ones(n)],
        A_ub=sparse.hstack(
            [np.column_stack([-s[:, None] * X, -s]), -sparse.identity(n)], format="csr"
        ),
        b_ub=-np.ones(n),
        bounds=[(None, None)] * (p + 1) + [(0, None)] * n,
        method="highs",
    )
    if result.status != 0:
        return np.zeros(p), 1.0
    scale = max(np.abs(result.x[:p]).max(), np.finfo(float).tiny)
    return result.x[:p] / scale, float(result.x[p] / scale)
