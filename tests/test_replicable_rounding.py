"""The replicable rounding: nested grids and rounded widths (_replicable._rounding)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom


def test_constant_width_spacing_follows_n_and_rho():
    from sklearn_iclr._replicable._rounding import best_log2_spacing

    # Large n: the width event is negligible, spacing 1 as for the ridge.
    assert best_log2_spacing(0.075, 2.0 / np.sqrt(1e6))[0] == 1.0
    # Small n and rho: a coarser grid, and still a positive budget.
    spacing, budget = best_log2_spacing(0.0375, 1.5 / np.sqrt(221))
    assert spacing > 2.0
    assert 0.0 < budget < 0.0375
    assert budget == pytest.approx(0.0375 - 1.5 / np.sqrt(221) / spacing)


@settings(max_examples=60, deadline=None)
@given(
    value=st.floats(-1e6, 1e6),
    log2_width=st.floats(-20, 20),
    spacing=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
)
def test_round_nested_is_within_half_a_width_and_nested(
    value, log2_width, spacing, seed
):
    from sklearn_iclr._replicable._rounding import anchor_bits, round_nested

    rng = np.random.default_rng(seed)
    anchor, offset = anchor_bits(rng.uniform(size=10)), rng.uniform()
    fine, width = round_nested(value, 2.0**log2_width, spacing, offset, anchor)
    assert abs(fine - value) <= width / 2 * (1 + 1e-12)
    assert 2.0 ** (-spacing / 2) <= width / 2.0**log2_width <= 2.0 ** (spacing / 2)
    # The next coarser width's point is a point of this grid (nested), with
    # the same bits.
    coarse, coarse_width = round_nested(
        value, 2.0 ** (log2_width + spacing), spacing, offset, anchor
    )
    assert coarse_width == 2.0**spacing * width
    again, _ = round_nested(coarse, 2.0**log2_width, spacing, offset, anchor)
    assert again == coarse


@pytest.mark.parametrize("spacing", [1, 2])
def test_round_nested_runs_one_width_apart_agree_with_probability_2_to_minus_h(
    spacing,
):
    # Two runs whose widths round one step apart: the finer run's point is a
    # point of the coarser grid with probability 2^-h over the shared anchor,
    # and then both return the same bits (it was 0 with independent grids).
    from sklearn_iclr._replicable._rounding import anchor_bits, round_nested

    rng = np.random.default_rng(spacing)
    pairs, agree = 4000, 0
    for _ in range(pairs):
        anchor, offset = anchor_bits(rng.uniform(size=10)), rng.uniform()
        value = 152.0 + 77.0 * rng.normal()
        fine, _ = round_nested(value, 3.0, spacing, offset, anchor)
        coarse, _ = round_nested(value, 3.0 * 2.0**spacing, spacing, offset, anchor)
        agree += fine == coarse
    assert binom.cdf(agree, pairs, 2.0**-spacing) > 1e-4
    assert binom.sf(agree - 1, pairs, 2.0**-spacing) > 1e-4
