"""Chain-of-thought parity learner: next-token pretraining, then RL."""

import time
from numbers import Integral, Real

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, check_random_state, validate_data
from threadpoolctl import threadpool_limits

from ..utils import check_count_budget, warn_user
from ..utils._compat import Interval, StrOptions, _fit_context
from ..utils.validation import check_binary_target
from ._kernel import (
    EOS,
    advance_record,
    cell_likelihood,
    cell_logits,
    count_tokens,
    decode_greedy,
    new_stream,
    policy_residuals,
    sample_responses,
    tabulate_logits,
    write_agreed,
)

# Token alphabet of every position: index 0 is the token -1, index 1 the token
# +1, index 2 (EOS) the end of sequence. Sequences are stored as int8 rows of
# tokens in {-1, +1}, padded with 0 after the last token (0 stands for EOS).
# A cell (s, j) is the prompt j after the previous token -1 (s = 0) or +1
# (s = 1); at the first position both rows hold the previous value 0.
LOGITS_BLOCK = 8  # positions per product of the tables' logits
RESIDUAL_BLOCK = 128  # prompts whose residuals the policy gradient contracts at once

# Arrays of logits, probabilities and counts are token-major, (3, ...): numpy
# reduces a leading axis of 3 as three contiguous slabs, where a trailing axis
# of 3 would cost a strided reduction per row.


def _halves_weights(coef):
    """The weights ``(..., 3, 2 (d + 1))`` as ``[W_a; W_b]``, ``(..., 6, d +
    1)``: the rows that multiply ``x1`` over those that multiply ``y_prev
    x1``.

    A position's features are ``phi = [x1, y_prev x1]`` with ``y_prev`` in
    ``{-1, 0, +1}``, so its logits are ``a + y_prev b`` with ``a = W_a x1``
    and ``b = W_b x1``: one product of these weights by the prompts (one
    column per prompt, not per response) gives both halves.
    """
    h = coef.shape[-1] // 2
    return np.concatenate([coef[..., :h], coef[..., h:]], axis=-2)


def _prompt_logits(X1T, weights):
    """Per prompt (column of ``X1T``), the halves ``a`` (rows 0-2) over ``b``
    (rows 3-5) of one position's logits (:func:`_halves_weights`)."""
    return _halves_weights(weights) @ X1T


def _lengths(sequences):
    return np.count_nonzero(sequences, axis=1)


def _answers(sequences, lengths):
    """The last token before EOS of every sequence, of the given lengths."""
    return sequences[np.arange(len(sequences)), lengths - 1]


def _position_counts(X1, sequences, lengths, prompts, weights, counts):
    """Per position: the prompts that reach it and their counted cells.

    A row's likelihood at a position depends on it only through its prompt,
    its previous token and its target token, so the rows (of positive
    ``weights``) are summed into ``counts[t, v, s, j]``
    (:func:`~._kernel.count_tokens`; ``counts`` is a buffer of shape
    ``(n_positions, 3, 2, n_prompts)``), normalised to sum 1 per position.
    Yields, per position ``t``, None where no row reaches it, else ``(X1 of
    those prompts, its transpose, cells)`` (the first a view of the second):
    ``cells = (cell_prev,
    cell_prompt, cell_counts)`` lists the cells ``(s, j)`` that hold a count
    (``s`` major, ``j`` indexing those prompts) and their counts ``(3,
    n_cells)``.
    """
    counts.fill(0.0)
    count_tokens(sequences, lengths, prompts, weights, counts)
    # the prompts as columns: the likelihood's two products read this copy
    # only (its transpose is a view), which stays in cache between them
    X1T = np.ascontiguousarray(X1.T)
    for position in counts:
        occupied = position.sum(axis=0) != 0
        used = np.flatnonzero(occupied.any(axis=0))
        if used.size == 0:
            yield None
            continue
        cell_prev, cell_prompt = np.nonzero(occupied[:, used])
        cell_counts = position[:, cell_prev, used[cell_prompt]] / position.sum()
        cells = (cell_prev, cell_prompt, cell_counts)
        if used.size < len(X1T.T):
            X_usedT = X1T[:, used]
            yield X_usedT.T, X_usedT, cells
        else:
            yield X1T.T, X1T, cells


def _likelihood_gradient(X1, X1T, coef, cells, first):
    """Negative log-likelihood of the counted tokens and its weight gradient.

    ``cells`` as :func:`_position_counts` gives them; the logits of cell
    ``(s, j)`` are ``a_j + y_s b_j``. The gradient of ``-log softmax`` is
    ``softmax - onehot`` times the features ``[x1, y_prev x1]``, summed per
    prompt and previous token (:func:`~._kernel.cell_likelihood`) before one
    product by ``X1``.
    """
    cell_prev, cell_prompt, counts = cells
    shifted, residual = np.empty(counts.shape), np.empty((6, X1.shape[0]))
    cell_logits(_prompt_logits(X1T, coef), cell_prev, cell_prompt, first, shifted)
    loss = cell_likelihood(
        shifted, np.exp(shifted), counts, cell_prev, cell_prompt, first, residual
    )
    products = residual @ X1
    return loss, np.hstack([products[:3], products[3:]])


def _nll_and_grad(flat, X1, X1T, cells, alpha, first):
    """Weighted next-token cross-entropy of one position plus the L2 penalty."""
    coef = flat.reshape(3, -1)
    loss, grad = _likelihood_gradient(X1, X1T, coef, cells, first)
    loss += 0.5 * alpha * float(flat @ flat)
    return loss, (grad + alpha * coef).ravel()


def _policy_tables(X1T, coef, temperature, out=None, record=None, dtype=np.float64):
    """Every position's next-token law, per (previous token, prompt) cell.

    Returns ``(greedy, proba, record)``: ``greedy[t, s, j]`` is the index of
    the largest logit of position ``t`` in the cell ``(s, j)`` of the prompt
    ``X1T[:, j]`` (``X1T``: the prompts as C-ordered columns, as
    :meth:`ChainOfThoughtClassifier._design` builds them), ``proba[t, v, s,
    j]`` the probability of token ``v`` there at ``temperature`` and
    ``record`` a :class:`_Record` of the model (None, as ``proba``, when the
    temperature is 0). One product per ``LOGITS_BLOCK`` positions (a taller
    product runs faster per row); sampling, the policy gradient and the
    round's record all read these tables. A position's table is finished
    (``exp``) and read by ``record`` (given, or one against the answers -1
    whose greedy responses only the sampler reads), which normalises it as
    it reads it, while it is still in cache. ``out``, the tables of a former
    call of the same shapes, are overwritten (no new memory to fault in).
    ``dtype`` is the probabilities' type: the RL rounds take float32, whose
    ``exp`` and table reads cost less, at a relative error of 6e-8 in a
    probability (the normalisers and the record are float64).
    """
    n_positions, n_prompts = coef.shape[0], X1T.shape[1]
    shape = (n_positions, 3, 2, n_prompts)
    greedy = np.empty(shape[:1] + shape[2:], dtype=np.int8) if out is None else out[0]
    if temperature == 0:
        proba, record = np.empty((0, *shape[1:])), None  # no logits are written
    else:
        proba = np.empty(shape, dtype=dtype) if out is None else out[1]
        if record is None:
            record = _Record(np.full(n_prompts, -1), n_positions)
    weights = _halves_weights(coef)
    n_block = min(LOGITS_BLOCK, n_positions)
    block = np.empty((n_block * 6, n_prompts))
    for start in range(0, n_positions, n_block):
        group = weights[start : start + n_block]
        block_halves = block[: 6 * len(group)]
        np.matmul(group.reshape(-1, group.shape[-1]), X1T, out=block_halves)
        for t in range(start, start + len(group)):
            halves = block_halves[6 * (t - start) : 6 * (t - start + 1)]
            shifted = proba[t] if temperature > 0 else proba
            tabulate_logits(halves, t == 0, temperature, greedy[t], shifted)
            if temperature > 0:
                np.exp(shifted, out=shifted)
                record.advance(proba[t], greedy[t], t, t == n_positions - 1)
    return greedy, (proba if temperature > 0 else None), record


def _sample(tables, prompts, rng, whole=True, out=None):
    """Responses to the prompts ``prompts`` (columns of ``tables``), their
    lengths and the number of their first positions on which they agree with
    the greedy responses.

    Greedy when the tables hold no probabilities; otherwise each response
    draws what :func:`~._kernel.sample_responses` needs from one stream
    seeded by ``rng``. Unless ``whole``, the tokens on which a response agrees
    with its greedy response are left 0 (the policy gradient reads them from
    the greedy response); its answer (last token) is always written. ``out``,
    the arrays of a former call for as many prompts, are overwritten (no new
    memory to fault in).
    """
    greedy, proba, record = tables
    n_rows, n_positions = len(prompts), greedy.shape[0]
    if out is None:
        sequences = np.zeros((n_rows, n_positions), dtype=np.int8)
        lengths, agreed = np.empty((2, n_rows), dtype=np.intp)
    else:
        sequences, lengths, agreed = out
        sequences.fill(0)
    if proba is None:
        decode_greedy(greedy, prompts, sequences, lengths)
        agreed.fill(n_positions)
        return sequences, lengths, agreed
    state = new_stream(rng.randint(2**63, size=3, dtype=np.int64).astype(np.uint64))
    with np.errstate(over="ignore"):  # the stream's sums wrap modulo 2**64
        sample_responses(
            proba,
            record.path,
            record.survival,
            record.walk[1],
            prompts,
            state,
            sequences,
            lengths,
            agreed,
        )
    if whole:
        write_agreed(record.path, prompts, agreed, sequences)
    return sequences, lengths, agreed


def _response_law(proba):
    """``law[l - 1, c, i]``: probability that the response to prompt ``i``
    has ``l`` tokens and answers -1 (``c = 0``) or +1 (``c = 1``), from the tables of
    :func:`_policy_tables` (a forward recursion over the previous token)."""
    n_positions, n_prompts = proba.shape[0], proba.shape[3]
    law = np.empty((n_positions, 2, n_prompts))
    alive = proba[0, :EOS, 0]
    for t in range(1, n_positions):
        step = proba[t]
        np.multiply(alive, step[EOS], out=law[t - 1])
        alive = np.einsum("jn,vjn->vn", alive, step[:EOS])
    law[n_positions - 1] = alive
    return law


class _Record:
    """A model's row of ``history_`` on the training prompts, built position
    by position (:func:`~._kernel.advance_record`) as :func:`_policy_tables`
    finishes each position's law, and its greedy responses (``walk``,
    ``path``) with the chance that a sampled response follows them
    (``survival``), which the sampler reads."""

    def __init__(self, y_signed, n_positions):
        self.y_signed = y_signed
        self.walk = np.zeros((3, len(y_signed)), dtype=np.intp)
        self.walk[1] = n_positions
        self.path = np.zeros((len(y_signed), n_positions), dtype=np.int8)
        self.survival = np.empty((n_positions + 1, len(y_signed)))
        self.survival[0] = 1.0
        self.alive = np.empty((2, len(y_signed)))
        self.reward = np.zeros(len(y_signed))
        self.mass = np.zeros(n_positions)

    def advance(self, proba, greedy, t, last):
        """Read position ``t`` (``last``: the last one) of the model's law."""
        terms = (self.walk, self.path, self.survival, self.alive, self.reward)
        advance_record(proba, greedy, t, last, self.y_signed, *terms, self.mass)

    def row(self, r, n_kept):
        """``history_[r]``, once every position has been read."""
        length_pmf = self.mass / len(self.y_signed)
        return {
            "round": r,
            "greedy_accuracy": float(np.mean(self.walk[2] == self.y_signed)),
            "median_length": float(np.median(self.walk[1])),
            "expected_reward": float(self.reward.mean()),
            "long_share": float(1.0 - length_pmf[0]),
            "sampled_median_length": int(np.searchsorted(np.cumsum(length_pmf), 0.5))
            + 1,
            "n_kept": n_kept,
        }


def _recorder(curve):
    """An L-BFGS callback appending the objective to ``curve``."""

    def record(intermediate_result):
        curve.append(float(intermediate_result.fun))

    return record


class ChainOfThoughtClassifier(ClassifierMixin, BaseEstimator):
    """Parity by chain of thought: next-token pretraining, then RL (ICLR 2026).

    A laboratory for the "pretrain, then reinforce" recipe of Nikolaos
    Tsilivis, Eran Malach, Karen Ullrich and Julia Kempe, "How Reinforcement
    Learning After Next-Token Prediction Facilitates Learning", ICLR 2026
    (arXiv:2510.11495). The model answers a prompt ``x`` with a response of
    ``1`` to ``d = n_features`` tokens in ``{-1, +1}`` followed by EOS; the
    answer is its last token. Each position ``k = 1..d`` has its own log-linear
    (softmax) next-token model over ``{-1, +1, EOS}`` (Malach's autoregressive
    linear models) with the ``2 (d + 1)`` features::

        phi_k(x, y_{k-1}) = [1, x_1, ..., x_d, y_{k-1}, y_{k-1} x_1, ..., y_{k-1} x_d]

    where ``y_{k-1}`` is the previous token (0 before the first). The products
    make the chain of prefix parities linear: ``s_k = x_1 ... x_k`` is
    ``y_{k-1} x_k`` when ``y_{k-1} = s_{k-1}``, and the feature ``y_1 x_1``
    tells position 2 whether the first token was ``x_1``. The full parity
    ``s_d`` is no linear function of ``x`` (for ``d >= 3``), so a one-token
    answer is at chance. EOS is barred at position 1 and forced after ``d``
    tokens.

    Parameters
    ----------
    rl : {"star", "reinforce", "grpo"} or None, default="star"
        The reinforcement-learning algorithm run after pretraining; ``None``
        stops after pretraining.
    n_rl_rounds : int, default=10
        Rounds of reinforcement learning.
    samples_per_prompt : int, default=8
        Responses drawn per training prompt and round.
    temperature : float, default=1.0
        Sampling temperature of the RL rounds: a position draws token ``v``
        with probability proportional to ``exp(z_v / temperature)``.
    max_iter : int, default=500
        Most L-BFGS iterations (each one or a few full-batch passes over the
        data) of the likelihood fits, in pretraining and in every STaR round.
    learning_rate : float, default=10.0
        Step of the policy-gradient updates (``"reinforce"``, ``"grpo"``).
    alpha : float, default=1e-4
        L2 penalty of the likelihood fits, per position (the cross-entropy is
        the mean over the rows that reach the position). It keeps the weights
        finite on the deterministic positions of the chain.
    max_sampled_tokens : float, default=1e9
        Most tokens the RL rounds may sample in total
        (``n_samples * samples_per_prompt * n_features * n_rl_rounds``);
        a fit that needs more is refused before it starts.
    random_state : int, RandomState instance or None, default=None
        Seeds the sampling of the RL rounds (pretraining is deterministic).
    verbose : int, default=0
        Print one line per RL round when positive.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The class labels; ``classes_[0]`` is the token -1, ``classes_[1]`` the
        token +1.
    chain_coef_ : ndarray of shape (n_features, 3, 2 * (n_features + 1))
        ``chain_coef_[k - 1]`` are the weights of position ``k``: one row per
        token (-1, +1, EOS) over the features ``phi_k`` (the bits scaled by
        ``scale_``).
    scale_ : ndarray of shape (n_features,)
        Largest absolute value of every column of the training ``X`` (1 for a
        zero column); the model sees ``X / scale_``, which leaves bits in
        ``{-1, +1}`` or ``{0, 1}`` unchanged and makes the fit equivariant to
        the scale of the columns.
    pretrained_coef_ : ndarray of shape (n_features, 3, 2 * (n_features + 1))
        The weights after pretraining, before any RL round.
    history_ : list of dict
        ``history_[0]`` describes the pretrained model, ``history_[r]`` the
        model after RL round ``r``, on the training prompts. Keys: ``"round"``;
        ``"greedy_accuracy"`` and ``"median_length"`` of the greedy responses;
        ``"expected_reward"``, ``"long_share"`` (responses of more than one
        token) and ``"sampled_median_length"``, exact expectations over
        responses sampled at ``temperature``; ``"n_kept"`` (STaR: rewarded
        responses kept in the round, 0 in row 0).
    loss_curve_ : list of float
        The pretraining objective after every L-BFGS iteration.
    n_iter_ : int
        L-BFGS iterations of pretraining.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    sklearn_iclr.datasets.make_cot_parity : the data model ``D(p)``.
    sklearn.linear_model.LogisticRegression : a one-token (linear) answer.

    Notes
    -----
    ``fit`` first maximises the penalised next-token likelihood of the
    demonstrations (a convex problem, L-BFGS), then runs ``n_rl_rounds`` rounds
    of RL with the outcome reward ``1{answer = y}`` from ``samples_per_prompt``
    responses per prompt at ``temperature``: ``"star"`` refits on the rewarded
    responses, ``"reinforce"`` and ``"grpo"`` take one policy-gradient step per
    round (mean-reward and group-normalised advantages).

    On :func:`~sklearn_iclr.datasets.make_cot_parity` data, greedy decoding after
    pretraining continues the chain iff ``p > 1/3``. STaR doubles the odds of a
    long answer every round, so it needs about ``log2((1 - p) / (2 p))`` rounds;
    the policy-gradient methods need rounds growing like ``1 / p``.
    :meth:`response_proba` gives the law of the response's length and answer
    exactly (a forward recursion over the previous token). The derivations are
    in the user guide (:ref:`chain-of-thought-details`).


    References
    ----------
    .. [1] N. Tsilivis, E. Malach, K. Ullrich and J. Kempe. "How Reinforcement
       Learning After Next-Token Prediction Facilitates Learning". ICLR 2026.
       arXiv:2510.11495.
    .. [2] E. Malach. "Auto-Regressive Next-Token Predictors are Universal
       Learners". ICML 2024. arXiv:2309.06979.

    Examples
    --------
    >>> from sklearn_iclr.datasets import make_cot_parity
    >>> from sklearn_iclr.sequence import ChainOfThoughtClassifier
    >>> X, y, seqs = make_cot_parity(4000, 10, p_cot=0.25, random_state=0)
    >>> X_test, y_test, _ = make_cot_parity(1000, 10, p_cot=0.25, random_state=1)
    >>> pretrained = ChainOfThoughtClassifier(rl=None).fit(X, y, sequences=seqs)
    >>> bool(abs(pretrained.score(X_test, y_test) - 0.5) < 0.1)
    True
    >>> star = ChainOfThoughtClassifier(rl="star", n_rl_rounds=3, random_state=0)
    >>> star = star.fit(X, y, sequences=seqs)
    >>> bool(star.score(X_test, y_test) > 0.95)
    True
    >>> lengths = (star.generate(X_test[:5]) != 0).sum(axis=1)
    >>> lengths.tolist()
    [10, 10, 10, 10, 10]
    """

    _parameter_constraints = {
        "rl": [StrOptions({"star", "reinforce", "grpo"}), None],
        "n_rl_rounds": [Interval(Integral, 0, None, closed="left")],
        "samples_per_prompt": [Interval(Integral, 1, None, closed="left")],
        "temperature": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_sampled_tokens": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        *,
        rl="star",
        n_rl_rounds=10,
        samples_per_prompt=8,
        temperature=1.0,
        max_iter=500,
        learning_rate=10.0,
        alpha=1e-4,
        max_sampled_tokens=1e9,
        random_state=None,
        verbose=0,
    ):
        self.rl = rl
        self.n_rl_rounds = n_rl_rounds
        self.samples_per_prompt = samples_per_prompt
        self.temperature = temperature
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.alpha = alpha
        self.max_sampled_tokens = max_sampled_tokens
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sequences=None):
        """Pretrain by next-token prediction, then run the RL rounds.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Prompts. For the parity task, bits in ``{-1, +1}`` (bits in
            ``{0, 1}`` give the same model: the features span the same space).
            Without ``sequences`` any finite real features are accepted.
        y : array-like of shape (n_samples,)
            Two classes; ``classes_[0]`` is the token -1 and ``classes_[1]``
            the token +1. The reward of the RL rounds is ``1{answer = y}``.
        sequences : array-like of shape (n_samples, max_length) or list, \
                default=None
            The demonstrations of pretraining: row ``i`` holds the response to
            ``X[i]``, its tokens in ``{-1, +1}`` followed by zeros (0 marks EOS
            and the padding after it), at most ``n_features`` tokens; or a list
            of ``n_samples`` 1-D sequences of tokens in ``{-1, +1}``. Its last
            token must encode ``y[i]``. ``X`` must then hold bits, in
            ``{-1, +1}`` or ``{0, 1}``. ``None`` pretrains on the one-token
            answers ``(y, EOS)``: an ordinary classifier.

        Returns
        -------
        self : ChainOfThoughtClassifier
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_signed = check_binary_target(y)
        y_signed = y_signed.astype(np.int8)
        n_samples, n_features = X.shape
        if sequences is None:
            demos = np.zeros((n_samples, n_features), dtype=np.int8)
            demos[:, 0] = y_signed
        else:
            demos = self._check_sequences(sequences, X, y_signed)
        n_rounds = self.n_rl_rounds if self.rl is not None else 0
        n_tokens = float(n_samples) * self.samples_per_prompt * n_features * n_rounds
        check_count_budget(
            n_tokens,
            self.max_sampled_tokens,
            what="sampled tokens",
            work={"sampled_token": n_tokens},
            parameter="max_sampled_tokens",
            advice="Or lower n_rl_rounds or samples_per_prompt.",
        )
        scale = np.abs(X).max(axis=0)
        scale[scale == 0] = 1.0
        self.scale_ = scale
        # The matrices are thin (2 d + 2 columns): BLAS threads only add
        # synchronisation, badly so on a busy machine.
        with threadpool_limits(limits=1, user_api="blas"):
            self._pretrain_and_reinforce(self._design(X), demos, y_signed, n_rounds)
        return self

    def _pretrain_and_reinforce(self, X1T, demos, y_signed, n_rounds):
        n_features, n_samples = X1T.shape[0] - 1, X1T.shape[1]
        X1 = X1T.T  # the one copy of the prompts, read by every product
        shape = (n_features, 3, 2 * (n_features + 1))
        self.loss_curve_ = []
        # the token counts of pretraining and of every round, one buffer
        counts = np.empty((n_features, 3, 2, n_samples))
        coef, self.n_iter_ = self._maximise_likelihood(
            X1,
            demos,
            _lengths(demos),
            np.arange(n_samples),
            np.ones(n_samples),
            np.zeros(shape),
            counts,
            trace=self.loss_curve_,
        )
        self.pretrained_coef_ = coef.copy()
        self.chain_coef_ = coef
        rng = check_random_state(self.random_state)
        # the responses of every round, their lengths and agreement: one set
        # of arrays (see _sample)
        n_rows = n_samples * self.samples_per_prompt
        drawn = (
            np.empty((n_rows, n_features), np.int8),
            *np.empty((2, n_rows), np.intp),
        )
        record = _Record(y_signed, n_features)
        # the rounds' tables hold float32 probabilities (see _policy_tables)
        tables = _policy_tables(
            X1T, coef, self.temperature, record=record, dtype=np.float32
        )
        self.history_ = [record.row(0, n_kept=0)]
        for r in range(1, n_rounds + 1):
            tic = time.perf_counter()
            n_kept = self._rl_round(X1, y_signed, tables, rng, counts, drawn)
            # the new model's tables overwrite the former model's
            record = _Record(y_signed, n_features)
            tables = _policy_tables(
                X1T, self.chain_coef_, self.temperature, tables, record
            )
            self.history_.append(record.row(r, n_kept))
            if self.verbose > 0:
                rec = self.history_[-1]
                print(
                    f"[{type(self).__name__}] {self.rl} round {r}: greedy accuracy "
                    f"{rec['greedy_accuracy']:.3f}, median length "
                    f"{rec['median_length']:g}, long share {rec['long_share']:.3f} "
                    f"({time.perf_counter() - tic:.2f} s)"
                )

    def _check_sequences(self, sequences, X, y_signed):
        n_samples, n_features = X.shape
        if not (np.all(np.isin(X, (-1.0, 1.0))) or np.all(np.isin(X, (0.0, 1.0)))):
            raise ValueError(
                "With sequences, X must hold bits: all entries in {-1, +1} or all "
                "in {0, 1}. Demonstrations are chains of thought over the bits; "
                "binarize X first (or fit without sequences)."
            )
        tokens, rows = self._token_array(sequences)
        if len(tokens) != n_samples:
            raise ValueError(
                f"sequences holds {len(tokens)} demonstrations but X has {n_samples} "
                "rows; give one demonstration per row of X."
            )
        # every row checked at once; the first row with a fault is reported
        nonzero = tokens != 0
        lengths = np.count_nonzero(nonzero, axis=1)
        bad_token = ~np.isin(tokens, (-1, 0, 1))
        broken = np.any(nonzero[:, 1:] & ~nonzero[:, :-1], axis=1)
        faults = bad_token.any(axis=1) | (lengths == 0) | broken
        faults |= lengths > n_features
        if faults.any():
            i = int(np.flatnonzero(faults)[0])
            if bad_token[i].any():
                row = np.asarray(rows[i]) if rows is not None else tokens[i]
                bad = row[~np.isin(row, (-1, 0, 1))][0].item()
                raise ValueError(
                    f"sequences[{i}] holds the token {bad!r}; tokens are -1 and +1, "
                    "with 0 for EOS and padding."
                )
            if lengths[i] == 0 or broken[i]:
                raise ValueError(
                    f"sequences[{i}] is {'empty' if lengths[i] == 0 else 'broken'}: "
                    "a demonstration is 1 or more tokens in {-1, +1} followed only "
                    "by zeros (EOS and padding)."
                )
            raise ValueError(
                f"sequences[{i}] has {lengths[i]} tokens, more than the "
                f"{n_features} features of X allow: a response has at most "
                "n_features tokens (one per bit)."
            )
        demos = np.zeros((n_samples, n_features), dtype=np.int8)
        width = min(tokens.shape[1], n_features)
        demos[:, :width] = tokens[:, :width]
        answers = _answers(demos, _lengths(demos))
        wrong = np.flatnonzero(answers != y_signed)
        if wrong.size:
            i = wrong[0]
            raise ValueError(
                f"{wrong.size} demonstrations end with an answer that is not their "
                f"label; e.g. sequences[{i}] ends with {int(answers[i])} (the class "
                f"{self.classes_[(answers[i] + 1) // 2]!r}) but y[{i}] is "
                f"{self.classes_[(y_signed[i] + 1) // 2]!r}."
            )
        return demos

    @staticmethod
    def _token_array(sequences):
        """``sequences`` as a 2-D numeric array padded with zeros, and its rows
        as given when they were a list (None for an array)."""
        if getattr(sequences, "ndim", None) == 2:  # array or DataFrame
            tokens = np.asarray(sequences)
            if tokens.size == 0 or np.issubdtype(tokens.dtype, np.number):
                return tokens, None
            rows = list(tokens)
        elif hasattr(sequences, "__len__") and not isinstance(sequences, str):
            rows = [np.asarray(s).ravel() for s in sequences]
        else:
            raise ValueError(
                "sequences must be a 2-D array of tokens or a list of 1-D token "
                f"sequences, got {type(sequences).__name__}."
            )
        for i, row in enumerate(rows):
            if row.size and not np.issubdtype(row.dtype, np.number):
                raise ValueError(
                    f"sequences[{i}] holds non-numeric tokens ({row.dtype}); tokens "
                    "are -1 and +1, with 0 for EOS and padding."
                )
        tokens = np.zeros((len(rows), max(map(len, rows), default=0)))
        for i, row in enumerate(rows):
            tokens[i, : len(row)] = row
        return tokens, rows

    def _design(self, X):
        """``[1, X / scale_]``, the prompt part of every position's features,
        as columns ``(n_features + 1, n_samples)``: the one copy of the
        prompts that the products read (C-ordered, one column per prompt)."""
        X1T = np.empty((X.shape[1] + 1, X.shape[0]))
        X1T[0] = 1.0
        np.divide(X.T, self.scale_[:, None], out=X1T[1:])
        return X1T

    def _maximise_likelihood(
        self, X1, demos, lengths, prompts, weights, coef0, counts, trace=None
    ):
        """Penalised maximum likelihood, one independent L-BFGS fit per position.

        ``trace`` receives the total objective after every iteration, with a
        position that has converged contributing its final value.
        """
        coef = np.zeros_like(coef0)
        traces, n_iter = [], 0
        for t, item in enumerate(
            _position_counts(X1, demos, lengths, prompts, weights, counts)
        ):
            if item is None:  # no demonstration reaches position t: W = 0
                continue
            curve = []
            result = minimize(
                _nll_and_grad,
                coef0[t].ravel(),
                args=(*item, self.alpha, t == 0),
                jac=True,
                method="L-BFGS-B",
                callback=_recorder(curve),
                options={"maxiter": self.max_iter, "gtol": 1e-7, "ftol": 1e-10},
            )
            if not result.success and result.nit >= self.max_iter:
                warn_user(
                    f"The likelihood fit of position {t + 1} stopped after "
                    f"max_iter={self.max_iter} L-BFGS iterations "
                    "before converging; raise max_iter.",
                    ConvergenceWarning,
                )
            coef[t] = result.x.reshape(coef0[t].shape)
            traces.append(curve or [float(result.fun)])
            n_iter = max(n_iter, int(result.nit))
        if trace is not None and traces:
            length = max(len(c) for c in traces)
            trace.extend(
                np.sum(
                    [np.pad(c, (0, length - len(c)), mode="edge") for c in traces], 0
                ).tolist()
            )
        return coef, n_iter

    def _rl_round(self, X1, y_signed, tables, rng, counts, drawn):
        """One round from the current model's ``tables`` (``counts`` and
        ``drawn``: buffers for the token counts and the responses, as
        :func:`_sample` returns them); returns the number of responses STaR
        kept (0 for the policy-gradient methods)."""
        n_samples = X1.shape[0]
        k = self.samples_per_prompt
        prompts = np.repeat(np.arange(n_samples), k)
        # STaR refits on whole responses; a policy gradient reads the tokens
        # on which they agree with the greedy responses from those (the
        # answers are written)
        star = self.rl == "star"
        responses, lengths, agreed = _sample(tables, prompts, rng, star, drawn)
        rewards = _answers(responses, lengths) == y_signed[prompts]
        rewards = rewards.astype(np.float64)
        if star:
            kept = rewards > 0
            if not kept.any():
                warn_user(
                    "No sampled response was rewarded in a STaR round; the model "
                    "is left unchanged. Raise samples_per_prompt or temperature.",
                )
                return 0
            # the likelihood sums duplicate responses of a prompt by itself
            coef, _ = self._maximise_likelihood(
                X1,
                responses[kept],
                lengths[kept],
                prompts[kept],
                np.ones(int(kept.sum())),
                self.chain_coef_,
                counts,
            )
            self.chain_coef_ = coef
            return int(kept.sum())
        if self.rl == "reinforce":
            advantages = rewards - rewards.mean()
        else:
            # the rewards of a prompt's group are 0 or 1: their mean is the
            # share m of rewarded responses and their standard deviation
            # sqrt(m (1 - m)) (both exact when k is a power of 2, as numpy's
            # std of the group is), so each group has two advantages
            grouped = rewards.reshape(n_samples, k)
            share = grouped.mean(axis=1)  # sums of 0 and 1: exact
            std = np.sqrt(share * (1.0 - share))
            with np.errstate(divide="ignore", invalid="ignore"):
                plus, minus = (1.0 - share) / std, -share / std
            plus[std == 0], minus[std == 0] = 0.0, 0.0
            advantages = np.where(grouped > 0, plus[:, None], minus[:, None]).ravel()
        self.chain_coef_ = self.chain_coef_ + self.learning_rate * (
            self._policy_gradient(
                X1, tables, prompts, (responses, lengths, agreed), advantages, counts
            )
        )
        return 0

    def _policy_gradient(self, X1, tables, prompts, sample, advantages, counts):
        """``mean_i A_i grad log pi_T(response_i)`` at the sampling temperature,
        for the responses ``sample`` (:func:`_sample`'s) drawn from ``tables``.

        The sum over responses of ``A_i grad log pi_T`` is minus the gradient
        of the negative log-likelihood of their tokens counted with weights
        ``A_i``: per cell, ``(counts - total * proba) / T`` times the features
        ``[x1, y_prev x1]``, summed per prompt before one product by ``X1``.
        """
        n_positions, (n_prompts, h) = self.chain_coef_.shape[0], X1.shape
        responses, lengths, agreed = sample
        _, proba, record = tables
        k = self.samples_per_prompt  # the rows of prompt j: j k to (j + 1) k
        # the residuals of a block of prompts (one row per prompt, in the
        # count buffer's memory), contracted while they are still in cache:
        # X1.T @ halves, blocks of two C-ordered operands
        size = min(RESIDUAL_BLOCK, n_prompts)
        halves = counts.reshape(-1)[: size * n_positions * 6].reshape(size, -1, 6)
        products = np.zeros((h, 6 * n_positions))
        block_products = np.empty_like(products)
        for first_prompt in range(0, n_prompts, size):
            block = halves[: min(size, n_prompts - first_prompt)]
            rows = slice(first_prompt * k, (first_prompt + len(block)) * k)
            policy_residuals(
                responses[rows],
                lengths[rows],
                prompts[rows],
                advantages[rows],
                agreed[rows],
                record.path,
                proba,
                first_prompt,
                block,
            )
            prompts_block = X1.T[:, first_prompt : first_prompt + len(block)]
            np.matmul(prompts_block, block.reshape(len(block), -1), out=block_products)
            products += block_products
        products = products.reshape(h, n_positions, 6).transpose(1, 2, 0)
        grad = np.empty_like(self.chain_coef_)
        grad[:, :, :h] = products[:, :3]
        grad[:, :, h:] = products[:, 3:]
        return grad / (self.temperature * len(responses))

    def response_proba(self, X, temperature=1.0):
        """Exact distribution of the length and answer of a sampled response.

        A forward recursion over the previous token (the features of a
        position depend on the prompt and that token only).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Prompts.
        temperature : float, default=1.0
            Sampling temperature, > 0.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_features, 2)
            ``proba[i, l - 1, c]``: probability that the response to ``X[i]``
            has ``l`` tokens and answers ``classes_[c]``. Sums to 1 over the
            last two axes.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if not temperature > 0:
            raise ValueError(
                f"temperature must be > 0, got {temperature!r}; use generate(X) "
                "for the greedy responses."
            )
        tables = _policy_tables(self._design(X), self.chain_coef_, float(temperature))
        return np.ascontiguousarray(_response_law(tables[1]).transpose(2, 0, 1))

    def generate(self, X, temperature=0.0, random_state=None):
        """Responses to the prompts ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Prompts.
        temperature : float, default=0.0
            0 decodes greedily (the responses :meth:`predict` reads); a
            positive value samples every token with probability proportional
            to ``exp(logit / temperature)``.
        random_state : int, RandomState instance or None, default=None
            Seeds the sampling (unused when greedy).

        Returns
        -------
        sequences : ndarray of shape (n_samples, n_features), dtype int8
            Tokens in ``{-1, +1}``, then zeros (EOS and padding); the length
            of a response is its number of non-zero entries.
        """
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        if not (isinstance(temperature, Real) and temperature >= 0):
            raise ValueError(f"temperature must be a number >= 0, got {temperature!r}.")
        rng = check_random_state(random_state)
        tables = _policy_tables(self._design(X), self.chain_coef_, float(temperature))
        return _sample(tables, np.arange(X.shape[0]), rng)[0]

    def predict(self, X):
        """The answers (last tokens) of the greedy responses.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Prompts.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class labels.
        """
        responses = self.generate(X, temperature=0.0)
        answers = _answers(responses, _lengths(responses))
        return self.classes_[(answers > 0).astype(np.intp)]
