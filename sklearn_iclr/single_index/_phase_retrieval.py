"""Phase retrieval: fit ``y = <x, w>^2`` from intensity-only measurements."""

from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data

from ..utils import check_work_budget, warn_user
from ..utils._compat import Interval, StrOptions, _fit_context

# Default batch size of solver="sgd" (as MLPRegressor's "auto").
DEFAULT_BATCH = 200
# Eigenvalues of the second moment below this fraction of the largest one are
# treated as zero when whitening (directions the data do not determine).
WHITEN_RTOL = 1e-12


def _objective(v, Z, y):
    """``mean(((Z v)^2 - y)^2) / 4`` and its gradient ``Z^T (r * Z v) / n``."""
    p = Z @ v
    r = p * p - y
    return 0.25 * np.mean(r * r), Z.T @ (r * p) / len(y)


class PhaseRetrievalRegressor(RegressorMixin, BaseEstimator):
    """Phase retrieval: least squares on intensities ``y = <x, w>^2``.

    Fits ``w`` from intensity-only measurements ``y_i = <x_i, w>^2 + noise``
    by minimising the squared loss
    ``L(w) = (1/n) sum_i (<x_i, w>^2 - y_i)^2``, the estimator whose learning
    dynamics are studied by Guillaume Braun, Bruno Loureiro, Ha Quang Minh and
    Masaaki Imaizumi, "Fast Escape, Slow Convergence: Learning Dynamics of
    Phase Retrieval under Power-Law Data", ICLR 2026 (arXiv:2511.18661). For
    ``x ~ N(0, Q)`` the population loss depends on ``w`` only through
    ``s = w^T Q w`` and ``u = w^T Q w*``; from a random start, gradient descent
    escapes the equator ``u = 0`` in a time of order ``log d``, then learns the
    directions of ``Q`` one by one at rates ``lambda_i``, which is slow when
    the spectrum of ``Q`` decays (see :func:`phase_retrieval_dynamics`).

    Parameters
    ----------
    solver : {"lbfgs", "gd", "sgd"}, default="lbfgs"
        ``"lbfgs"``: scipy's L-BFGS-B. ``"gd"``: full-batch gradient descent
        with step ``learning_rate``. ``"sgd"``: minibatch SGD, ``max_iter``
        epochs of ``batch_size`` samples per step.
    init : {"spectral", "random"}, default="spectral"
        Starting point. ``"random"`` draws it uniformly on the unit sphere of
        the trace-normalised coordinates (the paper's initialisation).
    whiten : bool, default=True
        Minimise in whitened coordinates (see above). Directions in which the
        second moment of ``X`` is below ``1e-12`` times its largest eigenvalue
        (e.g. a column of zeros) are left out: ``coef_`` is 0 along them.
    learning_rate : float, default=0.1
        Step of ``"gd"`` and ``"sgd"`` on the rescaled problem. Near the
        solution the Hessian of the rescaled loss has eigenvalues of order
        2 to 6 (whitened), so steps below about 0.3 are stable.
    max_iter : int, default=1000
        Iterations (``"lbfgs"``, ``"gd"``) or epochs (``"sgd"``).
    tol : float, default=1e-6
        Stop when the largest entry of the gradient of the rescaled loss
        (checked after every epoch for ``"sgd"``) is at most ``tol``.
    batch_size : int, default=None
        Minibatch size of ``"sgd"``; ``None`` means ``min(200, n_samples)``.
        Ignored by the other solvers.
    max_work : float, default=3600
        Largest estimated cost of the fit, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from its
        ``n d (2 d + 8 max_iter) + 2 d^3`` multiply-adds; a costlier fit is
        refused before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds ``init="random"`` and the batches of ``"sgd"``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The fitted ``w``, so that ``predict(X) = (X @ coef_)^2``. ``w`` and
        ``-w`` give the same predictions; the sign is fixed by making the
        entry of largest magnitude positive.
    loss_curve_ : list of float
        The training loss ``mean((<x, w>^2 - y)^2) / mean(y)^2`` after every
        iteration (or epoch): ``n_iter_`` values.
    learning_curve_ : list of float
        The same list as ``loss_curve_`` (the name the issue fixed; the
        package's convention is ``loss_curve_``).
    n_iter_ : int
        Iterations (epochs for ``"sgd"``) run.
    rank_ : int
        Number of whitened directions (``n_features`` unless ``X`` is rank
        deficient; always ``n_features`` with ``whiten=False``).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.single_index.phase_retrieval_dynamics : the population and
        online-SGD dynamics of the paper, with phase detection.
    sklearn_iclr.datasets.make_power_law_phase_retrieval : data of the paper.

    Notes
    -----
    ``X`` is rescaled to unit mean squared row norm and ``y`` to unit mean, so
    the fit is equivariant (``X -> c X`` gives ``coef_ / c``). ``whiten=True``
    (default) minimises in the coordinates ``M^(-1/2) x`` (``M`` the second
    moment of ``X``): the minimiser is the same, and the slow power-law phase of
    the dynamics is gone. ``init="spectral"`` starts from the top eigenvector of
    ``(1/n) sum_i y_i z_i z_i^T``. ``whiten=False, init="random", solver="gd"`` is
    the paper's setting.

    The model has no intercept and ``X`` is not centred. The mean of ``y`` must
    be positive (centred or signed targets are not intensities); ``fit`` warns
    when its intensities explain the training ``y`` worse than its mean. Fewer
    than ``2 d - 1`` samples do not determine ``w`` up to sign; ``fit`` warns.

    More in the user guide (:ref:`phase-retrieval-details`).


    References
    ----------
    .. [1] G. Braun, B. Loureiro, H. Q. Minh and M. Imaizumi. "Fast Escape,
       Slow Convergence: Learning Dynamics of Phase Retrieval under Power-Law
       Data". ICLR 2026. arXiv:2511.18661.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.datasets import make_power_law_phase_retrieval
    >>> from sklearn_iclr.single_index import PhaseRetrievalRegressor
    >>> X, y, w_star = make_power_law_phase_retrieval(500, 20, random_state=0)
    >>> est = PhaseRetrievalRegressor().fit(X, y)
    >>> error = min(np.linalg.norm(est.coef_ - s * w_star) for s in (1, -1))
    >>> bool(error / np.linalg.norm(w_star) < 1e-4)
    True
    >>> est.predict(X[:2]).round(3).tolist() == y[:2].round(3).tolist()
    True
    """

    _parameter_constraints = {
        "solver": [StrOptions({"lbfgs", "gd", "sgd"})],
        "init": [StrOptions({"spectral", "random"})],
        "whiten": ["boolean"],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left"), None],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        solver="lbfgs",
        init="spectral",
        whiten=True,
        learning_rate=0.1,
        max_iter=1000,
        tol=1e-6,
        batch_size=None,
        max_work=3600.0,
        random_state=None,
    ):
        self.solver = solver
        self.init = init
        self.whiten = whiten
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.batch_size = batch_size
        self.max_work = max_work
        self.random_state = random_state

    @property
    def learning_curve_(self):
        """Alias of ``loss_curve_`` (the training loss per iteration)."""
        return self.loss_curve_

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit ``w`` to the intensities ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Measurement vectors; at least 2 samples and 2 features.
        y : array-like of shape (n_samples,)
            Intensities, with a positive mean.

        Returns
        -------
        self : PhaseRetrievalRegressor
            The fitted estimator.
        """
        X, y = validate_data(
            self, X, y, y_numeric=True, dtype=np.float64, ensure_min_samples=2
        )
        n_samples, n_features = X.shape
        if n_features < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 features, got 1 feature(s): "
                "with one feature the intensity y = (x w)^2 only fixes |w|. Fit "
                "LinearRegression(fit_intercept=False) on x^2 instead."
            )
        y_norm, y_scale = self._normalise_target(y)
        check_work_budget(
            {
                "multiply_add": n_samples
                * n_features
                * (2.0 * n_features + 8.0 * self.max_iter)
                + 2.0 * float(n_features) ** 3
            },
            self.max_work,
            advice="Or lower max_iter, or fit on fewer samples or features.",
        )
        x_scale, X_norm = self._normalise_inputs(X)
        Z, to_coef, to_v = self._coordinates(X_norm)
        self.rank_ = Z.shape[1]
        if n_samples < 2 * self.rank_ - 1:
            warn_user(
                f"{n_samples} samples for {self.rank_} identifiable directions: "
                f"real phase retrieval needs at least 2 * {self.rank_} - 1 = "
                f"{2 * self.rank_ - 1} generic measurements to determine w up to "
                "sign, so coef_ is one of many fits (and the solver may stop at a "
                "saddle point). Collect more samples or reduce the features."
            )
        rng = check_random_state(self.random_state)
        v = self._initial_point(Z, y_norm, to_v, rng)
        if self.solver == "lbfgs":
            v = self._fit_lbfgs(Z, y_norm, v)
        else:
            v = self._fit_gradient(Z, y_norm, v, rng)
        self._warn_if_worse_than_constant(Z, y_norm, v)
        coef = (to_coef @ v) * (np.sqrt(y_scale) / x_scale)
        if not np.all(np.isfinite(coef)):
            raise ValueError(
                "The fitted coefficients overflow float64 (the scales of X and y "
                "are too far apart); rescale X or y before fitting."
            )
        largest = np.argmax(np.abs(coef))
        self.coef_ = coef if coef[largest] >= 0 else -coef
        return self

    @staticmethod
    def _warn_if_worse_than_constant(Z, y_norm, v):
        """Warn when the fit explains the training targets worse than their mean."""
        residual = (Z @ v) ** 2 - y_norm
        spread = np.sum((y_norm - y_norm.mean()) ** 2)
        r2 = 1.0 - np.sum(residual**2) / spread if spread > 0 else 1.0
        if r2 < 0:
            warn_user(
                f"The fitted intensities <x, w>^2 explain the training y worse than "
                f"its mean (training R^2 = {r2:.3g}): y does not look like "
                "intensities of linear measurements of X. The model has no "
                "intercept, so an offset in y over a centred X cannot be fitted; "
                "a constant or a linear model fits these data better."
            )

    @staticmethod
    def _normalise_target(y):
        top = np.max(np.abs(y))
        mean = np.mean(y / top) if top > 0 else 0.0
        if not mean > 0:
            raise ValueError(
                "y must be intensities with a positive mean (y = <x, w>^2 + "
                f"noise), got mean(y) = {mean * top:.3g}. Pass the measured "
                "intensities, not centred or signed amplitudes (for a signed "
                "target, fit a linear model instead)."
            )
        return (y / top) / mean, top * mean

    @staticmethod
    def _normalise_inputs(X):
        top = np.max(np.abs(X))
        if top == 0:
            raise ValueError("X is all zeros: no measurement carries information.")
        X_norm = X / top
        root = np.sqrt(np.mean(np.sum(X_norm * X_norm, axis=1)))
        return top * root, X_norm / root

    def _coordinates(self, X_norm):
        """The solver's design ``Z`` and the maps ``w = to_coef @ v``, ``v = to_v @ w``.

        ``w`` lives in the trace-normalised input space, ``v`` in the solver's.
        """
        second_moment = X_norm.T @ X_norm / X_norm.shape[0]
        eigenvalues, eigenvectors = np.linalg.eigh(second_moment)
        top = eigenvalues[-1]
        if not self.whiten:
            root = np.sqrt(top)
            identity = np.eye(X_norm.shape[1])
            return X_norm / root, identity / root, identity * root
        keep = eigenvalues > WHITEN_RTOL * top
        root = np.sqrt(eigenvalues[keep])
        basis = eigenvectors[:, keep]
        return X_norm @ (basis / root), basis / root, (basis * root).T

    def _initial_point(self, Z, y, to_v, rng):
        if self.init == "random":
            w = rng.standard_normal(to_v.shape[1])
            return to_v @ (w / np.linalg.norm(w))
        moment = Z.T @ (y[:, None] * Z) / len(y)
        direction = np.linalg.eigh(moment)[1][:, -1]
        p2 = (Z @ direction) ** 2
        fourth = np.sum(p2 * p2)
        scale2 = np.sum(y * p2) / fourth if fourth > 0 else 1.0
        return direction * np.sqrt(scale2 if scale2 > 0 else 1.0)

    def _fit_lbfgs(self, Z, y, v0):
        curve = []

        def record(intermediate_result):
            curve.append(4.0 * float(intermediate_result.fun))

        result = minimize(
            _objective,
            v0,
            args=(Z, y),
            jac=True,
            method="L-BFGS-B",
            callback=record,
            options={
                "maxiter": self.max_iter,
                "maxfun": 2 * self.max_iter + 20,
                "gtol": self.tol,
                "ftol": 4 * np.finfo(np.float64).eps,
            },
        )
        self.n_iter_ = int(result.nit)
        self.loss_curve_ = curve
        if result.status == 1:
            self._warn_not_converged()
        return result.x

    def _fit_gradient(self, Z, y, v, rng):
        n_samples = len(y)
        lr = self.learning_rate
        if self.solver == "gd":
            batch = n_samples
        else:
            batch = self.batch_size or min(DEFAULT_BATCH, n_samples)
            batch = min(batch, n_samples)
        value, grad = _objective(v, Z, y)
        curve = []
        converged = np.max(np.abs(grad)) <= self.tol
        n_iter = 0
        while not converged and n_iter < self.max_iter:
            if self.solver == "gd":
                v = v - lr * grad
            else:
                order = rng.permutation(n_samples)
                with np.errstate(over="ignore", invalid="ignore"):
                    for start in range(0, n_samples, batch):
                        rows = order[start : start + batch]
                        v = v - lr * _objective(v, Z[rows], y[rows])[1]
            n_iter += 1
            with np.errstate(over="ignore", invalid="ignore"):
                value, grad = _objective(v, Z, y)
            if not np.isfinite(value):
                raise ValueError(
                    f"solver={self.solver!r} diverged at iteration {n_iter}: "
                    f"learning_rate={lr} is too large. Lower learning_rate "
                    "(below about 0.3 is stable near the solution) or use "
                    "solver='lbfgs'."
                )
            curve.append(4.0 * float(value))
            converged = np.max(np.abs(grad)) <= self.tol
        self.n_iter_ = n_iter
        self.loss_curve_ = curve
        if not converged:
            self._warn_not_converged()
        return v

    def _warn_not_converged(self):
        warn_user(
            f"{type(self).__name__} (solver={self.solver!r}) reached "
            f"max_iter={self.max_iter} before the gradient fell below "
            f"tol={self.tol}. Raise max_iter, or use solver='lbfgs' with "
            "whiten=True.",
            ConvergenceWarning,
        )

    def predict(self, X):
        """Predict the intensities ``<x, coef_>^2``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Measurement vectors.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted intensities (non-negative).
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return (X @ self.coef_) ** 2

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # The common checks fit linear targets: a square link cannot score well.
        tags.regressor_tags.poor_score = True
        # Intensities: the checks shift their targets to be positive.
        tags.target_tags.positive_only = True
        return tags
