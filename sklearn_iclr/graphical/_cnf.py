"""CNF bookkeeping shared by the truncated-Ising sampler and estimator.

A formula is stored as flat literal arrays, clause by clause (CSR layout):
literal ``l`` belongs to clause ``clause_of_lit[l]``, names vertex
``lit_var[l]`` (0-based) and is true when that spin equals ``lit_sign[l]``.
Spins are in {-1, +1}; DIMACS variable ``v`` is vertex ``v - 1`` and the
literal ``+v`` is true when the spin is ``+1``.

Everything the two users need is computed in O(n_samples * n_literals):
true-literal counts per clause, the violated clauses and the *flippable* set
(the spins whose flip keeps every clause satisfied).
"""

from numbers import Integral

import numpy as np
from numba import njit


@njit(cache=True)
def _bucket_order(keys, starts):
    """Stable order of ``keys`` given each key's first position ``starts``."""
    position = starts[:-1].copy()
    order = np.empty(len(keys), dtype=np.intp)
    for i in range(len(keys)):
        key = keys[i]
        order[position[key]] = i
        position[key] += 1
    return order


class CNF:
    """A validated CNF formula over ``n_vars`` spins, as flat literal arrays.

    Build it with :func:`check_cnf`; the constructor trusts its arguments.

    Parameters
    ----------
    lit_var : ndarray of shape (n_literals,), dtype intp
        0-based vertex of each literal.
    lit_sign : ndarray of shape (n_literals,), dtype int8
        Spin value (+1 or -1) that makes each literal true.
    clause_ptr : ndarray of shape (n_clauses + 1,), dtype intp
        Literals of clause ``c`` are ``clause_ptr[c]:clause_ptr[c + 1]``.
    n_vars : int
        Number of spins (vertices).
    """

    def __init__(self, lit_var, lit_sign, clause_ptr, n_vars):
        self.lit_var = lit_var
        self.lit_sign = lit_sign
        self.clause_ptr = clause_ptr
        self.n_vars = n_vars
        self.n_clauses = len(clause_ptr) - 1
        self.clause_of_lit = np.repeat(
            np.arange(self.n_clauses, dtype=np.intp), np.diff(clause_ptr)
        )

    def true_literals(self, spins):
        """Truth of every literal, shape (n_samples, n_literals), for spins (s, n)."""
        return spins[:, self.lit_var] == self.lit_sign

    def true_counts(self, true_literals):
        """Number of true literals per clause, shape (n_samples, n_clauses)."""
        return np.add.reduceat(
            true_literals, self.clause_ptr[:-1], axis=1, dtype=np.int32
        )

    def flippable(self, spins, what="sample"):
        """Which spins can be flipped without violating a clause.

        Spin ``i`` is *not* flippable iff some clause containing ``i`` has
        exactly one true literal and that literal is ``i``'s.

        Parameters
        ----------
        spins : ndarray of shape (n_samples, n_vars)
            Configurations in {-1, +1}.
        what : str, default="sample"
            How rows are called in the error message.

        Returns
        -------
        flippable : ndarray of shape (n_samples, n_vars), dtype bool

        Raises
        ------
        ValueError
            If a row violates a clause; the message names the first violated
            (row, clause) pair.
        """
        flippable = np.ones(spins.shape, dtype=bool)
        if self.n_clauses == 0:
            return flippable
        true = self.true_literals(spins)
        counts = self.true_counts(true)
        self._raise_if_violated(counts, what)
        critical = true & (counts[:, self.clause_of_lit] == 1)
        rows, lits = np.nonzero(critical)
        flippable[rows, self.lit_var[lits]] = False
        return flippable

    def _raise_if_violated(self, counts, what):
        bad = np.argwhere(counts == 0)
        if len(bad):
            row, clause = bad[0]
            raise ValueError(
                f"{what} {row} violates clause {clause} "
                f"{self.clause_literals(clause)} (DIMACS literals; variable v is "
                f"column v-1): every configuration must satisfy the CNF. "
                f"{len(bad)} (row, clause) pairs are violated in total; check the "
                "clauses, the column order or the binarize threshold."
            )

    def clause_literals(self, clause):
        """The DIMACS literals of one clause, as a tuple of ints."""
        sl = slice(self.clause_ptr[clause], self.clause_ptr[clause + 1])
        return tuple(int(v) for v in (self.lit_var[sl] + 1) * self.lit_sign[sl])

    def vertex_literals(self):
        """Occurrence index: literals of vertex ``i`` are ``order[ptr[i]:ptr[i+1]]``.

        Returns
        -------
        order : ndarray of shape (n_literals,)
            Literal indices sorted by vertex.
        ptr : ndarray of shape (n_vars + 1,)
        """
        ptr = np.zeros(self.n_vars + 1, dtype=np.intp)
        np.cumsum(np.bincount(self.lit_var, minlength=self.n_vars), out=ptr[1:])
        # A counting sort: the stable argsort of lit_var in linear time.
        order = _bucket_order(self.lit_var, ptr)
        return order, ptr


def check_cnf(clauses, n_vars, name="clauses"):
    """Validate a CNF in DIMACS literal convention and return a :class:`CNF`.

    Parameters
    ----------
    clauses : None, array-like of shape (n_clauses, k) or sequence of sequences
        Non-zero integer literals; ``+v`` is true when spin ``v - 1`` is +1,
        ``-v`` when it is -1. ``None`` or an empty sequence is the empty formula.
        Repeated literals inside a clause are merged and a clause holding both
        ``v`` and ``-v`` (always true) is dropped.
    n_vars : int
        Number of spins; literals must satisfy ``1 <= |lit| <= n_vars``.
    name : str, default="clauses"
        Parameter name used in error messages.

    Returns
    -------
    cnf : CNF
    """
    if clauses is None:
        empty = np.zeros(0, dtype=np.intp)
        return CNF(empty, np.zeros(0, np.int8), np.zeros(1, np.intp), n_vars)
    if isinstance(clauses, np.ndarray) and clauses.ndim == 2:
        if clauses.dtype.kind not in "iu":
            raise ValueError(
                f"{name} must hold integers (DIMACS literals); got dtype "
                f"{clauses.dtype}."
            )
        lengths = np.full(clauses.shape[0], clauses.shape[1], dtype=np.intp)
        flat = clauses.astype(np.int64, copy=False).ravel()
        by_row = np.sort(np.abs(clauses), axis=1)
        repeated = bool(np.any(by_row[:, 1:] == by_row[:, :-1]))
    else:
        try:
            rows = [list(c) for c in clauses]
        except TypeError as exc:
            raise ValueError(
                f"{name} must be a sequence of clauses, each a sequence of non-zero "
                f"DIMACS literals, e.g. [[1, -2], [2, 3]]; got {type(clauses)}."
            ) from exc
        lengths = np.array([len(r) for r in rows], dtype=np.intp)
        values = [v for r in rows for v in r]
        if not all(isinstance(v, Integral) for v in values):
            raise ValueError(f"{name} must hold integer DIMACS literals only.")
        flat = np.array(values, dtype=np.int64)
        repeated = None
    if np.any(lengths == 0):
        empty = int(np.flatnonzero(lengths == 0)[0])
        raise ValueError(
            f"{name}[{empty}] is empty; an empty clause is never satisfied. "
            "Remove it or give at least one literal."
        )
    if np.any(flat == 0):
        raise ValueError(
            f"{name} contains the literal 0; DIMACS literals are non-zero "
            "(+v or -v for variable v = 1..n_vertices)."
        )
    too_big = np.abs(flat) > n_vars
    if np.any(too_big):
        clause = int(np.searchsorted(np.cumsum(lengths), np.argmax(too_big), "right"))
        raise ValueError(
            f"{name}[{clause}] names variable {int(abs(flat[np.argmax(too_big)]))}, "
            f"but there are only {n_vars} vertices (variables 1..{n_vars}). "
            "Check the clauses against the number of columns of X."
        )
    ptr = np.zeros(len(lengths) + 1, dtype=np.intp)
    np.cumsum(lengths, out=ptr[1:])
    lit_var = (np.abs(flat) - 1).astype(np.intp)
    lit_sign = np.sign(flat).astype(np.int8)
    if repeated is None:
        key = np.repeat(np.arange(len(lengths)), lengths) * n_vars + lit_var
        key.sort()
        repeated = bool(np.any(key[1:] == key[:-1]))
    if repeated:
        lit_var, lit_sign, ptr = _canonical(lit_var, lit_sign, ptr)
    return CNF(lit_var, lit_sign, ptr, n_vars)


def _canonical(lit_var, lit_sign, ptr):
    """Merge repeated literals and drop tautologies (clauses with v and -v)."""
    new_var, new_sign, lengths = [], [], []
    for c in range(len(ptr) - 1):
        literals = dict.fromkeys(
            zip(
                lit_var[ptr[c] : ptr[c + 1]], lit_sign[ptr[c] : ptr[c + 1]], strict=True
            )
        )
        variables = [v for v, _ in literals]
        if len(set(variables)) < len(variables):
            continue
        new_var += variables
        new_sign += [s for _, s in literals]
        lengths.append(len(variables))
    new_ptr = np.zeros(len(lengths) + 1, dtype=np.intp)
    np.cumsum(lengths, out=new_ptr[1:])
    return (
        np.array(new_var, dtype=np.intp),
        np.array(new_sign, dtype=np.int8),
        new_ptr,
    )


def moser_tardos(cnf, n_samples, random_state, max_rounds=10_000):
    """Satisfying assignments by parallel Moser-Tardos resampling.

    Starts from uniform random spins and, round after round, redraws every
    spin of every violated clause, independently for each sample. Only the
    clauses touching a redrawn spin are re-checked, so a round costs time
    proportional to the number of violated clauses, not to the formula.

    Parameters
    ----------
    cnf : CNF
        The formula.
    n_samples : int
        Number of independent assignments.
    random_state : numpy.random.RandomState
        Source of randomness.
    max_rounds : int, default=10_000
        Give up after this many resampling rounds.

    Returns
    -------
    spins : ndarray of shape (n_samples, n_vars), dtype int8
        Each row satisfies ``cnf``.
    """
    n, m = cnf.n_vars, cnf.n_clauses
    spins = np.where(random_state.random_sample(n_samples * n) < 0.5, -1, 1)
    spins = spins.astype(np.int8)
    if m == 0:
        return spins.reshape(n_samples, n)
    order, ptr = cnf.vertex_literals()
    # Flat ids: spin j*n + v and clause j*m + c belong to sample j.
    candidates = np.arange(n_samples * m)
    for _ in range(max_rounds):
        sample, clause = np.divmod(candidates, m)
        lits, lengths = concatenated_ranges(cnf.clause_ptr, clause)
        owner = np.repeat(sample, lengths)
        true = spins[owner * n + cnf.lit_var[lits]] == cnf.lit_sign[lits]
        violated = ~np.logical_or.reduceat(true, np.cumsum(lengths) - lengths)
        if not violated.any():
            return spins.reshape(n_samples, n)
        bad = np.repeat(violated, lengths)
        redraw = _distinct(owner[bad] * n + cnf.lit_var[lits[bad]], n_samples * n)
        spins[redraw] = np.where(random_state.random_sample(len(redraw)) < 0.5, -1, 1)
        sample, vertex = np.divmod(redraw, n)
        touched, lengths = concatenated_ranges(ptr, vertex)
        touched = order[touched]
        owner = np.repeat(sample, lengths)
        candidates = _distinct(owner * m + cnf.clause_of_lit[touched], n_samples * m)
    raise ValueError(
        f"Moser-Tardos found no satisfying assignment in {max_rounds} rounds; the "
        "CNF may be unsatisfiable or too dense (use longer clauses or fewer clauses "
        "per variable)."
    )


def _distinct(ids, size):
    """Sorted distinct values of ``ids`` in ``range(size)`` (a mask, no sort)."""
    mask = np.zeros(size, dtype=bool)
    mask[ids] = True
    return np.flatnonzero(mask)


def concatenated_ranges(ptr, rows):
    """The ranges ``ptr[r]:ptr[r + 1]`` for ``r`` in ``rows``, concatenated.

    Parameters
    ----------
    ptr : ndarray of shape (n_rows + 1,)
        CSR-style pointers.
    rows : ndarray of int
        Rows whose ranges are wanted, in output order.

    Returns
    -------
    positions : ndarray of int
        ``concatenate([arange(ptr[r], ptr[r + 1]) for r in rows])``.
    lengths : ndarray of int
        ``ptr[rows + 1] - ptr[rows]``.
    """
    lengths = ptr[rows + 1] - ptr[rows]
    shift = np.repeat(ptr[rows] - np.cumsum(lengths) + lengths, lengths)
    return shift + np.arange(lengths.sum()), lengths
