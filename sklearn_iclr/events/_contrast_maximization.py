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
            points, bins, range=rng, kernel=kernel, reconstruction=reconstruction
        )
    if gradient == "autograd":
        return autograd_histogramdd(points, bins, range=rng, kernel=kernel)
    return gaussian_histogramdd(points, bins, range=rng, sigma=smoothing)


# The coarse-to-fine start: the largest step is the power of two that leaves
# from COARSE_CELLS / 2 to fewer than COARSE_CELLS steps along the sensor's
# longer side.
COARSE_CELLS = 16
# Finer levels search (2 * REFINE_REACH + 1) steps per parameter around the
# best motion of the level above.
REFINE_REACH = 2
# The search reads at most this many events per packet (an even stride).
MAX_SEARCH_EVENTS = 100_000
# The warp over a whole packet moves no point further than the sensor.
MAX_ROTATION = np.pi
# A fit that gains less contrast than this fraction over no motion, or that
# the search's motion beats by more, is reported.
MIN_CONTRAST_GAIN = 0.02


def warp_numpy(xy, tau, thetas, model, shape):
    """:func:`warp` of every motion in ``thetas`` (n_motions, n_params) at once."""
    if model == "translation":
        return xy[None] - tau[None, :, None] * thetas[:, None, :]
    height, width = shape
    centre = np.array([width / 2.0, height / 2.0])
    angle = -thetas[:, :1] * tau[None]
    cos, sin = np.cos(angle), np.sin(angle)
    rel = xy - centre
    return (
        np.stack(
            [cos * rel[:, 0] - sin * rel[:, 1], sin * rel[:, 0] + cos * rel[:, 1]], -1
        )
        + centre
    )


def fine_scale_energy(xy, tau, thetas, model, shape, block):
    """Energy of each motion's IWE at scales finer than ``block`` pixels.

    With ``H`` the hard-binned IWE and ``H_B`` its mean over each square block
    of ``block`` pixels, returns ``sum_p (H_p - H_B(p))^2`` for every motion of
    ``thetas``. Unlike the contrast of an image of coarse cells, it ignores
    what varies more slowly than a block (the fall-off of the warped events'
    density near the sensor's edges, which a large motion spreads over half
    the sensor), and it sharpens as the motion comes within a block of the
    optimum; Poisson noise adds the same to every motion in expectation.
    """
    height, width = shape
    rows, cols = -(-height // block) * block, -(-width // block) * block
    out = np.empty(len(thetas))
    chunk = max(1, 2**22 // (len(xy) + rows * cols))
    for start in range(0, len(thetas), chunk):
        warped = warp_numpy(xy, tau, thetas[start : start + chunk], model, shape)
        x, y = warped[..., 0], warped[..., 1]
        inside = (x >= 0) & (x < width) & (y >= 0) & (y < height)
        flat = np.floor(y) * cols + np.floor(x)
        flat += rows * cols * np.arange(len(warped))[:, None]
        counts = np.bincount(
            flat[inside].astype(np.intp), minlength=len(warped) * rows * cols
        ).astype(float)
        blocks = counts.reshape(len(warped), rows // block, block, cols // block, block)
        block_sums = blocks.sum(axis=(2, 4)).reshape(len(warped), -1)
        energy = (counts.reshape(len(warped), -1) ** 2).sum(1)
        out[start : start + len(warped)] = energy - (block_sums**2).sum(1) / block**2
    return out


def coarse_to_fine_start(xy, tau, model, shape):
    """The motion of largest fine-scale IWE energy over a pyramid of steps.

    At the coarsest level a grid of motions, ``c`` pixels apart, covers every
    motion that moves no point further than the sensor (or half a turn), each
    scored by :func:`fine_scale_energy` at scales below ``2 c``, where a blur
    of a few pixels still shows; each finer level halves ``c`` and scores a
    few steps around the previous best. Returns the motion over the packet
    (the units of ``theta``) and the number of motions scored.
    """
    height, width = shape
    if len(xy) > MAX_SEARCH_EVENTS:
        step = -(-len(xy) // MAX_SEARCH_EVENTS)
        xy, tau = xy[::step], tau[::step]
    step = 1
    while step * COARSE_CELLS <= max(height, width):
        step *= 2
    # one step of warp at the packet's end: in pixels, or in radians at the
    # sensor's corner
    if model == "translation":
        unit, reach = [1.0, 1.0], [width, height]
    else:
        unit, reach = [2.0 / np.hypot(height, width)], [MAX_ROTATION]
    axes = [np.arange(-r, r + 1e-9, step * u) for r, u in zip(reach, unit, strict=True)]
    n_scored = 0
    while True:
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, len(axes))
        scores = fine_scale_energy(xy, tau, grid, model, shape, 2 * step)
        best = grid[np.argmax(scores)]
        n_scored += len(grid)
        if step == 1:
            return best, n_scored
        step //= 2
        offsets = np.arange(-REFINE_REACH, REFINE_REACH + 1) * step
        axes = [b + offsets * u for b, u in zip(best, unit, strict=True)]


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
        ``"rect"``, so the fit stays at its start); ``"smooth"``: autograd of
        the contrast of a Gaussian-splatted IWE of width ``smoothing``.
    shape : pair of int or None, default=None
        Sensor size ``(H, W)``, two positive ints; ``None`` takes one past
        the largest coordinates seen in fit.
    init : array-like of shape (n_params,) or None, default=None
        Starting motion (velocity, or angular velocity) of every packet.
        ``None`` starts each packet from a coarse-to-fine search of the
        binned contrast (see Notes), which needs no guess of the motion.
    reconstruction : {"linear", "cubic"}, default="linear"
        Kernel that reconstructs the cotangent in the FBP backward pass (see
        :func:`fbp_histogramdd`): ``"cubic"`` blurs it less, so the gradient
        is closer to the finite-difference slope of the binned contrast.
    max_iter : int, default=100
        L-BFGS-B iterations per packet.
    tol : float, default=1e-6
        L-BFGS-B ``ftol`` on the objective divided by its own value at the
        start (the hard-binned contrast, or the Gaussian-splatted one for
        ``gradient="smooth"``), so every gradient stops on the same scale.
    smoothing : float, default=1.0
        Gaussian width in pixels for ``gradient="smooth"``; at most the
        sensor's longer side.
    max_events : int, default=5_000_000
        Refuse more events than this in one fit (each iteration bins all of
        them). With ``gradient="smooth"`` an event counts once per 49 pixels
        of its Gaussian stencil (49 at ``smoothing=1``).
    max_pixels : int, default=4_000_000
        Refuse sensors with more pixels, as :class:`EventFrameBinner` does; a
        guard against coordinates in the wrong unit.

    Attributes
    ----------
    motion_ : ndarray of shape (n_packets, n_params)
        Fitted motion per packet (sorted packet ids).
    packet_ids_ : ndarray of shape (n_packets,)
        The packet ids seen in fit (``[0.]`` for 4-column input).
    contrast_ : ndarray of shape (n_packets,)
        IWE variance at the fitted motion (hard binning).
    n_iter_ : int
        The most L-BFGS-B iterations any packet ran.
    n_iter_per_packet_ : ndarray of shape (n_packets,)
        L-BFGS-B iterations per packet.
    loss_curve_ : list of float
        The objective minimised, the negated contrast summed over the fitted
        packets (``-sum_k Var H_k``, of the Gaussian-splatted IWE for
        ``gradient="smooth"``), after every L-BFGS-B iteration: one value per
        iteration up to ``n_iter_``, a packet that stopped earlier counting
        with its last value.
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
    ``"translation"``, :math:`x' = x - \\tau\\, d_x`, :math:`y' = y - \\tau\\,
    d_y`, and ``motion_`` is the velocity :math:`(d_x, d_y) / (t_{max} -
    t_{min})` in pixels per time unit; ``"rotation"``, a rotation of
    :math:`-\\tau\\, \\phi` about the sensor centre, and ``motion_`` is the
    angular velocity :math:`\\phi / (t_{max} - t_{min})`.

    The gradient sees about one pixel around the current motion, so a start
    far from the truth (rest, for a fast scene) can stall. ``init=None``
    starts from the best motion of a pyramid search: a coarse grid of the
    motions that move no point further than the sensor (half a turn), scored
    by the image's energy at scales finer than the grid, then refined as the
    step halves (:ref:`events-coarse-to-fine`). ``fit`` warns where the
    result sharpens a packet by less than 2% over no motion, or where, from
    ``init``, the search's motion beats it by more than 2% (a stall).

    Input format as :class:`EventFrameBinner`; polarity is ignored. Events
    outside the sensor are dropped and counted (``n_dropped_``).

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
    >>> cm = ContrastMaximizationMotion(shape=(32, 32)).fit(X)
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
        "max_pixels": [Interval(numbers.Integral, 1, None, closed="left")],
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
        max_pixels=4_000_000,
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
        self.max_pixels = max_pixels

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

    def _check_init(self):
        n_params = N_PARAMS[self.model]
        if self.init is None:
            return None
        init = np.asarray(self.init, dtype=float).ravel()
        if init.shape != (n_params,) or not np.isfinite(init).all():
            raise ValueError(
                f"init must hold {n_params} finite value(s) for "
                f"model={self.model!r}, got {self.init!r}."
            )
        return init

    def _check_budget(self, n_events, shape):
        """Refuse a smoothing wider than the sensor, or too many events."""
        events_per_event = 1.0
        if self.gradient == "smooth":
            if self.smoothing > max(shape):
                raise ValueError(
                    f"smoothing={self.smoothing:.3g} pixels is wider than the "
                    f"{shape[0]} x {shape[1]} sensor: the smoothed image is flat "
                    f"and its contrast has no slope. Pass smoothing <= {max(shape)}."
                )
            stencil = (2 * np.ceil(3 * self.smoothing) + 1) ** 2
            events_per_event = max(1.0, stencil / 49.0)
        count = n_events * events_per_event
        check_count_budget(
            count,
            self.max_events,
            what="events" if events_per_event == 1 else "events (stencil-weighted)",
            work={"event_warp": count * self.max_iter},
            parameter="max_events",
            advice="Subsample the events, or lower max_iter or smoothing.",
        )

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
        init = self._check_init()
        shape = infer_shape(X, self.shape, self.max_pixels)
        self._check_budget(len(X), shape)
        self.shape_ = shape
        self.n_dropped_ = int((~inside_mask(X, self.shape_)).sum())
        self._n_features_out = self.shape_[0] * self.shape_[1]
        torch = import_torch()
        self.packet_ids_ = ids
        self.motion_ = np.zeros((len(ids), N_PARAMS[self.model]))
        self.contrast_ = np.zeros(len(ids))
        self.n_iter_per_packet_ = np.zeros(len(ids), dtype=int)
        with torch_num_threads(1):
            curves = self._fit_packets(torch, X, packet, ids, init)
        self.n_iter_ = int(self.n_iter_per_packet_.max())
        # Every curve starts with the packet's start value; padded with its
        # last value to n_iter_ iterations.
        padded = [
            curve[1:] + curve[-1:] * (self.n_iter_ + 1 - len(curve)) for curve in curves
        ]
        self.loss_curve_ = [float(sum(losses)) for losses in zip(*padded, strict=True)]
        return self

    def _fit_packets(self, torch, X, packet, ids, init):
        """Fit every packet; returns the curves of ``_fit_packet``."""
        # one thread: many small ops per iteration, thread sync dominates
        curves = []
        for k, (xy, tau, span) in enumerate(self._packets(X, packet, len(ids))):
            if len(xy) < 2 or span == 0:
                warn_user(
                    f"Packet {ids[k]:g} has fewer than two events on the sensor "
                    "or no time span: its motion is left at zero. Check shape "
                    "and the packet_id column."
                )
                continue
            searched = coarse_to_fine_start(xy, tau, self.model, self.shape_)[0]
            theta0 = searched if init is None else init * span
            theta, curve = self._fit_packet(torch, xy, tau, theta0)
            self.motion_[k] = theta / span
            self.n_iter_per_packet_[k] = len(curve) - 1
            self.contrast_[k] = self._contrast(torch, xy, tau, theta)
            self._warn_if_stalled(torch, k, xy, tau, span, searched, init)
            curves.append(curve)
        return curves

    def _warn_if_stalled(self, torch, k, xy, tau, span, searched, init):
        """Warn where the fit of packet ``k`` sharpens it less than it could.

        From the search's start, a fit that sharpens the packet by less than
        ``MIN_CONTRAST_GAIN`` over no motion found no motion; from ``init``, a
        fit that the search's motion ``searched`` beats by that much stalled
        on its way.
        """
        name, fitted = f"{self.packet_ids_[k]:g}", self.contrast_[k]
        gain = 1 + MIN_CONTRAST_GAIN
        if init is None:
            rest = self._contrast(torch, xy, tau, np.zeros_like(searched))
            if fitted < gain * rest:
                warn_user(
                    f"The fitted motion of packet {name} sharpens its image of "
                    f"warped events by {fitted / rest - 1:.2%} over no motion "
                    f"(contrast {rest:.4g} -> {fitted:.4g}): the packet does not "
                    "move, or holds too few events for its motion to show."
                )
            return
        better = self._contrast(torch, xy, tau, searched)
        if better > gain * fitted:
            warn_user(
                f"The fit of packet {name} from init={self.init!r} stalled: "
                f"contrast {fitted:.4g} at motion {self.motion_[k].tolist()}, "
                f"where a coarse-to-fine search finds {better:.4g} at "
                f"{(searched / span).tolist()}. Leave init=None to start from "
                "the search."
            )

    def _fit_packet(self, torch, xy, tau, theta0):
        """The fitted motion, and ``-Var H`` at the start and every iteration."""
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
        curve = [objective(theta0)[0]]
        scale = max(-curve[0], 1e-12)

        def record(intermediate_result):
            curve.append(float(intermediate_result.fun) * scale)

        result = minimize(
            objective,
            theta0,
            args=(scale,),
            jac=True,
            method="L-BFGS-B",
            callback=record,
            options={"maxiter": self.max_iter, "ftol": self.tol},
        )
        return result.x, curve

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
