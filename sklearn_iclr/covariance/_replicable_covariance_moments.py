"""The moments ``ReplicableCovariance.fit`` needs, in memory or blockwise on Dask.

``InMemoryData`` and ``BlockwiseData`` answer the same questions (the mean,
the second and fourth moments of the products ``z_j z_k`` about a centre, the
per-row terms whose sums the data-driven widths follow) from an in-memory
array by blocks of rows, or from blockwise reductions of a Dask array
(:mod:`sklearn_iclr.utils._dask`), so that the fit from the moments on is the
same code for both.
"""

import numpy as np

from .._replicable._blockwise import (
    log2_width_disagreement_from_sums,
    magnitude_exponent_blockwise,
)
from .._replicable._rounding import log2_width_disagreement
from ..utils._dask import reduce_blocks
from ._replicable_covariance_structures import STRUCTURES


class InMemoryData:
    """The statistics ``_fit_scaled`` needs, from an in-memory array."""

    def __init__(self, X):
        self.X = X
        self.n_samples, self.n_features = X.shape

    def mean(self):
        return self.X.mean(axis=0)

    def moments(self, centre):
        return _product_moments(self.X, centre)

    def width_costs(self, centre, moments):
        """Estimated chance that each log2-rounded width rounds apart."""
        weights = np.ones(self.n_samples)
        terms = _structure_terms(self.X, centre, moments["second"])
        terms["location"] = moments["location_terms"]
        return {
            name: log2_width_disagreement(weights, values)
            for name, values in terms.items()
        }


class BlockwiseData:
    """The statistics ``_fit_scaled`` needs, blockwise from a Dask array.

    Passes over the data: one here (count, sums, largest magnitude), one for
    the moments about the centre, one for the structures' width costs (auto
    width only), and one more for data of extreme magnitude.
    """

    def __init__(self, X):
        self.X = X
        self.n_features = X.shape[1]
        first = reduce_blocks(_first_pass, [X], ["X"])
        self.n_samples = first["count"]
        self.peak = float(first["max_abs"])
        self._sum = first["sum"]
        self.exponent = 0

    def scale_by_power_of_two(self, offset):
        """Work in units of ``2**exponent`` (exact) from now on."""
        self.exponent = magnitude_exponent_blockwise(self.X, self.peak, offset)
        return self.exponent

    def mean(self):
        return np.ldexp(self._sum, -self.exponent) / self.n_samples

    def moments(self, centre):
        sums = reduce_blocks(
            _moment_sums, [self.X], ["X"], args=(self.exponent, centre, self.mean())
        )
        n = self.n_samples
        return {
            "second": sums["second"] / n,
            "fourth": sums["fourth"] / n,
            "variance": sums["variance"] / n,
            "location_sums": (sums["location"], sums["location_sq"]),
        }

    def width_costs(self, centre, moments):
        """Estimated chance that each log2-rounded width rounds apart."""
        sums = reduce_blocks(
            _structure_term_sums,
            [self.X],
            ["X"],
            args=(self.exponent, centre, moments["second"]),
        )
        costs = {
            name: log2_width_disagreement_from_sums(
                self.n_samples, sums[name], sums[f"{name}_sq"]
            )
            for name in STRUCTURES
        }
        costs["location"] = log2_width_disagreement_from_sums(
            self.n_samples, *moments["location_sums"]
        )
        return costs


def _first_pass(X):
    return {"count": float(len(X)), "sum": X.sum(axis=0), "max_abs": np.abs(X).max()}


def _moment_sums(X, exponent, centre, mean):
    """One block's ``_product_moments`` as sums (location terms: sum, squares)."""
    if exponent:
        X = np.ldexp(X, -exponent)
    Z = X - centre
    Z2 = Z * Z
    dev = (X - mean) ** 2
    location_terms = dev.sum(axis=1)
    return {
        "second": Z.T @ Z,
        "fourth": Z2.T @ Z2,
        "variance": dev.sum(axis=0),
        "location": location_terms.sum(),
        "location_sq": location_terms @ location_terms,
    }


def _structure_term_sums(X, exponent, centre, second):
    if exponent:
        X = np.ldexp(X, -exponent)
    sums = {}
    for name, terms in _structure_terms(X, centre, second).items():
        sums[name] = terms.sum()
        sums[f"{name}_sq"] = terms @ terms
    return sums


def _product_moments(X, centre, block=4096):
    """Second and fourth moments of the products ``z_j z_k``, by row blocks.

    With ``Z = X - centre``: ``second = Z^T Z / n``, ``fourth = (Z*Z)^T (Z*Z) / n``
    (the mean of ``z_j^2 z_k^2``), the variances of the columns around their
    mean and the per-row terms ``sum_j (x_j - mean_j)^2``. Memory: one block of
    rows and a few ``d x d`` matrices.
    """
    n_samples, n_features = X.shape
    mean = X.mean(axis=0)
    second = np.zeros((n_features, n_features))
    fourth = np.zeros((n_features, n_features))
    variance = np.zeros(n_features)
    location_terms = np.empty(n_samples)
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        Z = X[rows] - centre
        second += Z.T @ Z
        Z2 = Z * Z
        fourth += Z2.T @ Z2
        dev = (X[rows] - mean) ** 2
        variance += dev.sum(axis=0)
        location_terms[rows] = dev.sum(axis=1)
    return {
        "second": second / n_samples,
        "fourth": fourth / n_samples,
        "variance": variance / n_samples,
        "location_terms": location_terms,
    }


def _structure_terms(X, centre, second, block=4096):
    """Per-row terms whose sums the structures' widths follow.

    Full: ``sum_{j<=k} (z_j z_k - S_jk)^2`` without the products array, from
    ``sum z_j^2 z_k^2 = ((sum_j z_j^2)^2 + sum_j z_j^4) / 2``,
    ``sum z_j z_k S_jk = (z^T S z + sum_j z_j^2 S_jj) / 2`` and
    ``sum S_jk^2 = (||S||_F^2 + sum_j S_jj^2) / 2`` over the upper triangle.
    Diagonal: ``sum_j (z_j^2 - S_jj)^2``. Spherical: ``(||z||^2 / d - mu)^2``.
    """
    n_samples, n_features = X.shape
    diag = np.diag(second)
    mu = diag.mean()
    constant = 0.5 * (np.sum(second * second) + np.sum(diag * diag))
    terms = {name: np.empty(n_samples) for name in STRUCTURES}
    for start in range(0, n_samples, block):
        rows = slice(start, start + block)
        Z = X[rows] - centre
        Z2 = Z * Z
        squares = Z2.sum(axis=1)
        quartic = 0.5 * (squares**2 + (Z2 * Z2).sum(axis=1))
        cross = 0.5 * (np.einsum("ij,ij->i", Z @ second, Z) + Z2 @ diag)
        terms["full"][rows] = np.maximum(quartic - 2.0 * cross + constant, 0.0)
        terms["diag"][rows] = ((Z2 - diag) ** 2).sum(axis=1)
        terms["spherical"][rows] = (squares / n_features - mu) ** 2
    return terms
