"""Synthetic event-camera data: textured edges moving at a known velocity."""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "n_events": [Interval(Integral, 1, None, closed="left")],
        "velocity": ["array-like"],
        "shape": ["array-like"],
        "noise": [Interval(Real, 0, 1, closed="both")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_moving_edges(
    n_events=20_000,
    *,
    velocity=(20.0, 10.0),
    shape=(64, 64),
    noise=0.05,
    random_state=None,
):
    """Events from straight edges and circles translating at a constant velocity.

    A scene of random line segments and circle outlines moves across a
    ``shape = (H, W)`` sensor at ``velocity`` pixels per unit time during
    ``t`` in ``[0, 1)``. Each signal event is a point drawn uniformly along
    the edges at a uniform time, moved by ``velocity * t`` and blurred by 0.3
    pixel; a fraction ``noise`` of the events are uniform background events.
    Events that leave the sensor are redrawn, so exactly ``n_events`` events
    are returned. The true motion is ``velocity``, which motion compensation
    (:class:`~sklearn_iclr.events.ContrastMaximizationMotion`) should recover.

    Used in Chen et al., "Unbiased Gradient Estimation for Event Binning via
    Functional Backpropagation", ICLR 2026 (arXiv:2602.12590) style
    contrast-maximisation experiments.

    Parameters
    ----------
    n_events : int, default=20_000
        Number of events.
    velocity : pair of float, default=(20.0, 10.0)
        Motion ``(v_x, v_y)`` of the scene in pixels per unit time.
    shape : pair of int, default=(64, 64)
        Sensor size ``(H, W)``; ``x`` runs along the width, ``y`` along the
        height, both in pixels with pixel ``j`` covering ``[j, j + 1)``.
    noise : float in [0, 1], default=0.05
        Fraction of background events, uniform in space and time.
    random_state : int, RandomState instance or None, default=None
        Seed.

    Returns
    -------
    events : ndarray of shape (n_events, 4)
        Columns ``[x, y, t, p]`` sorted by time, polarity ``p`` in {-1, +1}:
        the input format of :class:`~sklearn_iclr.events.EventFrameBinner`.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_moving_edges
    >>> events = make_moving_edges(1000, random_state=0)
    >>> events.shape
    (1000, 4)
    >>> bool((events[:, 2] >= 0).all() and (events[:, 2] < 1).all())
    True
    """
    velocity = np.asarray(velocity, dtype=float)
    if velocity.shape != (2,) or not np.isfinite(velocity).all():
        raise ValueError(f"velocity must be two finite floats, got {velocity!r}.")
    if len(shape) != 2 or not all(
        isinstance(s, Integral) and not isinstance(s, bool) and s >= 4 for s in shape
    ):
        raise ValueError(f"shape must be two ints of at least 4, got {shape!r}.")
    height, width = (int(s) for s in shape)
    rng = check_random_state(random_state)
    # The scene at t = 0 spans the sensor extended backwards along the motion,
    # so that the sensor stays covered while the scene moves.
    low = -np.maximum(velocity, 0.0)
    high = np.array([width, height]) - np.minimum(velocity, 0.0)
    n_segments = 8
    starts = rng.uniform(low, high, size=(n_segments, 2))
    angles = rng.uniform(0, np.pi, n_segments)
    lengths = rng.uniform(0.2, 0.5, n_segments) * min(height, width)
    ends = starts + lengths[:, None] * np.c_[np.cos(angles), np.sin(angles)]
    n_circles = 4
    centres = rng.uniform(low, high, size=(n_circles, 2))
    radii = rng.uniform(0.06, 0.15, n_circles) * min(height, width)
    signs = rng.choice([-1.0, 1.0], size=n_segments + n_circles)
    # shapes drawn with probability proportional to their length
    sizes = np.r_[lengths, 2 * np.pi * radii]
    prob = sizes / sizes.sum()

    out = np.empty((0, 4))
    while len(out) < n_events:
        m = 2 * (n_events - len(out)) + 16
        t = rng.uniform(0.0, 1.0, m)
        which = rng.choice(len(prob), size=m, p=prob)
        s = rng.uniform(0.0, 1.0, m)
        seg = which < n_segments
        xy = np.empty((m, 2))
        k = which[seg]
        xy[seg] = starts[k] + s[seg, None] * (ends[k] - starts[k])
        k = which[~seg] - n_segments
        phi = 2 * np.pi * s[~seg]
        xy[~seg] = centres[k] + radii[k, None] * np.c_[np.cos(phi), np.sin(phi)]
        xy += velocity * t[:, None] + 0.3 * rng.standard_normal((m, 2))
        pol = signs[which]
        background = rng.uniform(size=m) < noise
        xy[background] = rng.uniform([0, 0], [width, height], (background.sum(), 2))
        pol[background] = rng.choice([-1.0, 1.0], size=background.sum())
        keep = (
            (xy[:, 0] >= 0) & (xy[:, 0] < width) & (xy[:, 1] >= 0) & (xy[:, 1] < height)
        )
        out = np.vstack([out, np.c_[xy, t, pol][keep]])
    out = out[:n_events]
    return out[np.argsort(out[:, 2], kind="stable")]
