"""Per-token loops of :class:`~sklearn_iclr.sequence.ChainOfThoughtClassifier` (numba).

A position's next-token law depends on a response only through its prompt and
its previous token, so the estimator tabulates it once per (previous token,
prompt) cell: ``proba[v, s, j]`` is the probability of token index ``v``
(-1, +1, EOS) after the previous token ``SIGNS[s]`` for prompt ``j``. What is
left per sampled token is a table read, and that is what these kernels do:

* :func:`tabulate_logits`: per cell, the greedy token and the logits at a
  temperature shifted by their maximum (whose ``exp`` numpy then takes);
* :func:`advance_record`: normalises a position's table (the ``exp`` of its
  shifted logits) in place and takes the greedy response, the probability
  that a sampled response has followed it so far, and the law of the sampled
  response's length and answer one position further (the round's record), in
  one pass over the table;
* :func:`sample_responses`: sampled responses (and their lengths): one draw
  (:func:`draw_uniform`) decides how far a response follows its prompt's
  greedy response, and only the tokens after it leaves that response are
  drawn, and written, one by one (:func:`write_agreed` writes the others);
* :func:`decode_greedy`: every position of the greedy responses (and their
  lengths);
* :func:`count_tokens`: the weighted counts of every position's tokens per
  cell, the data of the likelihood gradient (one row at a time);
* :func:`policy_residuals`: the same counts, one prompt at a time (the
  positions on which its responses agree with its greedy response counted
  along it once), turned at once into every position's per-prompt residuals
  under the position's law, which one product by the prompts turns into the
  policy gradient;
* :func:`cell_logits` and :func:`cell_likelihood`: the likelihood fits'
  objective, the negative log-likelihood of the counts in the cells that
  hold one, and its residuals, from the shifted logits of those cells and
  their ``exp`` (which numpy takes between the two).

Each of these has a reference in numpy or plain Python (``*_reference``), the
oracle of the kernels' tests (which also run with ``NUMBA_DISABLE_JIT=1``);
the draws are checked against numpy's SFC64 generator.
"""

import math

import numpy as np
from numba import njit

EOS = 2
SIGNS = (-1.0, 1.0)

# The sampler's draws: numpy's SFC64 generator (small fast chaotic, 64-bit)
# stepped inline, so that a response takes only the draws it needs. numba's
# support for numpy Generators calls the bit generator through a function
# pointer for every draw, which costs more than a token's own work here.
_SHIFT_RIGHT, _SHIFT_LEFT, _ROTATE = np.uint64(11), np.uint64(3), np.uint64(24)
_ROTATE_BACK, _ONE = np.uint64(64 - 24), np.uint64(1)
_UNIT = 2.0**-53  # a uniform draw per unit of its top 53 bits


def _previous(sequences, rows, t):
    """Cell row ``s`` of the previous token: 1 after +1, else 0."""
    if t == 0:
        return np.zeros(len(rows), dtype=np.intp)
    return (sequences[rows, t - 1] > 0).astype(np.intp)


@njit(cache=True)
def tabulate_logits(halves, first, temperature, greedy, shifted):
    """Per cell ``(s, j)``, the logits ``z = a_j + y_s b_j`` of one position.

    ``halves`` stacks ``a`` (rows 0-2) over ``b`` (rows 3-5); ``y_s`` is
    ``SIGNS[s]``, or 0 at the ``first`` position, where EOS is barred.
    Writes ``greedy[s, j]``, the first index of the largest logit, and, when
    ``temperature > 0``, ``shifted[v, s, j] = (z_v - max_v z_v) *
    (1 / temperature)``.
    """
    inverse = 1.0 / temperature if temperature > 0 else 0.0
    for s in range(2):
        sign = 0.0 if first else SIGNS[s]
        for j in range(halves.shape[1]):
            z0 = halves[0, j] + sign * halves[3, j]
            z1 = halves[1, j] + sign * halves[4, j]
            z2 = -np.inf if first else halves[2, j] + sign * halves[5, j]
            best, top = 0, z0
            if z1 > top:
                best, top = 1, z1
            if z2 > top:
                best, top = 2, z2
            greedy[s, j] = best
            if temperature > 0:
                shifted[0, s, j] = (z0 - top) * inverse
                shifted[1, s, j] = (z1 - top) * inverse
                shifted[2, s, j] = (z2 - top) * inverse


def tabulate_logits_reference(halves, first, temperature, greedy, shifted):
    """:func:`tabulate_logits` in numpy."""
    signs = np.zeros((2, 1)) if first else np.array(SIGNS)[:, None]
    z = halves[:3, None, :] + signs * halves[3:, None, :]
    if first:
        z[EOS] = -np.inf
    greedy[...] = z.argmax(axis=0)
    if temperature > 0:
        shifted[...] = (z - z.max(axis=0)) * (1.0 / temperature)


@njit(cache=True)
def advance_record(
    table, greedy, t, last, y_signed, walk, path, survival, alive, reward, mass
):
    """Normalise one position's table and take the record of a model one
    position further, from the position's odds ``table[v, s, j]`` (the
    ``exp`` of its shifted logits, normalised here in place into its law
    ``p[v, s, j] = table[v, s, j] / sum_u table[u, s, j]``, the sum in
    float64 whatever the table's type) and greedy tokens ``greedy[s, j]``
    (``t``: its index, ``last``: whether it is the last).

    Per prompt ``j`` of the answer ``y_signed[j]``:

    * the greedy response: ``walk[0, j]`` is the cell row of its previous
      token (-1 once it has ended), ``walk[1, j]`` its length (start: the
      number of positions), ``walk[2, j]`` its last token; ``path[j, t]`` is
      its token (written up to its EOS: ``path`` starts at 0) and
      ``survival[t + 1, j]`` the
      probability under the stored law (``p`` as ``table`` holds it, EOS
      taking ``1 - p_{-1} - p_{+1}`` as the sampler does) that a sampled
      response agrees with it at every position up to ``t`` (``survival[0]``
      is 1; it stays constant once the greedy response has ended);
    * the law of the sampled response (the forward recursion of
      :meth:`~sklearn_iclr.sequence.ChainOfThoughtClassifier.response_proba`,
      from the law ``p`` in float64): ``alive[v, j]``, the probability that it
      goes on after the token ``SIGNS[v]`` (the last written), is turned into
      the probability that it ends here (``mass[t - 1]`` sums it over the
      prompts, ``reward[j]`` over the positions where the token is
      ``y_signed[j]``) and that it goes on.
    """
    # the masses are summed in registers, not through memory
    ended, remaining = 0.0, 0.0
    for j in range(table.shape[2]):
        a0, b0, e0 = _normalise_cell(table, 0, j)  # after -1 (or at t = 0)
        a1, b1, e1 = _normalise_cell(table, 1, j)  # after +1
        s, agrees = walk[0, j], 1.0
        if s >= 0:  # the greedy token's stored probability, read by index
            v = greedy[s, j]
            if v == EOS:
                agrees = 1.0 - np.float64(table[0, s, j]) - table[1, s, j]
                walk[0, j], walk[1, j] = -1, t
            else:
                agrees = table[v, s, j]
                walk[0, j], walk[2, j] = v, 2 * v - 1
                path[j, t] = 2 * v - 1
        survival[t + 1, j] = survival[t, j] * agrees
        answer = 1 if y_signed[j] > 0 else 0
        if t == 0:
            on0, on1 = a0, b0
        else:
            end0, end1 = alive[0, j] * e0, alive[1, j] * e1
            reward[j] += end1 if answer else end0
            ended += end0 + end1
            on0 = alive[0, j] * a0 + alive[1, j] * a1
            on1 = alive[0, j] * b0 + alive[1, j] * b1
        alive[0, j], alive[1, j] = on0, on1
        if last:  # the response ends after the last position
            reward[j] += on1 if answer else on0
            remaining += on0 + on1
    if t > 0:
        mass[t - 1] += ended
    if last:
        mass[t] += remaining


@njit(cache=True, inline="always")
def _normalise_cell(table, s, j):
    """Normalise the cell ``(s, j)`` of ``table`` in place; returns its law
    (tokens -1, +1, EOS) in float64."""
    odds0, odds1, odds2 = np.float64(table[0, s, j]), table[1, s, j], table[2, s, j]
    inverse = 1.0 / (odds0 + odds1 + odds2)
    p0, p1, p2 = odds0 * inverse, odds1 * inverse, odds2 * inverse
    table[0, s, j], table[1, s, j], table[2, s, j] = p0, p1, p2
    return p0, p1, p2


def normalise_table(table):
    """The law of a position's odds ``table``, as :func:`advance_record`
    takes it (a float64 sum, a reciprocal and a product): written into
    ``table``, and returned in float64 (the normalisation of
    :func:`advance_record_reference`)."""
    p = table * (1.0 / table.sum(axis=0, dtype=np.float64))
    table[...] = p
    return p


def advance_record_reference(
    table, greedy, t, last, y_signed, walk, path, survival, alive, reward, mass
):
    """:func:`advance_record` in numpy."""
    proba = normalise_table(table)
    going = np.flatnonzero(walk[0] >= 0)
    v = greedy[walk[0, going], going]
    stored = table[:EOS, walk[0, going], going].astype(np.float64)
    stored = np.vstack([stored, 1.0 - stored[0] - stored[1]])
    survival[t + 1] = survival[t]
    survival[t + 1, going] *= stored[v, np.arange(len(going))]
    path[going[v != EOS], t] = 2 * v[v != EOS] - 1
    walk[1, going[v == EOS]] = t
    walk[0, going[v == EOS]] = -1
    walk[0, going[v != EOS]] = v[v != EOS]
    walk[2, going[v != EOS]] = 2 * v[v != EOS] - 1
    answer = (y_signed > 0).astype(np.intp)
    if t == 0:
        alive[...] = proba[:EOS, 0]
    else:
        end = alive * proba[EOS]
        reward += end[answer, np.arange(len(answer))]
        mass[t - 1] += end.sum()
        alive[...] = np.einsum("sj,vsj->vj", alive, proba[:EOS])
    if last:
        reward += alive[answer, np.arange(len(answer))]
        mass[t] += alive.sum()


def new_stream(seeds):
    """The state of a stream of draws (:func:`draw_uniform`) seeded by three
    64-bit integers ``seeds``, past its first 12 outputs."""
    state = np.empty(4, dtype=np.uint64)
    state[:3], state[3] = seeds, _ONE
    with np.errstate(over="ignore"):  # the generator's sums wrap modulo 2**64
        for _ in range(12):
            draw_uniform(state)
    return state


@njit(cache=True, inline="always")
def draw_uniform(state):
    """A uniform draw in ``[0, 1)`` (53 random bits) from the stream
    ``state`` (:func:`new_stream`), which it advances by one sfc64 step."""
    a, b, c, counter = state[0], state[1], state[2], state[3]
    output = a + b + counter
    state[0] = b ^ (b >> _SHIFT_RIGHT)
    state[1] = c + (c << _SHIFT_LEFT)
    state[2] = ((c << _ROTATE) | (c >> _ROTATE_BACK)) + output
    state[3] = counter + _ONE
    return (output >> _SHIFT_RIGHT) * _UNIT


@njit(cache=True)
def sample_responses(
    proba, path, survival, greedy_lengths, prompts, state, sequences, lengths, agreed
):
    """Sampled responses, their lengths and the number of their first
    positions on which they agree with their prompt's greedy response
    (``agreed``; the number of positions where they follow it to its end,
    EOS included). The agreeing tokens are left unwritten in ``sequences``
    (a policy gradient counts them along the greedy response;
    :func:`write_agreed` writes them), but every response's answer (last
    token) is written. ``proba[t, v, s, j]`` is the law of token ``v`` at
    position ``t`` after ``SIGNS[s]`` for prompt ``j`` (EOS: ``1 - p_{-1} -
    p_{+1}``, barred at ``t = 0``); ``path``, ``survival`` and
    ``greedy_lengths`` are its greedy responses as :func:`advance_record`
    takes them.

    Response ``i`` (a row of ``sequences``, answering ``prompts[i]``) draws
    ``u`` (:func:`draw_uniform` from ``state``) and agrees with its prompt's
    greedy response at every position ``t < m``, ``m`` the number of
    positions ``t >= 1`` with ``u < survival[t, j]`` (all of it when ``u <
    survival[-1, j]``): the chance of agreeing through ``t`` is
    ``survival[t + 1, j]``. At ``m`` it takes one of the other tokens in
    proportion to their probabilities (a second draw; at ``t = 0``, where EOS
    is barred, the other sign without one). Once every response has done
    so, the responses that go on draw their later tokens position by
    position (in the order of the rows, so that one position's law is read
    at a time), each from its law: -1 below ``p_{-1}``, +1 below ``p_{-1} +
    p_{+1}``, else EOS, which ends it (``lengths[i] = t``). Once the policy
    is nearly greedy a response costs one draw.
    """
    n_positions, n_rows = proba.shape[0], prompts.shape[0]
    going = np.empty(n_rows, dtype=np.intp)  # rows with tokens left to draw
    n_going = 0
    for i in range(n_rows):
        j = prompts[i]
        u = draw_uniform(state)
        if u < survival[n_positions, j]:
            agree = n_positions
        else:
            agree = 0
            for t in range(1, n_positions):
                agree += u < survival[t, j]
        agreed[i] = agree
        if agree == n_positions:
            length = greedy_lengths[j]
            lengths[i] = length
            sequences[i, length - 1] = path[j, length - 1]  # its answer
            continue
        t = agree
        if t == 0:  # EOS is barred: the other sign
            v = 0 if path[j, 0] > 0 else 1
        else:
            s = 1 if path[j, t - 1] > 0 else 0
            p0, p1 = np.float64(proba[t, 0, s, j]), np.float64(proba[t, 1, s, j])
            p2 = 1.0 - p0 - p1
            w = draw_uniform(state)
            if path[j, t] < 0:  # the greedy token is -1
                v = 1 if w * (p1 + p2) < p1 else EOS
            elif path[j, t] > 0:
                v = 0 if w * (p0 + p2) < p0 else EOS
            else:  # the greedy response ends here
                v = 0 if w * (p0 + p1) < p0 else 1
        if v == EOS:
            lengths[i] = t
            sequences[i, t - 1] = path[j, t - 1]
        elif t + 1 == n_positions:
            lengths[i] = n_positions
            sequences[i, t] = 2 * v - 1
        else:
            # lengths holds the next position to draw until the row ends
            lengths[i] = t + 1
            sequences[i, t] = 2 * v - 1
            going[n_going] = i
            n_going += 1
    for t in range(1, n_positions):
        n_kept, last = 0, t + 1 == n_positions
        for q in range(n_going):
            i = going[q]
            going[n_kept] = i
            if lengths[i] > t:  # it goes on from a later position
                n_kept += 1
                continue
            j = prompts[i]
            s = 1 if sequences[i, t - 1] > 0 else 0
            p0, p1 = np.float64(proba[t, 0, s, j]), np.float64(proba[t, 1, s, j])
            w = draw_uniform(state)
            # without branches: the draws are what a branch predictor cannot
            # guess
            plus, ends = w >= p0, w >= p0 + p1
            sequences[i, t] = (2 * plus - 1) * (1 - ends)
            lengths[i] = t + 1 - ends
            n_kept += (1 - ends) * (1 - last)
        n_going = n_kept


def sample_responses_reference(
    proba, path, survival, greedy_lengths, prompts, state, sequences, lengths, agreed
):
    """:func:`sample_responses` in plain Python, with the same draws from
    ``state``: each response goes token by token along the greedy response
    (its law read from ``proba``, not from ``survival``) while its first draw
    allows; the responses that go on are then drawn position by position."""
    n_positions = proba.shape[0]
    going = []
    for i, j in enumerate(prompts):
        u, chance, s, t, left = draw_uniform(state), 1.0, 0, 0, False
        while t < n_positions:  # along the greedy response while u allows
            law = proba[t, :, s, j].astype(np.float64)
            law[EOS] = 0.0 if t == 0 else 1.0 - law[0] - law[1]
            g = EOS if path[j, t] == 0 else int(path[j, t] > 0)
            left = not u < chance * law[g]
            if left:
                break
            chance *= law[g]
            if g == EOS:
                break
            s, t = g, t + 1
        lengths[i], agreed[i] = t, t if left else n_positions
        if not left:  # it followed the greedy response to its end: its answer
            if t > 0:
                sequences[i, t - 1] = path[j, t - 1]
            continue
        if t == 0:  # EOS is barred: the other sign
            v = 1 - g
        else:
            others = [v for v in range(3) if v != g]
            w = draw_uniform(state)
            v = others[0] if w * law[others].sum() < law[others[0]] else others[1]
        if v == EOS:
            sequences[i, t - 1] = path[j, t - 1]
            continue
        sequences[i, t], lengths[i] = 2 * v - 1, t + 1
        if t + 1 < n_positions:
            going.append(i)
    for t in range(1, n_positions):
        for i in [i for i in going if lengths[i] == t]:
            j, s = prompts[i], int(sequences[i, t - 1] > 0)
            p0, p1 = np.float64(proba[t, 0, s, j]), np.float64(proba[t, 1, s, j])
            w = draw_uniform(state)
            v = 0 if w < p0 else (1 if w < p0 + p1 else EOS)
            if v != EOS:
                sequences[i, t], lengths[i] = 2 * v - 1, t + 1
        going = [i for i in going if t < lengths[i] < n_positions]


@njit(cache=True)
def write_agreed(path, prompts, agreed, sequences):
    """Write into each row of ``sequences`` the first ``agreed[i]`` tokens of
    its prompt's greedy response ``path[prompts[i]]`` (all of it when
    ``agreed[i]`` is the number of positions), which
    :func:`sample_responses` leaves unwritten."""
    for i in range(prompts.shape[0]):
        j = prompts[i]
        for t in range(agreed[i]):
            sequences[i, t] = path[j, t]


@njit(cache=True)
def decode_greedy(greedy, prompts, sequences, lengths):
    """Greedy responses and their lengths: ``greedy[t, s, j]`` is the token
    index chosen at position ``t`` after ``SIGNS[s]`` for prompt ``j``."""
    n_positions = greedy.shape[0]
    for i in range(prompts.shape[0]):
        j = prompts[i]
        s = 0
        lengths[i] = n_positions
        for t in range(n_positions):
            v = greedy[t, s, j]
            if v == EOS:
                lengths[i] = t
                break
            sequences[i, t] = 2 * v - 1
            s = v


def decode_greedy_reference(greedy, prompts, sequences, lengths):
    """:func:`decode_greedy` in numpy, one position at a time."""
    alive = np.arange(len(prompts))
    lengths[:] = greedy.shape[0]
    for t in range(greedy.shape[0]):
        v = greedy[t, _previous(sequences, alive, t), prompts[alive]]
        lengths[alive[v == EOS]] = t
        alive = alive[v != EOS]
        sequences[alive, t] = 2 * v[v != EOS] - 1


@njit(cache=True, inline="always")
def _count_row(sequences, i, start, s, length, weight, counts, cell):
    """Add ``weight`` to ``counts[(t, v, s) + cell]`` for every position
    ``start <= t <= length`` that the row ``sequences[i]`` reaches, ``v`` its
    token index there (EOS at ``t == length``) and ``s`` its previous token's
    cell row (given at ``start``); ``cell`` indexes the prompt's counts
    (``(j,)``, or ``()`` for counts of one prompt)."""
    for t in range(start, min(length + 1, counts.shape[0])):
        if t == length:
            counts[(t, EOS, s) + cell] += weight
        else:
            v = 1 if sequences[i, t] > 0 else 0
            counts[(t, v, s) + cell] += weight
            s = v


@njit(cache=True)
def count_tokens(sequences, lengths, prompts, weights, counts):
    """Add ``weights[i]`` to ``counts[t, v, s, prompts[i]]`` for every row
    ``i`` with a non-zero weight and every position ``t <= lengths[i]`` it
    reaches, ``v`` its token index there (EOS at ``t == lengths[i]``) and ``s``
    its previous token's cell row. One pass over the rows, in order."""
    for i in range(sequences.shape[0]):
        if weights[i] != 0:
            _count_row(
                sequences, i, 0, 0, lengths[i], weights[i], counts, (prompts[i],)
            )


def count_tokens_reference(sequences, lengths, prompts, weights, counts):
    """:func:`count_tokens` in numpy (a weighted ``bincount`` per position)."""
    shape = counts.shape[1:]
    for t in range(counts.shape[0]):
        rows = np.flatnonzero((lengths >= t) & (weights != 0))
        tokens = sequences[rows, t]
        v = np.where(tokens == 0, EOS, (tokens > 0).astype(np.intp))
        cell = (v * 2 + _previous(sequences, rows, t)) * shape[2] + prompts[rows]
        counts[t] += np.bincount(
            cell, weights=weights[rows], minlength=counts[t].size
        ).reshape(shape)


@njit(cache=True)
def policy_residuals(
    sequences, lengths, prompts, weights, agreed, path, proba, first_prompt, halves
):
    """Per prompt ``j = first_prompt + b`` and position ``t``, the residuals ``r[v,
    s] = counts[t, v, s, j] - proba[t, v, s, j] * sum_v counts[t, v, s, j]``
    summed over the previous token, plain (``halves[b, t, v]``) and times its
    value ``y_s`` (``halves[b, t, 3 + v]``; 0 at the first position): the
    coefficients of ``[x1, y_prev x1]`` in minus the likelihood gradient of
    the counts, which are :func:`count_tokens`' counts of the rows
    (``weights[i]`` for every position ``t <= lengths[i]`` a row reaches),
    from their tokens after their first ``agreed[i]`` (as
    :func:`sample_responses` leaves them).

    The rows must come sorted by prompt, as the responses of a round do: the
    counts of one prompt then fit in a buffer of ``(n_positions, 3, 2)``
    instead of a table of every cell, and its residuals are written once,
    side by side (a row of ``halves``); ``halves`` may hold a block of
    prompts, whose rows only are given. A row agrees with its prompt's greedy
    response ``path[j]`` on its first ``agreed[i]`` positions (all of it,
    EOS included, when ``agreed[i]`` is the number of positions), as
    :func:`sample_responses` writes them: those positions are counted once
    per prompt, along the greedy response, with the summed weight of the
    rows that agree there, and only the rest of each row token by token. A
    prompt whose rows all weigh 0 (a GRPO group of equal rewards) has
    residuals 0, written without reading its law.
    """
    n_positions, n_prompts, n_rows = proba.shape[0], halves.shape[0], len(prompts)
    for i in range(1, n_rows):
        if prompts[i] < prompts[i - 1]:
            raise ValueError("policy_residuals needs the rows sorted by prompt.")
    if (
        n_rows
        and not first_prompt <= prompts[0] <= prompts[-1] < first_prompt + n_prompts
    ):
        raise ValueError("policy_residuals needs the rows of the block's prompts only.")
    local = np.empty((n_positions, 3, 2))
    # leaving[m]: the weight of the rows that agree on exactly m positions
    leaving = np.empty(n_positions + 1)
    i = 0
    for b in range(n_prompts):
        j = first_prompt + b
        local[:] = 0.0
        leaving[:] = 0.0
        counted = False
        while i < n_rows and prompts[i] == j:
            if weights[i] != 0:
                m = agreed[i]
                leaving[m] += weights[i]
                if m < n_positions:  # the rest, from the greedy response's cell
                    s = 1 if m > 0 and path[j, m - 1] > 0 else 0
                    _count_row(sequences, i, m, s, lengths[i], weights[i], local, ())
                counted = True
            i += 1
        if not counted:
            halves[b] = 0.0
            continue
        # from here on leaving[t + 1] holds the weight of the rows that agree
        # at position t: those that leave it after t
        agreeing, s = 0.0, 0
        for t in range(n_positions - 1, -1, -1):
            agreeing += leaving[t + 1]
            leaving[t + 1] = agreeing
        for t in range(n_positions):  # along the greedy response
            if path[j, t] == 0:
                local[t, EOS, s] += leaving[t + 1]
                break
            v = 1 if path[j, t] > 0 else 0
            local[t, v, s] += leaving[t + 1]
            s = v
        for t in range(n_positions):
            total0 = local[t, 0, 0] + local[t, 1, 0] + local[t, 2, 0]
            total1 = local[t, 0, 1] + local[t, 1, 1] + local[t, 2, 1]
            for v in range(3):
                r0 = local[t, v, 0] - proba[t, v, 0, j] * total0
                r1 = local[t, v, 1] - proba[t, v, 1, j] * total1
                halves[b, t, v] = r0 + r1
                halves[b, t, 3 + v] = 0.0 if t == 0 else SIGNS[0] * r0 + SIGNS[1] * r1


def policy_residuals_reference(
    sequences, lengths, prompts, weights, agreed, path, proba, first_prompt, halves
):
    """:func:`policy_residuals` in numpy, from :func:`count_tokens_reference`
    (every row written whole by :func:`write_agreed`, then counted token by
    token)."""
    sequences = sequences.copy()
    write_agreed(path, prompts, agreed, sequences)
    counts = np.zeros(proba.shape)
    count_tokens_reference(sequences, lengths, prompts, weights, counts)
    residual = counts - proba * counts.sum(axis=1, keepdims=True)
    signs = np.array(SIGNS)[:, None]
    by_position = np.concatenate(
        [residual.sum(axis=2), (signs * residual).sum(axis=2)], axis=1
    )
    by_position[0, 3:] = 0.0
    block = slice(first_prompt, first_prompt + len(halves))
    halves[...] = by_position.transpose(2, 0, 1)[block]


@njit(cache=True)
def cell_logits(halves, cell_prev, cell_prompt, first, shifted):
    """The logits of the listed cells at temperature 1, shifted by their
    maximum: cell ``c`` is the prompt ``j = cell_prompt[c]`` after the
    previous token ``SIGNS[cell_prev[c]]``, and ``shifted[v, c] = z_v -
    max_u z_u`` with ``z = a_j + y b_j`` as in :func:`tabulate_logits`.

    The likelihood fits list only the cells that hold a count: a prompt of
    the demonstrations or of the kept responses mostly reaches a position
    after one previous token, not both.
    """
    for c in range(cell_prompt.shape[0]):
        j = cell_prompt[c]
        sign = 0.0 if first else SIGNS[cell_prev[c]]
        z0 = halves[0, j] + sign * halves[3, j]
        z1 = halves[1, j] + sign * halves[4, j]
        z2 = -np.inf if first else halves[2, j] + sign * halves[5, j]
        top = max(z0, z1, z2)
        shifted[0, c] = z0 - top
        shifted[1, c] = z1 - top
        shifted[2, c] = z2 - top


def cell_logits_reference(halves, cell_prev, cell_prompt, first, shifted):
    """:func:`cell_logits` in numpy."""
    signs = np.zeros(2) if first else np.array(SIGNS)
    z = halves[:3, cell_prompt] + signs[cell_prev] * halves[3:, cell_prompt]
    if first:
        z[EOS] = -np.inf
    shifted[...] = z - z.max(axis=0)


@njit(cache=True)
def cell_likelihood(
    shifted, exp_shifted, counts, cell_prev, cell_prompt, first, residual
):
    """Negative log-likelihood of ``counts[v, c]`` (token ``v`` in cell ``c``
    of :func:`cell_logits`) under those logits (``shifted``, and its ``exp``).

    Cell ``c`` contributes ``sum_v counts[v, c] (log sum_u exp z_u - z_v)``.
    Writes into ``residual`` the residuals of :func:`policy_residuals` for
    the softmax of ``z``, with the sign flipped (``softmax * total -
    counts``, summed per prompt: the gradient's coefficients).
    """
    n_tokens = EOS if first else 3
    residual[:] = 0.0
    loss = 0.0
    for c in range(cell_prompt.shape[0]):
        j = cell_prompt[c]
        sign = 0.0 if first else SIGNS[cell_prev[c]]
        total = counts[0, c] + counts[1, c] + counts[2, c]
        norm = 0.0
        for v in range(n_tokens):
            norm += exp_shifted[v, c]
        log_norm = math.log(norm)
        for v in range(n_tokens):
            count = counts[v, c]
            if count != 0:
                loss += count * (log_norm - shifted[v, c])
            r = exp_shifted[v, c] / norm * total - count
            residual[v, j] += r
            residual[3 + v, j] += sign * r
    return loss


def cell_likelihood_reference(
    shifted, exp_shifted, counts, cell_prev, cell_prompt, first, residual
):
    """:func:`cell_likelihood` in numpy."""
    n_tokens = EOS if first else 3
    signs = np.zeros(2) if first else np.array(SIGNS)
    z = shifted[:n_tokens]
    log_norm = np.log(exp_shifted[:n_tokens].sum(axis=0))
    target = counts[:n_tokens]
    r = np.exp(z - log_norm) * counts.sum(axis=0) - target
    residual[:] = 0.0
    for v in range(n_tokens):
        residual[v] = np.bincount(cell_prompt, r[v], residual.shape[1])
        residual[3 + v] = np.bincount(
            cell_prompt, signs[cell_prev] * r[v], residual.shape[1]
        )
    return float(np.sum(target * (log_norm - z)))
