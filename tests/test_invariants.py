"""check_invariants over every estimator, and checks of the checker itself.

Every estimator that ``all_estimators()`` finds declares its invariants in
``sklearn_iclr/testing/_registry.py``; ``test_estimator_keeps_its_invariants``
runs ``check_invariants`` on it. This replaces the per-file copies of the
scale-equivariance, determinism, pickle and budget tests.
"""

import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import make_regression
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn_iclr.testing import (
    FitData,
    Invariants,
    check_invariants,
    declared_invariants,
)
from sklearn_iclr.utils import all_estimators, check_work_budget

ESTIMATORS = all_estimators()
# Invariants that check_invariants finds broken, for the estimators' owners to
# fix (#39 section 3). Not strict: whether hypothesis draws a breaking scale
# depends on its version and profile (at the declared floors it did not find
# SparseTokenAttention's), so a pass does not prove the fix.
KNOWN_BREAKS = {
    "LevenbergMarquardtMLPRegressor": "predictions of order 1e282 after a fit on "
    "y * 2**-996, no error",
    "ReplicableLinearRegressor": "basis='scaled' is documented units-equivariant, "
    "but predictions move with the units of X and y",
    "SparseTokenAttentionClassifier": "probabilities collapse to 1/2 at X * 2**97 "
    "with beta, alpha and learning_rate in the same units",
}


@pytest.mark.parametrize(
    "name, Estimator",
    [
        pytest.param(
            name,
            Estimator,
            id=name,
            marks=[
                pytest.mark.xfail(
                    raises=AssertionError, strict=False, reason=KNOWN_BREAKS[name]
                )
            ]
            if name in KNOWN_BREAKS
            else [],
        )
        for name, Estimator in ESTIMATORS
    ],
)
def test_estimator_keeps_its_invariants(name, Estimator):
    declaration = declared_invariants(Estimator)
    check_invariants(Estimator(**declaration.params))


@pytest.mark.parametrize("name, Estimator", ESTIMATORS, ids=[n for n, _ in ESTIMATORS])
def test_every_invariant_not_promised_has_a_reason(name, Estimator):
    for invariant, reason in declared_invariants(Estimator).reasons().items():
        assert len(reason.split()) >= 4, (name, invariant, reason)


def test_estimators_with_a_budget_parameter_declare_it():
    for name, Estimator in ESTIMATORS:
        declared = declared_invariants(Estimator).budget
        if "max_work" in Estimator().get_params():
            assert declared[0] == "max_work", name


# -- the checker finds what it should ----------------------------------------


def _regression(random_state):
    X, y = make_regression(40, 3, noise=1.0, random_state=random_state)
    return FitData(X, y)


class _Ridge(RegressorMixin, BaseEstimator):
    """Ridge regression; ``standardize=False`` puts its penalty in X's units."""

    def __init__(self, alpha=1.0, standardize=True, max_work=3600.0, late=False):
        self.alpha = alpha
        self.standardize = standardize
        self.max_work = max_work
        self.late = late

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        if not self.late:
            check_work_budget({"multiply_add": X.size * X.shape[1]}, self.max_work)
        scale = np.abs(X).max(axis=0)
        self.x_scale_ = scale if self.standardize else np.ones_like(scale)
        Z = X / self.x_scale_
        self.x_mean_, self.y_mean_ = Z.mean(axis=0), y.mean()
        Z = Z - self.x_mean_
        gram = Z.T @ Z + self.alpha * np.eye(X.shape[1])
        self.coef_ = np.linalg.solve(gram, Z.T @ (y - self.y_mean_))
        if self.late:  # after a work buffer of 8 MiB
            self.buffer_ = np.zeros(2**20)
            check_work_budget({"multiply_add": X.size * X.shape[1]}, self.max_work)
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return (X / self.x_scale_ - self.x_mean_) @ self.coef_ + self.y_mean_


class _NoisyRidge(_Ridge):
    """Adds fresh noise to its coefficients: not deterministic."""

    def fit(self, X, y):
        super().fit(X, y)
        self.coef_ = self.coef_ + np.random.default_rng().normal(size=self.coef_.shape)
        return self


REGRESSOR = Invariants(data=_regression, scale={"predict": (0, 1)}, rtol=1e-6)


def test_a_scale_dependent_default_is_found():
    with pytest.raises(AssertionError, match=r"scale: .*with X \* 2\*\*"):
        check_invariants(_Ridge(standardize=False), invariants=REGRESSOR)
    check_invariants(_Ridge(), invariants=REGRESSOR)


def test_non_determinism_is_found():
    with pytest.raises(AssertionError, match="deterministic: predict differs"):
        check_invariants(_NoisyRidge(), invariants=REGRESSOR, checks=["deterministic"])


def test_a_budget_checked_after_the_work_is_found():
    budget = Invariants(data=_regression, budget=("max_work", 1e-12))
    check_invariants(_Ridge(), invariants=budget, checks=["budget"])
    with pytest.raises(AssertionError, match=r"allocated 8.* MiB before refusing"):
        check_invariants(_Ridge(late=True), invariants=budget, checks=["budget"])


def test_a_budget_that_does_not_refuse_is_found():
    budget = Invariants(data=_regression, budget=("max_work", 3600.0))
    with pytest.raises(AssertionError, match="did not refuse the fit"):
        check_invariants(_Ridge(), invariants=budget, checks=["budget"])


class _Overflowing(_Ridge):
    """Scales X by its root mean square, whose squares overflow at 1e300."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.rms_ = np.sqrt(np.mean(X**2, axis=0))
        super().fit(X / self.rms_, y)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self)
        return super().predict(np.asarray(X) / self.rms_)


def test_an_overflow_is_found():
    with pytest.raises(AssertionError, match="numpy warning|NaN|infinity"):
        check_invariants(_Overflowing(), invariants=REGRESSOR)


def test_unpromised_checks_are_refused_with_the_reason():
    declaration = Invariants(data=_regression, row_order="rows are time steps")
    with pytest.raises(ValueError, match="rows are time steps"):
        check_invariants(_Ridge(), invariants=declaration, checks=["row_order"])


def test_an_estimator_of_your_own_needs_a_declaration():
    with pytest.raises(ValueError, match="no declared invariants"):
        check_invariants(_Ridge())


def test_without_hypothesis_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "hypothesis", None)
    with pytest.raises(ImportError, match=r"sklearn-iclr\[testing\]"):
        check_invariants(_Ridge(), invariants=REGRESSOR)


def test_importing_the_testing_package_does_not_import_hypothesis():
    import subprocess

    code = (
        "import sys, sklearn_iclr.testing; "
        "assert 'hypothesis' not in sys.modules, 'hypothesis was imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
