"""Warnings that point at the user's call, whatever the call depth inside."""

import sys
import warnings

from ._compat import validate_params

_OWN_PACKAGES = ("sklearn_iclr", "sklearn", "joblib", "skorch")
# The module every warning of the package is issued from, for warning filters.
WARNING_MODULE = "sklearn_iclr"


@validate_params(
    {"message": [str], "category": [type]}, prefer_skip_nested_validation=True
)
def warn_user(message, category=UserWarning):
    """Issue a warning attributed to the first frame outside the library stack.

    scikit-learn wraps ``fit`` in decorators, so a fixed ``stacklevel`` points at
    ``sklearn/base.py`` or at a private helper. This walks up the call stack past
    every frame of sklearn_iclr, scikit-learn, joblib and skorch, so the warning
    names the line of the user's script (or test) that called the estimator.
    Its module is ``"sklearn_iclr"`` whatever line it names, so that one filter
    selects the package's warnings: ``warnings.filterwarnings("ignore",
    module="sklearn_iclr")``, or pytest's ``error::Warning:sklearn_iclr``,
    which the project's own tests use.

    Parameters
    ----------
    message : str
        The warning text: what happened and which parameter to change.
    category : type of Warning, default=UserWarning
        For example ``sklearn.exceptions.ConvergenceWarning``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_user("max_iter reached; raise max_iter")
    >>> caught[0].message.args[0]
    'max_iter reached; raise max_iter'
    """
    frame = sys._getframe(1)
    while (
        frame.f_back is not None
        and frame.f_globals.get("__name__", "").split(".")[0] in _OWN_PACKAGES
    ):
        frame = frame.f_back
    warnings.warn_explicit(
        message,
        category,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=WARNING_MODULE,
        registry=frame.f_globals.setdefault("__warningregistry__", {}),
    )
