"""ContrastMaximizationMotion: motion of event packets by maximising IWE variance."""

import numbers

import numpy as np
from scipy.optimize import minimize
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
    _fit_context,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils import check_count_budget, import_torch, torch_num_threads, warn_user
from ..utils._compat import Interval, StrOptions
from ._format import check_events, infer_shape, inside_mask

N_PARAMS = {"translation": 2, "rotation": 1}


def warp(torch, xy, tau, theta, model, shape):
    """Move each event back to the reference time ``tau = 0``.

    ``tau`` is the event time rescaled to [0, 1] over the packet; ``theta``
    is the motion over the whole packet: the shift ``(d_x, d_y)`` in pixels,
    or the rotation angle in radians about the sensor centre.
    """
    if model == "translation":
        return xy - tau[:, None] * theta[None, :]
    height, width = shape
    centre = torch.tensor([width / 2.0, height / 2.0], dtype=xy.dtype)
    angle = -theta[0] * tau
    cos, sin = torch.cos(angle), torch.sin(angle)
    rel = xy - centre
    return (
        torch.stack(
            [cos * rel[:, 0] - sin * rel[:, 1], sin * rel[:, 0] + cos * rel[:, 1]], -1
        )
        + centre
    )


def iwe(
    torch,
    xy,
    tau,
    theta,
    model,
    shape,
    kernel,
    gradient,
    smoothing=1.0,
    reconstruction="linear",
):
    """Image of warped events (H, W) under the chosen gradient estimator."""
    from ._fbp import fbp_histogramdd
    from ._fbp_torch import autograd_histogramdd, gaussian_histogramdd

    height, width = shape
    warped = warp(torch, xy, tau, theta, model, shape)
    # (x, y) -> (row = y, col = x)
    points = warped.flip(-1)
    bins, rng = (height, width), [(0.0, float(height)), (0.0, float(width))]
    if gradient == "fbp":
        return fbp_histogramdd(
            points, None, bins, rng, kernel=kernel, reconstruction=reconstruction
        )
    if gradient == "autograd":
        return autograd_histogramdd(points, None, bins, rng, kernel=kernel)
    return gaussian_histogramdd(points, None, bins, rng, sigma=smoothing)


class ContrastMaximizationMotion(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Motion of event packets by contrast maximisation with unbiased gradients.

    Each packet's events are warped back to the packet's first time by a
    motion model with parameters :math:`\\theta`, binned into an image of
    warped events (IWE) :math:`H(\\theta)`, and :math:`\\theta` maximises the
    contrast :math:`\\operatorname{Var}_{pixels} H(\\theta)` by scipy's
    L-BFGS-B. Binning is piecewise constant in :math:`\\theta`, so autograd
    gives a zero (rect) or biased (bilinear) gradient; the functional
    backpropagation (FBP) gradient of Chen et al., "Unbiased Gradient
    Estimation for Event Binning via Functional Backpropagation" (ICLR 2026,
    arXiv:2602.12590) keeps the forward binning and differentiates the
    B-spline :math:`\\kappa = l * k` instead (see :func:`fbp_histogramdd`).

    Parameters
    ----------
    model : {"translation", "rotation"}, default="translation"
        The motion model.
    kernel : {"rect", "linear"}, default="rect"
        Binning of the IWE.
    gradient : {"fbp", "autograd", "smooth"}, default="fbp"
        ``"fbp"``: functional-backprop gradient of the binned contrast;
        ``"autograd"``: plain autograd through the binning (zero for
        ``"rect"``, so the fit stays at ``init``); ``"smooth"``: autograd of
        the contrast of a Gaussian-splatted IWE of width ``smoothing``.
    shape : pair of int or None, default=None
        Sensor size ``(H, W)``; ``None`` takes one past the largest
        coordinates seen in fit.
    init : array-like of shape (n_params,) or None, default=None
        Starting motion (velocity, or angular velocity) for every packet;
        ``None`` starts from rest.
    reconstruction : {"linear", "cubic"}, default="linear"
        Kernel that reconstructs the cotangent in the FBP backward pass (see
        :func:`fbp_histogramdd`): ``"cubic"`` blurs it less, so the gradient
        is closer to the finite-difference slope of the binned contrast.
    max_iter : int, default=100
        L-BFGS-B iterations per packet.
    tol : float, default=1e-6
        L-BFGS-B ``ftol`` on the objective divided by its own value at
        ``init`` (the hard-binned contrast, or the Gaussian-splatted one for
        ``gradient="smooth"``), so every gradient stops on the same scale.
    smoothing : float, default=1.0
        Gaussian width in pixels for ``gradient="smooth"``.
    max_events : int, default=5_000_000
        Refuse more events than this in one fit (each iteration bins all of
        them).
    random_state : None, int or RandomState, default=None
        Unused: the fit is deterministic. Kept for API symmetry.

    Attributes
    ----------
    motion_ : ndarray of shape (n_packets, n_params)
        Fitted motion per packet (sorted packet ids).
    packet_ids_ : ndarray of shape (n_packets,)
        The packet ids seen in fit (``[0.]`` for 4-column input).
    contrast_ : ndarray of shape (n_packets,)
        IWE variance at the fitted motion (hard binning).
    n_iter_ : ndarray of shape (n_packets,)
        L-BFGS-B iterations per packet.
    shape_ : tuple of int
        Sensor size used.
    n_dropped_ : int
        Fit events outside the sensor.
    n_features_in_ : int
        4 or 5.

    See Also
    --------
    EventFrameBinner : Frames without motion compensation.
    fbp_histogramdd : The differentiable histogram.

    Notes
    -----
    Models, with :math:`\\tau = (t - t_{min}) / (t_{max} - t_{min})` per packet:

    * ``"translation"``: :math:`x' = x - \\tau\\, d_x`, :math:`y' = y - \\tau\\,
      d_y`; ``motion_`` is the velocity :math:`(d_x, d_y) / (t_{max} -
      t_{min})` in pixels per time unit.
    * ``"rotation"``: rotation of :math:`-\\tau\\, \\phi` about the sensor
      centre; ``motion_`` is the angular velocity
      :math:`\\phi / (t_{max} - t_{min})` in radians per time unit.

    Input format as :class:`EventFrameBinner`: (n_events, 4) ``[x, y, t, p]``
    for one packet or (n_events, 5) with a ``packet_id`` column (fewer
    columns: one packet, ``[x, y, t]``; ``[x, y]`` has no time, so no
    motion). Polarity is ignored (every event counts 1). Events outside the
    sensor are dropped and counted (``n_dropped_``); warped events that leave
    it do not count.

    References
    ----------
    .. [1] J. Chen, W. Zhai, H. Han, T. Ma, Y. Cao, B. Li and Z.-J. Zha,
       "Unbiased Gradient Estimation for Event Binning via Functional
       Backpropagation", ICLR 2026, arXiv:2602.12590.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_moving_edges
    >>> from sklearn_iclr.events import ContrastMaximizationMotion
    >>> X = make_moving_edges(5000, velocity=(8.0, -4.0), shape=(32, 32),
    ...                       random_state=0)
    >>> cm = ContrastMaximizationMotion(shape=(32, 32), init=[4.0, -2.0]).fit(X)
    >>> cm.motion_.round(0)
    array([[ 8., -4.]])
    >>> cm.transform(X).shape
    (1, 1024)
    """

    _parameter_constraints = {
        "model": [StrOptions({"translation", "rotation"})],
        "kernel": [StrOptions({"rect", "linear"})],
        "gradient": [StrOptions({"fbp", "autograd", "smooth"})],
        "reconstruction": [StrOptions({"linear", "cubic"})],
        "shape": [tuple, list, None],
        "init": ["array-like", None],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "smoothing": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_events": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        model="translation",
        kernel="rect",
        gradient="fbp",
        reconstruction="linear",
        shape=None,
        init=None,
        max_iter=100,
        tol=1e-6,
        smoothing=1.0,
        max_events=5_000_000,
        random_state=None,
    ):
        self.model = model
        self.kernel = kernel
        self.gradient = gradient
        self.reconstruction = reconstruction
        self.shape = shape
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.smoothing = smoothing
        self.max_events = max_events
        self.random_state = random_state

    def _packets(self, X, packet, n_packets):
        """Per packet: (xy, tau, span) of the events on the sensor."""
        keep = inside_mask(X, self.shape_)
        out = []
        for k in range(n_packets):
            sel = keep & (packet == k)
            t = X[sel, 2]
            if t.size:
                t_min, t_max = t.min(), t.max()
                span = t_max - t_min
                tau = (t - t_min) / span if span > 0 else np.zeros_like(t)
            else:
                span, tau = 0.0, t
            out.append((X[sel, :2], tau, span))
        return out

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the motion of every packet.

        Parameters
        ----------
        X : array-like of shape (n_events, 2 to 5)
            Events ``[x, y, t, p]`` or ``[x, y, t, p, packet_id]``.
        y : None
            Ignored.

        Returns
        -------
        self : ContrastMaximizationMotion
        """
        X = validate_data(self, X, dtype=np.float64)
        X, packet, ids = check_events(X)
        check_count_budget(
            len(X),
            self.max_events,
            what="events",
            work={"event_warp": float(len(X)) * self.max_iter},
            parameter="max_events",
            advice="Subsample the events or lower max_iter.",
        )
        n_params = N_PARAMS[self.model]
        if self.init is None:
            init = np.zeros(n_params)
        else:
            init = np.asarray(self.init, dtype=float).ravel()
            if init.shape != (n_params,) or not np.isfinite(init).all():
                raise ValueError(
                    f"init must hold {n_params} finite value(s) for "
                    f"model={self.model!r}, got {self.init!r}."
                )
        self.shape_ = infer_shape(X, self.shape, 4_000_000)
        self.n_dropped_ = int((~inside_mask(X, self.shape_)).sum())
        self._n_features_out = self.shape_[0] * self.shape_[1]
        torch = import_torch()
        self.packet_ids_ = ids
        self.motion_ = np.zeros((len(ids), n_params))
        self.contrast_ = np.zeros(len(ids))
        self.n_iter_ = np.zeros(len(ids), dtype=int)
        with torch_num_threads(1):
            self._fit_packets(torch, X, packet, ids, init)
        return self

    def _fit_packets(self, torch, X, packet, ids, init):
        # one thread: many small ops per iteration, thread sync dominates
        for k, (xy, tau, span) in enumerate(self._packets(X, packet, len(ids))):
            if len(xy) < 2 or span == 0:
                warn_user(
                    f"Packet {ids[k]!r} has fewer than two events on the sensor "
                    "or no time span: its motion is left at zero. Check shape "
                    "and the packet_id column."
                )
                continue
            theta0 = init * span
            theta, n_iter = self._fit_packet(torch, xy, tau, theta0)
            self.motion_[k] = theta / span
            self.n_iter_[k] = n_iter
            self.contrast_[k] = self._contrast(torch, xy, tau, theta)

    def _fit_packet(self, torch, xy, tau, theta0):
        xy_t = torch.as_tensor(xy, dtype=torch.float64)
        tau_t = torch.as_tensor(tau, dtype=torch.float64)

        def objective(theta, scale=1.0):
            th = torch.tensor(theta, dtype=torch.float64, requires_grad=True)
            image = iwe(
                torch,
                xy_t,
                tau_t,
                th,
                self.model,
                self.shape_,
                self.kernel,
                self.gradient,
                self.smoothing,
                self.reconstruction,
            )
            loss = -image.var(correction=0) / scale
            loss.backward()
            grad = th.grad.numpy().copy()
            return float(loss.detach()), np.where(np.isfinite(grad), grad, 0.0)

        # The objective is divided by its own value at the start: its scale
        # grows with the square of the event count (and the smoothed
        # surrogate's is smaller than the binned one), L-BFGS-B's ftol does not.
        scale = max(-objective(theta0)[0], 1e-12)
        result = minimize(
            objective,
            theta0,
            args=(scale,),
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": self.max_iter, "ftol": self.tol},
        )
        return result.x, int(result.nit)

    def _contrast(self, torch, xy, tau, theta):
        with torch.no_grad():
            image = iwe(
                torch,
                torch.as_tensor(xy, dtype=torch.float64),
                torch.as_tensor(tau, dtype=torch.float64),
                torch.as_tensor(np.asarray(theta, dtype=float)),
                self.model,
                self.shape_,
                self.kernel,
                "fbp",
            )
        return float(image.var(correction=0))

    def _compensated(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        X, packet, ids = check_events(X)
        where = np.searchsorted(self.packet_ids_, ids)
        where = np.minimum(where, len(self.packet_ids_) - 1)
        unknown = self.packet_ids_[where] != ids
        if unknown.any():
            raise ValueError(
                f"Packet ids {ids[unknown][:5].tolist()} were not seen in fit; "
                "transform and score compensate the packets fitted."
            )
        torch = import_torch()
        frames, contrasts = [], []
        for k, (xy, tau, span) in enumerate(self._packets(X, packet, len(ids))):
            theta = self.motion_[where[k]] * span
            with torch.no_grad(), torch_num_threads(1):
                image = iwe(
                    torch,
                    torch.as_tensor(xy, dtype=torch.float64),
                    torch.as_tensor(tau, dtype=torch.float64),
                    torch.as_tensor(theta, dtype=torch.float64),
                    self.model,
                    self.shape_,
                    self.kernel,
                    "fbp",
                )
            frames.append(image.numpy().ravel())
            contrasts.append(float(image.var(correction=0)))
        return np.asarray(frames), np.asarray(contrasts)

    def transform(self, X):
        """Motion-compensated frames (IWE) of each packet, flattened (y, x).

        Parameters
        ----------
        X : array-like of shape (n_events, 2 to 5)
            Events of packets seen in fit.

        Returns
        -------
        frames : ndarray of shape (n_packets, H * W)
        """
        return self._compensated(X)[0]

    def score(self, X, y=None):
        """Mean contrast (IWE variance) of the motion-compensated packets.

        Parameters
        ----------
        X : array-like of shape (n_events, 2 to 5)
            Events of packets seen in fit.
        y : None
            Ignored.

        Returns
        -------
        score : float
            Higher is sharper.
        """
        return float(self._compensated(X)[1].mean())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64"]
        tags.non_deterministic = False
        return tags
