"""scikit-learn's own estimator checks, run on every public estimator.

New estimators are picked up automatically: adding the class to a subpackage's
``__all__`` is enough. Estimators that need small budgets to keep the checks fast
get them in ``CHECK_PARAMS``; a check may be listed in ``EXPECTED_FAILED_CHECKS``
only with a reason a reviewer would accept.
"""

import pytest
from _estimator_params import CHECK_PARAMS, EXPECTED_FAILED_CHECKS
from sklearn.base import TransformerMixin
from sklearn.utils.estimator_checks import (
    check_dataframe_column_names_consistency,
    check_get_feature_names_out_error,
    check_global_output_transform_pandas,
    check_param_validation,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

from sklearn_iclr.utils import all_estimators


def _instances():
    return [est(**CHECK_PARAMS.get(name, {})) for name, est in all_estimators()]


def _expected_failed_checks(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


@parametrize_with_checks(
    _instances(),
    expected_failed_checks=_expected_failed_checks,
    xfail_strict=True,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", _instances(), ids=lambda est: type(est).__name__)
def test_checks_left_out_by_check_estimator(estimator):
    name = type(estimator).__name__
    check_param_validation(name, estimator)
    reason = _expected_failed_checks(estimator).get(
        "check_dataframe_column_names_consistency"
    )
    if reason is not None:
        pytest.xfail(reason)
    check_dataframe_column_names_consistency(name, estimator)


_TRANSFORMER_CHECKS = (
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_global_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    check_get_feature_names_out_error,
)


@pytest.mark.parametrize(
    "estimator",
    [est for est in _instances() if isinstance(est, TransformerMixin)],
    ids=lambda est: type(est).__name__,
)
@pytest.mark.parametrize("check", _TRANSFORMER_CHECKS, ids=lambda c: c.__name__)
def test_transformer_output_api(estimator, check):
    check(type(estimator).__name__, estimator)
