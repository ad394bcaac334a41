"""Random finite MDPs for off-policy evaluation, with their exact policy value.

Both generators draw a random finite Markov decision process, a target policy
``pi`` and a behaviour policy, sample transitions ``(s, a, r, s')`` from the
behaviour data distribution and return them as features, ready for a linear
off-policy evaluator such as :class:`~sklearn_iclr.rl.LSTDQEvaluator`. The true
value of ``pi`` comes from the Bellman linear system, solved exactly.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils import Bunch, check_random_state

from ..utils._compat import Interval, validate_params

_COMMON_CONSTRAINTS = {
    "n_samples": [Interval(Integral, 1, None, closed="left")],
    "n_states": [Interval(Integral, 1, None, closed="left")],
    "n_actions": [Interval(Integral, 1, None, closed="left")],
    "gamma": [Interval(Real, 0, 1, closed="left")],
    "behaviour_shift": [Interval(Real, 0, 1, closed="left")],
    "reward_noise": [Interval(Real, 0, None, closed="left")],
    "n_init": [Interval(Integral, 1, None, closed="left"), None],
    "random_state": ["random_state"],
    "mdp_random_state": ["random_state"],
    "return_mdp": ["boolean"],
}


def _solve_mdp(transition, reward, target, behaviour, initial, gamma, features):
    """Exact Q-values, occupancies and value of ``target`` in a finite MDP.

    Returns a Bunch whose arrays are indexed by state, or state and action.
    """
    n_states, n_actions = reward.shape
    n_pairs = n_states * n_actions
    # P^pi[(s, a), (s', a')] = P(s' | s, a) pi(a' | s')
    p_target = (transition[:, :, :, None] * target[None, None]).reshape(
        n_pairs, n_pairs
    )
    q_values = np.linalg.solve(np.eye(n_pairs) - gamma * p_target, reward.ravel())
    start = (initial[:, None] * target).ravel()
    occupancy = (1 - gamma) * np.linalg.solve(
        (np.eye(n_pairs) - gamma * p_target).T, start
    )
    p_behaviour = (transition[:, :, :, None] * behaviour[None, None]).reshape(
        n_pairs, n_pairs
    )
    data_distribution = (1 - gamma) * np.linalg.solve(
        (np.eye(n_pairs) - gamma * p_behaviour).T,
        (initial[:, None] * behaviour).ravel(),
    )
    # Rounding can leave -1e-17 entries; the distributions are non-negative.
    occupancy = np.clip(occupancy, 0, None)
    data_distribution = np.clip(data_distribution, 0, None)
    data_distribution /= data_distribution.sum()
    mean_feature = occupancy @ features
    sigma = features.T @ (data_distribution[:, None] * features)
    return Bunch(
        transition=transition,
        reward=reward,
        target_policy=target,
        behaviour_policy=behaviour,
        initial_distribution=initial,
        gamma=gamma,
        features=features,
        q_values=q_values.reshape(n_states, n_actions),
        value=float(start @ q_values),
        occupancy=occupancy.reshape(n_states, n_actions),
        data_distribution=data_distribution.reshape(n_states, n_actions),
        linear_coverage=float(mean_feature @ np.linalg.solve(sigma, mean_feature)),
    )


def _random_policies(n_states, n_actions, behaviour_shift, rng):
    """A random target policy and a behaviour policy ``behaviour_shift`` away."""
    target = rng.dirichlet(np.ones(n_actions), size=n_states)
    # The behaviour mixes the target with the action the target likes least:
    # as behaviour_shift -> 1 the target's favourite actions become rare.
    least_liked = np.eye(n_actions)[np.argmin(target, axis=1)]
    behaviour = (1 - behaviour_shift) * target + behaviour_shift * least_liked
    return target, behaviour


def _sample_transitions(mdp, n_samples, reward_noise, n_init, rng):
    """Draw ``(X, y, X_next, X_init)`` i.i.d. from the behaviour distribution."""
    n_states, n_actions = mdp.reward.shape
    features = mdp.features
    # phi(s, pi) = sum_a pi(a | s) phi(s, a)
    target_features = np.einsum(
        "sa,sad->sd", mdp.target_policy, features.reshape(n_states, n_actions, -1)
    )
    pairs = rng.choice(
        n_states * n_actions, size=n_samples, p=mdp.data_distribution.ravel()
    )
    # Inverse-CDF sampling of s' ~ P(. | s, a), vectorised over rows: shift row
    # k's CDF by k so that one searchsorted over the flattened CDFs does all.
    cdf = np.cumsum(mdp.transition.reshape(n_states * n_actions, n_states), axis=1)
    cdf[:, -1] = 1.0
    shifted = (cdf + np.arange(n_states * n_actions)[:, None]).ravel()
    flat = np.searchsorted(shifted, pairs + rng.random(n_samples), side="right")
    next_states = np.minimum(flat - pairs * n_states, n_states - 1)

    X = features[pairs]
    y = mdp.reward.ravel()[pairs] + reward_noise * rng.standard_normal(n_samples)
    X_next = target_features[next_states]
    if n_init is None:
        X_init = (mdp.initial_distribution @ target_features)[None, :]
    else:
        starts = rng.choice(n_states, size=n_init, p=mdp.initial_distribution)
        X_init = target_features[starts]
    return X, y, X_next, X_init


def _dataset(mdp, n_samples, reward_noise, n_init, rng, return_mdp):
    X, y, X_next, X_init = _sample_transitions(
        mdp, n_samples, reward_noise, n_init, rng
    )
    data = (X, y, X_next, X_init, mdp.value, mdp.gamma)
    return (*data, mdp) if return_mdp else data


_SAMPLING_PARAMS_DOC = """gamma : float, default=0.9
        Discount factor in [0, 1), the default of
        :class:`~sklearn_iclr.rl.LSTDQEvaluator` too; it is returned with the
        data.
    behaviour_shift : float, default=0.5
        How far the behaviour policy moves away from the target, in [0, 1).
    reward_noise : float, default=0.1
        Standard deviation of the Gaussian reward noise.
    n_init : int, default=None
        Number of sampled initial states; None returns the exact mean initial
        feature as one row.
    random_state : int, RandomState instance or None, default=None
        Seeds the samples, and the MDP and policies unless
        ``mdp_random_state`` is given.
    mdp_random_state : int, RandomState instance or None, default=None
        Seeds the MDP and the policies alone: fix it and vary
        ``random_state`` for repeated data sets from one MDP.
    return_mdp : bool, default=False
        Also return the MDP and its exact quantities as a Bunch."""

_RETURNS_DOC = """
    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features ``phi(s_i, a_i)`` of the logged state-action pairs, drawn
        i.i.d. from the behaviour's discounted occupancy ``mu``.
    y : ndarray of shape (n_samples,)
        Rewards ``r_i`` (the mean reward plus Gaussian noise).
    X_next : ndarray of shape (n_samples, n_features)
        Next features under the target policy,
        ``phi(s'_i, pi) = sum_a pi(a | s'_i) phi(s'_i, a)`` with
        ``s'_i ~ P(. | s_i, a_i)``.
    X_init : ndarray of shape (n_init, n_features) or (1, n_features)
        Initial features ``phi(s_0, pi)`` with ``s_0 ~ d_0``; when ``n_init``
        is None, the one exact row ``E_{s_0 ~ d_0}[phi(s_0, pi)]``.
    value : float
        The exact value ``J(pi) = E_{s_0 ~ d_0}[sum_t gamma^t r_t]`` of the
        target policy, from the Bellman linear system.
    gamma : float
        The discount factor of ``value`` (the ``gamma`` passed in): give it to
        the evaluator, ``LSTDQEvaluator(gamma=gamma)``, whose estimate targets
        ``value`` only at the same discount.
    mdp : Bunch
        Only when ``return_mdp=True``: ``transition`` (S, A, S), ``reward``
        (S, A), ``target_policy`` and ``behaviour_policy`` (S, A),
        ``initial_distribution`` (S,), ``gamma``, ``features`` (S * A,
        n_features; row ``s * A + a``), the exact ``q_values`` (S, A),
        ``value``, the normalised target occupancy ``occupancy`` ``d^pi``
        (S, A), the data distribution ``data_distribution`` ``mu`` (S, A) and
        ``linear_coverage``, ``E_{d^pi}[phi]^T Sigma^{-1} E_{d^pi}[phi]`` with
        ``Sigma = E_mu[phi phi^T]``.
"""


@validate_params(_COMMON_CONSTRAINTS, prefer_skip_nested_validation=True)
def make_tabular_mdp(
    n_samples=1000,
    *,
    n_states=5,
    n_actions=2,
    gamma=0.9,
    behaviour_shift=0.5,
    reward_noise=0.1,
    n_init=None,
    random_state=None,
    mdp_random_state=None,
    return_mdp=False,
):
    """Logged transitions of a random tabular MDP, with one-hot features.

    The MDP has Dirichlet(1) transition rows, uniform mean rewards in [0, 1]
    and a Dirichlet(1) initial distribution. The target policy ``pi`` is
    Dirichlet(1) in each state; the behaviour policy is
    ``(1 - behaviour_shift) * pi + behaviour_shift * e_worst`` with
    ``e_worst`` the action ``pi`` likes least, so ``behaviour_shift=0`` gives
    on-policy data and values near 1 give poor coverage. State-action pairs
    are drawn from the behaviour's normalised discounted occupancy ``mu``.
    Features are one-hot over the ``n_states * n_actions`` pairs, so the
    feature-dynamics coverage of LSTDQ equals ``1 + chi^2(d^pi || mu)``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of transitions.
    n_states : int, default=5
        Number of states.
    n_actions : int, default=2
        Number of actions.
    %(sampling_params)s
    %(returns)s
    Examples
    --------
    >>> from sklearn_iclr.datasets import make_tabular_mdp
    >>> X, y, X_next, X_init, value, gamma = make_tabular_mdp(200, random_state=0)
    >>> X.shape, X_next.shape, X_init.shape, gamma
    ((200, 10), (200, 10), (1, 10), 0.9)
    """
    rng = check_random_state(random_state)
    mdp_rng = rng if mdp_random_state is None else check_random_state(mdp_random_state)
    transition = mdp_rng.dirichlet(np.ones(n_states), size=(n_states, n_actions))
    reward = mdp_rng.uniform(size=(n_states, n_actions))
    initial = mdp_rng.dirichlet(np.ones(n_states))
    target, behaviour = _random_policies(n_states, n_actions, behaviour_shift, mdp_rng)
    features = np.eye(n_states * n_actions)
    mdp = _solve_mdp(transition, reward, target, behaviour, initial, gamma, features)
    return _dataset(mdp, n_samples, reward_noise, n_init, rng, return_mdp)


@validate_params(
    {**_COMMON_CONSTRAINTS, "n_features": [Interval(Integral, 1, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def make_linear_mdp_dataset(
    n_samples=1000,
    *,
    n_features=5,
    n_states=50,
    n_actions=3,
    gamma=0.9,
    behaviour_shift=0.5,
    reward_noise=0.1,
    n_init=None,
    random_state=None,
    mdp_random_state=None,
    return_mdp=False,
):
    """Logged transitions of a random linear (low-rank) MDP.

    Each state-action pair gets a feature vector ``phi(s, a)`` in the
    probability simplex of dimension ``n_features`` (Dirichlet(0.3)); the
    transitions are ``P(s' | s, a) = sum_k phi_k(s, a) nu_k(s')`` with random
    state distributions ``nu_k`` and the mean rewards are
    ``phi(s, a)^T w``. Such an MDP is Bellman complete for ``phi``, so
    ``Q^pi = phi^T theta*`` for every policy. Policies, the behaviour shift and
    the sampling are as in :func:`make_tabular_mdp`.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of transitions.
    n_features : int, default=5
        Dimension of the features (the rank of the transition matrix).
    n_states : int, default=50
        Number of states.
    n_actions : int, default=3
        Number of actions.
    %(sampling_params)s
    %(returns)s
    Examples
    --------
    >>> from sklearn_iclr.datasets import make_linear_mdp_dataset
    >>> from sklearn_iclr.rl import LSTDQEvaluator
    >>> X, y, X_next, X_init, value, gamma = make_linear_mdp_dataset(
    ...     4000, random_state=0)
    >>> X.shape, X_init.shape
    ((4000, 5), (1, 5))
    >>> est = LSTDQEvaluator(gamma=gamma).fit(X, y, X_next=X_next)
    >>> print(f"true {value:.2f}, estimate {est.estimate_value(X_init):.2f}")
    true 4.80, estimate 4.77
    """
    rng = check_random_state(random_state)
    mdp_rng = rng if mdp_random_state is None else check_random_state(mdp_random_state)
    features = mdp_rng.dirichlet(np.full(n_features, 0.3), size=n_states * n_actions)
    factors = mdp_rng.dirichlet(np.full(n_states, 0.5), size=n_features)
    transition = (features @ factors).reshape(n_states, n_actions, n_states)
    weights = mdp_rng.uniform(size=n_features)
    reward = (features @ weights).reshape(n_states, n_actions)
    initial = mdp_rng.dirichlet(np.ones(n_states))
    target, behaviour = _random_policies(n_states, n_actions, behaviour_shift, mdp_rng)
    mdp = _solve_mdp(transition, reward, target, behaviour, initial, gamma, features)
    return _dataset(mdp, n_samples, reward_noise, n_init, rng, return_mdp)


_DOC_PARTS = {"sampling_params": _SAMPLING_PARAMS_DOC, "returns": _RETURNS_DOC}
make_tabular_mdp.__doc__ = make_tabular_mdp.__doc__ % _DOC_PARTS
make_linear_mdp_dataset.__doc__ = make_linear_mdp_dataset.__doc__ % _DOC_PARTS
