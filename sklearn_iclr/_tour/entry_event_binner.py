"""Tour entry: EventFrameBinner + logistic regression on the motion direction."""

from . import TourEntry, grid_search_score

N_PACKETS = 80
N_EVENTS = 300
SHAPE = (24, 24)


def _packets_to_events(rows):
    """Rows of ``N_EVENTS * 4`` numbers -> events with a packet_id column."""
    import numpy as np

    events = rows.reshape(len(rows), N_EVENTS, 4)
    ids = np.repeat(np.arange(len(rows), dtype=float), N_EVENTS)
    return np.c_[events.reshape(-1, 4), ids]


def run():
    """Tune n_time_bins; compare with logistic regression on the raw events.

    One static scene of edges; each sample is a packet of 300 of its events
    moved right, left, up or down at 10 pixels per time unit, and a row holds
    the packet's events flattened. A ``FunctionTransformer`` turns the rows
    into one event array with a packet_id column, so that the binner returns
    one row of frames per packet and ``GridSearchCV`` splits packets, not
    events. The raw-event anchor sees the same numbers in event order.
    """
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    from sklearn_iclr.datasets import make_moving_edges
    from sklearn_iclr.events import EventFrameBinner

    scene = make_moving_edges(
        20_000, velocity=(0.0, 0.0), shape=SHAPE, noise=0.0, random_state=0
    )
    directions = np.array([(10, 0), (-10, 0), (0, 10), (0, -10)], dtype=float)
    rng = np.random.RandomState(0)
    y = rng.randint(4, size=N_PACKETS)
    rows = []
    for k in y:
        events = scene[np.sort(rng.choice(len(scene), N_EVENTS, replace=False))]
        events[:, :2] += directions[k] * events[:, 2:3]
        rows.append(events.ravel())
    data = train_test_split(
        np.stack(rows), y, test_size=0.25, random_state=0, stratify=y
    )
    pipeline = Pipeline(
        [
            ("events", FunctionTransformer(_packets_to_events)),
            ("binner", EventFrameBinner(shape=SHAPE, polarity="split")),
            ("clf", LogisticRegression(max_iter=2000)),
        ]
    )
    anchor = LogisticRegression(max_iter=2000)
    grid = {"binner__n_time_bins": [1, 2, 4]}
    return grid_search_score(pipeline, grid, anchor, data)


ENTRY = TourEntry(
    name="EventFrameBinner",
    dataset="one edge scene, 4 motion directions, 300-event packets",
    metric="accuracy",
    anchor="LogisticRegression on the flattened raw events",
    run=run,
    gain="fixed-size frames from packets of any length (the anchor needs 300 events)",
)
