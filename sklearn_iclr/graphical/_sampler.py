"""The paper's sampler: heat-bath Glauber dynamics of a CNF-truncated Ising model.

:func:`~sklearn_iclr.datasets.make_truncated_ising` draws its samples with it;
its colour classes come from :mod:`._colouring`.
"""

import numpy as np
import scipy.sparse as sp

from ._cnf import concatenated_ranges
from ._colouring import colour_classes


class ColourSweepSampler:
    """Heat-bath Glauber dynamics on S, one conflict-graph colour class at a time.

    The ``n_chains`` chains are run as disjoint copies of the graph (a block
    diagonal system of ``n_chains * n`` spins), so every operation of a sweep
    is a one-dimensional gather or scatter.

    Parameters
    ----------
    A : scipy.sparse.csr_array of shape (n, n)
        Validated coupling.
    cnf : CNF
        Validated formula.
    n_chains : int
        Number of independent chains.
    """

    def __init__(self, A, cnf, n_chains):
        self.A = A
        self.cnf = cnf
        self.n_chains = n_chains
        self._occurrences = cnf.vertex_literals() if cnf.n_clauses else None
        self.classes = [
            self._class_data(idx) for idx in colour_classes(A, cnf, self._occurrences)
        ]

    def _class_data(self, idx):
        """Index arrays of one colour class, replicated over the chains."""
        n, chains = self.A.shape[0], self.n_chains
        offsets = np.arange(chains) * n
        rows = self.A[idx]
        indptr = (rows.indptr[:-1] + rows.nnz * np.arange(chains)[:, None]).ravel()
        block = sp.csr_array(
            (
                np.tile(rows.data, chains),
                (offsets[:, None] + rows.indices).ravel(),
                np.append(indptr, chains * rows.nnz),
            ),
            shape=(chains * len(idx), chains * n),
        )
        data = {"idx": (offsets[:, None] + idx).ravel(), "rows": block}
        cnf = self.cnf
        if cnf.n_clauses:
            order, ptr = self._occurrences
            lits = order[concatenated_ranges(ptr, idx)[0]]
            lengths = np.tile(ptr[idx + 1] - ptr[idx], chains)
            clause_offsets = np.arange(chains) * cnf.n_clauses
            data.update(
                lit_ptr=np.r_[0, np.cumsum(lengths)],
                sign=np.tile(cnf.lit_sign[lits], chains),
                clause=(clause_offsets[:, None] + cnf.clause_of_lit[lits]).ravel(),
            )
        return data

    def run(self, spins, beta, n_sweeps, rng):
        """Run ``n_sweeps`` sweeps on the flat ``spins`` (chain-major), in place."""
        cnf = self.cnf
        if cnf.n_clauses:
            true = cnf.true_literals(spins.reshape(self.n_chains, -1))
            counts = cnf.true_counts(true).ravel()
        for _ in range(n_sweeps):
            for c in self.classes:
                idx = c["idx"]
                old = spins[idx]
                p_plus = 0.5 * (1.0 + np.tanh(beta * (c["rows"] @ spins)))
                new = np.where(rng.random_sample(len(idx)) < p_plus, 1.0, -1.0)
                if cnf.n_clauses:
                    # Only spins that want to change can be blocked by a clause.
                    moving = np.flatnonzero(new != old)
                    lits, lengths = concatenated_ranges(c["lit_ptr"], moving)
                    owner = np.repeat(moving, lengths)
                    clause = c["clause"][lits]
                    old_lit = (old[owner] * c["sign"][lits]).astype(np.int32)
                    blocked = owner[(old_lit > 0) & (counts[clause] == 1)]
                    new[blocked] = old[blocked]
                    flips = new[owner] != old[owner]
                    counts[clause[flips]] -= old_lit[flips]
                spins[idx] = new
        return spins
