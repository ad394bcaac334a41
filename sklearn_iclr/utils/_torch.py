"""Torch helpers: lazy import, device resolution and local seeding.

Nothing here imports torch at module import time, so that ``import sklearn_iclr``
and the numpy estimators never load it.
"""

import contextlib
import importlib
from numbers import Integral

import numpy as np
from sklearn.utils.validation import check_random_state

from ._compat import DeviceOptions, Interval, validate_params

TORCH_EXTRA_HINT = (
    "Install the optional [torch] extra from a checkout of sklearn-iclr: "
    '`pip install ".[torch]"`. On a machine without a GPU, install a CPU '
    "build of torch first (`pip install torch --index-url "
    "https://download.pytorch.org/whl/cpu`), so that the extra does not pull "
    "the multi-GB CUDA build."
)


def import_torch():
    """Import and return torch, with an actionable message when it is missing.

    torch and skorch form the optional ``[torch]`` extra; the torch-backed
    estimators call this at the start of ``fit``, so that importing
    sklearn_iclr and using the numpy estimators never needs them.

    Returns
    -------
    torch : module

    Raises
    ------
    ImportError
        When torch or skorch is not installed; the message names the extra.

    Examples
    --------
    >>> torch = import_torch()
    >>> torch.__name__
    'torch'
    """
    for name in ("torch", "skorch"):
        try:
            module = importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(
                f"This estimator needs {name}, which is not installed. "
                + TORCH_EXTRA_HINT
            ) from exc
        if name == "torch":
            torch = module
    return torch


@validate_params({"device": [DeviceOptions()]}, prefer_skip_nested_validation=True)
def resolve_device(device):
    """Turn ``"auto" | "cpu" | "cuda" | "cuda:N" | "mps"`` into a concrete device.

    Parameters
    ----------
    device : str
        ``"auto"`` picks CUDA when available, else CPU.

    Returns
    -------
    device : str

    Examples
    --------
    >>> resolve_device("cpu")
    'cpu'
    """
    if device == "cpu":
        return device
    torch = import_torch()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "mps":
        if not torch.backends.mps.is_available():
            raise ValueError(
                "device='mps' was requested but Apple's MPS backend is not "
                "available; use device='cpu' or device='auto'."
            )
        return device
    if not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; "
            "use device='cpu' or device='auto'."
        )
    return device


@validate_params({"random_state": ["random_state"]}, prefer_skip_nested_validation=True)
def seed_from_random_state(random_state):
    """Draw a 63-bit integer seed from a scikit-learn ``random_state``.

    Parameters
    ----------
    random_state : int, RandomState instance or None

    Returns
    -------
    seed : int

    Examples
    --------
    >>> seed_from_random_state(0) == seed_from_random_state(0)
    True
    """
    rng = check_random_state(random_state)
    return int(rng.randint(np.iinfo(np.int64).max, dtype=np.int64))


@validate_params(
    {"seed": [Interval(Integral, 0, None, closed="left")], "device": [DeviceOptions()]},
    prefer_skip_nested_validation=True,
)
@contextlib.contextmanager
def torch_seeded(seed, device="cpu"):
    """Seed torch inside a block without touching the global RNG state.

    The global CPU generator (and the CUDA one when ``device`` is a CUDA
    device) are forked on entry and restored on exit, so a fit seeded this way
    leaves a user's own torch randomness unchanged.

    Parameters
    ----------
    seed : int
        Seed for torch's generators inside the block.
    device : str, default="cpu"
        A resolved device (see :func:`resolve_device`).

    Examples
    --------
    >>> torch = import_torch()
    >>> before = torch.random.get_rng_state()
    >>> with torch_seeded(0):
    ...     a = torch.rand(2)
    >>> bool((torch.random.get_rng_state() == before).all())
    True
    """
    torch = import_torch()
    cuda_devices = [torch.device(device)] if device.startswith("cuda") else []
    with torch.random.fork_rng(devices=cuda_devices):
        torch.manual_seed(seed)
        yield
