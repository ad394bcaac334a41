"""Causal spectral-filter features of a time series."""

from numbers import Integral, Real

import numpy as np
from scipy.signal import oaconvolve
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_is_fitted,
    validate_data,
)

from ..utils import warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ._hankel import spectral_filters


class SpectralFilterFeatures(TransformerMixin, BaseEstimator):
    """Long-memory causal features: a series convolved with spectral filters.

    Spectral filtering (Hazan, Singh and Zhang, "Learning linear dynamical
    systems via spectral filtering", NeurIPS 2017, arXiv:1711.00946) predicts
    the output of a symmetric linear dynamical system from its inputs without
    learning the system: the impulse responses ``a^u`` of all decay rates
    ``a in [0, 1]`` lie close to the span of a few fixed filters, the top
    eigenvectors ``phi_j`` of a Hankel matrix (:func:`hankel_matrix`). A linear
    model on the filtered inputs then matches the system, however long its
    memory. The ICLR 2026 paper of Brahmbhatt, Buzaglo, Druchyna and Hazan ("A
    New Approach to Controlling Linear Dynamical Systems", arXiv:2504.03952)
    uses the same construction with a Hankel matrix for systems of stability
    margin ``stability_margin`` (``kind="control"``), the basis of
    :class:`OnlineSpectralController`.

    Parameters
    ----------
    n_filters : int, default=16
        Filters per input column (``h``), at most ``window``.
    window : int, default=256
        Length of every filter: how many past steps a feature sees. Pick it
        above the memory of the system, about ``1 / (1 - spectral radius)``.
    kind : {"prediction", "control"}, default="prediction"
        ``"prediction"``: the 2017 matrix ``Z_ij = 2 / ((i+j)^3 - (i+j))``,
        for all decay rates in ``[0, 1]``. ``"control"``: the 2026 matrix
        ``H_ij = r^(i+j-1) / (i+j-1)``, for decay rates in ``[0, r]``,
        ``r = 1 - stability_margin``.
    stability_margin : float in [0, 1) or None, default=None
        Stability margin of ``kind="control"``; ``None`` means 0 (the Hilbert
        matrix, all stable systems). Must be ``None`` for ``"prediction"``.
    include_raw : bool, default=True
        Append the current row ``x[t]`` to the features.

    Attributes
    ----------
    filters_ : ndarray of shape (window, n_filters)
        The orthonormal filters ``phi_j`` in columns; entry ``u`` weighs the
        input ``u`` steps in the past.
    eigenvalues_ : ndarray of shape (n_filters,)
        The Hankel eigenvalues ``sigma_j``, in decreasing order.
    n_features_in_ : int
        Number of columns seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the columns seen during fit, when ``X`` has string column
        names.

    See Also
    --------
    hankel_matrix : the matrices.
    spectral_filters : their top eigenpairs.
    OnlineSpectralController : a controller built on the same filters.

    Notes
    -----
    Row ``t`` holds, for every column ``x`` and filter ``j``,
    ``sigma_j^(1/4) * sum_{u<window} phi_j(u) x[t - u]`` (then the raw columns
    when ``include_raw``): it uses rows ``0..t`` only. The rows of ``X`` must be
    equally spaced steps of one series in time order; pair the features with a
    linear model (``Ridge``).

    Steps before the series count as zeros (a system at rest), so rows
    ``t < window - 1`` are warm-up rows; a series shorter than ``window`` warns.
    Each call of :meth:`transform` starts at rest: transform a whole series once
    and split the rows afterwards. The features are equivariant to the scale of
    each column.

    More in the user guide (:ref:`spectral-filter-features-details`).


    References
    ----------
    .. [1] E. Hazan, K. Singh and C. Zhang. "Learning linear dynamical systems
       via spectral filtering". NeurIPS 2017. arXiv:1711.00946.
    .. [2] A. Brahmbhatt, G. Buzaglo, S. Druchyna and E. Hazan. "A New Approach
       to Controlling Linear Dynamical Systems". ICLR 2026. arXiv:2504.03952.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.dynamical import SpectralFilterFeatures
    >>> X = np.random.default_rng(0).normal(size=(500, 2))
    >>> features = SpectralFilterFeatures(n_filters=8, window=128).fit(X)
    >>> features.transform(X).shape
    (500, 18)
    >>> features.get_feature_names_out()[[0, 7, 16, 17]].tolist()
    ['x0_filter0', 'x0_filter7', 'x0', 'x1']
    """

    _parameter_constraints = {
        "n_filters": [Interval(Integral, 1, None, closed="left")],
        "window": [Interval(Integral, 1, None, closed="left")],
        "kind": [StrOptions({"prediction", "control"})],
        "stability_margin": [Interval(Real, 0, 1, closed="left"), None],
        "include_raw": ["boolean"],
    }

    def __init__(
        self,
        n_filters=16,
        *,
        window=256,
        kind="prediction",
        stability_margin=None,
        include_raw=True,
    ):
        self.n_filters = n_filters
        self.window = window
        self.kind = kind
        self.stability_margin = stability_margin
        self.include_raw = include_raw

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the filters and check the series.

        Parameters
        ----------
        X : array-like of shape (n_steps, n_columns)
            One multivariate series, rows in time order.
        y : None
            Ignored.

        Returns
        -------
        self : SpectralFilterFeatures
            The fitted transformer.
        """
        X = validate_data(self, X, dtype=np.float64)
        self.eigenvalues_, self.filters_ = spectral_filters(
            self.window,
            self.n_filters,
            kind=self.kind,
            stability_margin=self.stability_margin,
        )
        self._warn_if_short(X)
        return self

    def transform(self, X):
        """Filter every column of the series.

        Parameters
        ----------
        X : array-like of shape (n_steps, `n_features_in_`)
            One multivariate series, rows in time order, starting at rest.

        Returns
        -------
        features : ndarray of shape (n_steps, n_features_out)
            ``n_features_out = n_features_in_ * (n_filters + include_raw)``.
            Column ``c * n_filters + j`` is column ``c`` of ``X`` through
            filter ``j``; the raw columns come last.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        self._warn_if_short(X)
        n_steps, n_columns = X.shape
        peak = np.max(np.abs(X), axis=0)
        peak[peak == 0] = 1.0
        kernels = self.filters_ * self.eigenvalues_**0.25
        # (n_steps, n_columns, 1) * (window, 1, n_filters), full causal part.
        filtered = oaconvolve(
            (X / peak)[:, :, None], kernels[:, None, :], mode="full", axes=0
        )[:n_steps]
        filtered *= peak[None, :, None]
        features = filtered.reshape(n_steps, n_columns * self.n_filters)
        if self.include_raw:
            features = np.hstack([features, X])
        return features

    def get_feature_names_out(self, input_features=None):
        """Names of the output columns.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input column names; ``None`` uses ``feature_names_in_`` or
            ``x0, x1, ...``.

        Returns
        -------
        names : ndarray of str
            ``<column>_filter<j>`` for each column and filter, then the raw
            column names when ``include_raw``.
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        filtered = [
            f"{name}_filter{j}" for name in names for j in range(self.n_filters)
        ]
        raw = list(names) if self.include_raw else []
        return np.asarray(filtered + raw, dtype=object)

    def _warn_if_short(self, X):
        if X.shape[0] < self.window:
            warn_user(
                f"The series has {X.shape[0]} steps, fewer than window="
                f"{self.window}: every row is a zero-padded warm-up row and the "
                "longest filters see only the start of the series. Lower window "
                "to at most the series length."
            )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
