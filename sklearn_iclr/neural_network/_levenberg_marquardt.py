"""MLP regression by Levenberg-Marquardt, optionally followed by a first-order phase."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import (
    check_is_fitted,
    check_random_state,
    validate_data,
)

from ..metrics import frequency_amplitudes
from ..utils import (
    build_mlp,
    import_torch,
    module_outputs,
    resolve_device,
    seed_from_random_state,
    torch_num_threads,
    torch_seeded,
    warn_user,
)
from ..utils._compat import DeviceOptions, Interval, StrOptions, _fit_context
from ._gauss_newton import FlatNetwork, levenberg_marquardt_steps

# Print a progress line every this many iterations when verbose is positive.
VERBOSE_EVERY = 10


def first_order_steps(module, X, Y, *, solver, learning_rate, penalty):
    """Full-batch Adam or gradient descent on the objective of the LM phase.

    The objective is ``(||module(X) - Y||^2 + penalty * ||W||^2) / Y.numel()``,
    ``W`` the weight matrices. A generator: each ``next`` makes one step and
    yields the residual ``module(X) - Y`` after it, ``penalty * ||W||^2`` and
    ``None`` (no damping), like :func:`levenberg_marquardt_steps`.
    """
    torch = import_torch()
    optimizer_class = torch.optim.Adam if solver == "adam" else torch.optim.SGD
    optimizer = optimizer_class(module.parameters(), lr=learning_rate)
    weights = [p for name, p in module.named_parameters() if name.endswith("weight")]

    def penalty_term():
        return penalty * sum((W * W).sum() for W in weights)

    while True:
        optimizer.zero_grad()
        loss = ((module(X) - Y) ** 2).mean()
        if penalty:
            loss = loss + penalty_term() / Y.numel()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            yield module(X) - Y, float(penalty_term()), None


def _initial_network(
    n_inputs, n_outputs, hidden_layer_sizes, *, activation, seed, device
):
    """The MLP at its seeded initialisation, in float64 on ``device``."""
    torch = import_torch()
    with torch_seeded(seed, device):
        module = build_mlp(
            n_inputs, n_outputs, hidden_layer_sizes, activation=activation
        )
    return module.to(device=device, dtype=torch.float64)


def _initial_residual(module, X, Y):
    """``module(X) - Y`` as numpy, refused when its squares overflow."""
    torch = import_torch()
    with torch.no_grad():
        initial = (module(X) - Y).cpu().numpy()
    with np.errstate(over="ignore"):
        overflow = not np.isfinite(np.sum(initial**2))
    if overflow:
        raise ValueError(
            "The squared residuals of the initial network overflow (inputs "
            f"up to {X.abs().max().item():.3g}, targets up to "
            f"{Y.abs().max().item():.3g}); scale X and y first, e.g. with "
            "StandardScaler and TransformedTargetRegressor."
        )
    return initial


class _TrainingTrace:
    """The per-iteration records of a fit: objective, damping, frequency errors.

    ``record(residual, penalty, damping)`` is called after every step of either
    phase; the lists become the estimator's ``loss_curve_``,
    ``damping_curve_`` and ``frequency_error_curve_``. With ``verbose_name``
    set, a progress line is printed every ``VERBOSE_EVERY`` iterations.
    """

    def __init__(self, X, frequencies, initial_residual, verbose_name=None):
        self.X = X
        self.frequencies = frequencies
        self.verbose_name = verbose_name
        self.loss_curve = []
        self.damping_curve = []
        self.frequency_curve = (
            []
            if frequencies is None
            else [frequency_amplitudes(X, initial_residual, frequencies)]
        )

    def last_loss(self):
        """The objective after the last step."""
        return self.loss_curve[-1]

    def record(self, residual, penalty, damping):
        residual = residual.detach().cpu().numpy()
        self.loss_curve.append(float(np.mean(residual**2) + penalty / residual.size))
        if damping is not None:
            self.damping_curve.append(float(damping))
        if self.frequencies is not None:
            self.frequency_curve.append(
                frequency_amplitudes(self.X, residual, self.frequencies)
            )
        if self.verbose_name and len(self.loss_curve) % VERBOSE_EVERY == 0:
            mu = "" if damping is None else f", damping {damping:.3g}"
            print(
                f"{self.verbose_name}: iteration {len(self.loss_curve)}, "
                f"loss {self.loss_curve[-1]:.6g}{mu}"
            )


class _ValidationMonitor:
    """Early stopping: the validation error after every step, the best parameters.

    Calling the monitor returns the mean squared error of the network on the
    held-out rows, appends their R^2 to ``scores`` and keeps a copy of the
    parameters with the lowest error so far; :meth:`restore` loads it.
    """

    def __init__(self, network, X, Y):
        self.network, self.X, self.Y = network, X, Y
        self.variance = float(((Y - Y.mean(dim=0)) ** 2).mean())
        self.scores, self.best_error, self.best_parameters = [], np.inf, None

    def __call__(self):
        torch = import_torch()
        with torch.no_grad():
            error = float(((self.network.module(self.X) - self.Y) ** 2).mean())
        self.scores.append(1.0 - error / self.variance if self.variance else 0.0)
        if error < self.best_error:
            self.best_error = error
            self.best_parameters = self.network.parameters()
        return error

    def restore(self):
        self.network.load(self.best_parameters)


def _run_phase(steps, budget, trace, monitor, *, tol, floor, n_iter_no_change):
    """Take up to ``budget`` steps, recording each; True if the phase ended by itself.

    ``monitor()`` gives the value watched for progress after each step (the
    training objective, or the validation error with early stopping). A step
    counts as progress when it lowers the best value by more than
    ``tol * max(best, floor)``: relative to the value, but never finer than
    ``tol * floor`` (``floor = tol * var(y)``), so that a fit that
    interpolates stops once it is ``tol^2 * var(y)`` from exact rather than
    chasing rounding errors.
    """
    best, stale = np.inf, 0
    for _ in range(budget):
        step = next(steps, None)
        if step is None:
            return True
        trace.record(*step)
        value = monitor()
        if value < best - tol * max(abs(best), floor) or not np.isfinite(best):
            best, stale = value, 0
        else:
            stale += 1
        if tol > 0 and stale >= n_iter_no_change:
            return True
    return False


class LevenbergMarquardtMLPRegressor(RegressorMixin, BaseEstimator):
    """MLP regressor trained by Levenberg-Marquardt, free of spectral bias (ICLR 2026).

    Implements the preconditioned training studied by Shuai Jiang, Alexey
    Voronin, Eric C. Cyr and Ben Southworth, "On the Convergence Behavior of
    Preconditioned Gradient Descent Toward the Rich Learning Regime", ICLR
    2026 (arXiv:2601.03162). For the mean squared error with residual
    ``r(theta) = f(X; theta) - y`` and Jacobian ``J = dr / dtheta``, each
    iteration takes the step::

        delta = -(J^T J + mu I)^{-1} J^T r

    (with ``alpha > 0``, ``J^T J`` and ``J^T r`` gain the L2 penalty's terms).

    Parameters
    ----------
    hidden_layer_sizes : array-like of int, default=(80,)
        Widths of the hidden layers; ``(80,)`` is the paper's one-hidden-layer
        ("2-layer") width-80 network and ``()`` a linear model (LM then solves
        linear least squares).
    activation : {"tanh", "relu"}, default="tanh"
        Hidden activation. The Gauss-Newton model assumes a smooth network, so
        ``"tanh"`` is the natural choice.
    solver : {"lm", "gn"}, default="lm"
        ``"lm"``: Levenberg-Marquardt with adaptive damping. ``"gn"``:
        Gauss-Newton (the undamped pseudo-inverse step), which falls back to
        damping only when its step does not lower the loss.
    damping : float, default=1e-3
        Initial damping relative to the largest diagonal entry of ``J^T J``
        (``mu_0 = damping * max_i (J^T J)_ii``); for ``solver="gn"``, the
        first fallback damping.
    max_iter : int, default=1000
        Maximum number of iterations in total (accepted LM/GN steps plus
        first-order steps). Each LM iteration computes one Jacobian. Fits
        usually stop earlier on ``tol``: a 300-point two-frequency target
        with the default network converges in 150-300 iterations.
    alpha : float, default=0.0
        L2 penalty on the weight matrices (not the biases), as in
        ``MLPRegressor``: the objective is the mean squared error plus
        ``alpha * ||W||^2 / n_samples``. Every LM/GN step then solves the
        ``p x p`` system ``(J^T J + alpha I_W + mu I) delta = -(J^T r +
        alpha W)`` (``p`` parameters), never the smaller dual one. The default
        fits the training data exactly, which is the paper's point; on noisy
        data it overfits: use ``alpha``, chosen by cross-validation with ``X``
        and ``y`` standardised (the penalty is in the units of ``y**2``).
    tol : float, default=1e-4
        A phase (LM, then first-order) stops when the training objective (or
        the validation error with ``early_stopping``) has not decreased by
        ``tol * max(best, tol * var(y))`` for ``n_iter_no_change``
        consecutive iterations, ``best`` being the best value so far: a
        relative rule, that stops a fit which interpolates the data once the
        loss is about ``tol^2 * var(y)`` instead of chasing rounding errors.
        ``tol=0`` disables this: the fit then runs ``max_iter`` iterations
        unless LM stalls at a stationary point.
    n_iter_no_change : int, default=10
        Patience of the ``tol`` rule. First-order solvers (Adam) may raise
        the loss for a few iterations before lowering it: give them more.
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the training rows, watch their
        mean squared error after every iteration (in place of the training
        objective in the ``tol`` rule), and end the fit with the parameters
        that scored best on them. Cheaper than a search over ``alpha``, but
        coarse: LM crosses from underfitting to interpolation in a few
        iterations, so the best iterate depends on the split and on the
        scale of the data. On noisy data prefer ``alpha``.
    validation_fraction : float, default=0.1
        Fraction of the rows held out with ``early_stopping`` (rounded up;
        drawn with ``random_state``). Ignored otherwise.
    switch_after : int or None, default=None
        Number of LM/GN iterations before switching to
        ``solver_after_switch`` for the remaining iterations; ``None`` never
        switches and ``0`` trains with the first-order solver only (the
        baseline that shows spectral bias). The switch also happens earlier
        when the LM phase converges or stalls.
    solver_after_switch : {"adam", "sgd"}, default="adam"
        Full-batch first-order optimiser after the switch (``torch.optim``).
    learning_rate_after_switch : float, default=1e-3
        Its learning rate.
    monitor_frequencies : array-like of float or None, default=None
        Angular frequencies ``w_k`` at which to record the amplitude of the
        training residual after every iteration (one-feature input only), in
        ``frequency_error_curve_``; see
        :func:`sklearn_iclr.metrics.frequency_amplitudes`.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Torch device of the training (``"cuda:N"`` works too). The fitted
        network is stored on the CPU.
    random_state : int, RandomState instance or None, default=None
        Seeds the initial weights (torch's default initialisation, under a
        forked torch generator; the global torch random state is left
        untouched). The training itself is deterministic.
    verbose : int, default=0
        Print the loss (and the damping) every 10 iterations when positive.

    Attributes
    ----------
    module_ : torch.nn.Sequential
        The trained network (float64, on the CPU).
    loss_curve_ : list of float
        Training objective after each iteration: the mean squared error
        (averaged over samples and outputs), plus ``alpha * ||W||^2 /
        n_samples``.
    n_iter_ : int
        Iterations run in total.
    n_iter_lm_ : int
        Of which LM/GN iterations (the rest are first-order steps).
    damping_curve_ : list of float
        Damping ``mu`` of each accepted LM/GN step (``0.0`` is an undamped
        Gauss-Newton step).
    frequency_error_curve_ : ndarray of shape (``n_iter_ + 1``, n_frequencies)
        Amplitude of the training residual at each of ``monitor_frequencies``
        before training (row 0) and after each iteration. Only set when
        ``monitor_frequencies`` is given.
    validation_scores_ : list of float
        R^2 on the held-out rows after each iteration. Only set with
        ``early_stopping``.
    best_validation_score_ : float
        The best of ``validation_scores_``: that of the returned parameters.
        Only set with ``early_stopping``.
    n_outputs_ : int
        Number of targets.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn.neural_network.MLPRegressor : first-order (Adam, SGD) and L-BFGS
        training of the same networks.
    sklearn_iclr.metrics.frequency_amplitudes : frequency components of a
        residual.
    sklearn_iclr.datasets.make_multifrequency_sine : the paper's target.

    Notes
    -----
    Gradient descent shrinks the error along an eigenvector of the neural
    tangent kernel ``J J^T`` at the rate of its eigenvalue, so high frequencies
    are learnt last (spectral bias); the Levenberg-Marquardt step shrinks them at
    ``lambda / (mu + lambda)``, nearly uniformly. ``mu`` is adapted by a
    trust-region ratio test, and ``switch_after`` hands over to a first-order
    optimiser, as the paper proposes.

    Parameters and solves are in float64; a singular system falls back to a
    truncated pseudo-inverse, so no step fails. Inputs and targets are used as
    given: scale them as for ``MLPRegressor``. An iteration costs a Jacobian
    (``N x p``) and a Gram matrix (``O(N p min(N, p))``): the method suits small
    networks and data sets. On CPU the fit uses one torch thread.

    The derivation and the cost of a step are in the user guide
    (:ref:`levenberg-marquardt-details`).


    References
    ----------
    .. [1] S. Jiang, A. Voronin, E. C. Cyr and B. Southworth. "On the
       Convergence Behavior of Preconditioned Gradient Descent Toward the
       Rich Learning Regime". ICLR 2026. arXiv:2601.03162.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_multifrequency_sine
    >>> from sklearn_iclr.neural_network import LevenbergMarquardtMLPRegressor
    >>> X, y, frequencies = make_multifrequency_sine(128)
    >>> est = LevenbergMarquardtMLPRegressor(tol=1e-3, random_state=0)
    >>> est = est.fit(X, y)
    >>> est.score(X, y) > 0.999
    True
    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "activation": [StrOptions({"tanh", "relu"})],
        "solver": [StrOptions({"lm", "gn"})],
        "damping": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "switch_after": [Interval(Integral, 0, None, closed="left"), None],
        "solver_after_switch": [StrOptions({"adam", "sgd"})],
        "learning_rate_after_switch": [Interval(Real, 0, None, closed="neither")],
        "monitor_frequencies": ["array-like", None],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        hidden_layer_sizes=(80,),
        *,
        activation="tanh",
        solver="lm",
        damping=1e-3,
        max_iter=1000,
        alpha=0.0,
        tol=1e-4,
        n_iter_no_change=10,
        early_stopping=False,
        validation_fraction=0.1,
        switch_after=None,
        solver_after_switch="adam",
        learning_rate_after_switch=1e-3,
        monitor_frequencies=None,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.activation = activation
        self.solver = solver
        self.damping = damping
        self.max_iter = max_iter
        self.alpha = alpha
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.switch_after = switch_after
        self.solver_after_switch = solver_after_switch
        self.learning_rate_after_switch = learning_rate_after_switch
        self.monitor_frequencies = monitor_frequencies
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the network by LM (then the first-order solver, if switching).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; at least 2 samples.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Training targets.

        Returns
        -------
        self : LevenbergMarquardtMLPRegressor
            The fitted estimator.
        """
        X, y = validate_data(
            self,
            X,
            y,
            multi_output=True,
            y_numeric=True,
            dtype=np.float64,
            ensure_min_samples=2,
        )
        frequencies = self._check_monitor_frequencies(X)
        Y = y.reshape(len(y), -1)
        self.n_outputs_ = Y.shape[1]
        rng = check_random_state(self.random_state)
        seed = seed_from_random_state(rng)
        train, valid = self._split(len(X), rng)
        device = resolve_device(self.device)
        torch = import_torch()
        module = _initial_network(
            X.shape[1],
            self.n_outputs_,
            tuple(self.hidden_layer_sizes),
            activation=self.activation,
            seed=seed,
            device=device,
        )
        X_t = torch.tensor(X[train], device=device)
        Y_t = torch.tensor(Y[train], device=device)
        trace = _TrainingTrace(
            X[train],
            frequencies,
            _initial_residual(module, X_t, Y_t),
            verbose_name=type(self).__name__ if self.verbose else None,
        )
        network = FlatNetwork(module)

        monitor = trace.last_loss
        if valid is not None:
            monitor = _ValidationMonitor(
                network,
                torch.tensor(X[valid], device=device),
                torch.tensor(Y[valid], device=device),
            )
        with torch_num_threads(1 if device == "cpu" else None):
            converged = self._train(network, X_t, Y_t, trace, monitor, Y[train])
        if valid is not None:
            monitor.restore()
            self.validation_scores_ = monitor.scores
            self.best_validation_score_ = max(monitor.scores)
        self.loss_curve_ = trace.loss_curve
        self.damping_curve_ = trace.damping_curve
        self.n_iter_ = len(self.loss_curve_)
        if frequencies is not None:
            self.frequency_error_curve_ = np.array(trace.frequency_curve)
        if not converged:
            warn_user(
                f"{type(self).__name__} stopped at max_iter={self.max_iter} "
                "before the loss settled; increase max_iter.",
                ConvergenceWarning,
            )
        module.to("cpu")
        module.eval()
        self.module_ = module
        return self

    def _split(self, n_samples, rng):
        """Training and validation rows (``None`` without early stopping)."""
        if not self.early_stopping:
            return slice(None), None
        n_valid = math.ceil(self.validation_fraction * n_samples)
        if n_samples - n_valid < 2:
            raise ValueError(
                f"early_stopping holds out {n_valid} of the {n_samples} samples "
                f"(validation_fraction={self.validation_fraction}), leaving fewer "
                "than 2 to train on; lower validation_fraction or pass more samples."
            )
        order = rng.permutation(n_samples)
        return np.sort(order[n_valid:]), np.sort(order[:n_valid])

    def _train(self, network, X, Y, trace, monitor, y_train):
        """The LM phase, then the first-order one if switching; True if converged.

        The L2 penalty enters the summed squared residuals as
        ``alpha * n_outputs * ||W||^2``, so that the mean objective recorded in
        ``loss_curve_`` is ``mean squared error + alpha ||W||^2 / n_samples``.
        """
        penalty = self.alpha * self.n_outputs_
        stopping = {
            "tol": self.tol,
            "floor": self.tol * float(np.mean(y_train.var(axis=0))),
            "n_iter_no_change": self.n_iter_no_change,
        }
        lm_budget = self.max_iter
        if self.switch_after is not None:
            lm_budget = min(self.switch_after, self.max_iter)
        steps = levenberg_marquardt_steps(
            network,
            X,
            Y,
            damping=self.damping,
            gauss_newton=self.solver == "gn",
            alpha=penalty,
        )
        converged = _run_phase(steps, lm_budget, trace, monitor, **stopping)
        self.n_iter_lm_ = len(trace.loss_curve)
        budget = self.max_iter - self.n_iter_lm_
        if self.switch_after is not None and budget > 0:
            steps = first_order_steps(
                network.module,
                X,
                Y,
                solver=self.solver_after_switch,
                learning_rate=self.learning_rate_after_switch,
                penalty=penalty,
            )
            converged = _run_phase(steps, budget, trace, monitor, **stopping)
        return converged

    def _check_monitor_frequencies(self, X):
        if self.monitor_frequencies is None:
            return None
        if X.shape[1] != 1:
            raise ValueError(
                "monitor_frequencies needs one-feature input, got X with "
                f"{X.shape[1]} features; set monitor_frequencies=None or apply "
                "frequency_amplitudes to a one-dimensional projection yourself."
            )
        frequencies = np.asarray(self.monitor_frequencies, dtype=np.float64).ravel()
        if not np.all(np.isfinite(frequencies)) or len(frequencies) == 0:
            raise ValueError(
                "monitor_frequencies must be a non-empty list of finite angular "
                f"frequencies, got {self.monitor_frequencies!r}."
            )
        return frequencies

    def predict(self, X):
        """Predict with the trained network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_outputs)
            Predictions (one column is returned as a 1-D array).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        y_pred = module_outputs(self.module_, X)
        return y_pred[:, 0] if self.n_outputs_ == 1 else y_pred

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
