"""Online controllers of a linear dynamical system under disturbances.

All three controllers act on ``x_{t+1} = A x_t + B u_t + w_t`` from ``x_0 = 0``
with the quadratic cost ``c_t = x_t^T Q x_t + u_t^T R u_t`` and share one
interface: construct with the system, then ``run(disturbances)``.
"""

import math
import time
from numbers import Integral, Real

import numpy as np
from scipy.linalg import LinAlgError, solve_discrete_are
from sklearn.base import BaseEstimator
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.validation import check_array

from ..utils import check_work_budget, warn_user
from ..utils._compat import Interval, StrOptions, validate_parameter_constraints
from ._hankel import MAX_WINDOW, spectral_filters

# Relative size of the random initial weights (of max_norm).
INIT_SCALE = 1e-3
# Adam's moment decay rates, as in the paper's experiments.
BETA1, BETA2 = 0.9, 0.999
ADAM_EPS = 1e-12


def lqr_gain(A, B, Q, R):
    """Infinite-horizon LQR gain ``K`` (``u = -K x``) and Riccati solution ``P``.

    Parameters
    ----------
    A : ndarray of shape (d, d)
    B : ndarray of shape (d, n)
    Q : ndarray of shape (d, d)
    R : ndarray of shape (n, n)

    Returns
    -------
    K : ndarray of shape (n, d)
    P : ndarray of shape (d, d)
        Solution of the discrete algebraic Riccati equation (scipy's DARE);
        ``trace(P Sigma)`` is the optimal mean cost per step under i.i.d.
        disturbances of covariance ``Sigma``.
    """
    try:
        P = solve_discrete_are(A, B, Q, R)
    except (LinAlgError, ValueError) as exc:
        raise ValueError(
            "The Riccati equation of (A, B, Q, R) has no stabilising solution: "
            "(A, B) must be stabilisable. Check A and B. "
            f"scipy said: {exc}"
        ) from exc
    K = np.linalg.solve(R + B.T @ P @ B, B.T @ P @ A)
    return K, P


def _spectral_radius(matrix):
    return float(np.max(np.abs(np.linalg.eigvals(matrix)))) if matrix.size else 0.0


class _BaseController(BaseEstimator):
    """Shared validation and simulation loop; subclasses choose the policy."""

    _parameter_constraints = {
        "A": ["array-like"],
        "B": ["array-like"],
        "Q": ["array-like", None],
        "R": ["array-like", None],
    }

    def _validate_system(self):
        validate_parameter_constraints(
            self._parameter_constraints,
            self.get_params(deep=False),
            type(self).__name__,
        )
        A = check_array(self.A, dtype=np.float64, input_name="A")
        if A.shape[0] != A.shape[1]:
            raise ValueError(f"A must be square; got shape {A.shape}.")
        d = A.shape[0]
        B = check_array(self.B, dtype=np.float64, input_name="B")
        if B.shape[0] != d:
            raise ValueError(
                f"B must have as many rows as A ({d}); got shape {B.shape}."
            )
        n = B.shape[1]
        Q = (
            np.eye(d)
            if self.Q is None
            else check_array(self.Q, dtype=np.float64, input_name="Q")
        )
        R = (
            np.eye(n)
            if self.R is None
            else check_array(self.R, dtype=np.float64, input_name="R")
        )
        for name, M, size in (("Q", Q, d), ("R", R, n)):
            if M.shape != (size, size):
                raise ValueError(
                    f"{name} must have shape ({size}, {size}); got {M.shape}."
                )
            if not np.allclose(M, M.T):
                raise ValueError(f"{name} must be symmetric.")
        if np.linalg.eigvalsh(Q).min() < -1e-12 * max(1.0, np.abs(Q).max()):
            raise ValueError("Q must be positive semi-definite.")
        if np.linalg.eigvalsh(R).min() <= 0:
            raise ValueError("R must be positive definite.")
        return A, B, Q, R

    def _validate_disturbances(self, disturbances, d):
        W = check_array(disturbances, dtype=np.float64, input_name="disturbances")
        if W.shape[1] != d:
            raise ValueError(
                f"disturbances must have shape (n_steps, {d}) for a state of "
                f"dimension {d}; got {W.shape}."
            )
        return W

    def _base_gain(self, A, B, Q, R, base_gain):
        if base_gain == "lqr":
            K, _ = lqr_gain(A, B, Q, R)
            return K
        K = np.zeros((B.shape[1], A.shape[0]))
        radius = _spectral_radius(A)
        if radius >= 1:
            raise ValueError(
                f"A has spectral radius {radius:.4g} >= 1: without a stabilising "
                "base gain the state diverges and the controller, which "
                "assumes a stable system, cannot recover. Use base_gain='lqr'."
            )
        return K

    def run(self, disturbances):
        """Control the system through a sequence of disturbances.

        The controller sees ``w_t`` only after choosing ``u_t`` (it recovers it
        as ``x_{t+1} - A x_t - B u_t``).

        Parameters
        ----------
        disturbances : array-like of shape (n_steps, state_dim)
            ``w_0, ..., w_{T-1}``.

        Returns
        -------
        result : :class:`~sklearn.utils.Bunch`
            ``states`` (n_steps, state_dim): ``x_t`` at every step;
            ``controls`` (n_steps, input_dim): ``u_t``;
            ``costs`` (n_steps,): ``x_t^T Q x_t + u_t^T R u_t``;
            ``seconds_per_step``: wall time of the loop per step.
        """
        A, B, Q, R = self._validate_system()
        W = self._validate_disturbances(disturbances, A.shape[0])
        policy = self._make_policy(A, B, Q, R, W.shape[0])
        # Every policy here is positively homogeneous in the disturbances
        # (linear maps and scale-free Adam steps), so the loop runs on w / s
        # and the results are scaled back: exact equivariance, no overflow in
        # the squared gradients.
        scale = float(np.max(np.abs(W))) if W.size else 0.0
        if scale == 0.0:
            scale = 1.0
        Wn = W / scale
        n_steps, d = W.shape
        states = np.zeros((n_steps, d))
        controls = np.zeros((n_steps, B.shape[1]))
        x = np.zeros(d)
        start = time.perf_counter()
        for t in range(n_steps):
            u = policy.act(x)
            states[t], controls[t] = x, u
            x_next = A @ x + B @ u + Wn[t]
            policy.observe(x_next - A @ x - B @ u, x, u)
            x = x_next
        seconds = (time.perf_counter() - start) / max(n_steps, 1)
        costs = np.einsum("ti,ij,tj->t", states, Q, states) + np.einsum(
            "ti,ij,tj->t", controls, R, controls
        )
        with np.errstate(over="ignore"):
            states, controls, costs = states * scale, controls * scale, costs * scale**2
        if not (np.all(np.isfinite(costs)) and np.all(np.isfinite(states))):
            raise ValueError(
                "The costs overflow float64 at this disturbance scale "
                f"(max |w| = {scale:.3g}); rescale the disturbances (the "
                "controllers are scale-equivariant: costs scale with |w|^2)."
            )
        self._store(policy)
        return Bunch(
            states=states, controls=controls, costs=costs, seconds_per_step=seconds
        )

    def _store(self, policy):
        self.gain_ = policy.K
        self.n_parameters_ = policy.n_parameters


class _FixedGain:
    """u = -K x."""

    def __init__(self, K):
        self.K = K
        self.n_parameters = 0

    def act(self, x):
        return -self.K @ x

    def observe(self, w, x, u):
        pass


class _LinearDisturbanceLearner:
    """u_t = -K x_t + sum_p M_p f_{t,p}, M learned by projected Adam.

    ``f_{t,p}`` (p = 1..P) are linear features of the past disturbances. The
    loss of step t is the cost of the counterfactual state and control that
    the current ``M`` would have produced had it been played from the start
    (no truncation): ``x_t(M) = c_t + sum_p G_{t,p}[M_p]`` with the recursions
    ``c_{t+1} = A_K c_t + w_t`` and ``G_{t+1,p} = A_K G_{t,p} + B (x) f_{t,p}``,
    ``A_K = A - B K``; both cost O(P n d^3) per step, whatever the memory.
    """

    def __init__(
        self, A, B, Q, R, K, n_features, feature_map, learning_rate, max_norm, rng
    ):
        d, n = B.shape
        self.A_K, self.B, self.Q, self.R, self.K = A - B @ K, B, Q, R, K
        self.feature_map = feature_map
        self.learning_rate, self.max_norm = learning_rate, max_norm
        M = rng.normal(size=(n_features, n, d))
        self.M = INIT_SCALE * max_norm * M / max(np.linalg.norm(M), 1e-300)
        self.m1 = np.zeros_like(self.M)
        self.m2 = np.zeros_like(self.M)
        self.step = 0
        self.c = np.zeros(d)
        self.G = np.zeros((n_features, d, n, d))
        self.features = feature_map.current()
        self.n_parameters = self.M.size

    def act(self, x):
        return -self.K @ x + np.einsum("pnd,pd->n", self.M, self.features)

    def loss_and_gradient(self):
        """Counterfactual cost of this step at the current ``M``, and its gradient.

        ``x_t(M) = c_t + sum_p G_{t,p}[M_p]`` and
        ``u_t(M) = -K x_t(M) + sum_p M_p f_{t,p}``.
        """
        f_t = self.features
        y = self.c + np.einsum("pand,pnd->a", self.G, self.M)
        u_cf = -self.K @ y + np.einsum("pnd,pd->n", self.M, f_t)
        grad_v = 2.0 * self.R @ u_cf
        grad_y = 2.0 * self.Q @ y - self.K.T @ grad_v
        grad = np.einsum("a,pand->pnd", grad_y, self.G)
        grad += grad_v[None, :, None] * f_t[:, None, :]
        return y @ self.Q @ y + u_cf @ self.R @ u_cf, grad

    def observe(self, w, x, u):
        f_t = self.features
        self._adam(self.loss_and_gradient()[1])
        # Advance the recursions to step t + 1 with the observed disturbance.
        self.c = self.A_K @ self.c + w
        self.G = np.einsum("ab,pbnd->pand", self.A_K, self.G)
        self.G += self.B[None, :, :, None] * f_t[:, None, None, :]
        self.feature_map.push(w)
        self.features = self.feature_map.current()

    def _adam(self, grad):
        self.step += 1
        self.m1 = BETA1 * self.m1 + (1 - BETA1) * grad
        self.m2 = BETA2 * self.m2 + (1 - BETA2) * grad**2
        m1 = self.m1 / (1 - BETA1**self.step)
        m2 = self.m2 / (1 - BETA2**self.step)
        self.M = self.M - self.learning_rate * m1 / (np.sqrt(m2) + ADAM_EPS)
        norm = np.linalg.norm(self.M)
        if norm > self.max_norm:
            self.M *= self.max_norm / norm


class _DisturbanceWindow:
    """The last ``memory`` disturbances, newest first, as a (memory, d) view.

    A ring buffer stored twice, so that the window is always one contiguous
    slice (no copy per step).
    """

    def __init__(self, memory, d):
        self.memory = memory
        self.buffer = np.zeros((2 * memory, d))
        self.head = 0

    @property
    def window(self):
        return self.buffer[self.head : self.head + self.memory]

    def push(self, w):
        self.head = (self.head - 1) % self.memory
        self.buffer[self.head] = w
        self.buffer[self.head + self.memory] = w


class _LastDisturbances(_DisturbanceWindow):
    """GPC features: f_{t,j} = w_{t-j}, j = 1..memory."""

    def current(self):
        return self.window.copy()


class _SpectralDisturbances(_DisturbanceWindow):
    """Spectral features: f_{t,i} = sigma_i^(1/4) W_{t-1:t-m} phi_i."""

    def __init__(self, memory, d, eigenvalues, filters):
        super().__init__(memory, d)
        self.kernels = (filters * eigenvalues**0.25).T  # (h, memory)

    def current(self):
        return self.kernels @ self.window


_LEARNER_CONSTRAINTS = {
    "learning_rate": [Interval(Real, 0, None, closed="left")],
    "max_norm": [Interval(Real, 0, None, closed="neither")],
    "base_gain": [StrOptions({"lqr"}), None],
    "max_work": [Interval(Real, 0, None, closed="neither")],
    "random_state": ["random_state"],
}


class LQRController(_BaseController):
    """The infinite-horizon linear-quadratic regulator ``u_t = -K x_t``.

    The floor the learning controllers are compared with: the optimal policy
    for i.i.d. zero-mean disturbances, whose mean cost per step tends to
    ``trace(P Sigma_w)``, ``P`` the solution of the discrete algebraic Riccati
    equation (computed with :func:`scipy.linalg.solve_discrete_are`). On
    correlated or adversarial disturbances (sinusoids, say) a controller that
    learns from past disturbances can beat it.

    Parameters
    ----------
    A : array-like of shape (state_dim, state_dim)
        System matrix.
    B : array-like of shape (state_dim, input_dim)
        Input matrix; ``(A, B)`` must be stabilisable.
    Q : array-like of shape (state_dim, state_dim) or None, default=None
        State cost, positive semi-definite; ``None`` is the identity.
    R : array-like of shape (input_dim, input_dim) or None, default=None
        Control cost, positive definite; ``None`` is the identity.

    Attributes
    ----------
    gain_ : ndarray of shape (input_dim, state_dim)
        ``K``, set by :meth:`run`.
    n_parameters_ : int
        Learned parameters: 0.

    See Also
    --------
    GPCController, OnlineSpectralController : learning controllers.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_lds
    >>> from sklearn_iclr.dynamical import LQRController
    >>> lds = make_lds(200, 3, spectral_radius=0.9, random_state=0)
    >>> result = LQRController(lds.A, lds.B).run(lds.disturbances)
    >>> result.costs.shape, result.controls.shape
    ((200,), (200, 1))
    """

    def __init__(self, A, B, Q=None, *, R=None):
        self.A = A
        self.B = B
        self.Q = Q
        self.R = R

    def _make_policy(self, A, B, Q, R, n_steps):
        return _FixedGain(lqr_gain(A, B, Q, R)[0])


class _LearningController(_BaseController):
    _parameter_constraints = {
        **_BaseController._parameter_constraints,
        **_LEARNER_CONSTRAINTS,
    }

    def _check_budget(self, n_steps, per_step):
        check_work_budget(
            {"multiply_add": float(n_steps) * per_step, "controller_step": n_steps},
            self.max_work,
            advice="Fewer steps, a smaller memory or fewer filters cost less.",
        )

    def _learner(self, A, B, Q, R, K, n_features, feature_map):
        return _LinearDisturbanceLearner(
            A,
            B,
            Q,
            R,
            K,
            n_features,
            feature_map,
            self.learning_rate,
            self.max_norm,
            check_random_state(self.random_state),
        )

    def _store(self, policy):
        super()._store(policy)
        self.weights_ = policy.M


class GPCController(_LearningController):
    """Gradient perturbation control: disturbance feedback over the last ``m`` steps.

    The baseline of Brahmbhatt, Buzaglo, Druchyna and Hazan (ICLR 2026,
    arXiv:2504.03952): GPC of Agarwal, Bullins, Hazan, Kakade and Singh
    ("Online control with adversarial disturbances", ICML 2019). The control
    is ``u_t = -K x_t + sum_{j=1}^{m} M_j w_{t-j}`` with ``m * n * d``
    learned parameters, updated by projected Adam on the cost of the
    counterfactual state that the current ``M`` would have reached.

    Parameters
    ----------
    A : array-like of shape (state_dim, state_dim)
        System matrix.
    B : array-like of shape (state_dim, input_dim)
        Input matrix.
    Q : array-like of shape (state_dim, state_dim) or None, default=None
        State cost; ``None`` is the identity.
    R : array-like of shape (input_dim, input_dim) or None, default=None
        Control cost; ``None`` is the identity.
    memory : int, default=50
        ``m``, past disturbances fed back (the paper's experiments: 50).
    learning_rate : float, default=1e-4
        Adam step size (the weights are dimensionless: the step does not
        depend on the scale of the disturbances).
    max_norm : float, default=1.0
        Radius of the Frobenius ball the weights are projected on.
    base_gain : {"lqr"} or None, default="lqr"
        ``"lqr"`` adds the LQR feedback ``-K x_t``; ``None`` uses none and
        needs a stable ``A``.
    max_work : float, default=3600
        Largest estimated cost of one run, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from the multiply-adds
        of the learner's recursions; :meth:`run` refuses more up front.
    random_state : int, RandomState instance or None, default=None
        Seeds the small random initial weights (norm ``1e-3 * max_norm``).

    Attributes
    ----------
    gain_ : ndarray of shape (input_dim, state_dim)
        The base gain ``K`` (zeros when ``base_gain=None``), set by :meth:`run`.
    weights_ : ndarray of shape (memory, input_dim, state_dim)
        The weights ``M_j`` after the last step.
    n_parameters_ : int
        ``memory * input_dim * state_dim``.

    See Also
    --------
    OnlineSpectralController : the same learner on spectral features.
    LQRController : the floor.

    Notes
    -----
    The loss of step ``t`` is the full counterfactual cost (no truncation),
    tracked by linear recursions in ``O(m n d^3)`` per step.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_lds
    >>> from sklearn_iclr.dynamical import GPCController
    >>> lds = make_lds(300, 3, disturbance="sinusoidal", random_state=0)
    >>> gpc = GPCController(lds.A, lds.B, memory=10, random_state=0)
    >>> result = gpc.run(lds.disturbances)
    >>> gpc.weights_.shape
    (10, 1, 3)
    """

    _parameter_constraints = {
        **_LearningController._parameter_constraints,
        "memory": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        A,
        B,
        Q=None,
        *,
        R=None,
        memory=50,
        learning_rate=1e-4,
        max_norm=1.0,
        base_gain="lqr",
        max_work=3600.0,
        random_state=None,
    ):
        self.A = A
        self.B = B
        self.Q = Q
        self.R = R
        self.memory = memory
        self.learning_rate = learning_rate
        self.max_norm = max_norm
        self.base_gain = base_gain
        self.max_work = max_work
        self.random_state = random_state

    def _make_policy(self, A, B, Q, R, n_steps):
        d, n = B.shape
        self._check_budget(n_steps, self.memory * (n * d**3 + d * d + d))
        K = self._base_gain(A, B, Q, R, self.base_gain)
        features = _LastDisturbances(self.memory, d)
        return self._learner(A, B, Q, R, K, self.memory, features)


class OnlineSpectralController(_LearningController):
    """Online spectral control of a linear dynamical system (ICLR 2026).

    Implements the controller of Anand Brahmbhatt, Gon Buzaglo, Sofiia
    Druchyna and Elad Hazan, "A New Approach to Controlling Linear Dynamical
    Systems", ICLR 2026 (arXiv:2504.03952). For
    ``x_{t+1} = A x_t + B u_t + w_t`` with disturbances ``w_t`` (possibly
    adversarial) the control is a learned linear map of the past ``m``
    disturbances seen through the top ``h`` eigenvectors ``phi_i`` of the
    Hankel matrix ``H_ij = r^(i+j-1) / (i+j-1)``, ``r = 1 - stability_margin``::

        u_t = -K x_t + sum_{i=1}^{h} sigma_i^(1/4) M_i W_{t-1:t-m} phi_i

    with ``W_{t-1:t-m} = [w_{t-1}, ..., w_{t-m}]`` recovered as
    ``w_t = x_{t+1} - A x_t - B u_t``. Because the responses ``a^u`` of all
    decay rates ``a <= r`` lie near the span of a few filters, ``h`` grows like
    ``log^2 T`` whatever the margin, while GPC needs a memory of
    ``log(T) / stability_margin`` disturbances: ``h n d`` parameters against
    ``m n d``.
    The weights follow projected online gradient steps (Adam, as in the
    paper's experiments) on the cost of the counterfactual state.

    Parameters
    ----------
    A : array-like of shape (state_dim, state_dim)
        System matrix.
    B : array-like of shape (state_dim, input_dim)
        Input matrix.
    Q : array-like of shape (state_dim, state_dim) or None, default=None
        State cost; ``None`` is the identity.
    R : array-like of shape (input_dim, input_dim) or None, default=None
        Control cost; ``None`` is the identity.
    n_filters : int, default=15
        ``h``, the number of filters (the paper's experiments: 15).
    memory : int or None, default=None
        ``m``, the filter length. ``None`` uses the theory's
        ``ceil(log(T) / stability_margin)`` for a run of ``T`` steps, capped
        at 4096 and at least ``n_filters``.
    stability_margin : float in (0, 1) or None, default=None
        Stability margin of the filters. ``None`` uses ``1 - rho``, ``rho`` the
        spectral radius of the closed loop ``A - B K`` (of ``A`` when
        ``base_gain=None``).
    learning_rate : float, default=1e-4
        Adam step size (scale-free, as for :class:`GPCController`; the
        paper's experiments use 1e-4).
    max_norm : float, default=1.0
        Radius of the Frobenius ball the weights are projected on.
    base_gain : {"lqr"} or None, default="lqr"
        ``"lqr"`` adds the LQR feedback ``-K x_t``; ``None`` uses none and
        needs a stable ``A``.
    max_work : float, default=3600
        Largest estimated cost of one run, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from the multiply-adds
        of the learner's recursions; :meth:`run` refuses more up front.
    random_state : int, RandomState instance or None, default=None
        Seeds the small random initial weights (norm ``1e-3 * max_norm``).

    Attributes
    ----------
    gain_ : ndarray of shape (input_dim, state_dim)
        The base gain ``K``, set by :meth:`run`.
    weights_ : ndarray of shape (n_filters, input_dim, state_dim)
        The weights ``M_i`` after the last step.
    filters_ : ndarray of shape (`memory_`, n_filters)
        The filters ``phi_i``; entry ``j`` weighs ``w_{t-1-j}``.
    eigenvalues_ : ndarray of shape (n_filters,)
        ``sigma_i``.
    stability_margin_ : float
        The stability margin used.
    memory_ : int
        The filter length used.
    n_parameters_ : int
        ``n_filters * input_dim * state_dim``.

    See Also
    --------
    GPCController : the baseline, with ``memory * input_dim * state_dim``
        parameters.
    LQRController : the floor.
    SpectralFilterFeatures : the same filters as regression features.

    Notes
    -----
    The loss of step ``t`` is the full counterfactual cost: the state and
    control that the current weights would have produced had they been played
    from the start, tracked by linear recursions in ``O(h n d^3)`` per step;
    the filters cost ``O(h m d)`` per step. :meth:`run` simulates on
    ``w / max|w|`` and scales the results back: every step of the controller
    is positively homogeneous in the disturbances (linear maps, Adam steps), so
    this changes only rounding, keeps the squared gradients in range and makes
    the results equivariant to the scale of ``w``. The paper's projection set
    bounds the weights by ``kappa^3 sqrt(2h / stability_margin)``; here the radius
    is the
    ``max_norm`` parameter (the paper's experiments use the unit ball).

    References
    ----------
    .. [1] A. Brahmbhatt, G. Buzaglo, S. Druchyna and E. Hazan. "A New Approach
       to Controlling Linear Dynamical Systems". ICLR 2026. arXiv:2504.03952.
    .. [2] N. Agarwal, B. Bullins, E. Hazan, S. Kakade and K. Singh. "Online
       control with adversarial disturbances". ICML 2019.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_lds
    >>> from sklearn_iclr.dynamical import LQRController, OnlineSpectralController
    >>> lds = make_lds(2000, 5, disturbance="sinusoidal", random_state=0)
    >>> osc = OnlineSpectralController(lds.A, lds.B, random_state=0)
    >>> spectral = osc.run(lds.disturbances).costs[-100:].mean()
    >>> lqr = LQRController(lds.A, lds.B).run(lds.disturbances).costs[-100:].mean()
    >>> bool(spectral < lqr)
    True
    >>> osc.n_parameters_
    75
    """

    _parameter_constraints = {
        **_LearningController._parameter_constraints,
        "n_filters": [Interval(Integral, 1, None, closed="left")],
        "memory": [Interval(Integral, 1, None, closed="left"), None],
        "stability_margin": [Interval(Real, 0, 1, closed="neither"), None],
    }

    def __init__(
        self,
        A,
        B,
        Q=None,
        *,
        R=None,
        n_filters=15,
        memory=None,
        stability_margin=None,
        learning_rate=1e-4,
        max_norm=1.0,
        base_gain="lqr",
        max_work=3600.0,
        random_state=None,
    ):
        self.A = A
        self.B = B
        self.Q = Q
        self.R = R
        self.n_filters = n_filters
        self.memory = memory
        self.stability_margin = stability_margin
        self.learning_rate = learning_rate
        self.max_norm = max_norm
        self.base_gain = base_gain
        self.max_work = max_work
        self.random_state = random_state

    def _make_policy(self, A, B, Q, R, n_steps):
        d, n = B.shape
        K = self._base_gain(A, B, Q, R, self.base_gain)
        radius = _spectral_radius(A - B @ K)
        if radius >= 1:
            raise ValueError(
                f"The closed loop A - B K has spectral radius {radius:.4g} >= 1; "
                "the spectral filters assume a stable system. Use base_gain='lqr'."
            )
        stability_margin = (
            1.0 - radius
            if self.stability_margin is None
            else float(self.stability_margin)
        )
        if (
            self.stability_margin is not None
            and radius > 1.0 - self.stability_margin + 1e-12
        ):
            warn_user(
                f"stability_margin={self.stability_margin} assumes a spectral "
                f"radius at most {1 - self.stability_margin:.4g}, but the closed "
                f"loop has {radius:.4g}: the filters miss the slowest modes. Lower "
                "stability_margin or pass stability_margin=None."
            )
        stability_margin = max(stability_margin, 1.0 / MAX_WINDOW)
        if self.memory is None:
            memory = math.ceil(math.log(max(n_steps, 2)) / stability_margin)
            memory = int(min(max(memory, self.n_filters), MAX_WINDOW))
        else:
            memory = self.memory
            if memory < self.n_filters:
                raise ValueError(
                    f"memory={memory} is shorter than n_filters={self.n_filters}: "
                    "a filter of length m has only m independent eigenvectors. "
                    "Raise memory or lower n_filters."
                )
        self._check_budget(n_steps, self.n_filters * (n * d**3 + memory * d + d * d))
        eigenvalues, filters = spectral_filters(
            memory,
            self.n_filters,
            kind="control",
            stability_margin=stability_margin,
        )
        self.filters_, self.eigenvalues_ = filters, eigenvalues
        self.stability_margin_, self.memory_ = stability_margin, memory
        features = _SpectralDisturbances(memory, d, eigenvalues, filters)
        return self._learner(A, B, Q, R, K, self.n_filters, features)
