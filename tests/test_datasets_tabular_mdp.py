"""make_tabular_mdp: Bellman oracle, sampling, on-policy case, seeds."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_tabular_mdp


def test_generator_q_values_satisfy_bellman_equation():
    *_, mdp = make_tabular_mdp(1, gamma=0.8, random_state=0, return_mdp=True)
    v_next = (mdp.q_values * mdp.target_policy).sum(axis=1)  # V^pi(s')
    bellman = mdp.reward + 0.8 * mdp.transition @ v_next
    np.testing.assert_allclose(mdp.q_values, bellman, rtol=1e-10)
    start = mdp.initial_distribution @ v_next
    assert mdp.value == pytest.approx(start, rel=1e-12)
    assert mdp.occupancy.sum() == pytest.approx(1.0)
    assert mdp.data_distribution.sum() == pytest.approx(1.0)


def test_generator_samples_follow_the_data_distribution():
    n = 40_000
    X, y, X_next, X_init, _, _, mdp = make_tabular_mdp(
        n, n_states=3, reward_noise=0.0, n_init=5, random_state=0, return_mdp=True
    )
    freq = X.mean(axis=0)
    mu = mdp.data_distribution.ravel()
    # Multinomial frequencies: 5 standard deviations per cell.
    assert np.all(np.abs(freq - mu) < 5 * np.sqrt(mu * (1 - mu) / n))
    np.testing.assert_allclose(y, X @ mdp.reward.ravel())  # noiseless rewards
    # E[phi(s', pi) | s, a] = sum_s' P(s' | s, a) phi(s', pi): compare per pair.
    target_features = np.einsum(
        "sa,sad->sd", mdp.target_policy, mdp.features.reshape(3, 2, -1)
    )
    expected = mdp.transition.reshape(6, 3) @ target_features
    for pair in range(6):
        rows = X[:, pair] == 1
        np.testing.assert_allclose(
            X_next[rows].mean(axis=0), expected[pair], atol=5 / np.sqrt(rows.sum())
        )
    assert X_init.shape == (5, 6)
    np.testing.assert_allclose(X_init.sum(axis=1), 1.0)


def test_behaviour_shift_zero_is_on_policy():
    *_, mdp = make_tabular_mdp(1, behaviour_shift=0.0, random_state=0, return_mdp=True)
    np.testing.assert_allclose(mdp.behaviour_policy, mdp.target_policy)
    np.testing.assert_allclose(mdp.data_distribution, mdp.occupancy, atol=1e-12)


def test_generator_random_states():
    first = make_tabular_mdp(100, random_state=3)
    again = make_tabular_mdp(100, random_state=3)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
