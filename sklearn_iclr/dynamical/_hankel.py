"""Hankel matrices of spectral filtering and their top eigenpairs."""

from numbers import Integral, Real

import numpy as np
from scipy.linalg import eigh

from ..utils import estimate_seconds, format_duration
from ..utils._compat import Interval, StrOptions, validate_params

# Largest window whose dense eigendecomposition is accepted (O(window^3) work,
# a few seconds at 4096 on one core).
MAX_WINDOW = 4096
# Above this window the top eigenpairs come from subspace iteration.
EXACT_WINDOW = 512
OVERSAMPLING = 25


@validate_params(
    {
        "window": [Interval(Integral, 1, None, closed="left")],
        "kind": [StrOptions({"prediction", "control"})],
        "stability_margin": [Interval(Real, 0, 1, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def hankel_matrix(window, kind="prediction", *, stability_margin=None):
    """The Hankel matrix whose top eigenvectors are the spectral filters.

    ``kind="prediction"`` (Hazan, Singh and Zhang 2017) gives
    ``Z_ij = 2 / ((i + j)^3 - (i + j))``, ``i, j = 1..window``, which equals
    ``int_0^1 mu(a) mu(a)^T da`` with ``mu(a) = (1 - a) [1, a, ..., a^(window-1)]``.

    ``kind="control"`` (Brahmbhatt, Buzaglo, Druchyna and Hazan, ICLR 2026)
    gives ``H_ij = r^(i+j-1) / (i + j - 1)`` with ``r = 1 - stability_margin``,
    which equals ``int_0^r v(a) v(a)^T da`` with ``v(a) = [1, a, ...,
    a^(window-1)]``; ``stability_margin = 0`` is the Hilbert matrix. Indices
    start at 1, as in the paper.

    Parameters
    ----------
    window : int
        Size of the matrix: the number of past steps a filter covers.
    kind : {"prediction", "control"}, default="prediction"
        Which matrix.
    stability_margin : float in [0, 1) or None, default=None
        Stability margin of the control matrix (eigenvalues of the system at
        most ``1 - stability_margin``); ``None`` means 0. Must be ``None`` for
        ``kind="prediction"``.

    Returns
    -------
    matrix : ndarray of shape (window, window)
        Symmetric positive definite.

    Examples
    --------
    >>> from sklearn_iclr.dynamical import hankel_matrix
    >>> hankel_matrix(2)
    array([[0.33333333, 0.08333333],
           [0.08333333, 0.03333333]])
    >>> hankel_matrix(2, kind="control", stability_margin=0.5)
    array([[0.5       , 0.125     ],
           [0.125     , 0.04166667]])
    """
    index = np.arange(1, window + 1, dtype=np.float64)
    total = index[:, None] + index[None, :]
    if kind == "prediction":
        if stability_margin is not None:
            raise ValueError(
                "stability_margin applies to kind='control' only; pass "
                "stability_margin=None with kind='prediction'."
            )
        return 2.0 / (total**3 - total)
    decay = 1.0 - (0.0 if stability_margin is None else float(stability_margin))
    power = total - 1.0
    return decay**power / power


@validate_params(
    {
        "window": [Interval(Integral, 1, None, closed="left")],
        "n_filters": [Interval(Integral, 1, None, closed="left")],
        "kind": [StrOptions({"prediction", "control"})],
        "stability_margin": [Interval(Real, 0, 1, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def spectral_filters(window, n_filters, kind="prediction", *, stability_margin=None):
    """Top eigenpairs of :func:`hankel_matrix`: the spectral filters.

    Parameters
    ----------
    window : int
        Length of every filter.
    n_filters : int
        How many eigenpairs, at most ``window``.
    kind : {"prediction", "control"}, default="prediction"
        Which Hankel matrix.
    stability_margin : float in [0, 1) or None, default=None
        Stability margin of the control matrix (``None`` means 0).

    Returns
    -------
    eigenvalues : ndarray of shape (n_filters,)
        ``sigma_1 >= ... >= sigma_h > 0``.
    filters : ndarray of shape (window, n_filters)
        Orthonormal eigenvectors ``phi_j`` in columns; entry ``u`` of a filter
        weighs the input ``u`` steps in the past (``u = 0`` is the present).
        Each filter's largest-magnitude entry is positive, so the signs are
        reproducible.

    Examples
    --------
    >>> from sklearn_iclr.dynamical import spectral_filters
    >>> sigma, phi = spectral_filters(64, 4)
    >>> phi.shape
    (64, 4)
    >>> bool(sigma[0] > sigma[1] > sigma[2] > sigma[3] > 0)
    True
    """
    if n_filters > window:
        raise ValueError(
            f"n_filters={n_filters} exceeds window={window}: a window of size m "
            "has only m filters. Lower n_filters or raise window."
        )
    if window > MAX_WINDOW:
        seconds = estimate_seconds({"eigh_cube": float(window) ** 3})
        raise ValueError(
            f"window={window} needs the eigendecomposition of a dense "
            f"{window} x {window} matrix ({8 * float(window) ** 2 / 1e9:.3g} GB, "
            f"about {format_duration(seconds)} of a reference core); windows up "
            f"to {MAX_WINDOW} are accepted. Lower window: a filter longer than "
            "the memory of the system (about 1 / (1 - spectral radius) steps) "
            "only weighs inputs that no longer matter."
        )
    matrix = hankel_matrix(window, kind=kind, stability_margin=stability_margin)
    n_basis = n_filters + OVERSAMPLING
    if window <= EXACT_WINDOW or 2 * n_basis > window:
        values, vectors = eigh(matrix, subset_by_index=[window - n_filters, window - 1])
    else:
        # The eigenvalues decay exponentially: two steps of subspace iteration
        # from a fixed Gaussian start and a Rayleigh-Ritz projection give the
        # top pairs to backward-stable accuracy (residual ~ eps * sigma_1,
        # checked against eigh in the tests) in O(window^2 n_filters).
        start = np.random.default_rng(0).normal(size=(window, n_basis))
        basis = np.linalg.qr(matrix @ start)[0]
        basis = np.linalg.qr(matrix @ basis)[0]
        values, small = eigh(basis.T @ matrix @ basis)
        values, vectors = values[-n_filters:], basis @ small[:, -n_filters:]
    values, vectors = values[::-1], vectors[:, ::-1]
    peak = vectors[np.argmax(np.abs(vectors), axis=0), np.arange(n_filters)]
    vectors = vectors * np.where(peak < 0, -1.0, 1.0)
    # The matrix is positive definite; rounding can leave the smallest
    # eigenvalues at about -eps * sigma_1.
    values = np.maximum(values, 0.0)
    return values, vectors
