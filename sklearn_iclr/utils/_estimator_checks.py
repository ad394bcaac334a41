"""The estimator checks that a package estimator is expected to fail."""

from sklearn import config_context

from .._expected_failed_checks import (
    EXPECTED_FAILED_CHECKS,
    EXPECTED_FAILED_CHECKS_OF_DEFAULTS,
)
from ._compat import HasMethods, validate_params


@validate_params(
    {"estimator": [HasMethods(["fit", "get_params"])]},
    prefer_skip_nested_validation=True,
)
def expected_failed_checks(estimator):
    """Return the scikit-learn checks ``estimator`` is expected to fail, and why.

    Pass it to scikit-learn's ``check_estimator`` or ``parametrize_with_checks``
    so that the checks a method cannot meet by design (rows that are the time
    steps of one series, an exact search refused by its work budget) are
    reported as expected failures with their reasons instead of errors. A check
    that only the default constructor fails is listed only for an estimator
    whose parameters are all at their defaults.

    Parameters
    ----------
    estimator : estimator instance
        An estimator of ``sklearn_iclr``; any other estimator gets ``{}``.

    Returns
    -------
    expected : dict
        ``{check name: reason}``, each reason one line.

    Examples
    --------
    A user checks an estimator with ``check_estimator(est,
    expected_failed_checks=expected_failed_checks(est))``; every estimator of
    the package has its list, empty for most:

    >>> from sklearn_iclr.utils import all_estimators, expected_failed_checks
    >>> listed = {name: expected_failed_checks(E()) for name, E in all_estimators()}
    >>> all(reason for reasons in listed.values() for reason in reasons.values())
    True
    >>> from sklearn.linear_model import Ridge
    >>> expected_failed_checks(Ridge())
    {}
    """
    cls = type(estimator)
    if not cls.__module__.startswith("sklearn_iclr."):
        return {}
    name = cls.__name__
    expected = dict(EXPECTED_FAILED_CHECKS.get(name, {}))
    with config_context(print_changed_only=True):
        is_default = repr(estimator) == f"{name}()"
    if is_default:
        expected.update(EXPECTED_FAILED_CHECKS_OF_DEFAULTS.get(name, {}))
    return expected
