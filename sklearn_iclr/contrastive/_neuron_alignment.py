"""Reading BReLUAttentionEncoder's neurons against a known dictionary."""

from numbers import Real

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from ..utils._compat import Interval, validate_params
from ._brelu_attention import BReLUAttentionEncoder


@validate_params(
    {
        "encoder": [BReLUAttentionEncoder],
        "dictionary": ["array-like"],
        "specialist_threshold": [Interval(Real, 0, 1, closed="right")],
        "mixed_threshold": [Interval(Real, 0, 1, closed="right")],
    },
    prefer_skip_nested_validation=True,
)
def neuron_alignment(
    encoder, dictionary, *, specialist_threshold=0.8, mixed_threshold=0.3
):
    """Alignment of a fitted encoder's neurons with dictionary features over training.

    For every entry of :attr:`BReLUAttentionEncoder.history_` and
    every neuron ``w_i`` and feature ``M_j`` (a column of ``dictionary``):
    the cosine ``cos(w_i, M_j)``, the coefficient ``w_i . M_j / |M_j|``, and
    the noise part ``|(I - P_M) w_i|`` (the norm outside the span of the
    dictionary). A kept neuron is a *specialist* of feature ``j`` when
    ``|cos(w_i, M_j)| >= specialist_threshold`` for ``j`` and for no other
    feature; it is *mixed* when ``|cos| >= mixed_threshold`` for two features
    or more (it then counts as mixed for each of them).

    The dictionary is known only for synthetic data, so the diagnostics are
    a function of a fitted encoder and a dictionary rather than part of
    ``fit``: the encoder records its weights (``history_``) on any
    data, and the same fit can be examined against several dictionaries.

    Parameters
    ----------
    encoder : BReLUAttentionEncoder
        A fitted encoder.
    dictionary : array-like of shape (token_dim, n_atoms)
        The features ``M_j`` as columns (need not be normalised; must be
        linearly independent).
    specialist_threshold : float, default=0.8
        Smallest ``|cos|`` of a specialist.
    mixed_threshold : float, default=0.3
        Smallest ``|cos|`` at which a feature counts in a neuron.

    Returns
    -------
    result : Bunch
        ``epochs`` (n_records,), ``cosine`` and ``coef`` (n_records,
        n_neurons, n_atoms), ``noise`` (n_records, n_neurons), ``kept``
        (n_records, n_neurons), ``specialist`` (n_records, n_neurons: the
        feature a kept neuron specialises in, -1 if none),
        ``n_specialists`` and ``n_mixed`` (n_records, n_atoms) and
        ``best_cosine`` (n_records, n_atoms: the largest ``|cos|`` over
        the kept neurons).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_sparse_coding_pairs
    >>> X, X_pos, codes, M, rates = make_sparse_coding_pairs(300, random_state=0)
    >>> encoder = BReLUAttentionEncoder(n_neurons=16, max_epochs=4, record_every=2,
    ...                                 random_state=0).fit(X, X_positive=X_pos)
    >>> report = neuron_alignment(encoder, M)
    >>> report.epochs.tolist(), report.cosine.shape, report.n_specialists.shape
    ([0, 2, 4], (3, 16, 8), (3, 8))
    """
    check_is_fitted(encoder, "history_")
    dictionary = np.asarray(dictionary, dtype=np.float64)
    if dictionary.ndim != 2 or dictionary.shape[0] != encoder.token_dim_:
        raise ValueError(
            f"dictionary must have shape (token_dim, n_atoms) = "
            f"({encoder.token_dim_}, n_atoms), got {dictionary.shape}."
        )
    norms = np.linalg.norm(dictionary, axis=0)
    if np.any(norms == 0) or not np.all(np.isfinite(dictionary)):
        raise ValueError("dictionary has a zero or non-finite column.")
    if np.linalg.matrix_rank(dictionary) < dictionary.shape[1]:
        raise ValueError("dictionary columns are linearly dependent.")
    history = np.stack([entry["neuron_weights"] for entry in encoder.history_])
    coef = history @ (dictionary / norms)
    weight_norms = np.linalg.norm(history, axis=-1)
    safe = np.where(weight_norms > 0, weight_norms, 1.0)
    cosine = coef / safe[..., None]
    # Distance of every w_i to the span of the dictionary.
    basis = np.linalg.qr(dictionary)[0]
    residual = history - (history @ basis) @ basis.T
    noise = np.linalg.norm(residual, axis=-1)
    kept = np.stack([entry["neuron_mask"] for entry in encoder.history_])
    strong = (np.abs(cosine) >= specialist_threshold) & kept[..., None]
    present = (np.abs(cosine) >= mixed_threshold) & kept[..., None]
    single = strong.sum(axis=-1) == 1
    specialist = np.where(single, np.argmax(strong, axis=-1), -1)
    n_atoms = dictionary.shape[1]
    n_specialists = np.stack(
        [(specialist == j).sum(axis=-1) for j in range(n_atoms)], axis=-1
    )
    mixed = present & (present.sum(axis=-1, keepdims=True) >= 2)
    best = np.where(kept[..., None], np.abs(cosine), 0.0).max(axis=1)
    return Bunch(
        epochs=np.array([entry["epoch"] for entry in encoder.history_]),
        cosine=cosine,
        coef=coef,
        noise=noise,
        kept=kept,
        specialist=specialist,
        n_specialists=n_specialists,
        n_mixed=mixed.sum(axis=1),
        best_cosine=best,
    )
