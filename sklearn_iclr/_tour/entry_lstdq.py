"""Tour entry: LSTDQEvaluator on a random linear MDP, against fitted-Q evaluation."""

import sklearn
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from ..datasets import make_linear_mdp_dataset
from ..rl import LSTDQEvaluator
from ..rl._baselines import fitted_q_evaluation
from . import TourEntry, chosen_params

GAMMA = 0.9


def _run():
    X, y, X_next, X_init, value, _ = make_linear_mdp_dataset(
        4000, n_features=10, gamma=GAMMA, behaviour_shift=0.7, random_state=0
    )
    # GridSearchCV passes only (X, y) unless metadata routing carries X_next to
    # both fit and score (the held-out R^2 against the Bellman targets).
    with sklearn.config_context(enable_metadata_routing=True):
        lstdq = LSTDQEvaluator(gamma=GAMMA).set_fit_request(X_next=True)
        lstdq.set_score_request(X_next=True)
        search = GridSearchCV(
            Pipeline([("lstdq", lstdq)]),
            {"lstdq__alpha": [0.0, 1.0, 10.0, 100.0]},
            cv=3,
        )
        search.fit(X, y, X_next=X_next)
    best = search.best_estimator_[-1]
    # FQE converges to the LSTDQ solution with the same alpha, at a rate gamma^k:
    # 50 regressions leave a truncation bias of about 0.9^50 = 0.5% of J.
    anchor, _ = fitted_q_evaluation(
        X, y, X_next, X_init, gamma=GAMMA, alpha=best.alpha, n_iter=50
    )
    estimate = best.estimate_value(X_init)
    return abs(estimate - value), abs(anchor - value), chosen_params(search)


ENTRY = TourEntry(
    name="LSTDQEvaluator",
    dataset="linear MDP, 4000 transitions, d=10",
    metric="|J-J*|",
    anchor="FQE (50 x Ridge)",
    run=_run,
    lower_is_better=True,
    gain="a sandwich standard error and a coverage diagnostic",
    scored_on="the true policy value of the simulated MDP (an error)",
)
