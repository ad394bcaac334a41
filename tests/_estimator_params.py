"""Per-estimator settings shared by the common tests.

``CHECK_PARAMS`` gives constructor arguments that keep the checks fast (small
budgets); ``EXPECTED_FAILED_CHECKS`` maps an estimator name to
``{check name: reason}``, each reason one line a reviewer would accept.
"""

CHECK_PARAMS = {
    "SpuriousRobustSGD": {"max_epochs": 10, "batch_size": 16, "learning_rate": 0.1},
}

EXPECTED_FAILED_CHECKS = {
    "SpuriousRobustSGD": {
        "check_sample_weight_equivalence_on_dense_data": (
            "minibatch SGD: repeating a row instead of weighting it changes the "
            "batches, so the two fits follow different (equally valid) paths"
        ),
    },
}
