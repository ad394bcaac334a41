"""The statistics of ``ReplicableLinearRegressor.fit``, blockwise on Dask arrays.

``BlockwiseRidgeData`` answers the same questions as ``_InMemoryRidgeData``
in ``_replicable_ridge.py`` (Gram matrix, residual moments, clipped residual
variance, sums of the target), each from a blockwise reduction of
:mod:`sklearn_iclr.utils._dask`, so the fit from the statistics to the
rounded model is the same code for both. Passes over the data:

1. weight, weighted moments of ``[X, y]`` (merged stably), magnitudes;
2. at the ridge solution: the sandwich meat, the residual sums and a
   histogram of ``log2 |r|`` for the robust residual scale, the basis's mean
   absolute deviations, the target's fourth moment;
3. (``grid_width="auto"``) the residuals clipped at ``_CLIP`` robust standard
   deviations.

Data of extreme magnitude (outside ``2**-64 .. 2**64``) cost one pass per
array for their root mean square and one more for the Gram matrix in the
rescaled units. The robust scale is the weighted median of ``|r|`` located in
a histogram of ``HISTOGRAM_BINS_PER_OCTAVE`` bins per octave (interpolated
within its bin), not the exact order statistic of the in-memory fit: it
enters only the clipping limit, ``_CLIP = 5`` robust standard deviations, so
it moves the clipped variance by the weight of the residuals within a
fraction of a percent of that limit.
"""

import numpy as np

from .._replicable._blockwise import (
    log2_width_disagreement_from_sums,
    magnitude_exponent_blockwise,
)
from ..utils._dask import align_rows, reduce_blocks
from ._replicable_ridge import _CLIP

HISTOGRAM_BINS_PER_OCTAVE = 256
# Octaves of |r| / s0 covered by the histogram, s0 the residual scale from
# the Gram matrix; residuals outside fall in the first or last bin.
HISTOGRAM_OCTAVES = (-48, 16)


def _scaled(X, y, x_exp, y_exp):
    if x_exp:
        X = np.ldexp(X, -x_exp)
    if y_exp:
        y = np.ldexp(y, -y_exp)
    return X, y


def _gram_block(X, y, sw, x_exp, y_exp, fit_intercept):
    """Weight, moments of ``[X, y]`` (centred if ``fit_intercept``), magnitudes."""
    X, y = _scaled(X, y, x_exp, y_exp)
    w = np.ones(len(y)) if sw is None else sw
    out = {
        "weight": w.sum(),
        "max_x": np.max(np.abs(X), initial=0.0),
        "max_y": np.max(np.abs(y), initial=0.0),
        "max_negative_weight": np.max(-w, initial=0.0),
    }
    Z = np.column_stack([X, y])
    Zw = Z if sw is None else Z * w[:, None]
    if fit_intercept:
        total = out["weight"]
        mean = w @ Z / total if total > 0 else np.zeros(Z.shape[1])
        Zc = Z - mean
        root = Zc if sw is None else Zc * np.sqrt(np.maximum(w, 0.0))[:, None]
        out["moments_z"] = {"w": total, "mean": mean, "m2": root.T @ root}
    else:
        out["raw"] = Zw.T @ Z
        out["sum_x"] = w @ X
    return out


def _residual_block(X, y, sw, params):
    """Pass 2: meat, residual sums, |r| histogram, abs deviations, target moments."""
    X, y = _scaled(X, y, params["x_exp"], params["y_exp"])
    w = np.ones(len(y)) if sw is None else sw
    Xc = X - params["x_mean"] if params["fit_intercept"] else X
    residual = y - params["y_mean"] - Xc @ params["coef"]
    residual_sq = residual**2
    root = np.sqrt(w * residual_sq)
    Xr = Xc * root[:, None]
    out = {
        "meat": Xr.T @ Xr,
        "meat_1": Xr.T @ root,
        "root_sq": root @ root,
        "rss": w @ residual_sq,
        "r4": w @ (residual_sq * residual_sq),
        "abs_dev": w @ np.abs(Xc - params["abs_offset"]),
        "histogram": _log2_histogram(np.abs(residual), w, params["scale_0"]),
    }
    if params["fit_intercept"]:
        terms = (y - params["target_mean"]) ** 2
        out["target_sq"] = w @ terms
        out["target_4"] = w @ (terms * terms)
    return out


def _log2_histogram(magnitude, w, scale_0):
    low, high = HISTOGRAM_OCTAVES
    n_bins = (high - low) * HISTOGRAM_BINS_PER_OCTAVE
    with np.errstate(divide="ignore"):
        position = (np.log2(magnitude / scale_0) - low) * HISTOGRAM_BINS_PER_OCTAVE
    index = np.clip(np.floor(np.nan_to_num(position, neginf=0.0)), 0, n_bins - 1)
    return np.bincount(index.astype(np.intp), weights=w, minlength=n_bins)


def _histogram_median(histogram, scale_0):
    """Weighted median of ``|r|`` from its log2 histogram (0 in the first bin)."""
    cumulative = np.cumsum(histogram)
    half = 0.5 * cumulative[-1]
    k = int(np.searchsorted(cumulative, half))
    if k == 0:
        return 0.0
    below = cumulative[k - 1]
    fraction = (half - below) / histogram[k] if histogram[k] > 0 else 0.0
    low = HISTOGRAM_OCTAVES[0]
    return float(scale_0 * 2.0 ** (low + (k + fraction) / HISTOGRAM_BINS_PER_OCTAVE))


def _clipped_block(X, y, sw, params, limit):
    """Pass 3: sums of the squared residuals clipped at ``limit``."""
    X, y = _scaled(X, y, params["x_exp"], params["y_exp"])
    w = np.ones(len(y)) if sw is None else sw
    Xc = X - params["x_mean"] if params["fit_intercept"] else X
    magnitude = np.abs(y - params["y_mean"] - Xc @ params["coef"])
    clipped = np.minimum(magnitude, limit) ** 2 if limit > 0 else magnitude**2
    return {"sum": w @ clipped, "sum_sq": w @ (clipped * clipped)}


class BlockwiseRidgeData:
    """The rows' statistics of ``ReplicableLinearRegressor.fit``, from Dask.

    Parameters
    ----------
    X : dask.array.Array of shape (n_samples, n_features)
        Validated (one column chunk).
    y : array-like or Dask array of shape (n_samples,)
    sample_weight : array-like, Dask array or None
    fit_intercept : bool
    """

    def __init__(self, X, y, sample_weight, fit_intercept):
        self.X = X
        self.y = align_rows(X, y, "y", ndim=1)
        self.sw = (
            None
            if sample_weight is None
            else align_rows(X, sample_weight, "sample_weight", ndim=1)
        )
        self.fit_intercept = fit_intercept
        self.n_features = X.shape[1]
        self.x_exp = self.y_exp = 0
        self._gram = self._gram_pass()
        if self._gram["max_negative_weight"] > 0:
            raise ValueError("Negative values in data passed to `sample_weight`")
        if self._gram["weight"] == 0:
            raise ValueError(
                "Sample weights must contain at least one non-zero number."
            )
        self.n_samples = float(self._gram["weight"])
        self._residuals = None

    def _reduce(self, block, args):
        return reduce_blocks(
            block, [self.X, self.y, self.sw], ["X", "y", "sample_weight"], args
        )

    def _gram_pass(self):
        return self._reduce(_gram_block, (self.x_exp, self.y_exp, self.fit_intercept))

    def magnitude_exponents(self, offsets):
        self.x_exp = magnitude_exponent_blockwise(
            self.X, float(self._gram["max_x"]), offsets[0]
        )
        self.y_exp = magnitude_exponent_blockwise(
            self.y, float(self._gram["max_y"]), offsets[1]
        )
        if self.x_exp or self.y_exp:
            self._gram = self._gram_pass()
        return self.x_exp, self.y_exp

    def centred_gram(self, fit_intercept):
        d = self.n_features
        if fit_intercept:
            moments = self._gram["moments_z"]
            mean = moments["mean"][:d]
            gram = {"mean": mean, "x_mean": mean, "y_mean": moments["mean"][d]}
            m2 = moments["m2"]
            self._yy = m2[d, d]
        else:
            gram = {
                "mean": self._gram["sum_x"] / self.n_samples,
                "x_mean": np.zeros(d),
                "y_mean": 0.0,
            }
            m2 = self._gram["raw"]
            self._yy = m2[d, d]
        gram["gram"] = m2[:d, :d].copy()
        gram["cross"] = m2[:d, d].copy()
        return gram

    def set_solution(self, ridge):
        coef = ridge["coef"]
        # Residual scale from the Gram statistics (the histogram's unit).
        rss = self._yy - 2 * coef @ ridge["cross"] + coef @ (ridge["hessian"] @ coef)
        scale_0 = np.sqrt(max(rss, 0.0) / self.n_samples)
        if not np.isfinite(scale_0) or scale_0 <= 0:
            scale_0 = np.sqrt(max(self._yy, 0.0) / self.n_samples) or 1.0
        self._params = {
            "x_exp": self.x_exp,
            "y_exp": self.y_exp,
            "fit_intercept": self.fit_intercept,
            "x_mean": ridge["x_mean"],
            "y_mean": ridge["y_mean"],
            "coef": coef,
            "abs_offset": (
                np.zeros(self.n_features) if self.fit_intercept else ridge["mean"]
            ),
            "scale_0": scale_0,
            "target_mean": ridge["y_mean"],
        }

    def _residual_pass(self):
        if self._residuals is None:
            self._residuals = self._reduce(_residual_block, (self._params,))
        return self._residuals

    def abs_deviation(self, offset):
        if not np.array_equal(offset, self._params["abs_offset"]):
            raise ValueError("abs_deviation: offset differs from the pass's")
        return self._residual_pass()["abs_dev"]

    def residual_moments(self):
        sums = self._residual_pass()
        return sums["meat"], sums["meat_1"], sums["root_sq"]

    def residual_sum_sq(self):
        return self._residual_pass()["rss"]

    def residual_width_cost(self):
        sums = self._residual_pass()
        return log2_width_disagreement_from_sums(
            self.n_samples, sums["rss"], sums["r4"]
        )

    def clipped_residuals(self):
        histogram = self._residual_pass()["histogram"]
        median = _histogram_median(histogram, self._params["scale_0"])
        limit = _CLIP * median / 0.6745
        sums = self._reduce(_clipped_block, (self._params, limit))
        return sums["sum"], log2_width_disagreement_from_sums(
            self.n_samples, sums["sum"], sums["sum_sq"]
        )

    def target(self, fit_intercept, width_cost):
        if not fit_intercept:
            return {"mean": 0.0, "sum_sq": self._yy, "terms_cost": 0.0}
        sums = self._residual_pass()
        cost = (
            log2_width_disagreement_from_sums(
                self.n_samples, sums["target_sq"], sums["target_4"]
            )
            if width_cost
            else 0.0
        )
        return {
            "mean": self._params["target_mean"],
            "sum_sq": sums["target_sq"],
            "terms_cost": cost,
        }
