"""Anchors of the contrastive family, for tests and benchmarks only.

Not part of the public API (docs/conventions.rst): they exist to be compared
against.

* :func:`fit_supervised_encoder`: Betser et al. (ICLR 2026) contrast InfoNCE
  embeddings with the embeddings of the *same* network trained with a
  supervised loss. It trains that network: the network of ``build_mlp``
  followed by a linear softmax head, by cross-entropy, with the seeding and
  minibatching of ``fit_skorch_net`` (``sklearn_iclr.utils._skorch``).
"""

import numpy as np
from sklearn.utils.validation import check_array, column_or_1d

from ..utils import build_mlp, fit_skorch_net, import_torch, seed_from_random_state


def fit_supervised_encoder(
    X,
    y,
    *,
    n_components,
    hidden_layer_sizes=(),
    max_epochs=50,
    batch_size=256,
    learning_rate=1e-3,
    random_state=None,
):
    """Train the encoder of :class:`InfoNCEEncoder` with a supervised softmax head.

    The encoder is initialised exactly as
    :class:`~sklearn_iclr.contrastive.InfoNCEEncoder` initialises it for
    the same ``random_state`` (the encoder's weights are drawn first, the
    head's after), and trained with Adam on the cross-entropy of the labels.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Inputs.
    y : array-like of shape (n_samples,)
        Class labels.
    n_components : int
        Embedding dimension (the encoder's output, fed to the head).
    hidden_layer_sizes : tuple of int, default=()
        Hidden layers of the encoder.
    max_epochs : int, default=50
        Passes over the data.
    batch_size : int, default=256
        Rows per minibatch (capped at ``n_samples``).
    learning_rate : float, default=1e-3
        Adam step size.
    random_state : int, RandomState instance or None, default=None
        Seeds the weights and the minibatch order.

    Returns
    -------
    encoder : torch.nn.Sequential
        The trained encoder without its head, on the CPU in eval mode:
        ``encoder(torch.as_tensor(X, dtype=torch.float32))`` embeds ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> import torch
    >>> from sklearn_iclr.contrastive._baselines import fit_supervised_encoder
    >>> X = np.random.RandomState(0).randn(40, 3)
    >>> encoder = fit_supervised_encoder(X, X[:, 0] > 0, n_components=2,
    ...                                  max_epochs=2, random_state=0)
    >>> with torch.no_grad():
    ...     Z = encoder(torch.as_tensor(X, dtype=torch.float32))
    >>> tuple(Z.shape)
    (40, 2)
    """
    torch = import_torch()
    from skorch import NeuralNet

    X = check_array(X, dtype=np.float32)
    _, y_index = np.unique(column_or_1d(y), return_inverse=True)
    n_classes = int(y_index.max()) + 1

    def make_module():
        encoder = build_mlp(X.shape[1], n_components, hidden_layer_sizes)
        return torch.nn.Sequential(encoder, torch.nn.Linear(n_components, n_classes))

    net = fit_skorch_net(
        NeuralNet,
        make_module,
        X,
        y_index.astype(np.int64),
        batch_size=min(batch_size, len(X)),
        seed=seed_from_random_state(random_state),
        n_threads=1,
        criterion=torch.nn.CrossEntropyLoss,
        optimizer=torch.optim.Adam,
        lr=learning_rate,
        max_epochs=max_epochs,
        verbose=0,
    )
    return net.module_[0]
