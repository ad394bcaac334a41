"""Anchor of the rl family, for tests and benchmarks only: fitted-Q evaluation.

Fitted-Q evaluation by iterated ridge regression, the method
:class:`LSTDQEvaluator` is compared with. Not part of the public API
(docs/conventions.rst).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.utils.validation import check_array, check_consistent_length

from ..utils._compat import Interval, validate_params


@validate_params(
    {
        "X": ["array-like"],
        "y": ["array-like"],
        "X_next": ["array-like"],
        "X_init": ["array-like"],
        "gamma": [Interval(Real, 0, 1, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "n_iter": [Interval(Integral, 1, None, closed="left")],
    },
    prefer_skip_nested_validation=True,
)
def fitted_q_evaluation(X, y, X_next, X_init, *, gamma=0.9, alpha=1.0, n_iter=100):
    """Policy value by fitted-Q evaluation (FQE) with a linear ridge model.

    Starting from ``theta_0 = 0``, each iteration regresses the Bellman
    targets ``y + gamma X_next theta_k`` on ``X`` with
    :class:`~sklearn.linear_model.Ridge` (no intercept). When the iteration
    converges, its fixed point solves
    ``(X^T X + alpha I - gamma X^T X_next) theta = X^T y``, the ridge LSTDQ
    solution of :class:`~sklearn_iclr.rl.LSTDQEvaluator` with the same
    ``alpha``; after ``n_iter`` steps it carries a truncation bias of order
    ``gamma^n_iter``, and off-policy it may diverge.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Features ``phi(s_i, a_i)``.
    y : array-like of shape (n_samples,)
        Rewards.
    X_next : array-like of shape (n_samples, n_features)
        Next features under the target policy.
    X_init : array-like of shape (n_init, n_features)
        Initial features under the target policy.
    gamma : float, default=0.9
        Discount factor in [0, 1) (the default of the evaluator and of the
        MDP generators).
    alpha : float, default=1.0
        Ridge penalty of every regression.
    n_iter : int, default=100
        Number of regressions.

    Returns
    -------
    value : float
        ``mean(X_init) @ theta_n_iter``, the estimated policy value.
    coef : ndarray of shape (n_features,)
        The last ``theta``.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_tabular_mdp
    >>> from sklearn_iclr.rl._baselines import fitted_q_evaluation
    >>> X, y, X_next, X_init, value, gamma = make_tabular_mdp(
    ...     5000, n_states=3, gamma=0.5, random_state=0)
    >>> J, coef = fitted_q_evaluation(X, y, X_next, X_init, gamma=gamma, n_iter=30)
    >>> print(f"true {value:.2f}, FQE {J:.2f}")
    true 1.61, FQE 1.60
    """
    X = check_array(X, dtype=np.float64)
    X_next = check_array(X_next, dtype=np.float64, input_name="X_next")
    X_init = check_array(X_init, dtype=np.float64, input_name="X_init")
    y = check_array(y, dtype=np.float64, ensure_2d=False, input_name="y")
    check_consistent_length(X, y, X_next)
    if X_next.shape != X.shape or X_init.shape[1] != X.shape[1]:
        raise ValueError(
            f"X {X.shape}, X_next {X_next.shape} and X_init {X_init.shape} must "
            "have the same number of features (and X_next the shape of X)."
        )
    ridge = Ridge(alpha=alpha, fit_intercept=False)
    theta = np.zeros(X.shape[1])
    for _ in range(n_iter):
        theta = ridge.fit(X, y + gamma * (X_next @ theta)).coef_
    return float(X_init.mean(axis=0) @ theta), theta
