"""Torch helpers: lazy import, device resolution and local seeding.

Nothing here imports torch at module import time, so that ``import sklearn_iclr``
and the numpy estimators never load it.
"""

import contextlib
import importlib

import numpy as np
from sklearn.utils.validation import check_random_state

DEVICES = ("auto", "cpu", "cuda")


def import_torch():
    """Import and return torch, with an actionable message when it is missing.

    Returns
    -------
    torch : module

    Examples
    --------
    >>> torch = import_torch()
    >>> torch.__name__
    'torch'
    """
    try:
        return importlib.import_module("torch")
    except ImportError as exc:  # pragma: no cover - torch is a dependency
        raise ImportError(
            "This estimator needs PyTorch. Install it with `pip install torch` "
            "(a CPU build is enough)."
        ) from exc


def resolve_device(device):
    """Turn ``"auto" | "cpu" | "cuda" | "cuda:N"`` into a concrete device string.

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
    if not isinstance(device, str) or not (
        device in DEVICES or device.startswith("cuda:")
    ):
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}."
        )
    if device == "cpu":
        return device
    torch = import_torch()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} was requested but CUDA is not available; "
            "use device='cpu' or device='auto'."
        )
    return device


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
