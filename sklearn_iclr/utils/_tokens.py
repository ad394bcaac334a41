"""Bags of tokens: the (n_samples, n_tokens, token_dim) input of the token models.

A token estimator accepts a 3-D array or a 2-D table whose rows hold
``n_tokens`` consecutive blocks of ``token_dim`` features; these helpers
convert between the two layouts. A 2-D table says nothing of its token layout,
so without ``token_dim`` each row is one token (a plain feature table).
"""

from numbers import Integral

import numpy as np

from ._compat import Interval, validate_params
from ._warnings import warn_user

_TOKEN_DIM = [Interval(Integral, 1, None, closed="left"), None]


@validate_params(
    {"X": ["array-like"], "token_dim": _TOKEN_DIM},
    prefer_skip_nested_validation=True,
)
def as_token_array(X, *, token_dim=None):
    """View a 2-D table or a 3-D array as tokens of shape (n, n_tokens, token_dim).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_tokens, token_dim) or \
            (n_samples, n_tokens * token_dim)
        A 3-D array is returned as is; a 2-D table is cut, row by row, into
        consecutive blocks of ``token_dim`` columns (token ``l`` is columns
        ``l * token_dim`` to ``(l + 1) * token_dim - 1``).
    token_dim : int, default=None
        Features per token of a 2-D table; ``None`` reads every row as one
        token (``n_tokens = 1``). Must match ``X.shape[2]`` for a 3-D array.

    Returns
    -------
    tokens : ndarray of shape (n_samples, n_tokens, token_dim)

    Raises
    ------
    ValueError
        If ``X`` is not 2-D or 3-D, or ``token_dim`` does not divide the number
        of columns (or differs from the last axis of a 3-D array).

    Examples
    --------
    >>> import numpy as np
    >>> as_token_array(np.arange(12.0).reshape(2, 6), token_dim=3).shape
    (2, 2, 3)
    >>> as_token_array(np.arange(12.0).reshape(2, 6)).shape
    (2, 1, 6)
    """
    return token_view(np.asarray(X), token_dim)


def token_view(X, token_dim):
    """:func:`as_token_array` of an ndarray, without parameter validation."""
    if X.ndim == 3:
        if token_dim is not None and token_dim != X.shape[2]:
            raise ValueError(
                f"X is 3-D with tokens of dimension {X.shape[2]} but token_dim="
                f"{token_dim}: pass token_dim=None (or {X.shape[2]}) for 3-D input."
            )
        return X
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D table (n_samples, n_tokens * token_dim) or a 3-D "
            f"array (n_samples, n_tokens, token_dim), got {X.ndim}-D input of "
            f"shape {X.shape}. Reshape your bags to one of these layouts."
        )
    token_dim = X.shape[1] if token_dim is None else token_dim
    if X.shape[1] % token_dim:
        raise ValueError(
            f"token_dim={token_dim} does not divide the {X.shape[1]} columns of "
            "X: a 2-D table must hold n_tokens consecutive blocks of token_dim "
            "features. Set token_dim to the size of one token, or pass a 3-D "
            "array (n_samples, n_tokens, token_dim)."
        )
    return X.reshape(X.shape[0], X.shape[1] // token_dim, token_dim)


def flatten_token_input(X, token_dim):
    """A 3-D array as a 2-D table, and the token size it implies.

    2-D (and other) input passes through for ``validate_data`` to check,
    with the token size ``token_dim`` (``None`` for a table without one: one
    token per row). The token estimators validate a flat table and view it
    as tokens afterwards.
    """
    if getattr(X, "ndim", None) is None and not hasattr(X, "__array__"):
        array = np.asarray(X)
        X = array if array.ndim >= 3 else X
    if getattr(X, "ndim", None) == 3:
        tokens = token_view(np.asarray(X), token_dim)
        n_samples, n_tokens, size = tokens.shape
        # An explicit width: reshape(n, -1) fails on an empty batch before
        # validate_data can say what is wrong.
        return tokens.reshape(n_samples, n_tokens * size), size
    if getattr(X, "ndim", 2) > 3:
        token_view(np.asarray(X), None)  # raises the dimensionality error
    return X, token_dim


def warn_one_token_per_row(estimator):
    """Warn that a 2-D table without ``token_dim`` is one token per row.

    Attention over a single token weighs nothing: the user most likely meant
    another layout, or another estimator.
    """
    warn_user(
        f"{type(estimator).__name__} got a 2-D table and token_dim=None: each "
        "row is read as one token, so the attention has a single token to weigh "
        "and does nothing. Pass a 3-D array (n_samples, n_tokens, token_dim), or "
        "set token_dim to the number of features per token."
    )


@validate_params(
    {"X": ["array-like"], "token_dim": _TOKEN_DIM},
    prefer_skip_nested_validation=True,
)
def mean_pool_tokens(X, *, token_dim=None):
    """Average the tokens of every bag (features of a mean-pooled linear model).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_tokens, token_dim) or \
            (n_samples, n_tokens * token_dim)
        Bags of tokens (see :func:`as_token_array`).
    token_dim : int, default=None
        Features per token of a 2-D table (``None``: the row is one token).

    Returns
    -------
    pooled : ndarray of shape (n_samples, token_dim)

    Examples
    --------
    >>> import numpy as np
    >>> mean_pool_tokens(np.array([[1.0, 2.0, 3.0, 6.0]]), token_dim=2).tolist()
    [[2.0, 4.0]]
    """
    return token_view(np.asarray(X), token_dim).mean(axis=1)


@validate_params({"X": ["array-like"]}, prefer_skip_nested_validation=True)
def flatten_tokens(X):
    """Concatenate the tokens of every bag into one feature row.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_tokens, token_dim) or \
            (n_samples, n_features)
        Bags of tokens; a 2-D table is returned unchanged.

    Returns
    -------
    flat : ndarray of shape (n_samples, n_tokens * token_dim)

    Examples
    --------
    >>> import numpy as np
    >>> flatten_tokens(np.zeros((4, 3, 2))).shape
    (4, 6)
    """
    X = np.asarray(X)
    return X.reshape(X.shape[0], X.shape[1] * X.shape[2]) if X.ndim == 3 else X
