"""Per-estimator settings shared by the common tests.

``CHECK_PARAMS`` gives constructor arguments that keep the checks fast (small
budgets); ``EXPECTED_FAILED_CHECKS`` maps an estimator name to
``{check name: reason}``, each reason one line a reviewer would accept.
"""

CHECK_PARAMS = {
    "AveragedLangevinRegressor": {"n_chains": 32, "n_steps": 50, "random_state": 0},
}

EXPECTED_FAILED_CHECKS = {}
