"""Key-value recall sequences: one trigger-marked token, its label a permutation."""

from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "vocab_size": [Interval(Integral, 2, None, closed="left")],
        "seq_len": [Interval(Integral, 2, None, closed="left")],
        "return_permutation": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_token_recall(
    n_samples=1000,
    *,
    vocab_size=32,
    seq_len=8,
    return_permutation=False,
    random_state=None,
):
    """Token-retrieval sequences: find the marked token, output its fact.

    The task of Vural, Bietti, Soltanolkotabi and Wu, "Learning to Recall with
    Transformers Beyond Orthogonal Embeddings" (ICLR 2026, arXiv:2603.15923):
    a sequence of ``seq_len`` tokens holds one informative token; its label is
    ``perm[token]`` for a fixed random permutation ``perm`` of the vocabulary
    (the "facts"). Every other position holds a noise token drawn uniformly
    from the same vocabulary.

    Token ``0`` is the trigger; the informative token is the one right after
    it. Content tokens are ``1, ..., vocab_size``, so ``X`` takes values in
    ``{0, ..., vocab_size}`` (``vocab_size + 1`` token ids in all), the format
    :class:`~sklearn_iclr.attention.RandomEmbeddingRecallClassifier`
    takes with its default ``trigger_token=0``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of sequences ``N``.
    vocab_size : int, default=32
        Number of content tokens ``V`` (and of labels), at least 2.
    seq_len : int, default=8
        Sequence length ``L`` including the trigger, at least 2.
    return_permutation : bool, default=False
        Also return the permutation.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw (permutation, positions and tokens).

    Returns
    -------
    X : ndarray of shape (n_samples, seq_len), dtype int64
        The sequences; exactly one ``0`` per row, never in the last column.
    y : ndarray of shape (n_samples,), dtype int64
        The labels ``perm[X[i, p + 1]]`` in ``{0, ..., vocab_size - 1}``,
        ``p`` the trigger's position.
    perm : ndarray of shape (vocab_size + 1,), dtype int64
        Only when ``return_permutation``: ``perm[t]`` is the label of content
        token ``t`` (``perm[0] = -1``: the trigger has no label).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.datasets import make_token_recall
    >>> X, y, perm = make_token_recall(5, vocab_size=10, seq_len=4,
    ...                                return_permutation=True, random_state=0)
    >>> X.shape, bool(((X == 0).sum(axis=1) == 1).all())
    ((5, 4), True)
    >>> pos = np.argmax(X == 0, axis=1)
    >>> bool((perm[X[np.arange(5), pos + 1]] == y).all())
    True
    """
    rng = check_random_state(random_state)
    perm = np.full(vocab_size + 1, -1, dtype=np.int64)
    perm[1:] = rng.permutation(vocab_size)
    X = rng.randint(1, vocab_size + 1, size=(n_samples, seq_len)).astype(np.int64)
    rows = np.arange(n_samples)
    trigger = rng.randint(0, seq_len - 1, size=n_samples)
    X[rows, trigger] = 0
    y = perm[X[rows, trigger + 1]]
    if return_permutation:
        return X, y, perm
    return X, y
