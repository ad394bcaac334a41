"""
=====================================================
Checking your own estimator with ``check_invariants``
=====================================================

:func:`sklearn_iclr.testing.check_invariants` checks, on examples that
hypothesis draws, what an estimator promises under transformations of its
training data: outputs that follow the units of ``X`` and ``y`` from about
1e-300 to 1e300 (or a clear error), the same model whatever the row order,
the same model on a refit, clone and pickle, budgets refused before any work,
and no NaN. The estimators of sklearn_iclr declare their promises in a
registry; an estimator of your own declares them with
:class:`~sklearn_iclr.testing.Invariants`.

Here a user writes a small shrinkage regressor with a plausible default, a
penalty ``alpha = 1`` added to ``X^T X``. The checker finds that the default
makes the model depend on the units of ``X``: the same data in millimetres
instead of metres give other predictions. Putting the penalty on the
standardized features fixes it, and the check passes.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.datasets import make_regression
from sklearn.utils.validation import check_is_fitted, validate_data

from sklearn_iclr.testing import FitData, Invariants, check_invariants


class ShrunkLinearRegression(RegressorMixin, BaseEstimator):
    """Least squares with a ridge penalty ``alpha``.

    ``standardize=False`` adds ``alpha`` to ``X^T X`` as it is, so ``alpha``
    is in the units of ``X`` squared; ``standardize=True`` adds it to the
    Gram matrix of the features divided by their root mean square.
    """

    def __init__(self, alpha=1.0, standardize=False):
        self.alpha = alpha
        self.standardize = standardize

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.x_mean_, self.y_mean_ = X.mean(axis=0), y.mean()
        Xc = X - self.x_mean_
        # The largest entry first, so that the squares neither overflow nor
        # underflow at any magnitude.
        peak = np.abs(Xc).max(axis=0)
        peak[peak == 0] = 1.0
        rms = peak * np.sqrt(np.mean((Xc / peak) ** 2, axis=0))
        self.x_scale_ = rms if self.standardize else np.ones(X.shape[1])
        Z = Xc / self.x_scale_
        gram = Z.T @ Z + self.alpha * np.eye(X.shape[1])
        self.coef_ = np.linalg.solve(gram, Z.T @ (y - self.y_mean_)) / self.x_scale_
        return self

    def predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False)
        return (X - self.x_mean_) @ self.coef_ + self.y_mean_


# %%
# Declare what the estimator promises: its predictions are in the units of
# ``y`` (degree 1) and do not depend on the units of ``X`` (degree 0). The
# data factory gives a small problem for each seed.


def data(random_state):
    X, y = make_regression(30, 3, noise=5.0, random_state=random_state)
    return FitData(X, y)


promises = Invariants(data=data, scale={"predict": (0, 1)}, rtol=1e-6)

# %%
# The default is checked: the checker reports the broken promise and the
# example that broke it.
try:
    check_invariants(ShrunkLinearRegression(), invariants=promises)
except AssertionError as error:
    print(str(error)[:400])

# %%
# With the penalty on standardized features, every promise holds.
check_invariants(ShrunkLinearRegression(standardize=True), invariants=promises)
print("ShrunkLinearRegression(standardize=True) keeps its invariants")

# %%
# What the bug does: the predictions of each model fitted on ``X * 2**k``,
# against those of the fit in the original units.
problem = data(0)
exponents = np.arange(-20, 21, 2)
fig, ax = plt.subplots(figsize=(6, 3.5))
for standardize in (False, True):
    reference = (
        ShrunkLinearRegression(standardize=standardize)
        .fit(problem.X, problem.y)
        .predict(problem.X)
    )
    change = []
    for k in exponents:
        X = problem.X * 2.0**k
        model = ShrunkLinearRegression(standardize=standardize).fit(X, problem.y)
        change.append(np.abs(model.predict(X) - reference).max() / np.ptp(problem.y))
    ax.semilogy(
        exponents,
        np.maximum(change, 1e-17),
        "o-",
        label=f"standardize={standardize}",
    )
ax.set_xlabel("k: X in units 2**k times smaller")
ax.set_ylabel("largest change of a prediction\n(fraction of the range of y)")
ax.set_title("A penalty in the units of X changes the model with them")
ax.legend()
fig.tight_layout()
plt.show()
