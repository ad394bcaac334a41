"""Many independent spherical Langevin chains, run as one matrix, and their averages.

Each row of the ``(n_chains, d)`` matrix ``theta`` is one chain on the unit sphere.
A step adds an increment (drift plus noise, given by the caller), keeps it
tangential with ``P_perp = I - theta theta^T`` and renormalises: the
discretisation ``theta <- normalize(theta + P_perp(h eps b(theta) + sqrt(h) xi))``
of the spherical Langevin diffusion. The time- and chain-averages of ``theta``
and of ``theta theta^T`` are accumulated in float64 (the signal in the second
moment is a small spike on top of ``I / d``); the dynamics itself runs in
float32.
"""

import time
from dataclasses import dataclass

import numpy as np

from ..utils import import_torch


@dataclass(frozen=True)
class ChainAverages:
    """Averages of a set of chains over all their steps.

    Attributes
    ----------
    mean : ndarray of shape (d,)
        Average of ``theta`` over chains and steps.
    second_moment : ndarray of shape (d, d)
        Average of ``theta theta^T`` over chains and steps.
    last : ndarray of shape (n_chains, d)
        The last iterate of every chain.
    """

    mean: np.ndarray
    second_moment: np.ndarray
    last: np.ndarray


def run_chains(increment, n_chains, n_features, n_steps, device, verbose=0, label=""):
    """Run ``n_chains`` chains from the uniform law on the sphere.

    Call inside :func:`sklearn_iclr.utils.torch_seeded`: the initial points and
    the caller's randomness use torch's (forked) global generator.

    Parameters
    ----------
    increment : callable
        ``increment(theta) -> tensor (n_chains, d)``, the raw update of a step
        (it is projected on the tangent space here).
    n_chains, n_features, n_steps : int
        Sizes of the run.
    device : str
        A resolved torch device.
    verbose : int, default=0
        Print progress about ten times when positive.
    label : str, default=""
        Prefix of the progress lines.

    Returns
    -------
    averages : ChainAverages
    """
    torch = import_torch()
    threads = torch.get_num_threads()
    if not str(device).startswith("cuda"):
        # The per-step tensors are small: one thread is faster, and much faster
        # on a shared machine, than a thread pool that syncs every operation.
        torch.set_num_threads(1)
    try:
        return _run_chains(
            torch, increment, n_chains, n_features, n_steps, device, verbose, label
        )
    finally:
        torch.set_num_threads(threads)


def _run_chains(
    torch, increment, n_chains, n_features, n_steps, device, verbose, label
):
    theta = torch.randn(n_chains, n_features, device=device)
    theta /= theta.norm(dim=1, keepdim=True)
    sum_theta = torch.zeros(n_features, dtype=torch.float64, device=device)
    sum_outer = torch.zeros(n_features, n_features, dtype=torch.float64, device=device)
    report_every = max(1, n_steps // 10)
    began = time.perf_counter()
    for step in range(1, n_steps + 1):
        delta = increment(theta)
        delta -= (delta * theta).sum(dim=1, keepdim=True) * theta
        theta = theta + delta
        theta /= theta.norm(dim=1, keepdim=True)
        sum_theta += theta.sum(dim=0, dtype=torch.float64)
        sum_outer += (theta.T @ theta).double()
        if verbose > 0 and (step % report_every == 0 or step == n_steps):
            print(
                f"[{label}] step {step}/{n_steps} of {n_chains} chains, "
                f"{time.perf_counter() - began:.1f}s"
            )
    count = n_chains * n_steps
    return ChainAverages(
        mean=(sum_theta / count).cpu().numpy(),
        second_moment=(sum_outer / count).cpu().numpy(),
        last=theta.double().cpu().numpy(),
    )


def direction_from_averages(averages, order_parity):
    """The averaged-Langevin estimate of the direction.

    Odd information exponent: the normalised average iterate. Even: the
    eigenvector of the averaged second moment whose eigenvalue is farthest from
    ``1 / d`` (the trace over ``d``): a positive spike when the correlation with
    the link is positive, a negative one when it is negative.

    Parameters
    ----------
    averages : ChainAverages
        From :func:`run_chains`.
    order_parity : int
        ``k* % 2``.

    Returns
    -------
    direction : ndarray of shape (d,)
        A unit vector (sign arbitrary).
    """
    if order_parity == 1:
        return averages.mean / np.linalg.norm(averages.mean)
    second = averages.second_moment
    eigvals, eigvecs = np.linalg.eigh((second + second.T) / 2)
    centre = np.trace(second) / len(second)
    pick = 0 if centre - eigvals[0] > eigvals[-1] - centre else -1
    return eigvecs[:, pick]
