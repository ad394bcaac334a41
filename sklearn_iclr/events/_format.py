"""The event-array format shared by the events estimators.

An event array ``X`` is a 2-D float array with one row per event:

* 2 columns ``[x, y]``: one packet of points without time (t = 0, ON);
* 3 columns ``[x, y, t]``: one packet, every event ON;
* 4 columns ``[x, y, t, p]``: one packet;
* 5 columns ``[x, y, t, p, packet_id]``: several packets, told apart by the
  last column (any values; packets are taken in sorted order of their id).

``x`` and ``y`` are pixel coordinates (pixel ``j`` covers ``[j, j + 1)``),
``t`` is a time in any unit, ``p`` is the polarity (``p > 0`` is ON, anything
else OFF, so both {0, 1} and {-1, +1} codings work).
"""

import numbers

import numpy as np

from ..utils import check_count_budget, warn_user

N_COLUMNS = (2, 3, 4, 5)


def check_events(X):
    """Complete the columns to [x, y, t, p]; return (events, packet, ids).

    ``packet`` is the index of each event's packet in ``ids``, the sorted
    packet ids.
    """
    n_columns = X.shape[1]
    if n_columns not in N_COLUMNS:
        raise ValueError(
            "Events must have 2 to 5 columns: [x, y], [x, y, t], [x, y, t, p] "
            f"or [x, y, t, p, packet_id]; got {n_columns} feature(s)."
        )
    events = np.zeros((len(X), 4))
    events[:, 3] = 1.0
    events[:, : min(n_columns, 4)] = X[:, :4]
    if n_columns < 5:
        return events, np.zeros(len(X), dtype=np.intp), np.zeros(1)
    ids, inverse = np.unique(X[:, 4], return_inverse=True)
    return events, inverse.ravel(), ids


def check_shape(shape):
    """``shape`` as a pair of positive Python ints, or a ValueError naming it."""
    valid = len(shape) == 2 and all(
        isinstance(s, numbers.Integral) and not isinstance(s, bool) and s >= 1
        for s in shape
    )
    if not valid:
        raise ValueError(
            "shape must be None or the sensor size (H, W): two positive ints, "
            f"got {shape!r}."
        )
    return tuple(int(s) for s in shape)


def infer_shape(X, shape, max_pixels, n_channels=1):
    """The sensor shape (H, W): given, or one past the largest coordinates."""
    if shape is None:
        height = int(np.floor(max(X[:, 1].max(), 0.0))) + 1
        width = int(np.floor(max(X[:, 0].max(), 0.0))) + 1
        height_width = (height, width)
        if min(height_width) < 2:
            warn_user(
                f"All events fall on a {height} x {width} sensor: x and y are "
                "pixel coordinates. Rescale them or pass shape."
            )
    else:
        height_width = check_shape(shape)
    n_pixels = float(height_width[0]) * float(height_width[1]) * n_channels
    check_count_budget(
        n_pixels,
        max_pixels,
        what="frame pixels per packet",
        work={"frame_pixel": n_pixels},
        parameter="max_pixels",
        advice=(
            "Coordinates are pixels: rescale them, or pass a smaller shape "
            "(events outside it are dropped)."
        ),
    )
    return height_width


def inside_mask(X, shape):
    """Events whose (x, y) lies on the sensor ``[0, W) x [0, H)``."""
    height, width = shape
    return (X[:, 0] >= 0) & (X[:, 0] < width) & (X[:, 1] >= 0) & (X[:, 1] < height)
