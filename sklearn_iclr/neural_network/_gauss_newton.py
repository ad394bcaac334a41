"""Levenberg-Marquardt / Gauss-Newton steps for a torch network (float64).

The network is seen as a function ``f(theta, X)`` of one flat parameter vector
(:class:`FlatNetwork`); its residual Jacobian comes from ``torch.func`` (a
per-sample reverse-mode Jacobian, vectorised with ``vmap``). A damped
Gauss-Newton step solves ``(J^T J + D + mu I) delta = -(J^T r + D theta)``
(``D`` an optional L2 penalty) with the smaller Gram matrix
(:class:`DampedGaussNewtonSystem`), and
:func:`levenberg_marquardt_steps` adapts ``mu`` with a trust-region ratio test.
"""

import numpy as np

from ..utils import import_torch

# Eigenvalues of the Gram matrix below this multiple of eps * max(n, p) *
# lambda_max are treated as zero: the pseudo-inverse cut-off of Gauss-Newton.
EIGENVALUE_CUTOFF = 10.0
# Damping beyond this multiple of max diag(J^T J) means the step is a vanishing
# gradient step that still does not decrease the loss: the fit has stalled.
MAX_RELATIVE_DAMPING = 1e16
# A step must lower the sum of squares by more than this fraction of it to be
# accepted: smaller decreases are rounding noise, and the fit has converged.
MIN_RELATIVE_DECREASE = 1e-12
# Rows of the Jacobian computed per vmap chunk are about this many entries.
JACOBIAN_CHUNK_ENTRIES = 2**22


class FlatNetwork:
    """A torch module as a function of one flat parameter vector.

    Parameters
    ----------
    module : torch.nn.Module
        The network; its parameters define the flat vector's layout.
    """

    def __init__(self, module):
        self.module = module
        named = list(module.named_parameters())
        self.names = [name for name, _ in named]
        self.shapes = [param.shape for _, param in named]
        self.sizes = [param.numel() for _, param in named]
        self.n_parameters = sum(self.sizes)

    def parameters(self):
        """Return a detached copy of the module's parameters as one vector."""
        torch = import_torch()
        return torch.cat([p.detach().reshape(-1) for p in self.module.parameters()])

    def load(self, theta):
        """Copy the flat vector ``theta`` into the module's parameters."""
        torch = import_torch()
        with torch.no_grad():
            torch.nn.utils.vector_to_parameters(theta, self.module.parameters())

    def weight_mask(self):
        """A boolean vector, True at the entries of weight matrices (not biases)."""
        torch = import_torch()
        return torch.cat(
            [
                torch.full((size,), name.endswith("weight"))
                for name, size in zip(self.names, self.sizes, strict=True)
            ]
        )

    def __call__(self, theta, X):
        """Outputs of the network with parameters ``theta`` on ``X``."""
        from torch.func import functional_call

        chunks = theta.split(self.sizes)
        params = {
            name: chunk.view(shape)
            for name, chunk, shape in zip(self.names, chunks, self.shapes, strict=True)
        }
        return functional_call(self.module, params, (X,))

    def jacobian(self, theta, X):
        """Jacobian of the flattened outputs with respect to ``theta``.

        Returns
        -------
        J : tensor of shape (n_samples * n_outputs, n_parameters)
            Row ``i * n_outputs + j`` is the gradient of output ``j`` at ``X[i]``.
        """
        from torch.func import jacrev, vmap

        def single(theta, x):
            return self(theta, x[None])[0]

        chunk = max(1, JACOBIAN_CHUNK_ENTRIES // self.n_parameters)
        J = vmap(jacrev(single), in_dims=(None, 0), chunk_size=chunk)(theta, X)
        return J.reshape(-1, self.n_parameters)


class DampedGaussNewtonSystem:
    """Damped Gauss-Newton steps ``-(J^T J + D + mu I)^{-1} (J^T r + D theta)``.

    The steps minimise the linear model ``||r + J delta||^2 + ||D^(1/2)
    (theta + delta)||^2 + mu ||delta||^2`` of the objective ``||r||^2 +
    theta^T D theta``, where ``D = diag(penalty)`` (an L2 penalty, or none).
    With ``N`` residuals and ``p`` parameters, the primal Gram matrix
    ``J^T J + D`` (``p x p``) is used when ``N >= p`` or there is a penalty,
    and the dual one ``J J^T`` (``N x N``) otherwise, through
    ``(J^T J + mu I)^{-1} J^T = J^T (J J^T + mu I)^{-1}``. A damped step is a
    Cholesky solve. ``mu = 0``, or a damped matrix that is not numerically
    positive definite, uses an eigendecomposition of the Gram matrix instead
    (computed once per system) whose eigenvalues below the cut-off are
    dropped: the truncated pseudo-inverse, so no solve is ever singular.

    Parameters
    ----------
    J : tensor of shape (N, p)
        Jacobian of the residuals (float64).
    r : tensor of shape (N,)
        Residuals ``f(theta) - y`` (float64).
    penalty : tensor of shape (p,) or None, default=None
        The diagonal of ``D`` (non-negative).
    theta : tensor of shape (p,) or None, default=None
        The parameters, needed with a penalty.
    """

    def __init__(self, J, r, penalty=None, theta=None):
        self.J, self.r = J, r
        self.penalty, self.theta = penalty, theta
        n_residuals, n_parameters = J.shape
        self.dual = n_residuals < n_parameters and penalty is None
        self.gram = J @ J.T if self.dual else J.T @ J
        self.rhs = r if self.dual else J.T @ r
        if penalty is not None:
            self.gram.diagonal().add_(penalty)
            self.rhs = self.rhs + penalty * theta
        # Marquardt's scale: the largest diagonal entry of J^T J (+ D).
        diagonal = (J * J).sum(axis=0) if penalty is None else self.gram.diagonal()
        self.scale = float(diagonal.max()) if J.numel() else 0.0
        self._eigensystem = None

    def step(self, damping):
        """The step ``delta = -(J^T J + D + damping I)^+ (J^T r + D theta)``."""
        torch = import_torch()
        coef = None
        if damping > 0.0:
            eye = torch.eye(
                len(self.gram), dtype=self.gram.dtype, device=self.gram.device
            )
            factor, info = torch.linalg.cholesky_ex(self.gram + damping * eye)
            if int(info) == 0:
                coef = torch.cholesky_solve(self.rhs[:, None], factor)[:, 0]
        if coef is None:
            eigenvalues, eigenvectors = self._eigen()
            projected = eigenvectors.T @ self.rhs
            coef = eigenvectors @ (projected / (eigenvalues + damping))
        return -(self.J.T @ coef) if self.dual else -coef

    def _eigen(self):
        if self._eigensystem is None:
            torch = import_torch()
            eigenvalues, eigenvectors = torch.linalg.eigh(self.gram)
            cutoff = (
                EIGENVALUE_CUTOFF
                * np.finfo(np.float64).eps
                * max(self.J.shape)
                * max(float(eigenvalues[-1]), 0.0)
            )
            keep = eigenvalues > cutoff
            self._eigensystem = eigenvalues[keep], eigenvectors[:, keep]
        return self._eigensystem

    def predicted_decrease(self, delta):
        """Decrease of the objective that the linear model predicts for ``delta``."""
        linear = self.r + self.J @ delta
        decrease = float(self.r @ self.r - linear @ linear)
        if self.penalty is not None:
            moved = self.theta + delta
            decrease += float(
                self.penalty @ (self.theta * self.theta)
                - self.penalty @ (moved * moved)
            )
        return decrease


def levenberg_marquardt_steps(network, X, Y, *, damping, gauss_newton=False, alpha=0.0):
    """Run Levenberg-Marquardt (or Gauss-Newton) on ``||f(X) - Y||^2 + alpha ||W||^2``.

    ``W`` are the entries of the weight matrices (not the biases); with
    ``alpha > 0`` every step solves with the ``p x p`` matrix
    ``J^T J + alpha I_W`` (see :class:`DampedGaussNewtonSystem`).

    A generator: each ``next`` makes one accepted step, loads it into
    ``network.module`` and yields. Inside an iteration a step is tried with
    the current damping ``mu``; it is accepted when the objective decreases,
    and ``mu`` is updated from the ratio ``rho`` of actual to predicted
    decrease (``mu *= max(1/3, 1 - (2 rho - 1)^3)``, Nielsen's rule); a
    rejected step (including a non-finite objective) multiplies ``mu`` by
    ``nu`` and doubles ``nu``. Gauss-Newton tries ``mu = 0`` (the truncated
    pseudo-inverse step) first in every iteration and falls back to damping
    only when that step is rejected. A decrease below
    ``MIN_RELATIVE_DECREASE`` times the objective is rounding noise and counts
    as a rejection. The generator returns (stops) when the linearised model
    predicts no decrease (a stationary point) or when ``mu`` exceeds
    ``MAX_RELATIVE_DAMPING * max_i (J^T J)_ii`` (stalled).

    Parameters
    ----------
    network : FlatNetwork
        The network; its module's current parameters are the starting point.
    X : tensor of shape (n_samples, n_features)
        Inputs (float64).
    Y : tensor of shape (n_samples, n_outputs)
        Targets (float64).
    damping : float
        Initial damping relative to the largest diagonal entry of ``J^T J``
        (``mu_0 = damping * max_i (J^T J)_ii``); also the first fallback of
        Gauss-Newton.
    gauss_newton : bool, default=False
        Try the undamped step first in every iteration.
    alpha : float, default=0.0
        The L2 penalty on the weights.

    Yields
    ------
    residual : tensor of shape (n_samples, n_outputs)
        ``f(X) - Y`` after the accepted step.
    penalty : float
        ``alpha ||W||^2`` after the accepted step.
    mu : float
        The damping of the accepted step.
    """
    torch = import_torch()
    theta = network.parameters()
    penalty = None
    if alpha > 0.0:
        penalty = alpha * network.weight_mask().to(theta)

    def penalty_of(theta):
        return 0.0 if penalty is None else float(penalty @ (theta * theta))

    residual = network(theta, X) - Y
    mu, nu = None, 2.0
    while True:
        r = residual.reshape(-1)
        system = DampedGaussNewtonSystem(network.jacobian(theta, X), r, penalty, theta)
        scale = system.scale
        if mu is None:
            mu = damping * scale
        trial = 0.0 if gauss_newton else mu
        old = float(r @ r) + penalty_of(theta)
        while True:
            delta = system.step(trial)
            predicted = system.predicted_decrease(delta)
            if not predicted > 0.0:
                return
            candidate = theta + delta
            with torch.no_grad():
                new_residual = network(candidate, X) - Y
            new = float((new_residual * new_residual).sum()) + penalty_of(candidate)
            actual = old - new
            if np.isfinite(new) and actual > MIN_RELATIVE_DECREASE * old:
                rho = actual / predicted
                mu = max(trial, damping * scale * np.finfo(np.float64).eps)
                mu *= max(1.0 / 3.0, 1.0 - (2.0 * rho - 1.0) ** 3)
                nu = 2.0
                break
            trial = max(trial * nu, damping * scale)
            nu *= 2.0
            if trial > MAX_RELATIVE_DAMPING * scale:
                return
        theta, residual = candidate, new_residual
        network.load(theta)
        yield residual, penalty_of(theta), trial
