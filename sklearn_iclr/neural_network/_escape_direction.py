"""Optimal escape directions of a deep bias-free ReLU network from the origin."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_array, check_consistent_length, check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from ..utils import check_work_budget
from ..utils._compat import Interval, _fit_context
from ..utils.validation import rms_scale
from ._bias_free_relu import (
    backward,
    forward,
    layer_shapes,
    rank_ratio,
    singular_values,
)

# Step schedule of the search (relative to the gradient scale), chosen on
# the paper's Example 1: larger first steps skip the rank-2 optimum more often,
# smaller last steps only add iterations.
INITIAL_STEP = 0.25
FINAL_STEP = 5e-5
# Gain that the rank-1 chain of a random start keeps over the whole depth (see
# _start). Random unit layers alone shrink the output about sqrt(2 * width)
# times per layer (1e-200 at depth 200 and width 50, whose squares underflow)
# and narrow deep ones often kill every unit. The chain keeps a live path of
# this gain: far from underflow, and smaller than the random layers' own gain
# at the default depth and width (1e-4), whose starts it barely changes.
CHAIN_GAIN = 1e-8


def _normalize(W, max_rank):
    """The unit-Frobenius matrix of rank <= ``max_rank`` nearest to ``W``."""
    if max_rank is not None and min(W.shape) > max_rank:
        U, s, Vt = np.linalg.svd(W, full_matrices=False)
        W = (U[:, :max_rank] * s[:max_rank]) @ Vt[:max_rank]
    norm = np.linalg.norm(W)
    return W / norm if norm > 0 else W


def _start(shapes, X, Y, rng, max_rank):
    """A random start of unit layers whose output neither vanishes nor is dead.

    Every layer is Gaussian. A hidden-to-hidden layer ``l`` also gets a
    rank-1 part ``beta u_l u_{l-1}^T`` with ``u_l >= 0`` of unit norm: it
    passes ReLU unchanged, so the chain of these parts carries a signal
    through every layer with gain ``beta``; ``beta = CHAIN_GAIN^(1/(L-2))``
    keeps a gain of ``CHAIN_GAIN`` over the whole depth. First-layer units
    that no training row activates are flipped, and the output layer's sign
    is chosen so that the speed starts non-negative.
    """
    weights = [rng.standard_normal(shape) for shape in shapes]
    weights = [W / np.linalg.norm(W) for W in weights]
    weights[0][np.all(X @ weights[0].T <= 0.0, axis=0)] *= -1.0
    if len(shapes) > 2:
        beta = CHAIN_GAIN ** (1.0 / (len(shapes) - 2))
        chain = [np.abs(rng.standard_normal(fan_out)) for fan_out, _ in shapes[:-1]]
        chain = [u / np.linalg.norm(u) for u in chain]
        for layer in range(1, len(shapes) - 1):
            weights[layer] = math.sqrt(1.0 - beta**2) * weights[layer] + beta * (
                np.outer(chain[layer], chain[layer - 1])
            )
    weights = [_normalize(W, max_rank) for W in weights]
    if np.vdot(Y, forward(weights, X)[1]) < 0.0:
        weights[-1] = -weights[-1]
    return weights


def _ascend(weights, X, Y, *, max_iter, tol, n_iter_no_change, max_rank):
    """Projected (spherical) gradient ascent of ``Tr[Y^T Z_L]`` on unit layers.

    Every iteration moves each layer along its tangent gradient (the gradient
    with its radial part removed) and retracts it to the unit sphere (and to
    rank <= ``max_rank``). The step is ``lr_t / g_ref`` times the tangent
    gradient, where ``g_ref`` is the largest per-layer gradient norm seen so
    far (it tends to the speed at an escape direction, which makes the step
    free of the data's scale) and ``lr_t`` decays geometrically from
    ``INITIAL_STEP`` to ``FINAL_STEP`` over ``max_iter`` iterations, so the
    iterates settle on optima that sit on a ReLU kink. Stops early when the
    best speed has not risen by more than ``tol`` times itself for
    ``n_iter_no_change`` iterations.

    Returns the best weights visited, their speed and the speed after every
    iteration (as many values as iterations run).
    """
    hidden, output = forward(weights, X)
    speed = float(np.vdot(Y, output))
    best_weights, best_speed = weights, speed
    g_ref, stale, speeds = 0.0, 0, []
    decay = (FINAL_STEP / INITIAL_STEP) ** (1.0 / max_iter)
    for iteration in range(max_iter):
        grads = backward(weights, X, hidden, Y)
        g_ref = max(g_ref, *(np.linalg.norm(g) for g in grads))
        if g_ref == 0.0:  # a dead network: no direction moves it
            return best_weights, best_speed, speeds
        step = INITIAL_STEP * decay**iteration / g_ref
        weights = [
            _normalize(W + step * (g - np.vdot(g, W) * W), max_rank)
            for W, g in zip(weights, grads, strict=True)
        ]
        hidden, output = forward(weights, X)
        speed = float(np.vdot(Y, output))
        speeds.append(speed)
        stale = 0 if speed > best_speed + tol * abs(best_speed) else stale + 1
        if speed > best_speed:
            best_weights, best_speed = weights, speed
        if stale >= n_iter_no_change:
            return best_weights, best_speed, speeds
    return best_weights, best_speed, speeds


class EscapeDirection(BaseEstimator):
    """Optimal escape direction of a deep bias-free ReLU network (ICLR 2026).

    Implements the escape-direction problem of Ioannis Bantzis, James B. Simon
    and Arthur Jacot, "Saddle-To-Saddle Dynamics in Deep ReLU Networks: Low-Rank
    Bias in the First Saddle Escape", ICLR 2026 (arXiv:2505.21722).

    The network is ``Z_1 = W_1 x``, ``Z_l = W_l relu(Z_{l-1})``, output
    ``Y_theta = Z_L`` (``L = depth``, no biases). Trained from a small
    initialisation, gradient descent first sits at the saddle at the origin,
    where the loss is its first-order term ``L0(theta) = Tr[G^T Y_theta]``,
    ``G`` the gradient of the cost at output 0. This estimator uses the squared
    loss ``C(Y_theta) = 1/2 ||Y_theta - Y||_F^2`` (summed over samples, the
    convention of the paper's Example 1), so ``G = -Y`` and::

        L0(theta) = -Tr[Y^T Y_theta].

    Parameters
    ----------
    depth : int, default=6
        Number of layers ``L`` (at least 2).
    width : int, default=50
        Width of every hidden layer.
    n_restarts : int, default=8
        Random starts of the search; the fastest direction is kept.
    max_iter : int, default=2000
        Most iterations per restart (one forward and one backward pass each);
        the step decays geometrically over them.
    tol : float, default=1e-7
        A restart stops early when its best speed has not risen by more than
        ``tol`` times itself for ``n_iter_no_change`` consecutive iterations.
    n_iter_no_change : int, default=200
        Patience of the ``tol`` rule. Optima on a ReLU kink are approached
        only as the step decays, with long stretches of tiny gains: a short
        patience stops there early.
    max_rank : int or None, default=None
        Constrain every layer to rank at most ``max_rank`` (each step is
        retracted to the nearest unit-norm matrix of that rank). ``None``
        searches all directions; ``1`` gives the best all-rank-1 direction.
    max_work : float, default=3600
        Largest estimated cost of the fit, in seconds of the reference core
        (:func:`sklearn_iclr.utils.estimate_seconds`), from the multiply-adds
        of ``n_restarts * max_iter`` forward and backward passes over the
        data; a costlier fit is refused before it starts, with the estimate.
    random_state : int, RandomState instance or None, default=None
        Seeds the random starts.

    Attributes
    ----------
    speed_ : float
        The escape speed ``s`` of the best direction, in the units of the data
        (``s`` scales like ``X`` times ``Y``).
    weights_ : list of ndarray
        The layers ``W_1, ..., W_L`` of the best direction, ``W_l`` of shape
        ``(fan_out, fan_in)``, each of unit Frobenius norm
        (``||theta||^2 = L``).
    layer_singular_values_ : list of ndarray
        The singular values of every layer, in decreasing order.
    rank_ratio_ : ndarray of shape (depth,)
        ``sum_{i>=2} s_i^2 / sum_i s_i^2`` of every layer (0 for rank 1).
    restart_speeds_ : ndarray of shape (n_restarts,)
        The speed reached by every restart.
    stationarity_ : float
        ``||grad L0(theta) + s theta|| / (s ||theta||)`` at the best direction:
        0 at an exact escape direction.
    n_iter_ : int
        Iterations run by the restart that found the best direction.
    loss_curve_ : list of float
        The first-order loss ``L0 = -Tr[Y^T Y_theta]`` (the negated speed, in
        the units of ``speed_``) after every iteration of the restart that
        found the best direction; ``n_iter_`` values. It need not fall at every
        iteration (``speed_`` is the best speed visited).
    n_iter_per_restart_ : ndarray of shape (n_restarts,)
        Iterations run by every restart.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    SmallInitMLPRegressor : trains such a network from a small initialisation
        and records its saddle-to-saddle path.

    Notes
    -----
    ``L0`` is ``L``-homogeneous. An escape direction is a point ``rho`` with
    ``||rho||^2 = L`` and ``grad L0(rho) = -s rho``, ``s > 0`` its escape speed
    (``s = -L0(rho)`` by Euler's identity). The optimal one minimises ``L0`` on
    that sphere. At every such point each layer has unit Frobenius norm, so
    the search runs spherical gradient ascent of ``s = Tr[Y^T Y_theta]`` on the
    product of the layers' unit spheres, from ``n_restarts`` random starts
    (each with a weak positive rank-1 chain through the hidden layers, so that
    deep starts neither underflow nor die), and keeps the fastest. Theorem 3.1
    of the paper: at the optimum, the rank ratio
    ``sum_{i>=2} s_i^2 / sum_i s_i^2`` of deep layers ``W_l`` is
    ``O(l^(-1/2))``.

    ``X`` and ``Y`` are divided by their root-mean-square values before the
    search (the direction does not depend on either scale) and ``speed_`` is
    scaled back. For the mean squared loss ``1/(2n) ||Y_theta - Y||^2`` the
    speed is ``speed_ / n_samples``. ReLU kinks are handled with
    ``relu'(0) = 0``; the optimum can sit on a kink (it does in Example 1).
    The search in detail: :ref:`escape-direction-details`.

    References
    ----------
    .. [1] I. Bantzis, J. B. Simon and A. Jacot. "Saddle-To-Saddle Dynamics in
       Deep ReLU Networks: Low-Rank Bias in the First Saddle Escape".
       ICLR 2026. arXiv:2505.21722.

    Examples
    --------
    The paper's Example 1: eight points on the unit circle with alternating
    targets. A rank-2 first layer escapes at speed 1/2, while all-rank-1
    networks reach only ``sqrt(2) - 1``.

    >>> import numpy as np
    >>> from sklearn_iclr.neural_network import EscapeDirection
    >>> angles = np.arange(8) * np.pi / 4
    >>> X = np.c_[np.cos(angles), np.sin(angles)]
    >>> Y = np.where(np.arange(8) % 2 == 0, 1.0, -1.0)
    >>> est = EscapeDirection(depth=3, width=20, random_state=0).fit(X, Y)
    >>> round(est.speed_, 3)
    0.5
    >>> rank1 = EscapeDirection(depth=3, width=8, max_rank=1, random_state=0)
    >>> round(rank1.fit(X, Y).speed_, 3)
    0.414
    """

    _parameter_constraints = {
        "depth": [Interval(Integral, 2, None, closed="left")],
        "width": [Interval(Integral, 1, None, closed="left")],
        "n_restarts": [Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "max_rank": [Interval(Integral, 1, None, closed="left"), None],
        "max_work": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        depth=6,
        width=50,
        n_restarts=8,
        max_iter=2000,
        tol=1e-7,
        n_iter_no_change=200,
        max_rank=None,
        max_work=3600.0,
        random_state=None,
    ):
        self.depth = depth
        self.width = width
        self.n_restarts = n_restarts
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.max_rank = max_rank
        self.max_work = max_work
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y):
        """Find the optimal escape direction for the squared loss at the origin.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        Y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets; ``G = -Y`` is the gradient of the cost at output 0. Must
            not be all zero.

        Returns
        -------
        self : EscapeDirection
            The fitted estimator.
        """
        X, Y = validate_data(
            self, X, Y, multi_output=True, y_numeric=True, dtype=np.float64
        )
        Y2 = Y.reshape(len(Y), -1)
        if not np.any(Y2):
            raise ValueError(
                "Y is all zero: the first-order loss vanishes and the origin has "
                "no escape direction. Pass non-zero targets."
            )
        if not np.any(X):
            raise ValueError(
                "X is all zero: every network outputs 0 and no direction "
                "escapes. Pass non-zero inputs."
            )
        # Counted before the layers exist: depth=10**12 must be refused, not
        # allocated.
        per_pass = 3.0 * len(X) * self.width
        per_pass *= X.shape[1] + (self.depth - 2) * self.width + Y2.shape[1]
        check_work_budget(
            {"multiply_add": float(self.n_restarts) * self.max_iter * per_pass},
            self.max_work,
            advice="Or lower n_restarts, max_iter, width or depth, or subsample X.",
        )
        shapes = layer_shapes(X.shape[1], [self.width] * (self.depth - 1), Y2.shape[1])
        x_scale, y_scale = rms_scale(X), rms_scale(Y2)
        Xs, Ys = X / x_scale, Y2 / y_scale

        rng = check_random_state(self.random_state)
        best_weights, best_speed, best_curve = None, -np.inf, []
        speeds = np.empty(self.n_restarts)
        n_iter = np.empty(self.n_restarts, dtype=int)
        # The matrices are small: BLAS threads only add synchronisation.
        with threadpool_limits(limits=1, user_api="blas"):
            for restart in range(self.n_restarts):
                weights, speeds[restart], curve = _ascend(
                    _start(shapes, Xs, Ys, rng, self.max_rank),
                    Xs,
                    Ys,
                    max_iter=self.max_iter,
                    tol=self.tol,
                    n_iter_no_change=self.n_iter_no_change,
                    max_rank=self.max_rank,
                )
                n_iter[restart] = len(curve)
                if speeds[restart] > best_speed:
                    best_weights, best_speed = weights, speeds[restart]
                    best_curve = curve

        self.weights_ = best_weights
        self.restart_speeds_ = speeds * (x_scale * y_scale)
        self.n_iter_per_restart_ = n_iter
        self.n_iter_ = len(best_curve)
        self.loss_curve_ = [-speed * x_scale * y_scale for speed in best_curve]
        self.speed_ = float(best_speed * x_scale * y_scale)
        self.layer_singular_values_ = singular_values(best_weights)
        self.rank_ratio_ = np.array(
            [rank_ratio(s) for s in self.layer_singular_values_]
        )
        self.stationarity_ = self._stationarity(best_weights, best_speed, Xs, Ys)
        return self

    @staticmethod
    def _stationarity(weights, speed, X, Y):
        if speed <= 0:
            return float("inf")
        grads = backward(weights, X, forward(weights, X)[0], Y)
        residual = np.linalg.norm(
            [np.linalg.norm(g - speed * W) for g, W in zip(grads, weights, strict=True)]
        )
        return float(residual / (speed * np.sqrt(len(weights))))

    def network_output(self, X):
        """The output ``Y_theta`` of the network at the escape direction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        output : ndarray of shape (n_samples, n_outputs)
            ``Z_L`` for the unit-norm layers of ``weights_``; on the training
            data, ``sum(Y * output) = speed_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return forward(self.weights_, X)[1]

    def score(self, X, y):
        """Mean escape speed of the fitted direction on ``(X, Y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets (``Y`` of :meth:`fit`).

        Returns
        -------
        score : float
            ``Tr[Y^T Y_theta] / n_samples`` at the unit-norm layers of
            ``weights_``: the rate at which the mean squared loss
            ``1/(2n) ||Y_theta - Y||^2`` starts to fall along the direction
            (``speed_ / n_samples`` on the training data). Higher is better;
            on held-out data it says whether the direction generalises.
        """
        output = self.network_output(X)
        Y = check_array(y, ensure_2d=False, dtype=np.float64)
        check_consistent_length(output, Y)
        Y = Y.reshape(len(Y), -1)
        if Y.shape[1] != output.shape[1]:
            raise ValueError(
                f"Y has {Y.shape[1]} output(s), the direction was fitted with "
                f"{output.shape[1]}."
            )
        return float(np.sum(Y * output) / len(output))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        return tags
