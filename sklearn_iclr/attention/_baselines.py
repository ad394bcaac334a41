"""Anchors of the attention family, for tests and benchmarks only.

Not part of the public API (docs/conventions.rst): they exist to be compared
against.

* :func:`make_pooled_logistic_regression`, :func:`make_flattened_logistic_regression`:
  the linear anchors of :class:`SparseTokenAttentionClassifier` (logistic
  regression on the mean token, and on all tokens side by side).
"""

from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from ..utils._tokens import flatten_tokens, mean_pool_tokens


def make_pooled_logistic_regression(token_dim=None, **logistic_params):
    """Pooled linear baseline: logistic regression on the mean token of each bag.

    Any linear classifier of the mean token needs a signal strength growing
    like ``sqrt(n_tokens)`` to classify sparse-token bags (Barnfield, Cui & Lu,
    ICLR 2026); :class:`SparseTokenAttentionClassifier` needs ``log n_tokens``.

    Parameters
    ----------
    token_dim : int, default=None
        Features per token of a 2-D input table (``None``: one per column);
        ignored for 3-D input.
    **logistic_params
        Passed to :class:`~sklearn.linear_model.LogisticRegression`.

    Returns
    -------
    pipeline : Pipeline
        ``FunctionTransformer(mean_pool_tokens) -> LogisticRegression``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_sparse_token
    >>> X, y, _, _ = make_sparse_token(200, n_tokens=4, token_dim=3,
    ...                                random_state=0)
    >>> make_pooled_logistic_regression().fit(X, y).score(X, y) > 0.5
    True
    """
    return make_pipeline(
        FunctionTransformer(mean_pool_tokens, kw_args={"token_dim": token_dim}),
        LogisticRegression(**logistic_params),
    )


def make_flattened_logistic_regression(**logistic_params):
    """Flattened linear baseline: logistic regression on all tokens side by side.

    Parameters
    ----------
    **logistic_params
        Passed to :class:`~sklearn.linear_model.LogisticRegression`.

    Returns
    -------
    pipeline : Pipeline
        ``FunctionTransformer(flatten_tokens) -> LogisticRegression``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_sparse_token
    >>> X, y, _, _ = make_sparse_token(200, n_tokens=4, token_dim=3, random_state=0)
    >>> make_flattened_logistic_regression().fit(X, y).predict(X).shape
    (200,)
    """
    return make_pipeline(
        FunctionTransformer(flatten_tokens), LogisticRegression(**logistic_params)
    )
