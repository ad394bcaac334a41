"""Attention over bags of tokens: sparse-token classification and key-value recall.

Both estimators read a sample as a bag of tokens, a 3-D array
``(n_samples, n_tokens, token_dim)`` or a 2-D table of ``n_tokens``
consecutive blocks of ``token_dim`` columns (:func:`as_token_array`), and pool
the tokens with one softmax attention head. Both are numpy/scipy.
"""

from ..utils._tokens import as_token_array, flatten_tokens, mean_pool_tokens
from ._random_embedding_recall import RandomEmbeddingRecallClassifier
from ._recall_capacity import recall_capacity
from ._sparse_token_attention import SparseTokenAttentionClassifier

__all__ = [
    "RandomEmbeddingRecallClassifier",
    "SparseTokenAttentionClassifier",
    "as_token_array",
    "flatten_tokens",
    "mean_pool_tokens",
    "recall_capacity",
]
