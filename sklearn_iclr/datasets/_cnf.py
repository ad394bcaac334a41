"""Random k-CNF formulas and a DIMACS CNF reader."""

import os
from numbers import Integral

import numpy as np
from sklearn.utils import check_random_state

from ..graphical._cnf import check_cnf, moser_tardos
from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_vars": [Interval(Integral, 1, None, closed="left")],
        "k": [Interval(Integral, 1, None, closed="left")],
        "clauses_per_var": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_random_kcnf(n_vars, k, clauses_per_var, *, random_state=None):
    """Random k-CNF from the configuration model, checked satisfiable.

    Every variable gets ``clauses_per_var`` slots; the shuffled slots are cut
    into ``n_vars * clauses_per_var // k`` clauses of ``k`` distinct variables
    (a clause that repeats a variable has one slot swapped with a random slot
    elsewhere until none does), and every literal gets a random sign. When
    ``n_vars * clauses_per_var`` is not a multiple of ``k`` the leftover slots
    are dropped, so a few variables appear once less. No solution is planted:
    satisfiability is checked by Moser-Tardos resampling.

    This is the formula model of the experiments suggested for Chauhan and
    Panageas, "Learning the Inverse Temperature of Ising Models under Hard
    Constraints using One Sample" (ICLR 2026).

    Parameters
    ----------
    n_vars : int
        Number of variables (vertices); must be at least ``k``.
    k : int
        Literals per clause.
    clauses_per_var : int
        Number of clauses each variable appears in (the paper's ``d``).
    random_state : int, RandomState instance or None, default=None
        Seed of the slot shuffle and the signs.

    Returns
    -------
    clauses : ndarray of shape (n_vars * clauses_per_var // k, k), dtype int64
        DIMACS literals: ``+v`` (``-v``) is true when spin ``v - 1`` is +1 (-1).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_random_kcnf
    >>> make_random_kcnf(6, 3, 2, random_state=0).shape
    (4, 3)
    """
    if k > n_vars:
        raise ValueError(
            f"k={k} distinct variables per clause need n_vars >= k; got n_vars="
            f"{n_vars}."
        )
    rng = check_random_state(random_state)
    n_clauses = n_vars * clauses_per_var // k
    if n_clauses == 0:
        raise ValueError(
            f"n_vars * clauses_per_var = {n_vars * clauses_per_var} slots make no "
            f"clause of length k={k}; increase n_vars or clauses_per_var."
        )
    slots = np.repeat(np.arange(n_vars), clauses_per_var)
    rng.shuffle(slots)
    slots = slots[: n_clauses * k].reshape(n_clauses, k)
    for _ in range(1000 + 100 * n_clauses):
        ordered = np.sort(slots, axis=1)
        bad = np.flatnonzero(np.any(ordered[:, 1:] == ordered[:, :-1], axis=1))
        if len(bad) == 0:
            break
        flat = slots.ravel()
        for row in bad:
            a = row * k + rng.randint(k)
            b = rng.randint(flat.size)
            flat[a], flat[b] = flat[b], flat[a]
    else:  # pragma: no cover - only for adversarial tiny inputs
        raise ValueError(
            f"Could not spread {n_vars} variables over clauses of {k} distinct "
            "variables; increase n_vars."
        )
    signs = np.where(rng.random_sample(slots.shape) < 0.5, -1, 1)
    clauses = (slots + 1) * signs
    moser_tardos(check_cnf(clauses, n_vars), 1, rng)
    return clauses.astype(np.int64)


@validate_params({"source": [str, os.PathLike]}, prefer_skip_nested_validation=True)
def read_dimacs_cnf(source):
    """Read a CNF in DIMACS format from a path or from the text itself.

    Parameters
    ----------
    source : str or os.PathLike
        A path to a ``.cnf`` file, or a string holding the DIMACS text (any
        string containing a line break or ``"p cnf"`` is read as text). Lines
        starting with ``c`` are comments; the header ``p cnf <n_vars>
        <n_clauses>`` is required; each clause is a run of non-zero integers
        ending with ``0`` and may span lines; a line ``%`` ends the formula.

    Returns
    -------
    clauses : list of tuple of int
        The clauses in DIMACS literal convention, ready for the ``clauses``
        parameter of :class:`~sklearn_iclr.graphical.PseudoLikelihoodIsing`.
    n_vars : int
        The number of variables declared by the header.

    Examples
    --------
    >>> from sklearn_iclr.datasets import read_dimacs_cnf
    >>> read_dimacs_cnf("c x1 != x2\\np cnf 2 2\\n1 2 0\\n-1 -2 0\\n")
    ([(1, 2), (-1, -2)], 2)
    """
    if isinstance(source, str) and ("\n" in source or "p cnf" in source):
        text = source
    else:
        with open(os.fspath(source)) as handle:
            text = handle.read()
    header = None
    tokens = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("c"):
            continue
        if line.startswith("%"):
            break
        if line.startswith("p"):
            parts = line.split()
            if len(parts) != 4 or parts[1] != "cnf" or header is not None:
                raise ValueError(
                    f"DIMACS line {number}: expected one header 'p cnf <n_vars> "
                    f"<n_clauses>', got {line!r}."
                )
            header = int(parts[2]), int(parts[3])
            continue
        if header is None:
            raise ValueError(
                f"DIMACS line {number}: clause before the 'p cnf' header; add the "
                "header 'p cnf <n_vars> <n_clauses>' first."
            )
        try:
            tokens += [int(tok) for tok in line.split()]
        except ValueError as exc:
            raise ValueError(f"DIMACS line {number}: not integers: {line!r}.") from exc
    if header is None:
        raise ValueError("No 'p cnf <n_vars> <n_clauses>' header found.")
    n_vars, n_declared = header
    clauses, current = [], []
    for tok in tokens:
        if tok == 0:
            if current:
                clauses.append(tuple(current))
            current = []
        elif abs(tok) > n_vars:
            raise ValueError(
                f"DIMACS literal {tok} names a variable above the declared "
                f"n_vars={n_vars}."
            )
        else:
            current.append(tok)
    if current:
        clauses.append(tuple(current))
    if len(clauses) != n_declared:
        raise ValueError(
            f"The header declares {n_declared} clauses but {len(clauses)} were read."
        )
    return clauses, n_vars
