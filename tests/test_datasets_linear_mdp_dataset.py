"""make_linear_mdp_dataset: Bellman oracle, a fixed MDP across sample seeds."""

import numpy as np
import pytest

from sklearn_iclr.datasets import make_linear_mdp_dataset


def test_generator_q_values_satisfy_bellman_equation():
    *_, mdp = make_linear_mdp_dataset(1, gamma=0.8, random_state=0, return_mdp=True)
    v_next = (mdp.q_values * mdp.target_policy).sum(axis=1)  # V^pi(s')
    bellman = mdp.reward + 0.8 * mdp.transition @ v_next
    np.testing.assert_allclose(mdp.q_values, bellman, rtol=1e-10)
    start = mdp.initial_distribution @ v_next
    assert mdp.value == pytest.approx(start, rel=1e-12)
    assert mdp.occupancy.sum() == pytest.approx(1.0)
    assert mdp.data_distribution.sum() == pytest.approx(1.0)


def test_generator_random_states():
    # A fixed mdp_random_state keeps the MDP (and J) while the samples change.
    one = make_linear_mdp_dataset(100, random_state=1, mdp_random_state=0)
    two = make_linear_mdp_dataset(100, random_state=2, mdp_random_state=0)
    assert one[4] == two[4]
    assert not np.array_equal(one[0], two[0])
