"""Validation of Ising coupling matrices, shared by the sampler and estimator."""

import numpy as np
import scipy.sparse as sp


def check_coupling(coupling, n_vertices=None, name="coupling"):
    """Validate a symmetric, zero-diagonal coupling matrix; return it as CSR.

    Parameters
    ----------
    coupling : array-like or sparse matrix of shape (n_vertices, n_vertices)
        Couplings ``A_ij``; ``A`` must be square, finite, symmetric (up to a
        relative 1e-10) and have a zero diagonal.
    n_vertices : int, default=None
        Expected size (the number of columns of ``X``); ``None`` skips the check.
    name : str, default="coupling"
        Parameter name used in error messages.

    Returns
    -------
    coupling : scipy.sparse.csr_array of shape (n_vertices, n_vertices), float64
        Explicit zeros removed, indices sorted.
    """
    if sp.issparse(coupling):
        A = sp.csr_array(coupling, dtype=np.float64, copy=True)
    else:
        dense = np.asarray(coupling, dtype=np.float64)
        if dense.ndim != 2:
            raise ValueError(
                f"{name} must be a 2-D (n_vertices, n_vertices) matrix; got an "
                f"array with {dense.ndim} dimension(s)."
            )
        A = sp.csr_array(dense)
    if A.shape[0] != A.shape[1]:
        raise ValueError(
            f"{name} must be square (n_vertices, n_vertices); got shape {A.shape}."
        )
    if n_vertices is not None and A.shape[0] != n_vertices:
        raise ValueError(
            f"{name} has shape {A.shape} but X has {n_vertices} columns (one per "
            f"vertex); pass a ({n_vertices}, {n_vertices}) coupling or fix X."
        )
    if not np.all(np.isfinite(A.data)):
        raise ValueError(
            f"{name} contains NaN or infinite entries; give finite couplings "
            "(0 where two vertices are not coupled)."
        )
    A.eliminate_zeros()
    A.sort_indices()
    if np.any(A.diagonal() != 0):
        raise ValueError(
            f"{name} has a non-zero diagonal; self-couplings A_ii are not part of "
            "the Ising model (they only add a constant). Set the diagonal to 0."
        )
    scale = np.abs(A.data).max() if A.nnz else 0.0
    asym = abs(A - A.T)
    if asym.nnz and asym.max() > 1e-10 * scale:
        raise ValueError(
            f"{name} is not symmetric (max |A - A.T| = {asym.max():.3g}); the "
            "Ising coupling must satisfy A_ij = A_ji. Use (A + A.T) / 2 if that is "
            "what you mean."
        )
    return A
