"""Torch/skorch training glue shared by the torch-backed estimators.

The estimators of sklearn_iclr are plain scikit-learn estimators that build a
skorch net *inside* ``fit`` (composition, not inheritance): the net is sized
from the validated data, trained under a local seed, and only its torch module
is kept, moved to the CPU, so a fitted estimator pickles and unpickles on any
machine. The functions here are the pieces every such estimator needs:

- :func:`build_mlp` makes the network from ``hidden_layer_sizes``;
- :func:`fit_skorch_net` trains a skorch net with a seeded generator on a
  device and leaves the trained module on the CPU;
- :func:`torch_num_threads` limits torch's CPU threads inside a block;
- :func:`epoch_history` turns skorch's history into plain Python records;
- :func:`module_outputs` runs a fitted module on new data.

Nothing here imports torch or skorch at module import time.
"""

import contextlib
import copy
from numbers import Integral

import numpy as np

from ._budget import check_work_budget
from ._compat import DeviceOptions, Interval, StrOptions, validate_params
from ._torch import import_torch, torch_seeded


@validate_params(
    {
        "n_inputs": [Interval(Integral, 1, None, closed="left")],
        "n_outputs": [Interval(Integral, 1, None, closed="left")],
        "hidden_layer_sizes": ["array-like"],
        "activation": [StrOptions({"relu", "tanh"})],
    },
    prefer_skip_nested_validation=True,
)
def build_mlp(n_inputs, n_outputs, hidden_layer_sizes=(), activation="relu"):
    """Build a fully connected network as a ``torch.nn.Sequential``.

    Parameters
    ----------
    n_inputs : int
        Number of input features.
    n_outputs : int
        Number of outputs (logits, targets, ...).
    hidden_layer_sizes : tuple of int, default=()
        Widths of the hidden layers; ``()`` gives a linear model
        (a single ``Linear`` layer).
    activation : {"relu", "tanh"}, default="relu"
        Activation after every hidden layer.

    Returns
    -------
    module : torch.nn.Sequential
        ``Linear -> activation -> ... -> Linear``, initialised by torch's default
        (Kaiming-uniform) scheme from the current torch RNG state.

    Raises
    ------
    ValueError
        If a hidden layer width is not a positive integer, or the activation
        is unknown.

    Examples
    --------
    >>> module = build_mlp(4, 2, hidden_layer_sizes=(8,))
    >>> [type(layer).__name__ for layer in module]
    ['Linear', 'ReLU', 'Linear']
    >>> [type(layer).__name__ for layer in build_mlp(1, 1, (8,), activation="tanh")]
    ['Linear', 'Tanh', 'Linear']
    """
    torch = import_torch()
    activations = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}
    widths = list(hidden_layer_sizes)
    if not all(isinstance(w, (int, np.integer)) and w > 0 for w in widths):
        raise ValueError(
            "hidden_layer_sizes must be a tuple of positive integers, got "
            f"{hidden_layer_sizes!r}; use () for a linear model."
        )
    layers = []
    previous = n_inputs
    for width in widths:
        layers += [torch.nn.Linear(previous, int(width)), activations[activation]()]
        previous = int(width)
    layers.append(torch.nn.Linear(previous, n_outputs))
    return torch.nn.Sequential(*layers)


def check_mlp_training_budget(
    n_samples, widths, max_epochs, max_work, *, batch_size, passes_per_sample=1
):
    """Refuse up front a training whose estimated cost exceeds ``max_work``.

    One epoch costs about ``3 * n_samples * sum(a * b)`` multiply-adds over the
    consecutive layer widths ``(a, b)`` (forward and backward passes), times
    ``passes_per_sample`` (two augmented views for a contrastive loss), and
    ``ceil(n_samples / batch_size)`` optimiser steps, whose fixed overhead the
    cost table counts apart.

    Parameters
    ----------
    n_samples : int
        Training rows.
    widths : sequence of int
        Layer widths from the inputs to the outputs.
    max_epochs : int
        Passes over the data.
    max_work : float
        Largest estimate accepted, in seconds of the reference core.
    batch_size : int
        Rows per optimiser step.
    passes_per_sample : int, default=1
        Forward and backward passes per row and epoch.

    Examples
    --------
    >>> check_mlp_training_budget(100, (10, 1), 40, 3600.0, batch_size=8)
    """
    widths = tuple(widths)
    per_sample = 3.0 * sum(a * b for a, b in zip(widths[:-1], widths[1:], strict=True))
    steps = -(-n_samples // batch_size)
    epoch = n_samples * passes_per_sample * per_sample
    check_work_budget(
        {
            "torch_multiply_add": float(max_epochs) * epoch,
            "torch_step": float(max_epochs) * steps,
        },
        max_work,
        advice="Or lower max_epochs or the hidden layer sizes, or subsample X.",
    )


@validate_params(
    {"n_threads": [Interval(Integral, 1, None, closed="left"), None]},
    prefer_skip_nested_validation=True,
)
@contextlib.contextmanager
def torch_num_threads(n_threads):
    """Limit torch's intra-op CPU threads inside a block, then restore them.

    Small-batch training runs thousands of tiny operations whose cost is
    dominated by thread synchronisation (the SpuriousRobustSGD benchmark page,
    ``docs/benchmarks/spurious_sgd.rst``, gives the measured effect).

    Parameters
    ----------
    n_threads : int or None
        Threads inside the block; ``None`` leaves torch's setting alone.

    Examples
    --------
    >>> torch = import_torch()
    >>> before = torch.get_num_threads()
    >>> with torch_num_threads(1):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    torch = import_torch()
    before = torch.get_num_threads()
    if n_threads is not None:
        torch.set_num_threads(n_threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@validate_params(
    {
        "net_class": [type],
        "make_module": [callable],
        "X": ["array-like"],
        "y": ["array-like"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "seed": [Interval(Integral, 0, None, closed="left")],
        "device": [DeviceOptions()],
        "n_threads": [Interval(Integral, 1, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def fit_skorch_net(
    net_class,
    make_module,
    X,
    y,
    *,
    batch_size,
    seed,
    device="cpu",
    n_threads=None,
    **net_params,
):
    """Train a skorch net reproducibly and return it with its module on the CPU.

    ``make_module()`` is called inside :func:`torch_seeded`, so the initial
    weights follow ``seed``, and training runs in the same seeded block (the
    global torch RNG state is left as it was). Each epoch visits the rows in
    a fresh random order drawn from a ``torch.Generator`` seeded with
    ``seed``, cut into consecutive minibatches of ``batch_size`` rows (the
    last one may be smaller). A minibatch is sliced from the arrays in one
    indexing operation rather than row by row, which matters for small
    batches. There is no internal validation split and no loader worker
    process.

    Parameters
    ----------
    net_class : type
        A ``skorch.NeuralNet`` subclass.
    make_module : callable
        ``make_module() -> torch.nn.Module``, the network to train.
    X, y : ndarray
        Training data (``y`` may be any array the criterion understands).
    batch_size : int
        Rows per minibatch.
    seed : int
        Seed of the initial weights, the minibatch order and any other
        randomness during training.
    device : str, default="cpu"
        A resolved device (see :func:`sklearn_iclr.utils.resolve_device`).
    n_threads : int or None, default=None
        torch CPU threads during training (see :func:`torch_num_threads`).
    **net_params : dict
        Further arguments of ``net_class`` (``criterion``, ``optimizer``,
        ``lr``, ``max_epochs``, ``verbose``, ...).

    Returns
    -------
    net : skorch.NeuralNet
        The fitted net; its ``module_`` is on the CPU in eval mode.

    Examples
    --------
    >>> import numpy as np
    >>> from skorch import NeuralNet
    >>> torch = import_torch()
    >>> X = np.random.RandomState(0).randn(20, 3).astype(np.float32)
    >>> y = X @ np.ones((3, 1), dtype=np.float32)
    >>> net = fit_skorch_net(NeuralNet, lambda: build_mlp(3, 1), X, y,
    ...                      batch_size=8, seed=0, verbose=0,
    ...                      criterion=torch.nn.MSELoss, max_epochs=2)
    >>> next(net.module_.parameters()).device.type
    'cpu'
    """
    torch = import_torch()
    from torch.utils.data import BatchSampler, RandomSampler

    with torch_seeded(seed, device), torch_num_threads(n_threads):
        generator = torch.Generator().manual_seed(seed)
        order = RandomSampler(range(len(X)), generator=generator)
        net = net_class(
            make_module(),
            device=device,
            train_split=None,
            batch_size=batch_size,
            iterator_train__sampler=BatchSampler(order, batch_size, drop_last=False),
            iterator_train__batch_size=None,
            iterator_train__shuffle=False,
            iterator_train__num_workers=0,
            **net_params,
        )
        net.fit(torch.as_tensor(X), torch.as_tensor(y))
    net.module_.to("cpu")
    net.module_.eval()
    return net


@validate_params(
    {"net": [object], "keys": ["array-like"]},
    prefer_skip_nested_validation=True,
)
def epoch_history(net, keys):
    """Extract per-epoch records from a fitted skorch net's history.

    Parameters
    ----------
    net : skorch.NeuralNet
        A fitted net.
    keys : iterable of str
        The history keys to keep (missing keys are left out of a record).

    Returns
    -------
    history : list of dict
        One plain-Python dict per epoch, with ``"epoch"`` always present.

    Examples
    --------
    >>> class FakeNet:
    ...     history = [{"epoch": 1, "train_loss": 0.5, "batches": []}]
    >>> epoch_history(FakeNet(), ["train_loss"])
    [{'epoch': 1, 'train_loss': 0.5}]
    """
    keys = ["epoch", *(k for k in keys if k != "epoch")]
    return [{k: record[k] for k in keys if k in record} for record in net.history]


@validate_params(
    {
        "module": [callable],
        "X": ["array-like"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def module_outputs(module, X, batch_size=256):
    """Run a fitted module on a float array and return its outputs as numpy.

    The module is evaluated on the device its parameters are on (the CPU for
    modules returned by :func:`fit_skorch_net`), without gradients, in
    chunks of exactly ``batch_size`` rows (the last one padded with zeros),
    in float64 (a float64 copy of a float32 module is made for the call).
    Matrix kernels sum in an order that depends on the shape of the product,
    so a row's output would change with the number of rows passed with it;
    with one fixed shape the outputs of a subset equal the same rows of the
    full call bit for bit (scikit-learn's ``check_methods_subset_invariance``).

    Parameters
    ----------
    module : torch.nn.Module
        A fitted network.
    X : ndarray of shape (n_samples, n_features)
        Input, converted to float64.
    batch_size : int, default=256
        Rows per forward pass (the fixed shape of every pass).

    Returns
    -------
    outputs : ndarray of shape (n_samples, n_outputs)
        float64 outputs.

    Examples
    --------
    >>> import numpy as np
    >>> with torch_seeded(0):
    ...     module = build_mlp(3, 2)
    >>> module_outputs(module, np.zeros((5, 3))).shape
    (5, 2)
    """
    torch = import_torch()
    parameter = next(module.parameters())
    device = parameter.device
    if parameter.dtype != torch.float64:
        module = copy.deepcopy(module).double()
    X = np.ascontiguousarray(X, dtype=np.float64)
    chunks = []
    module.eval()
    with torch.no_grad():
        for start in range(0, len(X), batch_size):
            rows = X[start : start + batch_size]
            batch = torch.zeros((batch_size, X.shape[1]), dtype=torch.float64)
            batch[: len(rows)] = torch.from_numpy(rows)
            chunks.append(module(batch.to(device)).cpu().numpy()[: len(rows)])
    return np.concatenate(chunks).astype(np.float64)
