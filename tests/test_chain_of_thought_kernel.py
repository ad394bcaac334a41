"""The chain-of-thought kernels (``sequence/_kernel.py``) against their numpy
references; also run with ``NUMBA_DISABLE_JIT=1``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import log_softmax

from sklearn_iclr.sequence import _kernel
from sklearn_iclr.sequence._kernel import EOS

pytestmark = pytest.mark.kernel


@st.composite
def chains(draw):
    """Logit halves of one position, a law over its cells, and responses
    (``columns``: one position per row) with their prompts and weights."""
    rng = np.random.RandomState(draw(st.integers(0, 2**31 - 1)))
    n_prompts = draw(st.integers(1, 6))
    n_positions = draw(st.integers(1, 5))
    n_rows = draw(st.integers(1, 40))
    scale = draw(st.sampled_from([0.1, 3.0, 40.0]))
    halves = scale * rng.standard_normal((6, n_prompts))
    proba = rng.dirichlet(np.ones(3), size=(2, n_prompts)).transpose(2, 0, 1)
    lengths = rng.randint(1, n_positions + 1, size=n_rows)
    tokens = rng.choice(np.array([-1, 1], dtype=np.int8), (n_rows, n_positions))
    tokens[np.arange(n_positions) >= lengths[:, None]] = 0
    prompts = rng.randint(n_prompts, size=n_rows)
    weights = rng.standard_normal(n_rows) * (rng.random_sample(n_rows) < 0.8)
    return {
        "halves": halves,
        "proba": np.ascontiguousarray(proba),
        "first": draw(st.booleans()),
        "temperature": draw(st.sampled_from([0.0, 0.5, 1.0, 2.5])),
        "sequences": tokens,
        "lengths": lengths,
        "prompts": prompts,
        "weights": weights,
        "t": draw(st.integers(0, n_positions - 1)),
        # the tables' type: the RL rounds' tables hold float32
        "dtype": draw(st.sampled_from([np.float64, np.float32])),
    }


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_tabulate_logits_equals_the_reference(chain):
    n = chain["halves"].shape[1]
    args = (chain["halves"], chain["first"], chain["temperature"])
    results = []
    for f in (_kernel.tabulate_logits, _kernel.tabulate_logits_reference):
        greedy, shifted = np.zeros((2, n), np.int8), np.zeros((3, 2, n), chain["dtype"])
        f(*args, greedy, shifted)
        results.append((greedy, shifted))
    (greedy, shifted), (ref_greedy, ref_shifted) = results
    np.testing.assert_array_equal(greedy, ref_greedy)
    np.testing.assert_array_equal(shifted, ref_shifted)


def _assert_same_responses(kernels, like, *inputs):
    """The kernel and its reference write the same responses and lengths.

    Each of ``kernels`` is called as ``f(*inputs, sequences, lengths)`` on
    fresh outputs shaped like ``like``; the lengths must also count the
    written tokens.
    """
    results = []
    for f in kernels:
        sequences = np.zeros_like(like)
        lengths = np.full(len(like), -1, dtype=np.intp)
        f(*inputs, sequences, lengths)
        results.append((sequences, lengths))
    (sequences, lengths), (ref_sequences, ref_lengths) = results
    np.testing.assert_array_equal(sequences, ref_sequences)
    np.testing.assert_array_equal(lengths, ref_lengths)
    np.testing.assert_array_equal(lengths, np.count_nonzero(sequences, axis=1))


def _recorded_tables(rng, n_positions, n, dtype):
    """Random odds tables of ``n_positions`` positions and ``n`` prompts
    (the largest 1 per cell, EOS barred at the first position), random greedy
    tokens, and the terms of :func:`~._kernel.advance_record` that start a
    record (walk, path, survival, alive, reward, mass)."""
    odds = rng.exponential(size=(n_positions, 3, 2, n))
    odds *= 10.0 ** rng.randint(-3, 4, size=odds.shape)
    greedy = rng.randint(3, size=(n_positions, 2, n)).astype(np.int8)
    odds[0, 2], greedy[0] = 0.0, greedy[0] % 2
    odds = (odds / odds.max(axis=1, keepdims=True)).astype(dtype)
    walk = np.zeros((3, n), np.intp)
    walk[1] = n_positions
    survival = np.empty((n_positions + 1, n))
    survival[0] = 1.0
    terms = (walk, np.zeros((n, n_positions), np.int8), survival)
    terms += (np.empty((2, n)), np.zeros(n), np.zeros(n_positions))
    return odds, greedy, terms


def _sampled(odds, terms, prompts, seeds):
    """The responses, lengths and agreements that :func:`~._kernel.sample_responses`
    draws for ``prompts`` from recorded tables (``terms``: see
    :func:`_recorded_tables`), seeded by ``seeds``; the responses whole."""
    walk, path, survival = terms[:3]
    sequences = np.zeros((len(prompts), len(odds)), np.int8)
    lengths, agreed = np.zeros((2, len(prompts)), np.intp)
    state = _kernel.new_stream(np.array(seeds, np.uint64))
    with np.errstate(over="ignore"):  # wrapping sums, without numba
        _kernel.sample_responses(
            odds, path, survival, walk[1], prompts, state, sequences, lengths, agreed
        )
    _kernel.write_agreed(path, prompts, agreed, sequences)
    return sequences, lengths, agreed


def _record(odds, greedy, terms, advance=_kernel.advance_record):
    """Normalise ``odds`` in place and fill the record ``terms``."""
    y_signed = np.ones(odds.shape[-1], np.int8)
    n_positions = len(odds)
    for t in range(n_positions):
        advance(odds[t], greedy[t], t, t == n_positions - 1, y_signed, *terms)


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_sample_responses_equals_the_reference(chain):
    n_rows, n_positions = chain["sequences"].shape
    n = chain["halves"].shape[1]
    rng = np.random.RandomState(n_rows)
    proba, greedy, terms = _recorded_tables(rng, n_positions, n, chain["dtype"])
    _record(proba, greedy, terms)
    walk, path, survival = terms[:3]
    seeds = rng.randint(2**63, size=3).astype(np.uint64)
    agreements = []

    def from_the_same_stream(kernel):
        def sample(*arrays):
            *inputs, sequences, lengths = arrays
            agreements.append(np.full(len(lengths), -1, np.intp))
            with np.errstate(over="ignore"):  # wrapping sums, without numba
                kernel(
                    *inputs,
                    _kernel.new_stream(seeds),
                    sequences,
                    lengths,
                    agreements[-1],
                )
            # the greedy responses' tokens, which the samplers leave unwritten
            _kernel.write_agreed(inputs[1], inputs[4], agreements[-1], sequences)

        return sample

    _assert_same_responses(
        (
            from_the_same_stream(_kernel.sample_responses),
            from_the_same_stream(_kernel.sample_responses_reference),
        ),
        chain["sequences"],
        proba,
        path,
        survival,
        walk[1],
        chain["prompts"],
    )
    np.testing.assert_array_equal(*agreements)
    # each response agrees with its prompt's greedy response exactly so far
    responses = np.zeros_like(chain["sequences"])
    lengths = np.zeros(n_rows, np.intp)
    from_the_same_stream(_kernel.sample_responses)(
        proba, path, survival, walk[1], chain["prompts"], responses, lengths
    )
    np.testing.assert_array_equal(
        agreements[-1],
        _agreement(responses, lengths, chain["prompts"], path, walk[1]),
    )


def _agreement(sequences, lengths, prompts, path, greedy_lengths):
    """The number of first positions on which each row agrees with its
    prompt's greedy response, EOS included (all of them if it is that
    response)."""
    n_positions = sequences.shape[1]
    agreed = np.full(len(sequences), n_positions, np.intp)
    for i, j in enumerate(prompts):
        for t in range(n_positions):
            ours = 0 if t == lengths[i] else sequences[i, t]
            greedy = 0 if t == greedy_lengths[j] else path[j, t]
            if ours != greedy:
                agreed[i] = t
                break
            if ours == 0:
                break
    return agreed


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_decode_greedy_equals_the_reference(chain):
    n_positions = chain["sequences"].shape[1]
    rng = np.random.RandomState(len(chain["prompts"]))
    greedy = rng.randint(3, size=(n_positions, 2, chain["halves"].shape[1]))
    _assert_same_responses(
        (_kernel.decode_greedy, _kernel.decode_greedy_reference),
        chain["sequences"],
        greedy.astype(np.int8),
        chain["prompts"],
    )


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_count_tokens_equals_the_reference(chain):
    n = chain["halves"].shape[1]
    n_positions = chain["sequences"].shape[1]
    args = (chain["sequences"], chain["lengths"], chain["prompts"], chain["weights"])
    counts, ref_counts = np.zeros((2, n_positions, 3, 2, n))
    _kernel.count_tokens(*args, counts)
    _kernel.count_tokens_reference(*args, ref_counts)
    np.testing.assert_allclose(counts, ref_counts, rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_policy_residuals_equals_the_reference(chain):
    # Rows that agree with their prompt's greedy response on some first
    # positions (a third of them all the way) are counted along it once per
    # prompt; the reference counts every row token by token.
    n = chain["halves"].shape[1]
    n_rows, n_positions = chain["sequences"].shape
    rng = np.random.RandomState(n)
    greedy = rng.randint(3, size=(n_positions, 2, n)).astype(np.int8)
    greedy[0] %= 2
    path, greedy_lengths = np.zeros((n, n_positions), np.int8), np.zeros(n, np.intp)
    _kernel.decode_greedy(greedy, np.arange(n), path, greedy_lengths)
    sequences, lengths, prompts = (
        chain[k] for k in ("sequences", "lengths", "prompts")
    )
    for i in range(0, n_rows, 3):
        sequences[i], lengths[i] = path[prompts[i]], greedy_lengths[prompts[i]]
    for i in range(1, n_rows, 3):
        m = rng.randint(min(lengths[i], greedy_lengths[prompts[i]]) + 1)
        sequences[i, :m] = path[prompts[i], :m]
    agreed = _agreement(sequences, lengths, prompts, path, greedy_lengths)
    agreed = np.minimum(agreed, rng.randint(n_positions + 2, size=n_rows))
    for i in range(n_rows):  # as the sampler leaves them: the agreed tokens 0
        sequences[i, : agreed[i]] = 0
    order = np.argsort(prompts, kind="stable")  # rows sorted by prompt
    args = [a[order] for a in (sequences, lengths, prompts, chain["weights"], agreed)]
    proba = rng.dirichlet(np.ones(3), size=(n_positions, 2, n)).transpose(0, 3, 1, 2)
    proba = proba.astype(chain["dtype"])
    halves, ref_halves = np.full((2, n, n_positions, 6), np.nan)
    _kernel.policy_residuals(*args, path, proba, 0, halves)
    _kernel.policy_residuals_reference(*args, path, proba, 0, ref_halves)
    np.testing.assert_allclose(halves, ref_halves, rtol=1e-12, atol=1e-12)
    # the same, a block of prompts at a time (given its rows only)
    first = rng.randint(n + 1)
    split = np.searchsorted(args[2], first)
    for block, rows in (
        (slice(0, first), slice(0, split)),
        (slice(first, n), slice(split, None)),
    ):
        blocked = np.full((block.stop - block.start, n_positions, 6), np.nan)
        row_args = [a[rows] for a in args]
        _kernel.policy_residuals(*row_args, path, proba, block.start, blocked)
        np.testing.assert_array_equal(blocked, halves[block])


def test_policy_residuals_of_a_prompt_without_weight_are_zero_unread():
    # the rows of prompt 1 weigh 0 (a GRPO group of equal rewards): its
    # residuals are 0 without a read of its law (NaN here)
    sequences = np.array([[1, 0], [-1, 1], [1, 1]], dtype=np.int8)
    lengths, prompts = np.array([1, 2, 2]), np.array([0, 1, 1])
    proba = np.full((2, 3, 2, 2), 1 / 3)
    proba[..., 1] = np.nan
    halves = np.full((2, 2, 6), np.nan)
    weights, agreed = np.array([0.5, 0.0, 0.0]), np.zeros(3, np.intp)
    path = np.array([[1, 0], [1, 1]], dtype=np.int8)
    _kernel.policy_residuals(
        sequences, lengths, prompts, weights, agreed, path, proba, 0, halves
    )
    np.testing.assert_array_equal(halves[1], 0.0)
    assert np.all(np.isfinite(halves[0]))


@pytest.mark.parametrize(
    "prompts, first_prompt, n_block, match",
    [
        ([1, 0], 0, 2, "sorted by prompt"),
        ([0, 1], 1, 1, "block's prompts only"),
        ([0, 1], 0, 1, "block's prompts only"),
    ],
)
def test_policy_residuals_refuses_rows_it_cannot_place(
    prompts, first_prompt, n_block, match
):
    sequences = np.array([[1, 0], [-1, 0]], dtype=np.int8)
    proba = np.full((2, 3, 2, 2), 1 / 3)
    with pytest.raises(ValueError, match=match):
        _kernel.policy_residuals(
            sequences, np.ones(2, np.intp), np.array(prompts), np.ones(2),
            np.zeros(2, np.intp), np.zeros((2, 2), np.int8), proba,
            first_prompt, np.empty((n_block, 2, 6)),
        )  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_cell_likelihood_equals_the_reference_and_scipy(chain):
    n = chain["halves"].shape[1]
    counts = chain["proba"] * (1.0 + np.arange(n))
    counts[:, chain["proba"][0] > 0.5] = 0.0  # some empty cells
    if chain["first"]:
        counts[2] = 0.0  # EOS is barred at the first position
    # the cells that hold a count, previous token major
    cell_prev, cell_prompt = np.nonzero(counts.sum(axis=0))
    cell_counts = counts[:, cell_prev, cell_prompt]
    cells = (cell_prev, cell_prompt)
    shifted, ref_shifted = np.zeros((2, 3, len(cell_prompt)))
    _kernel.cell_logits(chain["halves"], *cells, chain["first"], shifted)
    _kernel.cell_logits_reference(chain["halves"], *cells, chain["first"], ref_shifted)
    np.testing.assert_array_equal(shifted, ref_shifted)
    args = (shifted, np.exp(shifted), cell_counts, *cells, chain["first"])
    residual, ref_residual = np.zeros((2, 6, n))
    loss = _kernel.cell_likelihood(*args, residual)
    ref_loss = _kernel.cell_likelihood_reference(*args, ref_residual)
    # scipy's log-softmax of the documented logits a_j + y_s b_j
    signs = np.zeros(2) if chain["first"] else np.array([-1.0, 1.0])
    z = chain["halves"][:3, None, :] + signs[:, None] * chain["halves"][3:, None, :]
    if chain["first"]:
        z[2] = -np.inf
    scipy_loss = -np.sum(counts * np.where(counts > 0, log_softmax(z, axis=0), 0.0))
    for other in (ref_loss, scipy_loss):
        np.testing.assert_allclose(loss, other, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(residual, ref_residual, rtol=1e-10, atol=1e-10)
    # the residual is the softmax times the total minus the counts, per prompt
    softmax = np.exp(log_softmax(z, axis=0)) * counts.sum(axis=0) - counts
    np.testing.assert_allclose(residual[:3], softmax.sum(axis=1), atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(chain=chains())
def test_advance_record_equals_the_reference(chain):
    n = chain["halves"].shape[1]
    n_positions = chain["sequences"].shape[1]
    rng = np.random.RandomState(n_positions)
    odds, greedy, _ = _recorded_tables(rng, n_positions, n, chain["dtype"])
    y_signed = rng.choice(np.array([-1, 1], np.int8), n)
    records = []
    for advance in (_kernel.advance_record, _kernel.advance_record_reference):
        tables = odds.copy()  # normalised in place
        terms = _recorded_tables(rng, n_positions, n, chain["dtype"])[2]
        for t in range(n_positions):
            advance(tables[t], greedy[t], t, t == n_positions - 1, y_signed, *terms)
        records.append((tables, *terms))
    for ours, ref in zip(*records, strict=True):
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-15)
    # the tables are each cell's law: the odds over their (float64) sum
    tables, walk, path, survival, _, reward, mass = records[0]
    law = odds / odds.sum(axis=1, keepdims=True, dtype=np.float64)
    eps = np.finfo(chain["dtype"]).eps
    np.testing.assert_allclose(tables, law, rtol=eps, atol=0)
    # the greedy walk is decode_greedy's, and survival the product of the
    # stored law along it; the masses are a law of the length
    sequences = np.zeros((n, n_positions), np.int8)
    lengths = np.zeros(n, np.intp)
    _kernel.decode_greedy(greedy, np.arange(n), sequences, lengths)
    np.testing.assert_array_equal(walk[1], lengths)
    np.testing.assert_array_equal(walk[2], sequences[np.arange(n), lengths - 1])
    np.testing.assert_array_equal(path, sequences)
    stored = tables.astype(np.float64)
    stored[1:, EOS] = 1.0 - stored[1:, 0] - stored[1:, 1]
    for j in range(n):
        chance, s = 1.0, 0
        for t in range(min(lengths[j] + 1, n_positions)):
            v = greedy[t, s, j]
            chance *= stored[t, v, s, j]
            s = v
        np.testing.assert_allclose(survival[-1, j], chance, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(mass.sum(), n)
    assert np.all((reward >= 0) & (reward <= 1 + 1e-12))


def test_sampled_responses_follow_the_law_of_every_response():
    # Oracle: the exact probability of every response of 4 positions, a
    # product of its tokens' stored laws, enumerated; a chi-square test of
    # 200000 sampled responses of each of two prompts (the first near its
    # greedy response, the second not) at the 1e-4 level.
    from itertools import product

    from scipy.stats import chi2

    rng = np.random.RandomState(0)
    n_positions, n, n_samples = 4, 2, 200_000
    odds, _, terms = _recorded_tables(rng, n_positions, n, np.float32)
    odds[..., 0] = rng.dirichlet([40.0, 1.0, 1.0], size=(n_positions, 2)).transpose(
        0, 2, 1
    )
    odds[0, EOS] = 0.0
    odds /= odds.max(axis=1, keepdims=True)
    greedy = odds.argmax(axis=1).astype(np.int8)
    _record(odds, greedy, terms)
    stored = odds.astype(np.float64)
    stored[1:, EOS] = 1.0 - stored[1:, 0] - stored[1:, 1]
    for j in range(n):
        sequences, lengths, _ = _sampled(odds, terms, np.full(n_samples, j), [j, 1, 2])
        np.testing.assert_array_equal(lengths, np.count_nonzero(sequences, axis=1))
        observed, expected = [], []
        for length in range(1, n_positions + 1):
            for tokens in product((-1, 1), repeat=length):
                chance, s = 1.0, 0
                for t, token in enumerate(tokens):
                    v = (token + 1) // 2
                    chance *= stored[t, v, s, j]
                    s = v
                if length < n_positions:
                    chance *= stored[length, EOS, s, j]
                row = np.zeros(n_positions, np.int8)
                row[:length] = tokens
                observed.append(np.all(sequences == row, axis=1).sum())
                expected.append(n_samples * chance)
        observed, expected = np.array(observed), np.array(expected)
        assert observed.sum() == n_samples
        np.testing.assert_allclose(expected.sum(), n_samples, rtol=1e-6)
        keep = expected > 5
        statistic = ((observed - expected)[keep] ** 2 / expected[keep]).sum()
        assert statistic < chi2.ppf(1 - 1e-4, keep.sum() - 1), (j, statistic)


def test_draws_step_the_stream_as_numpys_sfc64():
    # Oracle: numpy's SFC64 bit generator set to the same state gives the
    # same 64-bit outputs, whose top 53 bits are the draws.
    state = _kernel.new_stream(np.array([1, 2**63 + 5, 12345], np.uint64))
    numpy_generator = np.random.SFC64()
    numpy_generator.state = {
        "bit_generator": "SFC64",
        "state": {"state": state.copy()},
        "has_uint32": 0,
        "uinteger": 0,
    }
    with np.errstate(over="ignore"):  # wrapping sums, without numba
        draws = [_kernel.draw_uniform(state) for _ in range(1000)]
    expected = (numpy_generator.random_raw(1000) >> np.uint64(11)) * 2.0**-53
    np.testing.assert_array_equal(draws, expected)


def test_sampled_responses_never_end_at_the_first_position():
    # EOS is barred at the first position: a stored law there whose two
    # tokens do not sum to 1 (float32 rounding, here grossly) leaves no
    # response of length 0.
    rng = np.random.RandomState(1)
    n_positions, n, n_samples = 3, 2, 20_000
    odds, greedy, terms = _recorded_tables(rng, n_positions, n, np.float32)
    _record(odds, greedy, terms)
    odds[0, :2] *= np.float32(0.9)
    prompts = np.repeat(np.arange(n), n_samples // n)
    _, lengths, agreed = _sampled(odds, terms, prompts, [3, 4, 5])
    assert lengths.min() >= 1
    assert np.any(agreed == 0)  # some left the greedy response at once
