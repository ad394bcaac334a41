"""Single-index regression by averaging the iterates of Langevin dynamics."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import (
    WorkBudgetError,
    check_count_budget,
    import_torch,
    resolve_device,
    seed_from_random_state,
    torch_seeded,
)
from ..utils._compat import DeviceOptions, Interval, StrOptions, _fit_context
from ..utils.validation import check_not_constant
from ._hermite import (
    fit_hermite_link,
    hermite_basis,
    predict_hermite_link,
)
from ._information_exponent import estimate_information_exponent
from ._langevin_chains import direction_from_averages, run_chains

# Gradient evaluations of the automatic budget, per d**k*, for odd and even k*.
# Measured at n = 10 d^2: 0.5 d^4 gives overlap ~0.99 for k* = 4 (second
# moment) at d = 32 and 64; the first moment (odd k*) needs more, 16 d^3 gives
# ~0.98 for k* = 3 at d = 32 (docs/benchmarks/averaged_langevin.rst).
AUTO_BUDGET_PER_DK = {1: 16.0, 0: 0.5}
AUTO_MIN_STEPS = 200
# Per-step move sqrt(h d) of the automatic learning rate (h << 1 / d).
AUTO_STEP_MOVE = 0.2
# |z| a Hermite coefficient needs to fix the sign of the direction.
SIGN_Z_THRESHOLD = 3.0


# Largest batch tensor (n_chains * batch_size * n_features float32) of a step.
MAX_STEP_BYTES = 2**30


def standardize_columns(X):
    """Column means and scales, with scale 1 for constant columns.

    The moments are computed on each column divided by its largest absolute
    value, so that magnitudes from 1e-300 to 1e300 neither overflow nor
    underflow. A column is constant when its standard deviation is at most
    ``10 eps |mean|`` (``eps`` the float64 resolution): a relative threshold,
    so a column of tiny but genuine variation is standardised like any other.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    mean, scale : ndarray of shape (n_features,)
    """
    peak = np.max(np.abs(X), axis=0)
    peak[peak == 0] = 1.0
    scaled = X / peak
    mean = scaled.mean(axis=0)
    scale = scaled.std(axis=0)
    constant = scale <= 10 * np.finfo(np.float64).eps * np.abs(mean)
    mean, scale = mean * peak, scale * peak
    exact = np.ptp(X, axis=0) == 0
    mean[exact] = X[0, exact]
    scale[constant | exact] = 1.0
    return mean, scale


def _unit_rows(rows):
    """Rows divided by their norms, without overflow or underflow of squares."""
    rows = rows / np.max(np.abs(rows), axis=1, keepdims=True)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def sign_from_odd_coefficients(t, y, max_degree):
    """+1 or -1 making the most significant odd Hermite coefficient positive.

    ``c_j = mean(y h_j(t))`` for odd ``j <= max_degree``; the one with the
    largest z-score decides, if that z-score exceeds ``SIGN_Z_THRESHOLD``.
    Returns 0 when no odd coefficient is significant (an even link: the sign
    is not identifiable).
    """
    yc = y - y.mean()
    basis = hermite_basis(t, max(max_degree, 1))
    best_z, best_sign = SIGN_Z_THRESHOLD, 0.0
    for j in range(1, len(basis), 2):
        products = yc * basis[j]
        sd = products.std()
        z = abs(products.mean()) * math.sqrt(len(t)) / sd if sd > 0 else 0.0
        if z > best_z:
            best_z, best_sign = z, (1.0 if products.mean() > 0 else -1.0)
    return best_sign


def auto_max_iter(n_features, exponent, n_chains, batch_size):
    """Steps per chain of the automatic budget ``c d^k*`` gradient evaluations.

    ``c`` is ``AUTO_BUDGET_PER_DK[k* % 2]``; at least ``AUTO_MIN_STEPS`` steps
    (a few relaxation times of the chains).
    """
    budget = AUTO_BUDGET_PER_DK[exponent % 2] * float(n_features) ** exponent
    return max(AUTO_MIN_STEPS, math.ceil(budget / (n_chains * batch_size)))


def canonical_sign(vector):
    """+1 or -1 making the largest-magnitude entry of ``vector`` positive."""
    return 1.0 if vector[np.argmax(np.abs(vector))] >= 0 else -1.0


class AveragedLangevinRegressor(RegressorMixin, BaseEstimator):
    """Single-index regression via averaged Langevin dynamics (ICLR 2026).

    Implements the estimator of Stanley Wei, Alex Damian and Jason D. Lee,
    "Improved high-dimensional estimation with Langevin dynamics and stochastic
    weight averaging", ICLR 2026 (arXiv:2603.06028), and turns it into a
    regressor. The model is ``y = f(theta* . x) + noise`` with an unknown unit
    direction ``theta*``. Write ``f = sum_k c_k h_k`` in orthonormal Hermite
    polynomials ``h_k = He_k / sqrt(k!)``; the information exponent ``k*`` is
    the first ``k >= 1`` with ``c_k != 0``.

    Parameters
    ----------
    information_exponent : int or None, default=None
        ``k*``, the order of the Hermite polynomial in the loss. ``None``
        estimates it from direction-free Hermite statistics of orders 1 to 4
        (:func:`estimate_information_exponent`); those need many samples for
        ``k* = 4`` (a warning says when none is significant), so pass it when
        you know it.
    link_degree : int, default=4
        Highest Hermite degree of the fitted link.
    learning_rate : float or "auto", default="auto"
        Step of the SGD chains. ``"auto"`` uses
        ``0.2 * sqrt(batch_size / (k* d))``, a per-step move of about 0.2 on
        the sphere.
    max_iter : int or "auto", default="auto"
        Steps of every chain (all are run: the average needs them). ``"auto"``
        spends ``16 d^k*`` (odd ``k*``) or ``0.5 d^k*`` (even ``k*``) gradient
        evaluations in total (``max_iter * n_chains * batch_size``), with at
        least 200 steps. The work needed grows like ``d^k*``.
    n_chains : int, default=1024
        Independent chains, advanced together as one ``(n_chains, d)`` matrix.
        Only the total work matters statistically as long as every chain runs
        well past its relaxation time (about 50 steps at the automatic
        learning rate). More chains per step are faster per gradient
        evaluation.
    batch_size : int, default=1
        Samples per chain and step, drawn with replacement from the data.
        The paper's simulations use 1. A step's batch tensor
        (``n_chains * batch_size * n_features`` floats) is limited to 1 GiB.
    max_gradient_evaluations : float, default=1e9
        Largest work accepted, in gradient evaluations
        ``max_iter * n_chains * batch_size``; where ``k* > d``, an evaluation
        counts ``k* / d`` times (its Hermite recurrence has ``k*`` terms). A
        fit that needs more (a large ``information_exponent``, whose automatic
        work grows like ``d^k*``, or a large ``max_iter``) is refused before it
        starts, with a time estimate.
    device : {"cpu", "cuda", "auto"} or str, default="cpu"
        Torch device of the chains (``"cuda:N"`` works too).
    random_state : int, RandomState instance or None, default=None
        Seeds the chains (through a forked torch generator; the global torch
        random state is left untouched).
    verbose : int, default=0
        Print the progress of the chains when positive.

    Attributes
    ----------
    direction_ : ndarray of shape (n_features,)
        The estimated unit direction ``theta*`` in the original feature space.
        Its sign makes the most significant odd Hermite coefficient of the
        link positive (for an even link, the largest entry is positive).
    link_coef_ : ndarray of shape (link_degree + 1,)
        Hermite coefficients of the fitted link ``f(z) = sum_k c_k h_k(z)`` of
        the standardised index.
    information_exponent_ : int
        The exponent used (given or estimated).
    learning_rate_ : float
        The learning rate used.
    n_iter_ : int
        Steps run by every chain.
    loss_curve_ : list of float
        The correlation loss ``-mean(y h_k*(theta . x))`` (standardised ``x``
        and ``y``) of every step's minibatches at the iterates the step starts
        from, averaged over the chains: one value per step.
    mean_ : ndarray of shape (n_features,)
        Column means used to standardise ``X``.
    scale_ : ndarray of shape (n_features,)
        Column standard deviations used to standardise ``X`` (1 for constant
        columns).
    averaged_iterate_ : ndarray of shape (n_features,)
        Average of the iterates over steps and chains (standardised space).
    averaged_second_moment_ : ndarray of shape (n_features, n_features)
        Average of ``theta theta^T`` over steps and chains (standardised
        space).
    last_iterates_ : ndarray of shape (n_chains, n_features)
        The last iterate of every chain as unit vectors in the original feature
        space: the last-iterate baseline on the same run.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.single_index.tensor_pca_langevin : the same averaging for
        spiked tensor PCA.
    sklearn_iclr.single_index.estimate_information_exponent : choose
        ``information_exponent`` from data.

    Notes
    -----
    The chains run batch SGD on the correlation loss on the unit sphere (spherical
    Langevin dynamics at a high temperature). The direction is the normalised
    average of ``theta`` for odd ``k*`` and the extreme eigenvector of the average
    of ``theta theta^T`` for even ``k*``; it is found from about ``d^ceil(k*/2)``
    samples, where the last iterate and online SGD need about ``d^(k*-1)``. The
    link is a least-squares fit in Hermite polynomials of the index, so
    :meth:`predict` works on any data.

    Inputs are standardised column-wise (the theory assumes ``x ~ N(0, I)``);
    ``direction_`` is in the original feature space. For a link of degree ``k``,
    ``R^2`` is about ``overlap^(2k)``: near ``n = 4 d^2`` (the defaults of
    :func:`~sklearn_iclr.datasets.make_single_index`) pass
    ``information_exponent``, raise ``max_iter`` or use more samples. The chains
    run on one torch thread on CPU; the CUDA path is untested.

    The update rule, the sample-size discussion and the numerics are in the user
    guide (:ref:`averaged-langevin-details`).


    References
    ----------
    .. [1] S. Wei, A. Damian and J. D. Lee. "Improved high-dimensional
       estimation with Langevin dynamics and stochastic weight averaging".
       ICLR 2026. arXiv:2603.06028.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_single_index
    >>> from sklearn_iclr.metrics import overlap
    >>> from sklearn_iclr.single_index import AveragedLangevinRegressor
    >>> X, y, theta = make_single_index(2000, 8, information_exponent=3, random_state=0)
    >>> est = AveragedLangevinRegressor(information_exponent=3, random_state=0)
    >>> est = est.fit(X, y)
    >>> overlap(est.direction_, theta) > 0.95
    True
    >>> est.score(X, y) > 0.9
    True
    """

    _parameter_constraints = {
        "information_exponent": [Interval(Integral, 1, None, closed="left"), None],
        "link_degree": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [
            Interval(Real, 0, None, closed="neither"),
            StrOptions({"auto"}),
        ],
        "max_iter": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "n_chains": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "max_gradient_evaluations": [Interval(Real, 1, None, closed="left")],
        "device": [DeviceOptions()],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        information_exponent=None,
        *,
        link_degree=4,
        learning_rate="auto",
        max_iter="auto",
        n_chains=1024,
        batch_size=1,
        max_gradient_evaluations=1e9,
        device="cpu",
        random_state=None,
        verbose=0,
    ):
        self.information_exponent = information_exponent
        self.link_degree = link_degree
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.n_chains = n_chains
        self.batch_size = batch_size
        self.max_gradient_evaluations = max_gradient_evaluations
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Recover the direction with averaged Langevin chains, then fit the link.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs; at least 2 samples and 2 features.
        y : array-like of shape (n_samples,)
            Training targets; must not be constant.

        Returns
        -------
        self : AveragedLangevinRegressor
            The fitted estimator.
        """
        X, y = validate_data(
            self, X, y, y_numeric=True, dtype=np.float64, ensure_min_samples=2
        )
        n_features = X.shape[1]
        if n_features < 2:
            raise ValueError(
                f"{type(self).__name__} needs at least 2 features, got 1 feature(s): "
                "with one feature there is no direction to find. Fit a 1-D "
                "regression instead (e.g. SplineTransformer followed by Ridge)."
            )
        check_not_constant(y)
        device = resolve_device(self.device)
        self.mean_, self.scale_ = standardize_columns(X)
        X_std = (X - self.mean_) / self.scale_
        y_mean, y_scale = standardize_columns(y[:, None])
        y_std = (y - y_mean[0]) / y_scale[0]
        exponent = self.information_exponent
        if exponent is None:
            exponent = estimate_information_exponent(X_std, y_std)
        self.information_exponent_ = int(exponent)
        self._check_budget(n_features)
        self.learning_rate_ = self._resolve_learning_rate(n_features)
        self.n_iter_ = self._resolve_max_iter(n_features)

        averages, self.loss_curve_ = self._run_chains(X_std, y_std, device)
        self.averaged_iterate_ = averages.mean
        self.averaged_second_moment_ = averages.second_moment
        weights = direction_from_averages(averages, self.information_exponent_ % 2)

        index = X_std @ weights
        sign = sign_from_odd_coefficients(index, y_std, self.link_degree)
        if sign == 0.0:
            sign = canonical_sign(weights / self.scale_)
        weights = sign * weights
        # The link is fitted to the standardised target, then scaled back, so
        # that targets of any magnitude fit alike.
        self.link_coef_ = y_scale[0] * fit_hermite_link(
            sign * index, y_std, self.link_degree
        )
        self.link_coef_[0] += y_mean[0]
        self.direction_ = self._to_original_space(weights[None, :])[0]
        self.last_iterates_ = self._to_original_space(averages.last)
        return self

    def _check_budget(self, n_features):
        """Refuse, before any work, fits too long or steps too large."""
        step_bytes = 4.0 * self.n_chains * self.batch_size * n_features
        if step_bytes > MAX_STEP_BYTES:
            raise ValueError(
                f"One step would draw a batch tensor of n_chains * batch_size * "
                f"n_features = {self.n_chains} * {self.batch_size} * {n_features} "
                f"floats ({step_bytes / 2**30:.3g} GiB), more than the 1 GiB "
                "allowed. Lower batch_size or n_chains (only the total work "
                "max_iter * n_chains * batch_size matters statistically)."
            )
        exponent = self.information_exponent_
        # the Hermite recurrence of h_{k*-1} costs k* terms per evaluation
        per_evaluation = max(1.0, exponent / n_features)
        if self.max_iter == "auto":
            log_evaluations = max(
                math.log10(AUTO_BUDGET_PER_DK[exponent % 2])
                + exponent * math.log10(n_features),
                math.log10(AUTO_MIN_STEPS * self.n_chains * self.batch_size),
            )
            log_work = log_evaluations + math.log10(per_evaluation)
            advice = (
                f"max_iter='auto' spends about d^k* = {n_features}^{exponent} "
                "evaluations: check information_exponent (a small int in the "
                "theory), or set max_iter."
            )
        else:
            log_work = math.log10(
                float(self.max_iter) * self.n_chains * self.batch_size * per_evaluation
            )
            advice = "Lower max_iter, n_chains or batch_size."
        if log_work > 300:  # the count itself would overflow a float
            raise WorkBudgetError(
                f"This fit needs about 10^{log_work:.4g} gradient evaluations, "
                f"more than max_gradient_evaluations="
                f"{self.max_gradient_evaluations:.3g} allows. " + advice,
                work={"langevin_coordinate": math.inf},
                seconds=math.inf,
            )
        evaluations = 10.0**log_work
        check_count_budget(
            evaluations,
            self.max_gradient_evaluations,
            what="gradient evaluations",
            work={"langevin_coordinate": evaluations * n_features},
            parameter="max_gradient_evaluations",
            advice=advice,
        )

    def _resolve_learning_rate(self, n_features):
        if self.learning_rate != "auto":
            return float(self.learning_rate)
        return AUTO_STEP_MOVE * math.sqrt(
            self.batch_size / (self.information_exponent_ * n_features)
        )

    def _resolve_max_iter(self, n_features):
        if self.max_iter != "auto":
            return int(self.max_iter)
        return auto_max_iter(
            n_features, self.information_exponent_, self.n_chains, self.batch_size
        )

    def _run_chains(self, X_std, y_std, device):
        """The chains' averages, and the minibatch loss of every step."""
        torch = import_torch()
        seed = seed_from_random_state(self.random_state)
        with torch_seeded(seed, device):
            X_t = torch.as_tensor(X_std, dtype=torch.float32, device=device)
            y_t = torch.as_tensor(y_std, dtype=torch.float32, device=device)
            n_samples, exponent = len(y_std), self.information_exponent_
            shape = (self.n_chains, self.batch_size)
            lr = self.learning_rate_
            # the losses stay on the device until the end: no sync per step
            losses = torch.empty(self.n_iter_, dtype=torch.float64, device=device)
            steps = iter(range(self.n_iter_))

            def sgd_increment(theta):
                rows = torch.randint(n_samples, shape, device=device)
                x_batch = X_t[rows]
                y_batch = y_t[rows]
                z = torch.einsum("cbd,cd->cb", x_batch, theta)
                # h_k* for the loss, sqrt(k*) h_{k*-1} = h_k*' for the step
                basis = hermite_basis(z, exponent)
                losses[next(steps)] = -(y_batch * basis[exponent]).mean()
                weight = y_batch * (math.sqrt(exponent) * basis[exponent - 1])
                return (lr / self.batch_size) * torch.einsum(
                    "cb,cbd->cd", weight, x_batch
                )

            averages = run_chains(
                sgd_increment,
                self.n_chains,
                X_std.shape[1],
                self.n_iter_,
                device,
                verbose=self.verbose,
                label=type(self).__name__,
            )
            return averages, losses.tolist()

    def _to_original_space(self, weights):
        """Unit rows ``u`` with ``u . x`` proportional to ``w . x_standardized``."""
        return _unit_rows(weights / self.scale_)

    def _index(self, X):
        weights = _unit_rows((self.direction_ * self.scale_)[None, :])[0]
        return ((X - self.mean_) / self.scale_) @ weights

    def predict(self, X):
        """Predict ``f(direction . x)`` with the fitted Hermite link.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predictions.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return predict_hermite_link(self._index(X), self.link_coef_)
