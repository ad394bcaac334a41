"""The n that ``ReplicableLinearRegressor``'s fallback warning recommends.

When the rounded linear model loses to the rounded mean of ``y``, the warning
says how many samples the linear model would need. The answer must not depend
on the units of ``X`` (the fit does not): at a larger ``N`` the ridge penalty
``alpha``, which is on :class:`~sklearn.linear_model.Ridge`'s absolute scale,
weighs less against the Gram matrix ``N Sigma``, so the slopes, what they
explain and their standard errors all change with ``N``, not only the
standard errors. :class:`RidgeAtSampleSize` recomputes them at ``N`` from this
sample's moments.
"""

import numpy as np

from .._replicable._rounding import (
    LOG2_SPACING,
    MEAN_INVERSE_LOG2_RATIO,
    log2_ratio_moments,
    samples_needed,
)

# The linear model is worth its rounding once the rounding loss is at most this
# share of what it explains.
SHARE_OF_GAIN = 0.1


class RidgeAtSampleSize:
    """The rounded ridge of one ``alpha`` at sample size ``N``, from these moments.

    With ``Sigma`` the (centred, weighted) Gram matrix over ``n``, ``c`` the
    cross moment ``X^T y / n`` and ``v_y`` the mean squared (centred) target:
    at ``N`` the ridge is ``w_N = (N Sigma + alpha I)^{-1} N c``, it explains
    ``2 w_N.c - w_N^T Sigma w_N`` of ``v_y``, and its homoscedastic variance is
    ``s^2 H^{-1} N Sigma H^{-1}`` (``H = N Sigma + alpha I``, ``s^2`` the
    residual variance times the clipping ratio of the width rule). The
    lattice scale for the rounding budget ``B`` and its expected squared error
    follow as in the fit (expectation over the shared offset of the log2
    rounded scale).

    Parameters
    ----------
    gram : ndarray of shape (n_features, n_features)
        ``sum_i w_i xc_i xc_i^T`` (without ``alpha``).
    cross : ndarray of shape (n_features,)
        ``sum_i w_i xc_i (y_i - y_mean)``.
    target_sum_sq : float
        ``sum_i w_i (y_i - y_mean)^2``.
    n_samples : float
        Total weight.
    alpha : float
        The ridge penalty, in the fit's units.
    scale : ndarray of shape (n_features,)
        The rounding basis's feature scales (unrounded for ``"scaled"``, so that
        the result does not depend on the grid of the global scale).
    offset_0 : ndarray of shape (n_features,) or None
        ``center - x_mean`` of the intercept's coordinate; None without one.
    moment : ndarray of shape (n_features,)
        ``E[(x - center)^2]``, the weight of each slope's rounding error.
    clip_ratio : float
        Clipped over plain residual sum of squares (the width rule's variance).
    lattice : ShiftedLattice
        The lattice of the rounded entries.
    """

    def __init__(
        self,
        gram,
        cross,
        target_sum_sq,
        n_samples,
        alpha,
        scale,
        offset_0,
        moment,
        clip_ratio,
        lattice,
    ):
        eigval, eigvec = np.linalg.eigh(gram / n_samples)
        self.eigval = np.clip(eigval, 0.0, None)
        self.eigvec = eigvec
        self.c_rot = eigvec.T @ (cross / n_samples)
        self.target_var = target_sum_sq / n_samples
        self.alpha = alpha
        self.scale = scale
        self.offset_rot = None if offset_0 is None else eigvec.T @ offset_0
        self.weights = moment / scale**2
        if offset_0 is not None:
            self.weights = np.append(self.weights, 1.0)
        self.clip_ratio = clip_ratio
        self.lattice = lattice

    def explained(self, n_samples, alpha=None):
        """Variance of ``y`` the ridge at ``n_samples`` explains (population).

        ``alpha`` defaults to the fit's; ``0`` gives least squares.
        """
        alpha = self.alpha if alpha is None else alpha
        with np.errstate(divide="ignore", invalid="ignore"):
            shrink = np.where(
                self.eigval > 0,
                n_samples * self.eigval / (n_samples * self.eigval + alpha),
                0.0,
            )
            per_direction = np.where(self.eigval > 0, self.c_rot**2 / self.eigval, 0.0)
        # 2 w.c - w^T Sigma w, direction by direction: (2 t - t^2) c^2 / lambda.
        return float(np.sum((2 * shrink - shrink**2) * per_direction))

    def rounding_loss(self, n_samples, budget, alpha=None):
        """Expected squared prediction error of the rounding at ``n_samples``."""
        alpha = self.alpha if alpha is None else alpha
        residual = max(self.target_var - self.explained(n_samples, alpha), 0.0)
        denominator = n_samples * self.eigval + alpha
        with np.errstate(divide="ignore", invalid="ignore"):
            # (Divided twice: alpha may be up to 1e300, its square overflows.)
            spectrum = np.where(
                denominator > 0,
                n_samples * self.eigval / denominator / denominator,
                0.0,
            )
        variance = residual * self.clip_ratio
        var_coef = variance * (self.eigvec**2 @ spectrum)
        standard_errors = self.scale * np.sqrt(var_coef)
        if self.offset_rot is not None:
            var_0 = variance * (1.0 / n_samples + self.offset_rot**2 @ spectrum)
            standard_errors = np.append(standard_errors, np.sqrt(var_0))
        rate = self.lattice.expected_crossing_rate(standard_errors, 1.0)
        ideal = MEAN_INVERSE_LOG2_RATIO * rate / budget
        mean_square = log2_ratio_moments(LOG2_SPACING)[1]
        error_var = self.lattice.coordinate_variance(ideal) * mean_square
        return float(error_var @ self.weights)

    def samples_needed(self, n_samples, budget_at, alpha=None):
        """Least ``N`` at which the rounded ridge is within a tenth of least squares.

        The excess of its expected squared error over the best linear
        predictor's, what the penalty leaves unexplained plus the rounding
        loss, must be at most ``SHARE_OF_GAIN`` of what least squares explains.
        With ``alpha=0`` (least squares) the answer does not depend on the
        units of ``X``. ``budget_at(N)`` is the rounding budget at ``N``.
        Returns ``inf`` when the linear model explains nothing, or only beyond
        ``1e18`` samples.
        """
        alpha = self.alpha if alpha is None else alpha
        if self.explained(n_samples, alpha=0.0) <= 0:
            return np.inf

        def meets(size):
            gain = self.explained(size, alpha=0.0)
            shrinkage = gain - self.explained(size, alpha)
            rounding = self.rounding_loss(size, budget_at(size), alpha)
            return shrinkage + rounding <= SHARE_OF_GAIN * gain

        return samples_needed(n_samples, meets)
