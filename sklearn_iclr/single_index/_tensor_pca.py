"""Spiked tensor PCA by averaged spherical Langevin dynamics."""

import math
from itertools import permutations
from numbers import Integral, Real

import numpy as np

from ..utils import import_torch, resolve_device, seed_from_random_state, torch_seeded
from ..utils._compat import DeviceOptions, Interval, StrOptions, validate_params
from ._langevin_chains import direction_from_averages, run_chains


def symmetrize(tensor):
    """Average of a square tensor over all permutations of its modes.

    Parameters
    ----------
    tensor : ndarray of shape (d,) * k

    Returns
    -------
    symmetric : ndarray of shape (d,) * k
    """
    perms = list(permutations(range(tensor.ndim)))
    return sum(np.transpose(tensor, p) for p in perms) / len(perms)


def _check_tensor(tensor):
    tensor = np.asarray(tensor, dtype=np.float64)
    if tensor.ndim < 2 or len(set(tensor.shape)) != 1:
        raise ValueError(
            "tensor must be square with at least 2 modes, shape (d, d, ..., d); "
            f"got shape {tensor.shape}."
        )
    if tensor.shape[0] < 2:
        raise ValueError("tensor must have d >= 2 (got 1 feature(s)).")
    if not np.all(np.isfinite(tensor)):
        raise ValueError("tensor contains NaN or infinity; remove or impute them.")
    return tensor


@validate_params(
    {
        "tensor": ["array-like"],
        "inverse_temperature": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    },
    prefer_skip_nested_validation=True,
)
def tensor_pca_langevin(
    tensor,
    inverse_temperature="auto",
    *,
    learning_rate="auto",
    max_iter=500,
    n_chains=256,
    device="cpu",
    random_state=None,
    verbose=0,
):
    """Recover the spike of ``T = theta*^(tensor k) + noise`` by averaged Langevin.

    The tensor-PCA case of Wei, Damian & Lee, "Improved high-dimensional
    estimation with Langevin dynamics and stochastic weight averaging", ICLR
    2026: chains of spherical Langevin dynamics on ``L(theta) = -<T,
    theta^(tensor k)>`` start uniformly on the sphere and step::

        theta <- normalize(theta + P_perp(h eps grad <T, theta^k> + sqrt(h) xi))

    with ``xi ~ N(0, I)``. The estimate is the normalised average of the
    iterates (odd ``k``) or the extreme eigenvector of the average of
    ``theta theta^T`` (even ``k``); at high temperature these approach the
    partial traces of ``T``.

    Parameters
    ----------
    tensor : array-like of shape (d,) * k
        The observed tensor (symmetrised here), ``k >= 2``.
    inverse_temperature : float or "auto", default="auto"
        ``eps``. ``"auto"`` uses ``d``: at ``d = 12-16``, ``k = 3, 4``,
        ``eps = d`` and ``2 d`` gave the same overlaps, ``sqrt(d)`` lower ones
        (too hot: the averages carry too little signal for the run length).
    learning_rate : float or "auto", default="auto"
        The step ``h`` in diffusion time. ``"auto"`` uses ``0.04 / d`` (a move
        of about 0.2 per step).
    max_iter : int, default=500
        Steps of every chain (all are run: the average needs them).
    n_chains : int, default=256
        Independent chains run together.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Torch device.
    random_state : int, RandomState instance or None, default=None
        Seeds the chains.
    verbose : int, default=0
        Print progress when positive.

    Returns
    -------
    direction : ndarray of shape (d,)
        Unit vector (sign arbitrary for even ``k``).

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_tensor_pca
    >>> from sklearn_iclr.metrics import overlap
    >>> T, theta = make_tensor_pca(8, order=3, n_samples=200, random_state=0)
    >>> overlap(tensor_pca_langevin(T, random_state=0), theta) > 0.9
    True
    """
    tensor = symmetrize(_check_tensor(tensor))
    order, d = tensor.ndim, tensor.shape[0]
    eps = float(d) if inverse_temperature == "auto" else float(inverse_temperature)
    h = 0.04 / d if learning_rate == "auto" else float(learning_rate)
    device = resolve_device(device)
    torch = import_torch()
    with torch_seeded(seed_from_random_state(random_state), device):
        flat = torch.as_tensor(
            tensor.reshape(d, -1), dtype=torch.float32, device=device
        )
        drift_scale, noise_scale = h * eps * order, math.sqrt(h)

        def langevin_increment(theta):
            contracted = theta @ flat
            for _ in range(order - 2):
                contracted = torch.einsum(
                    "cim,ci->cm", contracted.reshape(len(theta), d, -1), theta
                )
            noise = torch.randn_like(theta)
            return drift_scale * contracted + noise_scale * noise

        averages = run_chains(
            langevin_increment,
            n_chains,
            d,
            max_iter,
            device,
            verbose=verbose,
            label="tensor_pca_langevin",
        )
    return direction_from_averages(averages, order % 2)
