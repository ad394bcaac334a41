"""What an estimator promises to :func:`check_invariants`, and the data to check it.

An :class:`Invariants` object declares, for one estimator, which invariants its
fit honours and, for each one it does not, the reason (a string where ``True``
would stand). :class:`FitData` is one small training problem that the estimator
accepts. ``sklearn_iclr.testing.declared_invariants`` returns the declaration of
a sklearn_iclr estimator; a user passes a declaration of their own to
``check_invariants``.
"""

from dataclasses import dataclass, field

import numpy as np

# Methods whose outputs check_invariants compares, in this order of preference.
OUTPUT_METHODS = (
    "decision_function",
    "predict_proba",
    "predict",
    "transform",
    "score_samples",
)


@dataclass
class FitData:
    """One training problem: ``estimator.fit(X, y, **fit_params)``.

    Parameters
    ----------
    X : ndarray
        Training input, whose rows are samples.
    y : ndarray or None, default=None
        Target, or ``None`` for an unsupervised fit (``fit(X)``).
    fit_params : dict, default={}
        Further arguments of ``fit``.
    row_params : tuple of str, default=()
        The names in ``fit_params`` aligned with the rows of ``X`` (they are
        permuted with them).
    x_params : tuple of str, default=()
        The names in ``fit_params`` in the units of ``X`` (they are scaled with
        it, as the positive views of a contrastive encoder are).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_iclr.testing import FitData
    >>> data = FitData(np.eye(3), np.array([0, 1, 1]))
    >>> data.n_samples
    3
    """

    X: np.ndarray
    y: np.ndarray | None = None
    fit_params: dict = field(default_factory=dict)
    row_params: tuple = ()
    x_params: tuple = ()

    @property
    def n_samples(self):
        return len(self.X)

    def fit_args(self):
        """Positional arguments of ``fit``: ``(X,)`` or ``(X, y)``."""
        return (self.X,) if self.y is None else (self.X, self.y)

    def permuted(self, order):
        """The same problem with its rows in ``order``."""
        params = dict(self.fit_params)
        for name in self.row_params:
            value = params[name]
            params[name] = (
                [value[i] for i in order]
                if isinstance(value, list)
                else np.asarray(value)[order]
            )
        return FitData(
            np.asarray(self.X)[order],
            None if self.y is None else np.asarray(self.y)[order],
            params,
            self.row_params,
            self.x_params,
        )

    def scaled(self, x_factor, y_factor=1.0):
        """The same problem with ``X`` (and its ``x_params``) times ``x_factor``
        and ``y`` times ``y_factor``."""
        params = dict(self.fit_params)
        for name in self.x_params:
            params[name] = np.asarray(params[name]) * x_factor
        y = None if self.y is None else np.asarray(self.y)
        if y is not None and y_factor != 1.0:
            y = y * y_factor
        return FitData(
            np.asarray(self.X) * x_factor, y, params, self.row_params, self.x_params
        )


@dataclass(frozen=True, kw_only=True)
class Invariants:
    """The invariants an estimator promises, and why it does not promise others.

    Each invariant is declared as ``True`` (promised: :func:`check_invariants`
    checks it) or as a string giving the reason it does not hold (it is then
    skipped, and the reason is part of the estimator's documented contract).

    Parameters
    ----------
    data : callable, default=None
        ``data(random_state) -> FitData``: a small training problem the
        estimator accepts, different for each integer ``random_state``
        (``check_invariants`` may be given the data instead).
    params : dict, default={}
        Constructor parameters for the project's own tests (small budgets
        that keep the checks fast on ``data``).
    scale : dict or str, default="not declared"
        How the outputs move when ``X`` is multiplied by ``c_x`` and ``y`` by
        ``c_y`` (exact powers of two from about 1e-300 to 1e300): a dict
        ``{method: (x_degree, y_degree)}`` promises that ``method`` of the
        estimator fitted on the scaled data, applied to the scaled ``X``,
        equals ``c_x ** x_degree * c_y ** y_degree`` times its output on the
        original problem (``(0, 0)``: unchanged; ``(0, 1)``: a regressor's
        predictions in the units of ``y``), or that the fit refuses the scaled
        data with a clear ``ValueError``. ``y`` is scaled only when some
        ``y_degree`` is non-zero.
    units : dict, default={}
        Constructor parameters that carry the units of the data, as
        ``{parameter: (x_degree, y_degree)}``; the scale check multiplies them
        by ``c_x ** x_degree * c_y ** y_degree`` with the data (the ``alpha``
        of a ridge, added to ``X^T X``, has degrees ``(2, 0)``). Examples whose
        scaled parameter leaves the float range are skipped.
    row_order : bool or str, default=True
        Fitting on the rows in another order leaves the outputs unchanged.
    deterministic : bool or str, default=True
        Two fits of clones (an integer ``random_state`` if the estimator has
        one) give identical outputs.
    budget : tuple of (str, object) or str, default="not declared"
        ``(parameter, value)``: with ``parameter=value`` the fit on ``data``
        exceeds its budget and must be refused with a
        :class:`~sklearn_iclr.utils.WorkBudgetError` before any work.
    rtol : float, default=1e-7
        Relative tolerance of the scale and row-order comparisons.
    atol : float, default=1e-12
        Absolute tolerance, relative to the largest absolute output.

    Examples
    --------
    >>> from sklearn_iclr.testing import FitData, Invariants
    >>> from sklearn.datasets import make_regression
    >>> def data(random_state):
    ...     return FitData(*make_regression(30, 3, random_state=random_state))
    >>> declaration = Invariants(data=data, scale={"predict": (0, 1)})
    >>> declaration.promised()
    ['clone_pickle', 'deterministic', 'no_nan', 'row_order', 'scale']
    """

    data: object = None
    params: dict = field(default_factory=dict)
    scale: dict | str = "not declared"
    units: dict = field(default_factory=dict)
    row_order: bool | str = True
    deterministic: bool | str = True
    budget: tuple | str = "not declared"
    rtol: float = 1e-7
    atol: float = 1e-12

    def promised(self):
        """The names of the checks this declaration asks for."""
        checks = ["clone_pickle", "no_nan"]
        for name in ("budget", "deterministic", "row_order", "scale"):
            if not isinstance(getattr(self, name), str):
                checks.append(name)
        return sorted(checks)

    def reasons(self):
        """``{invariant: reason}`` of the invariants not promised."""
        return {
            name: getattr(self, name)
            for name in ("budget", "deterministic", "row_order", "scale")
            if isinstance(getattr(self, name), str)
        }
