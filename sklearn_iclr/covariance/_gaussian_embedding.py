"""A multivariate Gaussian model of embeddings: density, whitening, entropy, MI."""

import functools
import math

import numpy as np
from sklearn.base import (
    BaseEstimator,
    OneToOneFeatureMixin,
    TransformerMixin,
    _fit_context,
    clone,
)
from sklearn.covariance import OAS, EmpiricalCovariance, LedoitWolf
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from ..metrics import gaussianity_report
from ..utils import warn_user
from ..utils._compat import HasMethods, StrOptions
from ..utils._dask import (
    _combine,
    any_dask,
    map_rows,
    reduce_blocks,
    validate_dask_data,
)

COVARIANCE_ESTIMATORS = {
    "empirical": EmpiricalCovariance,
    "ledoit_wolf": LedoitWolf,
    "oas": OAS,
}
# Eigenvalues below this fraction of the largest make the covariance singular.
RELATIVE_EIGENVALUE_FLOOR = 1e-12
# A spread of the features' variances beyond which shrinkage toward a multiple
# of the identity (Ledoit-Wolf, OAS) distorts the small-variance features.
VARIANCE_SPREAD_WARNING = 1e4
# Bytes of the row blocks whose moments an in-memory fit sums (a block's
# centred copy is its only temporary of the data's size).
BLOCK_BYTES = 2**21


# Magnitudes whose squares (the covariance) stay normal float64 numbers.
MAX_MAGNITUDE = 1e150
MIN_MAGNITUDE = 1e-150


def _normalize_rows(X, normalize):
    """Rows scaled to unit Euclidean norm when ``normalize == "l2"``.

    Each row is first divided by its largest absolute entry, so that rows of
    any magnitude (1e-300 to 1e300) are normalised without overflow or
    underflow of the squares.
    """
    if normalize is None:
        return X
    peak = np.max(np.abs(X), axis=1, keepdims=True)
    if np.any(peak == 0):
        row = int(np.flatnonzero(peak[:, 0] == 0)[0])
        raise ValueError(
            f"normalize='l2' cannot scale a row of zeros to unit norm (row {row} "
            "is exactly zero); remove the zero rows or use normalize=None."
        )
    X = X / peak
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _check_magnitude(X, name="X"):
    """Refuse data whose squares overflow or underflow float64."""
    # Two reductions rather than ``abs(X).max()``: no temporary copy of X.
    largest = max(abs(float(X.max())), abs(float(X.min()))) if X.size else 0.0
    _check_largest(largest, name)


def _check_largest(largest, name="X"):
    """Refuse a largest magnitude whose square overflows or underflows."""
    if largest > MAX_MAGNITUDE or 0 < largest < MIN_MAGNITUDE:
        fault = "overflow" if largest > 1 else "underflow"
        raise ValueError(
            f"{name} holds values of magnitude at most {largest:.3g}: the "
            f"covariance (squares of the values) would {fault} "
            f"float64 outside [{MIN_MAGNITUDE:.0e}, {MAX_MAGNITUDE:.0e}]. Rescale the "
            "data by a constant (the whitened data, the mutual information and "
            "the log-density up to a constant do not change), or use "
            "normalize='l2'."
        )


def _fit_covariance(X, covariance, normalize=None):
    """Fitted covariance estimator, mean, eigenvalues and eigenvectors.

    A named estimator comes from the moments of blocks of rows
    (:func:`_named_covariance`, as on Dask input): no copy of ``X``. An
    estimator object is cloned and fitted on the (normalised) rows.
    """
    if isinstance(covariance, str):
        estimator = _named_covariance(
            covariance, X.shape[1], _reduce_rows, X, normalize
        )
    else:
        X = _normalize_rows(X, normalize)
        _check_magnitude(X)
        estimator = clone(covariance).fit(X)
    return _spectrum(estimator, covariance, X.shape[1])


def _spectrum(estimator, covariance, n_features):
    """The estimator, its location, eigenvalues and eigenvectors (checked)."""
    if not (hasattr(estimator, "covariance_") and hasattr(estimator, "location_")):
        raise TypeError(
            f"covariance={covariance!r} has no covariance_ and location_ after fit: "
            "pass a covariance estimator such as LedoitWolf(), MinCovDet() or "
            "ShrunkCovariance(shrinkage=0.2), or one of "
            f"{sorted(COVARIANCE_ESTIMATORS)}."
        )
    eigenvalues, eigenvectors = np.linalg.eigh(estimator.covariance_)
    if eigenvalues[0] <= RELATIVE_EIGENVALUE_FLOOR * max(eigenvalues[-1], 0.0):
        raise ValueError(
            f"The estimated covariance of the {n_features} features is singular "
            f"(smallest eigenvalue {eigenvalues[0]:.3g}, largest "
            f"{eigenvalues[-1]:.3g}): there are fewer samples than features, a "
            "feature is constant, or features are collinear. Use a shrinkage "
            "estimator (covariance='ledoit_wolf' or 'oas'), more samples, or drop "
            "the redundant features."
        )
    return (
        estimator,
        np.asarray(estimator.location_, dtype=np.float64),
        eigenvalues,
        eigenvectors,
    )


def _warn_on_variance_spread(estimator, covariance):
    """Warn when shrinkage toward ``mu I`` meets variances of many scales.

    Ledoit-Wolf and OAS shrink toward a multiple of the identity, which is
    not equivariant to rescaling one feature: on features whose variances
    span orders of magnitude the target's ``mu`` is the large features'
    scale, and the small ones are inflated by it. Their covariance is
    ``(1 - s) S + s mu I`` with ``mu = trace(S) / d``, which has the trace of
    ``S``, so the empirical variances follow without another pass over X.
    """
    shrinkage = getattr(estimator, "shrinkage_", 0.0)
    if covariance not in ("ledoit_wolf", "oas") or not 0 < shrinkage < 1:
        return
    shrunk = estimator.covariance_
    mu = np.trace(shrunk) / len(shrunk)
    variances = (np.diag(shrunk) - shrinkage * mu) / (1 - shrinkage)
    positive = variances[variances > 0]
    if not positive.size:
        return
    spread = float(positive.max() / positive.min())
    if spread > VARIANCE_SPREAD_WARNING:
        warn_user(
            f"The features' variances span a factor {spread:.2g}, and "
            f"covariance={covariance!r} shrinks toward a multiple of the identity "
            f"(shrinkage {shrinkage:.2g}), which inflates the small-variance "
            "features: the density is then far from the data's. Standardize the "
            "features first (StandardScaler), or use covariance='empirical' when "
            "there are many more samples than features."
        )


def _block_sums(X, normalize):
    X = _normalize_rows(X, normalize)
    return {"count": float(len(X)), "sum": X.sum(axis=0), "max_abs": np.abs(X).max()}


def _block_centred_moments(X, normalize, location):
    Z = _normalize_rows(X, normalize) - location
    squares = np.einsum("ij,ij->i", Z, Z)
    return {"gram": Z.T @ Z, "quartic": squares @ squares}


def _reduce_rows(block_stats, X, *args):
    """``reduce_blocks`` of an in-memory array: blocks of ``BLOCK_BYTES``, in order.

    The temporaries of ``block_stats`` (the centred rows) are a block's, never
    a copy of ``X``.
    """
    n_rows = max(1, BLOCK_BYTES // (X.itemsize * X.shape[1]))
    blocks = (X[start : start + n_rows] for start in range(0, len(X), n_rows))
    return functools.reduce(_combine, (block_stats(block, *args) for block in blocks))


def _reduce_dask(block_stats, X, *args):
    return reduce_blocks(block_stats, [X], ["X"], args=args)


def _named_covariance(covariance, n_features, reduce, X, normalize):
    """A named covariance estimator, fitted from blockwise moments of the rows.

    Two passes of ``reduce`` (:func:`_reduce_rows` or :func:`_reduce_dask`)
    over ``X``: the mean (and the largest magnitude), then the Gram matrix of
    the centred rows and ``sum_i ||x_i - mean||^4``. The three estimators
    follow in closed form, as scikit-learn computes them from the centred
    data: Ledoit-Wolf's shrinkage needs ``sum_i ||x_i - mean||^4`` (the sum
    of the entries of ``(X_c^2)^T X_c^2``) besides the Gram matrix.
    """
    first = reduce(_block_sums, X, normalize)
    _check_largest(float(first["max_abs"]))
    n_samples = first["count"]
    location = first["sum"] / n_samples
    second = reduce(_block_centred_moments, X, normalize, location)
    emp_cov = second["gram"] / n_samples
    mu = np.trace(emp_cov) / n_features
    shrinkage = 0.0
    if covariance == "oas" and n_features > 1:
        alpha = np.mean(emp_cov**2)
        num = alpha + mu**2
        den = (n_samples + 1) * (alpha - mu**2 / n_features)
        shrinkage = 1.0 if den == 0 else min(num / den, 1.0)
    elif covariance == "ledoit_wolf" and n_features > 1:
        # scikit-learn's ledoit_wolf_shrinkage, from the moments.
        trace = np.diag(emp_cov)
        delta_ = np.sum(emp_cov**2)
        beta = (second["quartic"] / n_samples - delta_) / (n_features * n_samples)
        delta = (delta_ - 2.0 * mu * trace.sum() + n_features * mu**2) / n_features
        beta = min(beta, delta)
        shrinkage = 0.0 if beta == 0 else beta / delta
    shrunk = (1.0 - shrinkage) * emp_cov
    shrunk.flat[:: n_features + 1] += shrinkage * mu
    estimator = COVARIANCE_ESTIMATORS[covariance]()
    estimator.location_ = location
    estimator._set_covariance(shrunk)
    if covariance != "empirical":
        estimator.shrinkage_ = shrinkage
    return estimator


def _fit_covariance_dask(X, covariance, normalize):
    """``_fit_covariance`` of a Dask array: two blockwise passes."""
    if not isinstance(covariance, str):
        raise ValueError(
            "Dask input supports covariance in "
            f"{sorted(COVARIANCE_ESTIMATORS)} (computed blockwise), not an "
            f"estimator object ({covariance!r}): it would need all rows in memory."
        )
    estimator = _named_covariance(covariance, X.shape[1], _reduce_dask, X, normalize)
    return _spectrum(estimator, covariance, X.shape[1])


def _scaled_centred_rows(X, normalize, location):
    """``(x - location) / c`` per row, with ``c`` a power of two, and ``c``.

    ``c`` is at least the row's and the location's largest magnitude, so the
    difference cannot overflow and its entries are at most 2; dividing by a
    power of two is exact.
    """
    X = _normalize_rows(X, normalize)
    largest = np.maximum(np.max(np.abs(X), axis=1), np.max(np.abs(location)))
    _, exponent = np.frexp(largest)
    scale = np.ldexp(1.0, exponent)
    return X / scale[:, None] - location / scale[:, None], scale


def _log_density(X, normalize, location, whitening, constant):
    """Gaussian log-density of the rows (``constant``: d log 2 pi + log det).

    The Mahalanobis distance is ``c^2 |W (x - mu) / c|^2``, which overflows
    to ``inf`` (a log-density of ``-inf``) for rows far beyond float64's
    squares, never to NaN.
    """
    scaled, scale = _scaled_centred_rows(X, normalize, location)
    with np.errstate(over="ignore"):
        mahalanobis = (scale * np.linalg.norm(scaled @ whitening, axis=1)) ** 2
    return -0.5 * (constant + mahalanobis)


def _whiten(X, normalize, location, whitening):
    scaled, scale = _scaled_centred_rows(X, normalize, location)
    with np.errstate(over="ignore"):
        return (scaled @ whitening) * scale[:, None]


class GaussianEmbeddingModel(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Multivariate Gaussian model of embeddings (ICLR 2026).

    Betser, Gofer, Levi and Gilboa, "InfoNCE Induces Gaussian Distribution",
    ICLR 2026 (oral), arXiv:2602.24012, show that representations trained
    with InfoNCE concentrate on a thin shell and are spread uniformly over it,
    so that fixed-size projections are asymptotically Gaussian. The Gaussian
    model ``z ~ N(mu, Sigma)`` then gives closed forms for what is otherwise
    hard to estimate in representation space:

    - log-likelihood ``log p(z) = -(d log(2 pi) + log det Sigma
      + (z - mu)^T Sigma^{-1} (z - mu)) / 2``, an out-of-distribution score;
    - differential entropy ``H = (d log(2 pi e) + log det Sigma) / 2`` nats;
    - mutual information of jointly Gaussian blocks
      ``I(Z1; Z2) = (log det Sigma_11 + log det Sigma_22 - log det Sigma) / 2``;
    - whitening ``z -> Sigma^{-1/2} (z - mu)``.

    Parameters
    ----------
    covariance : {"ledoit_wolf", "oas", "empirical"} or estimator, \
            default="ledoit_wolf"
        How ``Sigma`` is estimated: :class:`~sklearn.covariance.LedoitWolf`,
        :class:`~sklearn.covariance.OAS` or
        :class:`~sklearn.covariance.EmpiricalCovariance` (maximum likelihood;
        singular when there are fewer samples than features), or any
        unfitted estimator with ``location_`` and ``covariance_`` after
        ``fit`` (e.g. ``MinCovDet()``, ``ShrunkCovariance(shrinkage=0.2)``); it
        is cloned.
    normalize : {"l2"} or None, default=None
        ``"l2"`` scales every row to unit norm before anything else (in every
        method), which models embeddings compared by cosine similarity.
        Without it, values above ``1e150`` (or data all below ``1e-150``) in
        magnitude are refused: their squares leave float64.

    Attributes
    ----------
    location_ : ndarray of shape (n_features,)
        The mean ``mu``.
    covariance_ : ndarray of shape (n_features, n_features)
        The covariance ``Sigma``.
    precision_ : ndarray of shape (n_features, n_features)
        ``Sigma^{-1}``.
    whitening_ : ndarray of shape (n_features, n_features)
        The symmetric (ZCA) whitening matrix ``Sigma^{-1/2}``; :meth:`transform`
        returns ``(z - mu) @ whitening_``. Among whitening matrices it moves
        the data least, so output feature ``i`` still corresponds to input
        feature ``i``.
    covariance_estimator_ : estimator
        The fitted covariance estimator (for a named ``covariance``, an
        instance of the scikit-learn estimator that holds the estimate).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.contrastive.InfoNCEEncoder : contrastive embeddings this
        model is made for.
    sklearn_iclr.metrics.gaussianity_report : the normality diagnostics.
    sklearn.covariance.EmpiricalCovariance : the Gaussian model on raw
        features.

    Notes
    -----
    A named ``covariance`` is computed from the moments of blocks of rows:
    the mean, then the Gram matrix of the centred rows and the sum of their
    squared norms, squared, from which scikit-learn's closed forms give the
    estimate (Ledoit-Wolf's shrinkage included). These are the scikit-learn
    estimator's numbers up to rounding, without a copy of the data, by the
    same code on Dask input. An estimator object is fitted on the rows.

    References
    ----------
    .. [1] R. Betser, E. Gofer, M. Y. Levi and G. Gilboa. "InfoNCE Induces
       Gaussian Distribution". ICLR 2026. arXiv:2602.24012.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.covariance import GaussianEmbeddingModel
    >>> rng = np.random.RandomState(0)
    >>> Z = rng.multivariate_normal([0, 0], [[1.0, 0.8], [0.8, 1.0]], size=5000)
    >>> model = GaussianEmbeddingModel(covariance="empirical").fit(Z)
    >>> round(model.entropy(), 1)  # closed form: log(2 pi e) + log(0.36) / 2 = 2.33
    2.3
    >>> mi = model.mutual_information(Z[:, :1], Z[:, 1:])
    >>> round(mi, 1)  # closed form: -log(1 - 0.8^2) / 2 = 0.51
    0.5
    >>> typical, atypical = model.score_samples([[0.0, 0.0], [3.0, -3.0]])
    >>> bool(typical > atypical)
    True
    """

    _parameter_constraints = {
        "covariance": [
            StrOptions(set(COVARIANCE_ESTIMATORS)),
            HasMethods(["fit"]),
        ],
        "normalize": [StrOptions({"l2"}), None],
    }

    def __init__(self, covariance="ledoit_wolf", *, normalize=None):
        self.covariance = covariance
        self.normalize = normalize

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Estimate the mean and covariance of the embeddings.

        Parameters
        ----------
        X : {array-like, dask array, dask DataFrame} of shape (n_samples, n_features)
            Embeddings; at least 2 finite rows. On Dask input the mean and
            covariance are computed blockwise in two passes (``covariance``
            must then be one of the named estimators).
        y : None
            Ignored.

        Returns
        -------
        self : GaussianEmbeddingModel
            The fitted model.
        """
        if any_dask(X):
            X = validate_dask_data(self, X, reset=True, ensure_min_samples=2)
            estimator, location, eigenvalues, eigenvectors = _fit_covariance_dask(
                X, self.covariance, self.normalize
            )
        else:
            X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
            estimator, location, eigenvalues, eigenvectors = _fit_covariance(
                X, self.covariance, self.normalize
            )
        _warn_on_variance_spread(estimator, self.covariance)
        self.covariance_estimator_ = estimator
        self.location_ = location
        self.covariance_ = (eigenvectors * eigenvalues) @ eigenvectors.T
        self.precision_ = (eigenvectors / eigenvalues) @ eigenvectors.T
        self.whitening_ = (eigenvectors / np.sqrt(eigenvalues)) @ eigenvectors.T
        self._log_det = float(np.sum(np.log(eigenvalues)))
        return self

    def score_samples(self, X):
        """Gaussian log-density of every row (higher means more typical).

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Embeddings.

        Returns
        -------
        log_density : ndarray or dask array of shape (n_samples,)
            ``log N(x; location_, covariance_)``; ``-inf`` for a row whose
            squared Mahalanobis distance exceeds the float64 range.
        """
        check_is_fitted(self)
        constant = self.n_features_in_ * math.log(2 * math.pi) + self._log_det
        params = {
            "normalize": self.normalize,
            "location": self.location_,
            "whitening": self.whitening_,
            "constant": constant,
        }
        if any_dask(X):
            X = validate_dask_data(self, X, reset=False)
            return map_rows(_log_density, X, **params)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _log_density(X, **params)

    def score(self, X, y=None):
        """Mean Gaussian log-density of the rows of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Embeddings.
        y : None
            Ignored.

        Returns
        -------
        log_likelihood : float
        """
        check_is_fitted(self)
        return float(np.mean(self.score_samples(X)))

    def transform(self, X):
        """Whiten: ``(x - location_) @ whitening_`` has identity covariance.

        Parameters
        ----------
        X : {array-like, dask array} of shape (n_samples, n_features)
            Embeddings.

        Returns
        -------
        X_white : ndarray or dask array of shape (n_samples, n_features)
            Whitened embeddings.
        """
        check_is_fitted(self)
        params = {
            "normalize": self.normalize,
            "location": self.location_,
            "whitening": self.whitening_,
        }
        if any_dask(X):
            X = validate_dask_data(self, X, reset=False)
            return map_rows(_whiten, X, n_columns=X.shape[1], **params)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return _whiten(X, **params)

    def entropy(self):
        """Differential entropy of the fitted Gaussian, in nats.

        Returns
        -------
        entropy : float
            ``(d log(2 pi e) + log det covariance_) / 2``.
        """
        check_is_fitted(self)
        return 0.5 * (
            self.n_features_in_ * math.log(2 * math.pi * math.e) + self._log_det
        )

    def mutual_information(self, Z1, Z2):
        """Mutual information of two paired blocks under a joint Gaussian model.

        The rows of ``Z1`` and ``Z2`` are paired (e.g. the embeddings of two
        views of the same inputs, or an embedding and a target block). The
        joint covariance of ``[Z1, Z2]`` is estimated with this model's
        ``covariance`` estimator (each block normalised first when
        ``normalize="l2"``) and
        ``I = (log det Sigma_11 + log det Sigma_22 - log det Sigma) / 2``,
        with ``Sigma_11`` and ``Sigma_22`` the diagonal blocks of the joint
        estimate. It does not use, or need, the fitted ``location_`` and
        ``covariance_``.

        Parameters
        ----------
        Z1 : array-like of shape (n_samples, n_features_1)
            First block.
        Z2 : array-like of shape (n_samples, n_features_2)
            Second block, same number of rows.

        Returns
        -------
        mutual_information : float
            In nats; non-negative.
        """
        self._validate_params()  # no fit needed, so check the parameters here
        Z1 = _normalize_rows(
            check_array(Z1, dtype=np.float64, ensure_min_samples=2), self.normalize
        )
        Z2 = _normalize_rows(
            check_array(Z2, dtype=np.float64, ensure_min_samples=2), self.normalize
        )
        if len(Z1) != len(Z2):
            raise ValueError(
                f"Z1 has {len(Z1)} rows and Z2 has {len(Z2)}: mutual_information "
                "needs paired samples, one row of each block per observation."
            )
        # The information does not change when a block is rescaled: divide
        # each by its largest magnitude, so that any units fit in float64.
        Z1, Z2 = (Z / (np.max(np.abs(Z)) or 1.0) for Z in (Z1, Z2))
        estimator, _, eigenvalues, _ = _fit_covariance(
            np.hstack([Z1, Z2]), self.covariance
        )
        joint = estimator.covariance_
        d1 = Z1.shape[1]
        log_det_1 = np.linalg.slogdet(joint[:d1, :d1])[1]
        log_det_2 = np.linalg.slogdet(joint[d1:, d1:])[1]
        return max(
            0.0, 0.5 * float(log_det_1 + log_det_2 - np.sum(np.log(eigenvalues)))
        )

    def gaussianity_report(self, X, *, n_projections=64, random_state=None):
        """Normality diagnostics of ``X`` (normalised as in the model).

        See :func:`sklearn_iclr.metrics.gaussianity_report`: the norm's
        coefficient of variation and the fractions of coordinates and of
        random projections that pass the Anderson-Darling (statistic < 0.752)
        and D'Agostino-Pearson (p > 0.05) tests. A high pass fraction is what
        justifies the Gaussian model. With ``normalize="l2"`` the norm's
        coefficient of variation is 0 by construction.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Embeddings; at least 20 rows.
        n_projections : int, default=64
            Random unit directions to test.
        random_state : int, RandomState instance or None, default=None
            Draws the directions.

        Returns
        -------
        report : dict
            See :func:`sklearn_iclr.metrics.gaussianity_report`.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return gaussianity_report(
            _normalize_rows(X, self.normalize),
            n_projections=n_projections,
            random_state=random_state,
        )
