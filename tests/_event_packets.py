"""Event packets for the events tests: moving edges, one packet per velocity."""

import numpy as np

from sklearn_iclr.datasets import make_moving_edges

SHAPE = (48, 48)
# Sensor sizes that are not two positive ints (#38).
BAD_SHAPES = [(0, 8), (-3, 8), (8,), (8, 8, 8), (np.nan, 8), ("a", "b"), (8.5, 8)]


def packets(velocities, n_events=8000, seed=0):
    parts = []
    for k, v in enumerate(velocities):
        e = make_moving_edges(n_events, velocity=v, shape=SHAPE, random_state=seed + k)
        parts.append(np.c_[e, np.full(len(e), 10.0 * k)])
    return np.vstack(parts)
