"""EventFrameBinner: event packets to (multi-channel) frames."""

import numbers

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils._compat import Interval, StrOptions
from ._format import check_events, infer_shape, inside_mask


def bin_events(
    X,
    packet,
    n_packets,
    shape,
    *,
    n_time_bins=1,
    kernel="rect",
    polarity="sum",
    weights=None,
):
    """Frames (n_packets, n_channels, H, W) of events already on the sensor.

    Channels run over polarity (outer, for ``"split"``) then time bins.
    ``weights`` overrides the polarity weights when given.
    """
    height, width = shape
    n_pol = 2 if polarity == "split" else 1
    n_channels = n_pol * n_time_bins
    x, y, t = X[:, 0], X[:, 1], X[:, 2]
    on = X[:, 3] > 0
    if weights is None:
        weights = np.ones(len(X)) if polarity == "split" else np.where(on, 1.0, -1.0)
    channel = np.zeros(len(X), dtype=np.intp)
    if n_time_bins > 1:
        t_min = np.full(n_packets, np.inf)
        t_max = np.full(n_packets, -np.inf)
        np.minimum.at(t_min, packet, t)
        np.maximum.at(t_max, packet, t)
        span = (t_max - t_min)[packet]
        # rescale in two steps so that huge and tiny time units stay finite
        frac = np.where(span > 0, (t - t_min[packet]) / np.where(span > 0, span, 1), 0)
        channel = np.minimum((frac * n_time_bins).astype(np.intp), n_time_bins - 1)
    if polarity == "split":
        channel = channel + n_time_bins * (~on)
    base = (packet * n_channels + channel) * (height * width)
    size = n_packets * n_channels * height * width
    if kernel == "rect":
        flat = base + np.floor(y).astype(np.intp) * width + np.floor(x).astype(np.intp)
        frames = np.bincount(flat, weights=weights, minlength=size)
    else:
        u, v = x - 0.5, y - 0.5
        i0, j0 = np.floor(u), np.floor(v)
        ru, rv = u - i0, v - j0
        i0, j0 = i0.astype(np.intp), j0.astype(np.intp)
        frames = np.zeros(size)
        for di, wu in ((0, 1 - ru), (1, ru)):
            for dj, wv in ((0, 1 - rv), (1, rv)):
                i, j = i0 + di, j0 + dj
                ok = (i >= 0) & (i < width) & (j >= 0) & (j < height)
                frames += np.bincount(
                    (base + j * width + i)[ok],
                    weights=(weights * wu * wv)[ok],
                    minlength=size,
                )
    return frames.reshape(n_packets, n_channels, height, width)


class EventFrameBinner(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Bin event-camera packets into frames, one flattened frame stack per packet.

    The forward binning of Chen et al., "Unbiased Gradient Estimation for
    Event Binning via Functional Backpropagation" (ICLR 2026,
    arXiv:2602.12590), as a scikit-learn transformer, so that event data can
    enter a pipeline before any frame-based estimator. The differentiable
    version of the same binning is :func:`fbp_histogramdd`.

    Parameters
    ----------
    shape : pair of int or None, default=None
        Sensor size ``(H, W)``. ``None`` takes one past the largest ``y`` and
        ``x`` seen in fit.
    n_time_bins : int, default=1
        Number of time bins per packet.
    kernel : {"rect", "linear"}, default="rect"
        Nearest-pixel counting or bilinear splatting.
    polarity : {"sum", "split"}, default="sum"
        ``"sum"``: one channel of ON minus OFF counts; ``"split"``: an ON
        channel then an OFF channel of counts.
    normalize : {None, "max", "sum"}, default=None
        Divide each packet's frames by their largest absolute value or by the
        sum of absolute values (all-zero frames stay zero).
    max_pixels : int, default=4_000_000
        Refuse sensors with more pixels per packet (times channels); a guard
        against coordinates in the wrong unit.

    Attributes
    ----------
    shape_ : tuple of int
        The sensor size ``(H, W)`` used.
    n_channels_ : int
        Channels per packet: ``n_time_bins`` times 2 for ``"split"``.
    n_dropped_ : int
        Events of the fit data outside the sensor.
    n_features_in_ : int
        4 or 5.

    See Also
    --------
    fbp_histogramdd : The differentiable binning.
    ContrastMaximizationMotion : Motion-compensated frames.

    Notes
    -----
    Input format: ``X`` of shape (n_events, 4) with columns ``[x, y, t, p]``
    is one packet; (n_events, 5) with a last column ``packet_id`` holds
    several packets (sorted by id in the output). ``x``, ``y`` are pixel
    coordinates (pixel ``j`` covers ``[j, j + 1)``), ``p > 0`` is an ON event.
    Fewer columns are one packet with defaults: ``[x, y, t]`` (all ON) and
    ``[x, y]`` (all ON at ``t = 0``, a 2-D histogram of points). The output
    has one row per *packet*, not per event.
    Events outside the sensor ``[0, W) x [0, H)`` are dropped and counted
    (``n_dropped_`` in fit).

    With ``kernel="rect"`` pixel :math:`(i, j)` of time bin :math:`b` holds
    :math:`\\sum_e w_e [\\lfloor x_e\\rfloor = i][\\lfloor y_e\\rfloor = j]
    [b_e = b]`; ``"linear"`` splats each event bilinearly onto the four
    nearest pixel centres. Time bins split each packet's ``[t_min, t_max]``
    evenly.

    References
    ----------
    .. [1] J. Chen, W. Zhai, H. Han, T. Ma, Y. Cao, B. Li and Z.-J. Zha,
       "Unbiased Gradient Estimation for Event Binning via Functional
       Backpropagation", ICLR 2026, arXiv:2602.12590.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.events import EventFrameBinner
    >>> X = np.array([[0.5, 0.5, 0.0, 1], [1.2, 0.1, 0.5, -1], [1.7, 0.9, 1.0, 1]])
    >>> EventFrameBinner(shape=(1, 2)).fit_transform(X)
    array([[1., 0.]])
    >>> EventFrameBinner(shape=(1, 2), polarity="split").fit_transform(X)
    array([[1., 1., 0., 1.]])
    """

    _parameter_constraints = {
        "shape": [tuple, list, None],
        "n_time_bins": [Interval(numbers.Integral, 1, None, closed="left")],
        "kernel": [StrOptions({"rect", "linear"})],
        "polarity": [StrOptions({"sum", "split"})],
        "normalize": [StrOptions({"max", "sum"}), None],
        "max_pixels": [Interval(numbers.Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        *,
        shape=None,
        n_time_bins=1,
        kernel="rect",
        polarity="sum",
        normalize=None,
        max_pixels=4_000_000,
    ):
        self.shape = shape
        self.n_time_bins = n_time_bins
        self.kernel = kernel
        self.polarity = polarity
        self.normalize = normalize
        self.max_pixels = max_pixels

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Check the events and fix the sensor shape.

        Parameters
        ----------
        X : array-like of shape (n_events, 2 to 5)
            Events ``[x, y, t, p]`` or ``[x, y, t, p, packet_id]``.
        y : None
            Ignored.

        Returns
        -------
        self : EventFrameBinner
        """
        X = validate_data(self, X, dtype=np.float64)
        X = check_events(X)[0]
        self.n_channels_ = self.n_time_bins * (2 if self.polarity == "split" else 1)
        self.shape_ = infer_shape(X, self.shape, self.max_pixels, self.n_channels_)
        self.n_dropped_ = int((~inside_mask(X, self.shape_)).sum())
        self._n_features_out = self.n_channels_ * self.shape_[0] * self.shape_[1]
        return self

    def transform(self, X):
        """Frames of each packet, flattened as (channel, y, x).

        Parameters
        ----------
        X : array-like of shape (n_events, 2 to 5)
            Events; those outside the sensor are dropped.

        Returns
        -------
        frames : ndarray of shape (n_packets, `n_channels_` * H * W)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        X, packet, ids = check_events(X)
        keep = inside_mask(X, self.shape_)
        frames = bin_events(
            X[keep],
            packet[keep],
            len(ids),
            self.shape_,
            n_time_bins=self.n_time_bins,
            kernel=self.kernel,
            polarity=self.polarity,
        ).reshape(len(ids), -1)
        if self.normalize is not None:
            absf = np.abs(frames)
            scale = absf.max(1) if self.normalize == "max" else absf.sum(1)
            frames = frames / np.where(scale > 0, scale, 1.0)[:, None]
        return frames

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        return tags
