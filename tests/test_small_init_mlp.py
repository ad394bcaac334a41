"""SmallInitMLPRegressor: saddle-to-saddle claim, oracles, properties, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import approx_fprime
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from sklearn_iclr import EscapeDirection, SmallInitMLPRegressor
from sklearn_iclr.neural_network._small_init_mlp import detect_plateaus

FAST = dict(hidden_layer_sizes=(8, 8), init_scale=0.1, learning_rate=0.2)


def rank_2_teacher(n=200, d=10, n_outputs=3, seed=0):
    """Two ReLU units of strengths 2 and 1, orthogonal in and out."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    inputs = np.linalg.qr(rng.standard_normal((d, 2)))[0]
    outputs = np.linalg.qr(rng.standard_normal((n_outputs, 2)))[0]
    Y = np.maximum(X @ inputs, 0) @ np.diag([2.0, 1.0]) @ outputs.T
    return X, Y


@pytest.fixture(scope="module")
def saddle_to_saddle():
    X, Y = rank_2_teacher()
    reg = SmallInitMLPRegressor(
        hidden_layer_sizes=(20, 20, 20),
        init_scale=0.1,
        learning_rate=0.2,
        max_iter=10_000,
        record_every=20,
        random_state=0,
    )
    with warnings.catch_warnings():
        # a fit that leaves the origin does not warn
        warnings.simplefilter("error", ConvergenceWarning)
        reg.fit(X, Y)
    return X, Y, reg


def test_a_fit_stuck_at_the_origin_warns():
    # a dominant constant column: the default network stays at the origin of
    # load_diabetes plus a column of ones for its whole max_iter (it predicted
    # 0 there, held-out R^2 -3.9, without a word); here the same in 3 steps
    X, Y = rank_2_teacher(n=50)
    X = np.c_[X, np.full(len(X), 100.0)]
    reg = SmallInitMLPRegressor(**FAST, max_iter=3, random_state=0)
    with pytest.warns(ConvergenceWarning, match="did not leave the saddle at the"):
        reg.fit(X, Y)
    assert reg.loss_curve_[-1] > 0.99 * reg.loss_curve_[0]


def test_claim_two_plateaus_and_deep_rank_going_1_to_2(saddle_to_saddle):
    # Depth 4 from a small init on a rank-2 teacher: the loss sits at the
    # origin (loss 1/2), escapes to a saddle where the deep layers have rank 1
    # (the strong unit is fitted), then escapes again to rank 2 and ~0 loss.
    X, Y, reg = saddle_to_saddle
    visits = [p for p in reg.plateaus_ if not p["final"]]
    assert len(visits) >= 2, reg.plateaus_
    origin, rank_1_saddle = visits[0], visits[1]
    assert origin["start_iteration"] == 0
    assert origin["loss"] == pytest.approx(0.5, abs=1e-3)
    assert 0.02 < rank_1_saddle["loss"] < 0.3
    assert np.all(rank_1_saddle["effective_ranks"][1:] == 1)
    assert np.all(reg.history_[-1]["effective_ranks"][1:] == 2)
    assert reg.loss_curve_[-1] < 1e-2
    assert reg.score(X, Y) > 0.98


def test_first_escape_reaches_the_escape_speed(saddle_to_saddle):
    # When the first plateau ends, gradient descent has aligned the network
    # with an escape direction: its normalised speed Tr[Y^T f(X)] / prod ||W_l||
    # is close to the best one EscapeDirection finds on the same scaled data,
    # and its deep layers are nearly rank 1.
    from sklearn_iclr.neural_network._bias_free_relu import forward

    X, Y, reg = saddle_to_saddle
    Xs, Ys = X / reg.x_scale_, Y / reg.y_scale_
    best = EscapeDirection(depth=4, width=20, n_restarts=4, max_iter=1000)
    best.set_params(random_state=0).fit(Xs, Ys)
    end = reg.plateaus_[0]["end_iteration"]
    early = clone(reg).set_params(max_iter=end).fit(X, Y)
    norms = np.prod([np.linalg.norm(W) for W in early.coefs_])
    speed = np.sum(Ys * forward(early.coefs_, Xs)[1]) / norms
    assert 0.9 * best.speed_ <= speed <= best.speed_ * (1 + 1e-9)
    ranks = early.history_[-1]["effective_ranks"]
    assert np.all(ranks[1:-1] == 1), ranks  # the hidden-to-hidden layers


def test_oracle_loss_gradient_matches_finite_differences():
    # The first step moves the weights by -lr_0 * grad; compare the loss decrease
    # predicted by the analytic gradient with scipy's finite differences of
    # the loss as a function of the initial weights.
    from sklearn_iclr.neural_network._bias_free_relu import backward, forward

    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((30, 4)), rng.standard_normal((30, 2))
    shapes = [(6, 4), (5, 6), (2, 5)]
    weights = [rng.standard_normal(s) for s in shapes]

    def loss(flat):
        layers, i = [], 0
        for out, inp in shapes:
            layers.append(flat[i : i + out * inp].reshape(out, inp))
            i += out * inp
        return 0.5 * np.sum((forward(layers, X)[1] - Y) ** 2) / len(X)

    hidden, output = forward(weights, X)
    grads = backward(weights, X, hidden, (output - Y) / len(X))
    flat = np.concatenate([W.ravel() for W in weights])
    np.testing.assert_allclose(
        np.concatenate([g.ravel() for g in grads]),
        approx_fprime(flat, loss, 1e-7),
        atol=1e-5,
    )


def test_oracle_plateau_detection_on_a_staircase():
    # A hand-made staircase: flat, drop, flat, drop, flat.
    iterations = np.arange(0, 1000, 10)
    losses = np.where(iterations < 300, 1.0, np.where(iterations < 600, 0.1, 0.01))
    losses = losses * (1 - 1e-6 * iterations)
    ranks = np.ones((len(iterations), 2), dtype=int)
    plateaus = detect_plateaus(iterations, losses, ranks)
    assert [(p["start_iteration"], p["end_iteration"]) for p in plateaus] == [
        (0, 290),
        (300, 590),
        (600, 990),
    ]
    assert [p["final"] for p in plateaus] == [False, False, True]
    # A run that never leaves the origin is one final plateau.
    still = detect_plateaus(iterations, 0.5 * (1 - 1e-9 * iterations), ranks)
    assert [(p["start_iteration"], p["end_iteration"], p["final"]) for p in still] == [
        (0, 990, True)
    ]


# Short fits that need not leave the origin: what they test holds either way.
@pytest.mark.filterwarnings(
    "ignore:The network did not leave:sklearn.exceptions.ConvergenceWarning"
)
@settings(max_examples=10)
@given(
    seed=st.integers(0, 2**16),
    x_exp=st.integers(-300, 150),
    y_exp=st.integers(-300, 150),
)
def test_property_scale_equivariance(seed, x_exp, y_exp):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((25, 3)), rng.standard_normal(25)
    params = dict(FAST, max_iter=50, random_state=0)
    base = SmallInitMLPRegressor(**params).fit(X, y)
    cx, cy = 10.0**x_exp, 10.0**y_exp
    scaled = SmallInitMLPRegressor(**params).fit(X * cx, y * cy)
    np.testing.assert_allclose(scaled.loss_curve_, base.loss_curve_, rtol=1e-9)
    pred = scaled.predict(X * cx)
    assert np.all(np.isfinite(pred))
    np.testing.assert_allclose(pred / cy, base.predict(X), rtol=1e-6, atol=1e-12)


# Short fits that need not leave the origin: what they test holds either way.
@pytest.mark.filterwarnings(
    "ignore:The network did not leave:sklearn.exceptions.ConvergenceWarning"
)
@settings(max_examples=10)
@given(seed=st.integers(0, 2**16), factor=st.floats(1e-3, 1e3))
def test_property_positively_homogeneous(seed, factor):
    rng = np.random.default_rng(seed)
    X, y = rng.standard_normal((25, 3)), rng.standard_normal(25)
    reg = SmallInitMLPRegressor(**FAST, max_iter=50, random_state=0).fit(X, y)
    np.testing.assert_allclose(
        reg.predict(factor * X), factor * reg.predict(X), rtol=1e-9, atol=1e-300
    )


def test_same_random_state_same_fit_and_clone():
    X, Y = rank_2_teacher(n=50)
    reg = SmallInitMLPRegressor(**FAST, max_iter=100, random_state=3)
    a = reg.fit(X, Y).predict(X)
    b = clone(reg).fit(X, Y).predict(X)
    np.testing.assert_array_equal(a, b)
    assert a.shape == Y.shape
    assert reg.fit(X, Y[:, 0]).predict(X).shape == (50,)


# Short fits that need not leave the origin: what they test holds either way.
@pytest.mark.filterwarnings(
    "ignore:The network did not leave:sklearn.exceptions.ConvergenceWarning"
)
def test_history_shapes():
    X, Y = rank_2_teacher(n=50)
    reg = SmallInitMLPRegressor(**FAST, max_iter=95, record_every=10)
    reg.fit(X, Y)
    # one loss per step (it held the start's too: 96 values for 95 steps)
    assert len(reg.loss_curve_) == reg.n_iter_ == 95
    assert [record["iter"] for record in reg.history_] == [*range(0, 100, 10), 95]
    assert reg.history_[0]["loss"] == pytest.approx(0.5, abs=1e-2)
    for record in reg.history_[1:]:
        assert record["loss"] == reg.loss_curve_[record["iter"] - 1]
        assert [v.shape for v in record["singular_values"]] == [(8,), (8,), (3,)]
        assert record["effective_ranks"].shape == (3,)
    assert reg.loss_curve_[0] == pytest.approx(0.5, abs=1e-2)


def test_constant_column_and_tiny_or_huge_inputs():
    X, y = rank_2_teacher(n=40)
    X[:, 2] = 3.0
    y = y[:, 0]
    for scale in (1e-300, 1e-3, 1e3, 1e150):
        reg = SmallInitMLPRegressor(**FAST, max_iter=50, random_state=0)
        pred = reg.fit(X * scale, y * scale).predict(X * scale)
        assert np.all(np.isfinite(pred))
        assert np.all(np.isfinite(reg.loss_curve_))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(hidden_layer_sizes=()), "hidden_layer_sizes"),
        (dict(hidden_layer_sizes=(4, 0)), "hidden_layer_sizes"),
        (dict(hidden_layer_sizes=(2.5,)), "hidden_layer_sizes"),
        (dict(init_scale=0.0), "init_scale"),
        (dict(learning_rate=-1.0), "learning_rate"),
    ],
)
def test_bad_parameters(params, match):
    X, Y = rank_2_teacher(n=20)
    with pytest.raises(ValueError, match=match):
        SmallInitMLPRegressor(**params).fit(X, Y)


def test_bad_data_and_divergence():
    X, Y = rank_2_teacher(n=20)
    reg = SmallInitMLPRegressor(**FAST, max_iter=10)
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        reg.fit(X_nan, Y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        reg.fit(X, Y[:-1])
    big_step = SmallInitMLPRegressor(**dict(FAST, learning_rate=1e6), max_iter=50)
    with pytest.raises(ValueError, match="lower learning_rate"):
        big_step.fit(X, Y)


def _escape_iteration(reg):
    """The first step at which the loss is 10 % below the origin's 1/2."""
    below = np.flatnonzero(np.asarray(reg.loss_curve_) < 0.45)
    return int(below[0]) if len(below) else None


@pytest.mark.parametrize(
    "hidden_layer_sizes, init_scale", [((8, 8, 8, 8, 8), 1e-100), ((8, 8), 1e-300)]
)
def test_tiny_init_scale_escapes(hidden_layer_sizes, init_scale):
    # The step lr_t = lr (L / ||theta||^2)^((L-2)/2) overflowed at depth 6 from
    # init_scale=1e-100 (OverflowError), and ||theta||^2 underflowed to 0 from
    # 1e-300 (ZeroDivisionError); the network's output (1e-600) underflows too.
    X, Y = rank_2_teacher(n=40)
    reg = SmallInitMLPRegressor(
        hidden_layer_sizes=hidden_layer_sizes,
        init_scale=init_scale,
        learning_rate=0.5,
        max_iter=6000,
        random_state=0,
    ).fit(X, Y)
    assert np.all(np.isfinite(reg.loss_curve_))
    assert _escape_iteration(reg) is not None
    assert reg.score(X, Y) > 0.5


def test_claim_escape_time_grows_like_log_of_one_over_init_scale():
    # With the step normalised by ||theta||^(L-2), the norm of the weights
    # grows exponentially during the first plateau at a rate free of the
    # scale, so leaving the origin takes a fixed number of steps per decade
    # of init_scale: the escape step is affine in log10(1 / init_scale).
    # (19 steps a decade here, at 1e-3, 1e-30 and 1e-300; 2 % allows ten of
    # the 510 steps between the first two.)
    X, Y = rank_2_teacher(n=40)
    params = dict(
        hidden_layer_sizes=(8, 8), learning_rate=0.5, max_iter=6000, random_state=0
    )
    escapes = {}
    for exponent in (3, 30, 300):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            reg = SmallInitMLPRegressor(init_scale=10.0**-exponent, **params)
            escapes[exponent] = _escape_iteration(reg.fit(X, Y))
    per_decade = (escapes[30] - escapes[3]) / 27
    assert per_decade > 10
    assert (escapes[300] - escapes[3]) / 297 == pytest.approx(per_decade, rel=0.02)
