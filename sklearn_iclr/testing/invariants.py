"""Reusable invariant checks for fitted estimators.

Each check fits fresh clones of the estimator it is given and raises an
``AssertionError`` with a readable message when the invariant fails.
"""

from numbers import Real

import numpy as np
from sklearn.base import clone

from ..utils._compat import HasMethods, Interval, validate_params

__all__ = [
    "assert_label_relabelling_invariant",
    "assert_refit_deterministic",
    "assert_row_permutation_invariant",
]

_TOLERANCE = [Interval(Real, 0, None, closed="left")]


def _output(estimator, X, method):
    return np.asarray(getattr(estimator, method)(X))


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        "y": ["array-like", None],
        "method": [str],
        "permutation": ["array-like", None],
        "rtol": _TOLERANCE,
        "atol": _TOLERANCE,
    },
    prefer_skip_nested_validation=True,
)
def assert_row_permutation_invariant(
    estimator, X, y=None, *, method="predict", permutation=None, rtol=1e-7, atol=1e-9
):
    """Check that shuffling the training rows does not change ``method`` on X.

    Parameters
    ----------
    estimator : estimator
        An unfitted estimator (it is cloned).
    X, y : array-like
        Training data; ``y=None`` for unsupervised estimators.
    method : str, default="predict"
        The method whose output is compared (prefer a continuous score such
        as ``decision_function``: labels of tied points may legitimately flip).
    permutation : ndarray, default=None
        The row order to try; ``None`` reverses the rows.
    rtol, atol : float
        Tolerances of the comparison.

    Returns
    -------
    None
        The check passes silently.

    Raises
    ------
    AssertionError
        If ``method`` gives different outputs after fitting on the permuted rows.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_iclr.testing.invariants import assert_row_permutation_invariant
    >>> X, y = make_classification(n_samples=40, n_features=4, random_state=0)
    >>> assert_row_permutation_invariant(
    ...     LogisticRegression(tol=1e-10), X, y, method="decision_function", rtol=1e-5
    ... )
    """
    X = np.asarray(X)
    perm = np.arange(len(X))[::-1] if permutation is None else np.asarray(permutation)
    args = (X,) if y is None else (X, np.asarray(y))
    args_perm = (X[perm],) if y is None else (X[perm], np.asarray(y)[perm])
    a = _output(clone(estimator).fit(*args), X, method)
    b = _output(clone(estimator).fit(*args_perm), X, method)
    np.testing.assert_allclose(
        a, b, rtol=rtol, atol=atol, err_msg=f"{method} changed with the row order"
    )


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        "y": ["array-like", None],
        "attributes": [tuple, list],
    },
    prefer_skip_nested_validation=True,
)
def assert_refit_deterministic(estimator, X, y=None, *, attributes=("predict",)):
    """Check that two fits of clones (same ``random_state``) agree exactly.

    Parameters
    ----------
    estimator : estimator
        An unfitted estimator; give it an integer ``random_state`` if it has one.
    X, y : array-like
        Training data; ``y=None`` for unsupervised estimators.
    attributes : tuple of str, default=("predict",)
        Fitted attributes (names ending in ``_``) or methods applied to X that
        must be identical between the two fits.

    Returns
    -------
    None
        The check passes silently.

    Raises
    ------
    AssertionError
        If an attribute or method output differs between the two fits.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import SGDClassifier
    >>> from sklearn_iclr.testing.invariants import assert_refit_deterministic
    >>> X, y = make_classification(n_samples=40, n_features=4, random_state=0)
    >>> assert_refit_deterministic(
    ...     SGDClassifier(random_state=0), X, y, attributes=("coef_", "predict")
    ... )
    """
    args = (X,) if y is None else (X, y)
    first, second = clone(estimator).fit(*args), clone(estimator).fit(*args)
    for name in attributes:
        a, b = getattr(first, name), getattr(second, name)
        if callable(a):
            a, b = a(X), b(X)
        np.testing.assert_array_equal(
            np.asarray(a), np.asarray(b), err_msg=f"{name} differs between two fits"
        )


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like"],
        "y": ["array-like"],
        "method": [str],
        "rtol": _TOLERANCE,
        "atol": _TOLERANCE,
    },
    prefer_skip_nested_validation=True,
)
def assert_label_relabelling_invariant(
    estimator, X, y, *, method="decision_function", rtol=1e-7, atol=1e-9
):
    """Check that renaming the classes (ints to strings) leaves scores unchanged.

    The labels ``c`` become the strings ``"class_<c>"``, which sort in the same
    order, so ``classes_`` keep their order and ``method`` must give the same
    numbers.

    Parameters
    ----------
    estimator : estimator
        An unfitted classifier.
    X, y : array-like
        Training data with non-negative integer labels (negative labels are
        refused with a ``ValueError``: their renamed strings would not sort in
        the same order).
    method : str, default="decision_function"
        The score to compare.
    rtol, atol : float
        Tolerances of the comparison.

    Returns
    -------
    None
        The check passes silently.

    Raises
    ------
    ValueError
        If ``y`` holds negative labels.
    AssertionError
        If ``method`` gives different scores once the classes are renamed.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_iclr.testing.invariants import assert_label_relabelling_invariant
    >>> X, y = make_classification(
    ...     n_samples=60, n_features=4, n_informative=3, n_redundant=0,
    ...     n_classes=3, random_state=0,
    ... )
    >>> assert_label_relabelling_invariant(LogisticRegression(), X, y)
    """
    y = np.asarray(y)
    width = len(str(int(np.max(np.abs(y)))))
    classes = np.unique(y)
    names = np.array([f"class_{int(c):0{width}d}" for c in classes])
    if not np.array_equal(np.sort(names), names):
        raise ValueError(
            f"the labels {classes.tolist()} do not keep their order once renamed "
            f"{names.tolist()}; use non-negative integer labels"
        )
    renamed = names[np.searchsorted(classes, y)]
    a = _output(clone(estimator).fit(X, y), X, method)
    b = _output(clone(estimator).fit(X, renamed), X, method)
    np.testing.assert_allclose(
        a, b, rtol=rtol, atol=atol, err_msg=f"{method} changed when classes renamed"
    )
