"""Orthonormal (probabilists') Hermite polynomials and Hermite link fits.

``h_k = He_k / sqrt(k!)`` are orthonormal under the standard Gaussian:
``E[h_j(z) h_k(z)] = delta_jk`` for ``z ~ N(0, 1)``. A single-index link
``f(z) = sum_k c_k h_k(z)`` has Hermite coefficients ``c_k = E[f(z) h_k(z)]`` and
information exponent ``min{k >= 1 : c_k != 0}``.

The functions only use ``+``, ``-`` and ``*``, so they work on numpy arrays and on
torch tensors alike.
"""

import math

import numpy as np


def hermite_basis(z, degree):
    """Evaluate ``h_0, ..., h_degree`` at ``z``.

    Uses the recurrence ``h_{k+1} = (z h_k - sqrt(k) h_{k-1}) / sqrt(k + 1)``.

    Parameters
    ----------
    z : array-like or torch.Tensor
        Points.
    degree : int
        Highest degree, at least 0.

    Returns
    -------
    basis : list of arrays
        ``degree + 1`` arrays shaped like ``z``; ``basis[k] = h_k(z)``.

    Examples
    --------
    >>> import numpy as np
    >>> [float(b[0]) for b in hermite_basis(np.array([2.0]), 3)]
    [1.0, 2.0, 2.121..., 0.816...]
    """
    basis = [z * 0 + 1.0]
    if degree >= 1:
        basis.append(z * 1.0)
    for k in range(1, degree):
        basis.append((z * basis[k] - math.sqrt(k) * basis[k - 1]) / math.sqrt(k + 1))
    return basis


def hermite(z, k):
    """Evaluate the orthonormal Hermite polynomial ``h_k`` at ``z``.

    Parameters
    ----------
    z : array-like or torch.Tensor
        Points.
    k : int
        Degree, at least 0.

    Returns
    -------
    values : array shaped like ``z``

    Examples
    --------
    >>> import numpy as np
    >>> float(hermite(np.array(1.0), 2))  # (1 - 1) / sqrt(2)
    0.0
    """
    return hermite_basis(z, k)[k]


def hermite_derivative(z, k):
    """Evaluate ``h_k'(z) = sqrt(k) h_{k-1}(z)``.

    Parameters
    ----------
    z : array-like or torch.Tensor
        Points.
    k : int
        Degree, at least 1.

    Returns
    -------
    values : array shaped like ``z``

    Examples
    --------
    >>> import numpy as np
    >>> float(hermite_derivative(np.array(3.0), 1))
    1.0
    """
    return math.sqrt(k) * hermite(z, k - 1)


def hermite_design(z, degree):
    """The least-squares design matrix ``[h_0(z), ..., h_degree(z)]``.

    Parameters
    ----------
    z : ndarray of shape (n_samples,)
        Points.
    degree : int
        Highest degree.

    Returns
    -------
    design : ndarray of shape (n_samples, degree + 1)

    Examples
    --------
    >>> import numpy as np
    >>> hermite_design(np.zeros(2), 2).shape
    (2, 3)
    """
    return np.column_stack(hermite_basis(np.asarray(z, dtype=np.float64), degree))


def fit_hermite_link(z, y, degree):
    """Least-squares fit of ``y ~ sum_{k <= degree} c_k h_k(z)``.

    Parameters
    ----------
    z : ndarray of shape (n_samples,)
        The index values.
    y : ndarray of shape (n_samples,)
        The target.
    degree : int
        Highest Hermite degree of the link.

    Returns
    -------
    coef : ndarray of shape (degree + 1,)
        The coefficients ``c_0, ..., c_degree`` (minimum-norm solution when the
        design is rank deficient, e.g. fewer samples than coefficients).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.linspace(-2, 2, 9)
    >>> # 3 z^2 = 3 h_0 + 3 sqrt(2) h_2
    >>> np.round(fit_hermite_link(z, 3 * z**2, 2), 6).tolist()
    [3.0, 0.0, 4.242641]
    """
    coef, *_ = np.linalg.lstsq(hermite_design(z, degree), y, rcond=None)
    return coef


def predict_hermite_link(z, coef):
    """Evaluate the link ``sum_k coef[k] h_k(z)``.

    Parameters
    ----------
    z : ndarray of shape (n_samples,)
        The index values.
    coef : ndarray of shape (degree + 1,)
        Hermite coefficients, as returned by :func:`fit_hermite_link`.

    Returns
    -------
    values : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> predict_hermite_link(np.array([0.0, 1.0]), np.array([1.0, 2.0])).tolist()
    [1.0, 3.0]
    """
    return hermite_design(z, len(coef) - 1) @ coef
