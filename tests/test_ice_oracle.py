"""ICEClassifier against oracles written independently of its search.

Two oracles: (1) brute force over labellings: list every labelling of the
distinct points in order of cost and return the first that a linear program
(HiGHS) proves strictly separable; (2) the big-M mixed-integer program of the
0-1 loss, solved to proven optimality by HiGHS (``scipy.optimize.milp``).
Neither shares code with the pencil sweep, and both treat ties exactly.
Each test runs the sweep alone and HiGHS's MILP alone (``solver``), so the
portfolio's answer is checked whichever method proves first.
"""

import itertools

import numpy as np
import pytest
from _separability import strictly_separable
from sklearn.preprocessing import PolynomialFeatures

from sklearn_iclr.linear_model import ICEClassifier
from sklearn_iclr.testing.oracles import milp_01_loss


def brute_force_01_loss(X, y, weight):
    """Least weighted 0-1 loss over all labellings of the distinct rows."""
    locations, inverse = np.unique(X, axis=0, return_inverse=True)
    signed = np.where(y == y.max(), 1.0, -1.0)
    positive = np.bincount(inverse, weights=weight * (signed > 0))
    negative = np.bincount(inverse, weights=weight * (signed < 0))
    options = []
    for bits in itertools.product((-1.0, 1.0), repeat=len(locations)):
        labels = np.array(bits)
        options.append((np.sum(np.where(labels > 0, negative, positive)), bits))
    for cost, bits in sorted(options):
        if strictly_separable(locations, np.array(bits)):
            return cost
    raise AssertionError("no separable labelling: impossible")


def _proven_loss(X, y, weight=None, **params):
    result = milp_01_loss(X, y, weight, **params)
    assert result.proven, "HiGHS did not prove optimality"
    return result.loss


def _random_case(seed, n, d, kind):
    rng = np.random.default_rng(seed)
    if kind == "grid":
        X = rng.integers(0, 4, size=(n, d)).astype(float)
    else:
        X = rng.standard_normal((n, d))
    y = (X @ rng.standard_normal(d) + 0.8 * rng.standard_normal(n) > 0).astype(int)
    if len(np.unique(y)) < 2:
        y[0] = 1 - y[0]
    return X, y


SOLVERS = pytest.mark.parametrize("solver", ["sweep", "milp"])


def assert_proved_by(clf, solver):
    """The method asked for proved the optimum, unless no search was needed
    (separable or trivial data: no method ran)."""
    report = clf.portfolio_
    if report["proved_by"] is None:
        assert report["sweep_seconds"] is None and report["milp_seconds"] is None
    else:
        assert report["proved_by"] == solver


@SOLVERS
@pytest.mark.parametrize("seed", range(12))
def test_matches_brute_force_over_labellings(seed, solver):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(5, 10)), int(rng.integers(1, 4))
    X, y = _random_case(seed, n, d, "grid" if seed % 2 else "normal")
    weight = rng.integers(1, 4, n).astype(float) if seed % 3 == 0 else np.ones(n)
    clf = ICEClassifier(solver=solver).fit(X, y, sample_weight=weight)
    assert clf.optimal_
    assert_proved_by(clf, solver)
    assert clf.weighted_error_ == brute_force_01_loss(X, y, weight)


@SOLVERS
def test_collinear_tie_is_not_free(solver):
    # Three collinear points labelled +, -, + and two off the line: the
    # "on-plane points are free" count gives 0, the true optimum is 1.
    X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0], [1.0, -1.0]])
    y = np.array([1, 0, 1, 0, 1])
    clf = ICEClassifier(solver=solver).fit(X, y)
    assert clf.weighted_error_ == brute_force_01_loss(X, y, np.ones(5)) == 1


@SOLVERS
@pytest.mark.parametrize(
    "seed, n, d, kind",
    [
        (0, 60, 2, "normal"),
        (1, 60, 2, "grid"),
        (2, 40, 3, "normal"),
        (3, 50, 3, "grid"),
        (4, 30, 3, "normal"),
        (7, 45, 3, "grid"),
        (8, 60, 1, "grid"),
        (9, 55, 2, "grid"),
    ],
)
def test_matches_highs_milp(seed, n, d, kind, solver):
    X, y = _random_case(seed, n, d, kind)
    weight = np.random.default_rng(seed).integers(1, 4, n).astype(float)
    weight = weight if seed % 2 else np.ones(n)
    clf = ICEClassifier(search="exact", solver=solver).fit(X, y, sample_weight=weight)
    assert_proved_by(clf, solver)
    assert clf.weighted_error_ == pytest.approx(_proven_loss(X, y, weight), abs=1e-6)


@SOLVERS
@pytest.mark.parametrize("seed, kind", [(5, "normal"), (6, "grid")])
def test_degree_two_matches_highs_milp(seed, kind, solver):
    rng = np.random.default_rng(seed)
    n = 24
    if kind == "grid":
        X = rng.integers(-2, 3, size=(n, 2)).astype(float)
    else:
        X = rng.standard_normal((n, 2))
    radius = np.sum(X**2, axis=1)
    y = (radius + 0.8 * rng.standard_normal(n) > np.median(radius)).astype(int)
    # (the MILP runs on the five monomials, as the sweep does)
    clf = ICEClassifier(degree=2, search="exact", solver=solver).fit(X, y)
    assert_proved_by(clf, solver)
    embedded = PolynomialFeatures(2, include_bias=False).fit_transform(X)
    assert clf.weighted_error_ == pytest.approx(_proven_loss(embedded, y))


@SOLVERS
@pytest.mark.parametrize("seed", [70, 71, 74, 77])
def test_higher_dimensional_grid_matches_highs_milp(seed, solver):
    # 4 and 5 features on {0, 1, 2}: planes through many points, recursion
    # two levels deep, and pencils with extra points on their own flat.
    rng = np.random.default_rng(seed)
    d = int(rng.integers(4, 6))
    n = 28 if d == 4 else 22
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    y = (X.sum(1) + 3 * rng.standard_normal(n) > np.median(X.sum(1))).astype(int)
    clf = ICEClassifier(search="exact", solver=solver).fit(X, y)
    assert clf.weighted_error_ == pytest.approx(_proven_loss(X, y, box=1e4))
