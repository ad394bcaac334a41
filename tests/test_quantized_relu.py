"""Tests of QuantizedReLUClassifier: oracles, properties, the paper, bad input."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.datasets import load_iris

from sklearn_iclr.neural_network import QuantizedReLUClassifier
from sklearn_iclr.neural_network._quantized_relu_milp import quantized_relu_milp
from sklearn_iclr.testing.oracles import (
    distinct_input_counts,
    planted_quantized_network,
)


def z_domain(d):
    return np.arange(-((d - 1) // 2), d // 2 + 1)


def brute_force_errors(X, y, d, width, n_classes):
    """Minimum errors over every weight and bias vector, written literally."""
    values = z_domain(d)
    top = values.max()
    a = X.shape[1]
    n_params = (a + 1) * width + width + 1 if width else a + 1
    grid = np.array(list(itertools.product(values, repeat=n_params)))
    if width:
        W = grid[:, : a * width].reshape(-1, width, a)
        B = grid[:, a * width : a * width + width]
        V = grid[:, a * width + width : a * width + 2 * width]
        c = grid[:, -1]
        H = np.clip(np.einsum("nwa,pa->npw", W, X) - B[:, None, :], 0, top)
        out = np.clip(np.einsum("npw,nw->np", H, V) - c[:, None], 0, n_classes - 1)
    else:
        out = np.clip(X @ grid[:, :a].T - grid[:, a], 0, n_classes - 1).T
    return int((out != y[None, :]).sum(axis=1).min())


# -- oracles ----------------------------------------------------------------

TINY = [
    (seed, d, alpha, width)
    for seed, (d, alpha, width) in enumerate(
        list(itertools.product([2, 3, 4], [1, 2], [0, 1, 2])) * 2
    )
    if not (d == 4 and alpha == 2 and width == 2)  # 4^9 networks: too slow
]


@pytest.mark.parametrize("seed, d, alpha, width", TINY)
def test_equals_brute_force_on_tiny_cases(seed, d, alpha, width):
    # Few values and few rows: repeated inputs with conflicting labels and
    # many tied optima are the rule here.
    rng = np.random.default_rng(seed)
    n_classes = 3 if (d == 4 and seed % 2) else 2
    n = int(rng.integers(4, 14))
    X = rng.choice(z_domain(d), size=(n, alpha))
    y = rng.integers(0, n_classes, n)
    y[:n_classes] = np.arange(n_classes)
    widths = (width,) if width else ()
    est = QuantizedReLUClassifier(
        domain_size=d, hidden_layer_sizes=widths, quantization=None
    ).fit(X, y)
    assert est.n_errors_ == brute_force_errors(X, y, d, width, n_classes)
    assert est.optimal_ and est.lower_bound_ == est.n_errors_
    assert np.sum(est.predict(X) != y) == est.n_errors_


def test_tiny_cases_cover_ties_and_conflicts():
    assert len(TINY) >= 30
    conflicts = 0
    for seed, d, alpha, _ in TINY:
        rng = np.random.default_rng(seed)
        n_classes = 3 if (d == 4 and seed % 2) else 2
        n = int(rng.integers(4, 14))
        X = rng.choice(z_domain(d), size=(n, alpha))
        y = rng.integers(0, n_classes, n)
        y[:n_classes] = np.arange(n_classes)
        inputs, counts = distinct_input_counts(X, y, n_classes)
        conflicts += np.any((counts > 0).sum(axis=1) > 1)
    assert conflicts >= 10


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_equals_milp_optimum_on_mid_size_cases(seed):
    rng = np.random.default_rng(100 + seed)
    X, y = planted_quantized_network(40, 3, noise=0.2, random_state=rng)
    est = QuantizedReLUClassifier(quantization=None).fit(X, y)
    milp = quantized_relu_milp(*distinct_input_counts(X, y, 2), 3, (2,))
    assert milp["optimal"]
    assert est.optimal_
    assert est.n_errors_ == milp["errors"]


# -- the paper ---------------------------------------------------------------


def test_planted_networks_are_recovered_with_zero_error():
    # alpha = 3, width 2, d = 3: an exact trainer reaches zero training error
    # on data labelled by any network of the class, 20 times out of 20.
    rng = np.random.default_rng(0)
    for _ in range(20):
        X, y = planted_quantized_network(200, 3, random_state=rng)
        est = QuantizedReLUClassifier(quantization=None).fit(X, y)
        assert est.n_errors_ == 0 and est.optimal_
        assert np.all(est.predict(X) == y)


def test_cost_is_set_by_the_distinct_inputs_not_by_n():
    rng = np.random.default_rng(1)
    X, y = planted_quantized_network(20_000, 3, noise=0.1, random_state=rng)
    small = QuantizedReLUClassifier(quantization=None).fit(X[:2000], y[:2000])
    large = QuantizedReLUClassifier(quantization=None).fit(X, y)
    assert small.n_distinct_inputs_ == large.n_distinct_inputs_ == 27
    assert small.n_patterns_ == large.n_patterns_
    assert large.optimal_


# -- properties ----------------------------------------------------------------


@st.composite
def small_problems(draw):
    d = draw(st.sampled_from([2, 3]))
    alpha = draw(st.integers(1, 3))
    n = draw(st.integers(2, 25))
    values = z_domain(d).tolist()
    X = np.array(
        draw(st.lists(st.sampled_from(values), min_size=n * alpha, max_size=n * alpha))
    ).reshape(n, alpha)
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[-1] = 0, 1
    return d, X, y


@settings(max_examples=30, deadline=None)
@given(small_problems(), st.randoms(use_true_random=False))
def test_invariants(problem, rnd):
    d, X, y = problem
    est = QuantizedReLUClassifier(domain_size=d, quantization=None, random_state=0)
    fitted = clone(est).fit(X, y)
    n_errors = fitted.n_errors_
    # The reported error is the error of the returned network.
    assert np.sum(fitted.predict(X) != y) == n_errors
    # Row order does not change the optimum.
    order = np.array(rnd.sample(range(len(y)), len(y)))
    assert clone(est).fit(X[order], y[order]).n_errors_ == n_errors
    # Repeating every row doubles it; integer weights act as repetitions.
    assert clone(est).fit(np.vstack([X, X]), np.r_[y, y]).n_errors_ == 2 * n_errors
    weights = np.array([rnd.randint(0, 3) for _ in y], dtype=float)
    weights[[0, -1]] = 1
    rows = np.repeat(np.arange(len(y)), weights.astype(int))
    weighted = clone(est).fit(X, y, sample_weight=weights)
    assert weighted.weighted_error_ == clone(est).fit(X[rows], y[rows]).n_errors_
    assert isinstance(weighted.n_errors_, int)
    wrong = weighted.predict(X) != y
    assert weighted.n_errors_ == np.sum(wrong[weights > 0])
    # A wider hidden layer never does worse (a unit can be switched off).
    wider = clone(est).set_params(hidden_layer_sizes=(3,)).fit(X, y)
    assert wider.n_errors_ <= n_errors
    # The conflict bound: rows that share an input with another label.
    inputs, counts = distinct_input_counts(X, y, 2)
    assert n_errors >= counts.sum() - counts.max(axis=1).sum()


def test_parallel_search_finds_the_same_optimum():
    rng = np.random.default_rng(3)
    X, y = planted_quantized_network(120, 3, noise=0.2, random_state=rng)
    serial = QuantizedReLUClassifier(quantization=None).fit(X, y)
    parallel = QuantizedReLUClassifier(quantization=None, n_jobs=2).fit(X, y)
    assert serial.optimal_ and parallel.optimal_
    assert serial.n_errors_ == parallel.n_errors_


def test_time_limit_returns_best_found_and_a_valid_lower_bound():
    rng = np.random.default_rng(4)
    X, y = planted_quantized_network(300, 5, width=3, noise=0.3, random_state=rng)
    exact = QuantizedReLUClassifier(quantization=None, random_state=0).fit(X, y)
    stopped = QuantizedReLUClassifier(
        quantization=None, time_limit=1e-3, random_state=0
    ).fit(X, y)
    assert stopped.lower_bound_ <= exact.n_errors_ <= stopped.n_errors_
    assert np.sum(stopped.predict(X) != y) == stopped.n_errors_
    assert stopped.optimal_ == (stopped.lower_bound_ == stopped.n_errors_)
    # The exact search needs about 9e5 nodes; the first clock check comes
    # after one chunk of 2e5, long past 1 ms.
    assert not stopped.optimal_ and stopped.n_nodes_ < exact.n_nodes_


def test_max_errors_stops_at_a_network_within_the_bound():
    rng = np.random.default_rng(5)
    X, y = planted_quantized_network(200, 4, noise=0.2, random_state=rng)
    exact = QuantizedReLUClassifier(quantization=None, random_state=0).fit(X, y)
    loose = QuantizedReLUClassifier(
        quantization=None, max_errors=len(y) / 2, random_state=0
    )
    loose.fit(X, y)
    assert loose.n_errors_ <= len(y) / 2
    assert loose.lower_bound_ <= exact.n_errors_ <= loose.n_errors_
    assert loose.n_nodes_ < exact.n_nodes_
    with pytest.warns(UserWarning, match="No network has at most max_errors=0"):
        QuantizedReLUClassifier(quantization=None, max_errors=0).fit(X, y)


def test_weighted_fit_counts_errors_and_reports_the_weighted_optimum():
    # n_errors_ was the weighted optimum (a float) under sample_weight; it is
    # the count of misclassified samples, and weighted_error_ the optimum.
    rng = np.random.default_rng(11)
    X, y = planted_quantized_network(60, 2, noise=0.3, random_state=rng)
    weight = rng.uniform(0.5, 2.0, len(y))
    weight[:5] = 0.0  # absent samples: neither counted nor weighed
    est = QuantizedReLUClassifier(quantization=None).fit(X, y, sample_weight=weight)
    wrong = est.predict(X) != y
    assert est.optimal_
    assert isinstance(est.n_errors_, int) and est.n_errors_ == np.sum(wrong[5:])
    assert est.weighted_error_ == pytest.approx(weight[wrong].sum())
    assert est.lower_bound_ == pytest.approx(est.weighted_error_)
    unweighted = QuantizedReLUClassifier(quantization=None).fit(X, y)
    assert not hasattr(unweighted, "weighted_error_")


def test_uniform_quantization_on_iris():
    X, y = load_iris(return_X_y=True)
    X, y = X[:, 2:], (y == 2).astype(int)  # petal sizes, virginica or not
    est = QuantizedReLUClassifier().fit(X, y)
    assert est.quantization_ == "uniform"
    assert est.n_distinct_inputs_ <= 9
    assert est.optimal_ and est.score(X, y) > 0.9
    assert np.sum(est.predict(X) != y) == est.n_errors_


def test_auto_keeps_integer_inputs_in_the_domain():
    X = np.array([[-1, 0], [1, 1], [0, -1], [1, -1]])
    y = np.array([0, 1, 0, 1])
    est = QuantizedReLUClassifier().fit(X, y)
    assert est.quantization_ is None and est.data_min_ is None
    assert est.n_errors_ == 0


def test_three_classes_with_domain_size_5():
    rng = np.random.default_rng(6)
    X = rng.integers(-2, 3, size=(100, 2))
    y = np.clip(X.sum(axis=1), 0, 2)
    est = QuantizedReLUClassifier(domain_size=5, quantization=None).fit(X, y)
    assert est.n_errors_ == 0
    assert list(est.classes_) == [0, 1, 2]


# -- bad input ---------------------------------------------------------------


def test_values_outside_the_domain_are_refused():
    X = np.array([[0, 1], [2, 0], [1, 1]])
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError, match=r"integers in Z_d = \{-1, \.\.\., 1\}"):
        QuantizedReLUClassifier(quantization=None).fit(X, y)
    with pytest.raises(ValueError, match="not all integers"):
        QuantizedReLUClassifier(quantization=None).fit(X * 0.5, y)
    est = QuantizedReLUClassifier(quantization=None).fit(np.clip(X, -1, 1), y)
    with pytest.raises(ValueError, match="fitted on integer inputs"):
        est.predict(X)


def test_unsupported_targets_and_architectures_are_refused():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    with pytest.raises(ValueError, match="Raise domain_size to 4"):
        QuantizedReLUClassifier().fit(X, [0, 1, 2, 0])
    with pytest.raises(ValueError, match="y should be a 1d array"):
        QuantizedReLUClassifier().fit(X, np.array([[0, 1], [1, 0], [0, 0], [1, 1]]))
    with pytest.raises(ValueError, match="deeper networks are not supported"):
        QuantizedReLUClassifier(hidden_layer_sizes=(2, 2)).fit(X, [0, 1, 1, 0])
    with pytest.raises(ValueError, match="Unknown label type"):
        QuantizedReLUClassifier().fit(X, [0.5, 1.5, 1.0, 0.1])


def test_too_large_searches_are_refused_up_front_with_an_estimate():
    rng = np.random.default_rng(7)
    X = rng.integers(-1, 2, size=(500, 16))
    y = rng.integers(0, 2, 500)
    with pytest.raises(ValueError) as info:
        QuantizedReLUClassifier(quantization=None).fit(X, y)
    message = str(info.value)
    assert "500 distinct inputs" in message and "max_candidates=1e+10" in message
    assert "about" in message and "1.29e+08 weight vectors" in message
    # Within max_candidates but beyond the memory of the pattern table.
    with pytest.raises(ValueError, match="7.97e.08 entries .* GB"):
        QuantizedReLUClassifier(quantization=None).fit(X[:, :12], y)
    # The table fits but the worst-case search does not: the count of
    # patterns and distinct inputs is given, and time_limit is suggested.
    # The table fits but the worst-case search does not, and a probe of about
    # a second does not finish (random labels prune badly): refused with the
    # count of patterns and distinct inputs, and time_limit is suggested.
    X = rng.integers(-1, 2, size=(500, 6))
    with pytest.raises(ValueError, match=r"distinct inputs; a probe.*about .*time_"):
        QuantizedReLUClassifier(
            quantization=None, hidden_layer_sizes=(4,), max_candidates=10**8
        ).fit(X, y)


def test_a_search_no_probe_can_vouch_for_is_refused_before_the_table(monkeypatch):
    # 200 random rows of 12 real features: 3^13 = 1.6e6 weight vectors. The
    # fit built their 3e8-entry pattern table (30 s) before the probe refused
    # the search ("212 days"); the count of weight vectors is enough.
    from sklearn_iclr.neural_network import _quantized_relu

    def fail(*args):
        raise AssertionError("the pattern table was built")

    monkeypatch.setattr(_quantized_relu, "_weight_vectors", fail)
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((200, 12)), rng.integers(0, 2, 200)
    with pytest.raises(
        ValueError, match=r"up to 1.59e\+06 hidden-unit patterns.*time_"
    ):
        QuantizedReLUClassifier().fit(X, y)
    # With a time limit there is no search budget: the table is built.
    with pytest.raises(AssertionError, match="table was built"):
        QuantizedReLUClassifier(time_limit=1.0).fit(X, y)


def test_a_loose_worst_case_is_not_refused_when_the_probe_finishes():
    rng = np.random.default_rng(10)
    X, y = planted_quantized_network(2000, 4, noise=0.25, random_state=rng)
    # Worst case 45 output layers x C(237, 4) multisets x 81 inputs > 1e10.
    est = QuantizedReLUClassifier(quantization=None, hidden_layer_sizes=(4,))
    est.fit(X, y)
    assert est.optimal_
    assert (
        est.n_errors_ <= QuantizedReLUClassifier(quantization=None).fit(X, y).n_errors_
    )


@pytest.mark.parametrize("factor", [1e-3, 1e3, 1e150, 1e-300])
def test_uniform_quantization_is_scale_equivariant(factor):
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    base = QuantizedReLUClassifier(random_state=0).fit(X, y)
    scaled = QuantizedReLUClassifier(random_state=0).fit(X * factor, y)
    assert scaled.n_errors_ == base.n_errors_
    np.testing.assert_array_equal(scaled.predict(X * factor), base.predict(X))


def test_constant_column_maps_to_zero():
    rng = np.random.default_rng(9)
    X = np.c_[rng.normal(size=60), np.full(60, 7.5)]
    y = (X[:, 0] > 0).astype(int)
    est = QuantizedReLUClassifier().fit(X, y)
    assert np.all(est._quantize(X)[:, 1] == 0)
    # An input that is always 0 contributes nothing: same optimum without it.
    assert est.n_errors_ == QuantizedReLUClassifier().fit(X[:, :1], y).n_errors_


def test_huge_magnitudes_do_not_overflow():
    X = np.array([[-1e308, 1.0], [1e308, 2.0], [0.0, 3.0], [5e307, 4.0]])
    y = np.array([0, 1, 0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        est = QuantizedReLUClassifier().fit(X, y)
    assert est.n_errors_ == 0


def test_default_constructor_on_many_real_features_is_refused_at_once():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)  # 30 features
    with pytest.raises(ValueError, match=r"3\^31|weight vectors.*fewer features"):
        QuantizedReLUClassifier().fit(X, y)
