"""Randomized-grid rounding with shared randomness (replicable rounding).

Two runs of an algorithm that see independent data but share the internal
randomness ``r`` should return *bit-for-bit identical* outputs with high
probability (Impagliazzo, Lei, Pitassi and Sorrell, STOC 2022). The basic tool,
R-Hypergrid-Rounding of Eaton et al. (ICLR 2026), rounds every entry ``v`` to the
midpoint of its cell in the grid ``{(k + u) * width : k integer}``, where the
offset ``u`` is uniform on ``[0, 1)`` and drawn from ``r``. For two values ``v``
and ``v'``, the chance (over ``u``) that they fall in different cells is
``min(1, |v - v'| / width)``; a union bound over the entries gives the lemma
``P[round(v) != round(v')] <= sum_j |v_j - v'_j| / width``. The rounding moves an
entry by at most ``width / 2``.

A data-driven width differs between runs, so it is itself rounded on a grid:
:func:`round_log2` rounds ``log2(width)`` to a grid of spacing ``h`` with a
shared offset, which costs ``E|log2(w) - log2(w')| / h`` of the failure budget
and leaves the width within a factor ``2 ** (h / 2)`` of the requested one.

These helpers are shared by :class:`~sklearn_iclr.ReplicableLinearRegressor`
and :class:`~sklearn_iclr.ReplicableCovariance`.
"""

import numpy as np
from sklearn.utils import check_random_state

from ..utils import warn_user

# For two independent runs whose unrounded values differ by Delta ~ N(0, 2 se^2),
# E|Delta| = 2 se / sqrt(pi): the factor that turns standard errors into the
# expected lemma sum.
EXPECTED_ABS_DIFF_PER_SE = 2.0 / np.sqrt(np.pi)
# Spacing, in log2 units, of the grids on which data-driven widths and scales are
# rounded: a rounded value is within a factor sqrt(2) of the requested one.
LOG2_SPACING = 1.0
# E[2^(-h (U - 1/2))] for U uniform: the mean of the inverse ratio between the
# log2-rounded width and the width asked for (1.020 for h = 1).
MEAN_INVERSE_LOG2_RATIO = (2 ** (LOG2_SPACING / 2) - 2 ** (-LOG2_SPACING / 2)) / (
    LOG2_SPACING * np.log(2)
)
# The failure budget policy (docs: user guide, "The replicable failure budget").
# Both replicable estimators split rho in the same three steps, through
# rounding_budget and lattice_width below: they design for an *expected*
# disagreement of design_share * rho; from it they set aside a reserve for each
# data-driven width; the rest, never less than MIN_ROUNDING_SHARE of the design
# target, is the budget of the final rounding. The design share and the
# reserve are calibrations, one pair per estimator, kept next to it.
# The final rounding keeps at least MIN_ROUNDING_SHARE of the design target.
MIN_ROUNDING_SHARE = 0.25
# Noise-free data give a zero crossing rate; the lattice scale is then
# WIDTH_FLOOR times the entries' magnitude (at least the estimator's smallest
# magnitude, for all-zero entries), so that the grid stays finite and positive.
WIDTH_FLOOR = 2.0**-40


def shared_offsets(random_state, sizes):
    """Draw the grid offsets of every rounding step from the shared randomness.

    The offsets depend only on ``random_state`` and on ``sizes`` (never on the
    data), so two runs with the same integer ``random_state`` use the same grids.

    Parameters
    ----------
    random_state : int, RandomState instance or None
        The shared randomness ``r``. Replicability needs the same integer in
        both runs.
    sizes : dict of str to int
        The number of offsets of each rounding step, drawn in the dict's order.

    Returns
    -------
    offsets : dict of str to ndarray
        Offsets uniform on ``[0, 1)``, one array per key.

    Examples
    --------
    >>> offsets = shared_offsets(0, {"coef": 3, "width": 1})
    >>> offsets["coef"].shape, bool(0 <= offsets["width"][0] < 1)
    ((3,), True)
    """
    rng = check_random_state(random_state)
    return {name: rng.uniform(0.0, 1.0, size=size) for name, size in sizes.items()}


def grid_cells(values, width, offset):
    """Index of the cell of ``{(k + offset) * width}`` that holds each value.

    Parameters
    ----------
    values : array-like
        The values to locate.
    width : float or array-like
        Grid width (broadcast against ``values``), positive.
    offset : float or array-like
        Offsets in units of ``width``, in ``[0, 1)``.

    Returns
    -------
    cells : ndarray of float
        Integer-valued cell indices ``k``: the cell is
        ``[(k + offset) * width, (k + 1 + offset) * width)``.

    Examples
    --------
    >>> grid_cells([0.2, 0.6], 1.0, 0.5).tolist()
    [-1.0, 0.0]
    """
    return np.floor(np.asarray(values, dtype=np.float64) / width - offset)


def round_to_grid(values, width, offset):
    """Round to the midpoint of the cell of a randomly shifted grid.

    Parameters
    ----------
    values : array-like
        The values to round.
    width : float or array-like
        Grid width (broadcast against ``values``), positive.
    offset : float or array-like
        Offsets in units of ``width``, in ``[0, 1)``, from the shared randomness.

    Returns
    -------
    rounded : ndarray
        ``(k + offset + 1/2) * width`` with ``k`` the cell of each value; at most
        ``width / 2`` away from it.

    Examples
    --------
    >>> round_to_grid([0.2, 0.6, 0.9], 1.0, 0.5).tolist()
    [0.0, 1.0, 1.0]
    """
    return (grid_cells(values, width, offset) + offset + 0.5) * width


def round_log2(values, spacing, offset):
    """Round positive values on a randomly shifted grid in ``log2`` scale.

    Parameters
    ----------
    values : array-like
        Positive values (grid widths, scales).
    spacing : float
        Grid spacing ``h`` in ``log2`` units; the result is within a factor
        ``2 ** (h / 2)`` of each value.
    offset : float or array-like
        Offsets in units of ``spacing``, in ``[0, 1)``.

    Returns
    -------
    rounded : ndarray
        ``2 ** round_to_grid(log2(values), spacing, offset)``.

    Examples
    --------
    >>> round_log2([3.0, 5.0], 1.0, 0.0).tolist()
    [2.8284271247461903, 5.656854249492381]
    """
    return 2.0 ** round_to_grid(np.log2(values), spacing, offset)


def log2_width_disagreement(sample_weight, terms, spacing=LOG2_SPACING):
    """Estimated chance that a width ``~ sqrt(T)`` rounds differently in log2.

    A data-driven width proportional to the root of a sum
    ``T = sum_i w_i t_i`` of per-sample terms (a sandwich variance, say) has
    relative standard error ``sd(T) / T`` with ``Var(T) = sum_i w_i (t_i -
    mean t)^2`` (frequency weights). The two runs' ``log2`` widths then differ by
    about ``Delta ~ N(0, 2 (sd(T) / (2 T ln 2))^2)`` and round apart with
    probability ``E|Delta| / spacing`` (delta method; an estimate, not a bound).

    Parameters
    ----------
    sample_weight : ndarray of shape (n_samples,)
        Frequency weights.
    terms : ndarray of shape (n_samples,)
        Non-negative per-sample terms ``t_i``.
    spacing : float, default=1.0
        Spacing of the ``log2`` grid.

    Returns
    -------
    probability : float
        In ``[0, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> terms = np.random.default_rng(0).exponential(size=10000)
    >>> round(log2_width_disagreement(np.ones(10000), terms), 4)
    0.0082
    """
    total = sample_weight @ terms
    if total <= 0:
        return 0.0
    mean = total / sample_weight.sum()
    rel_se = np.sqrt(sample_weight @ (terms - mean) ** 2) / total
    cost = EXPECTED_ABS_DIFF_PER_SE * rel_se / (2 * np.log(2)) / spacing
    return float(min(1.0, cost))


def rounding_budget(rho, reserve, design_share, warn=True):
    """What of the design target is left for the final rounding after a reserve.

    The data-driven rules design for an *expected* disagreement of
    ``design_share * rho``: the lemma is an expectation over the offsets and
    the standard errors are estimates, so aiming at ``rho`` itself would leave
    the realised rate above ``rho`` about half of the time. The rest of
    ``rho`` is the margin for these approximations and for sampling noise.

    Parameters
    ----------
    rho : float
        Upper bound on the disagreement probability asked for.
    reserve : float
        Probability set aside for the rounding of widths and bases; it must
        depend only on quantities both runs share (``n``, ``d``, ``rho``).
    design_share : float
        Share of ``rho`` that the design spends in expectation.
    warn : bool, default=True
        Whether to warn when the reserve leaves less than
        ``MIN_ROUNDING_SHARE`` of the design target.

    Returns
    -------
    budget : float
        ``design_share * rho - reserve``, at least ``MIN_ROUNDING_SHARE`` of
        the design target (with a warning that ``rho`` is out of reach at this
        sample size).

    Examples
    --------
    >>> rounding_budget(0.2, 0.02, 0.5)
    0.08
    """
    design = design_share * rho
    budget = design - reserve
    if budget < MIN_ROUNDING_SHARE * design:
        if warn:
            # The reserve is an expected number of rounding events (a sum of
            # crossing rates), which can exceed 1: then they differ almost
            # surely, and no probability above 1 is printed.
            chance = (
                f"with probability about {reserve:.3g}"
                if reserve < 0.5
                else "almost surely (expected number of differing roundings "
                f"{reserve:.3g})"
                if reserve >= 1
                else f"with probability {reserve:.2g} or more"
            )
            warn_user(
                "At this sample size the data-driven grid widths and basis alone "
                f"are expected to differ between runs {chance}, too much of "
                f"rho={rho}: the fit is not expected to be {rho}-replicable. Use "
                "more samples or a larger rho (or fixed grid widths)."
            )
        budget = MIN_ROUNDING_SHARE * design
    return _clean_budget(budget)


def _clean_budget(budget):
    """``budget`` to 15 decimals (clean figures), unless that rounds it away.

    A budget below that resolution (rho of about 1e-12 or less) keeps its
    value instead of becoming zero.
    """
    rounded = round(budget, 15)
    return rounded if rounded >= 1e-12 else float(budget)


def samples_needed(n_samples, meets, limit=1e18):
    """Least sample size ``N >= n_samples`` at which ``meets(N)`` holds.

    ``meets`` must be monotone (false below some ``N``, true above): the
    search doubles ``N`` until it holds, then bisects in ``log N``.

    Parameters
    ----------
    n_samples : float
        The sample size at hand, positive.
    meets : callable
        ``meets(N) -> bool``.
    limit : float, default=1e18
        Sizes beyond it count as never.

    Returns
    -------
    n_needed : float
        ``n_samples`` when it already holds, ``inf`` beyond ``limit``.

    Examples
    --------
    >>> samples_needed(100, lambda n: 1 / n <= 3e-4)
    3334.0
    """
    if meets(n_samples):
        return float(n_samples)
    low, high = float(n_samples), 2.0 * n_samples
    while not meets(high):
        low, high = high, 2.0 * high
        if high > limit:
            return np.inf
    for _ in range(60):
        middle = np.sqrt(low * high)
        if high - low <= 0.5:
            break
        low, high = (low, middle) if meets(middle) else (middle, high)
    return float(np.ceil(high))


def magnitude_exponent(values, offset, spacing=16, safe=64):
    """Power of two that brings data of extreme magnitude near 1, or 0.

    Data whose largest magnitude, or else root mean square, lies within
    ``2**-safe .. 2**safe`` (and zero data) give 0: they are used as they
    are. Otherwise the exponent is a multiple of ``spacing`` on a grid
    shifted by the shared ``offset``, so that two runs on samples of similar
    magnitude pick the same power of two unless their log2 root mean squares
    (which differ by ``O(1 / sqrt(n))``) straddle a point of the grid.
    Dividing by an exact power of two changes no digit of the data.

    Parameters
    ----------
    values : ndarray
        The data (finite).
    offset : float
        Shared offset in ``[0, 1)``.
    spacing : int, default=16
        Spacing of the grid of exponents: the scaled root mean square lies
        within ``2**(+-spacing)`` of 1.
    safe : int, default=64
        Root mean squares below ``2**safe`` and above ``2**-safe`` are left
        alone.

    Returns
    -------
    exponent : int
        Divide the data by ``2**exponent``.

    Examples
    --------
    >>> magnitude_exponent(np.array([1e3]), 0.5), magnitude_exponent(
    ...     np.array([1e300]), 0.5) > 980
    (0, True)
    """
    # Two passes without a temporary; data of ordinary magnitude stop here.
    peak = max(values.max(), -values.min()) if values.size else 0.0
    if not np.isfinite(peak) or peak == 0 or 2.0**-safe <= peak <= 2.0**safe:
        return 0
    # An exact power of two first, so that the squares neither overflow nor
    # underflow; then the root mean square in log2.
    _, pre = np.frexp(peak)
    scaled = np.ldexp(values, -int(pre))
    log2_rms = 0.5 * np.log2(np.mean(scaled * scaled)) + int(pre)
    if -safe <= log2_rms <= safe:
        return 0
    return int(spacing * np.floor(log2_rms / spacing + offset))


def log2_ratio_moments(spacing):
    """``E[1/r]`` and ``E[r^2]`` for the ratio ``r`` of a ``log2``-rounded width.

    Rounding ``log2`` of a width on a grid of spacing ``h`` with a uniform
    shared offset multiplies it by ``r = 2^(h (U - 1/2))``, ``U`` uniform on
    ``[0, 1)``: the crossing rate scales with ``1/r`` and the squared rounding
    error with ``r^2``.

    Parameters
    ----------
    spacing : float
        Spacing ``h`` of the ``log2`` grid, positive.

    Returns
    -------
    mean_inverse, mean_square : float

    Examples
    --------
    >>> [round(m, 4) for m in log2_ratio_moments(1.0)]
    [1.0201, 1.082]
    """
    half = 2.0 ** (spacing / 2)
    mean_inverse = (half - 1 / half) / (spacing * np.log(2))
    mean_square = (half**2 - half**-2) / (2 * spacing * np.log(2))
    return float(mean_inverse), float(mean_square)


# Candidate spacings of best_log2_spacing.
_SPACINGS = np.arange(1.0, 16.01, 0.125)


def best_log2_spacing(design, event_rate, spacings=_SPACINGS, nested=False):
    """Spacing of a ``log2`` width grid that costs the least squared error.

    A data-driven width is rounded on a ``log2`` grid of spacing ``h`` before
    a value is rounded on a grid of that width. The two runs' widths differ
    with probability about ``event_rate / h`` (``event_rate`` is
    ``E|Delta log2 width|``), which leaves ``design - event_rate / h`` for the
    crossing of the value's grid; at that rate the expected squared rounding
    error is proportional to ``E[r^2] (E[1/r] / (design - event_rate / h))^2``
    (see :func:`log2_ratio_moments`). A coarser grid makes the width event
    rarer and the width less accurate: with few samples the event would take
    the whole budget at spacing 1. ``design`` and ``event_rate`` must depend
    only on what both runs share (``n``, ``rho``), so that both pick the same
    spacing.

    Parameters
    ----------
    design : float
        Expected disagreement the width event and the crossing may spend.
    event_rate : float
        ``E|Delta log2 width|`` between two runs (a data-independent bound).
    spacings : ndarray, default=_SPACINGS
        Candidate spacings (1 to 16 by 1/8).
    nested : bool, default=False
        Whether the value is rounded on nested grids (see
        :func:`round_nested`): only the integer spacings are candidates, and a
        width event costs ``1 - 2^-h`` of itself (two runs whose widths are
        one step apart still agree when the finer run lands on a point of the
        coarser grid, probability ``2^-h``).

    Returns
    -------
    spacing : float
        The best candidate.
    budget : float
        ``design - event_rate / spacing`` (times ``1 - 2^-spacing`` when
        ``nested``), left for the crossing.

    Examples
    --------
    >>> best_log2_spacing(0.2, 0.001)
    (1.0, 0.199)
    >>> spacing, budget = best_log2_spacing(0.0375, 0.106)
    >>> bool(spacing > 3), bool(0 < budget < 0.0375)
    (True, True)
    """
    best = (np.inf, LOG2_SPACING, MIN_ROUNDING_SHARE * design)
    if nested:
        spacings = np.unique(np.floor(spacings))
    for spacing in spacings:
        share = 1.0 - 2.0**-spacing if nested else 1.0
        budget = design - share * event_rate / spacing
        if budget <= 0:
            continue
        mean_inverse, mean_square = log2_ratio_moments(spacing)
        loss = mean_square * (mean_inverse / budget) ** 2
        if loss < best[0]:
            best = (loss, float(spacing), float(budget))
    return best[1], _clean_budget(best[2])


def lattice_width(
    rate_at_unit_scale,
    budget,
    offset,
    magnitude,
    floor_magnitude,
    spacing=LOG2_SPACING,
):
    """Lattice scale for a rounding budget, rounded on the shared ``log2`` grid.

    The expected crossing rate of a lattice of scale ``t`` is ``K / t``, with
    ``K`` the rate at unit scale. The ``log2`` rounding multiplies ``t`` by
    ``r = 2^(U - 1/2)`` (``U`` uniform from the shared offset), so the scale
    asked for is ``E[1/r] K / budget``, which makes the rate equal ``budget``
    on average over ``U``. It is at least ``WIDTH_FLOOR * max(magnitude,
    floor_magnitude)``, so that noise-free data still get a finite grid.

    Parameters
    ----------
    rate_at_unit_scale : float
        Expected crossing rate of the lattice at scale 1.
    budget : float
        Share of the disagreement probability given to this rounding.
    offset : float
        Shared offset of the ``log2`` grid, in ``[0, 1)``.
    magnitude : float
        Size of the rounded entries.
    floor_magnitude : float
        Smallest magnitude used in the floor (see the policy constants).
    spacing : float, default=LOG2_SPACING
        Spacing of the ``log2`` grid of the scale.

    Returns
    -------
    width : float
        The rounded scale, a power of two times ``2 ** ((offset + 1/2) *
        LOG2_SPACING)``.
    ideal : float
        The scale asked for, before its ``log2`` rounding.

    Examples
    --------
    >>> width, ideal = lattice_width(0.05, 0.1, 0.0, 1.0, 1e-300)
    >>> round(ideal, 4), round(width, 4)
    (0.5101, 0.7071)
    """
    mean_inverse = (
        MEAN_INVERSE_LOG2_RATIO
        if spacing == LOG2_SPACING
        else log2_ratio_moments(spacing)[0]
    )
    with np.errstate(over="ignore"):
        ideal = max(
            mean_inverse * rate_at_unit_scale / budget,
            WIDTH_FLOOR * max(magnitude, floor_magnitude),
        )
        width = float(round_log2(ideal, spacing, offset))
    if not np.isfinite(width):
        raise ValueError(
            f"The grid width for a disagreement budget of {budget:.3g} overflows "
            "float64: rho is too small for these data. Raise rho (or give a "
            "fixed grid_width)."
        )
    return width, float(ideal)


# Binary point of the shared anchor of round_nested: the anchor is
# N / 2^_ANCHOR_POINT in units of the coarsest-grid constant, N an integer of
# _ANCHOR_BITS random bits, so that its offset is exact on every grid whose
# width is within 2^+-_ANCHOR_POINT of that constant.
_ANCHOR_BITS, _ANCHOR_POINT = 512, 256


def anchor_bits(uniforms):
    """A shared random integer of ``_ANCHOR_BITS`` bits from uniforms on [0, 1).

    Parameters
    ----------
    uniforms : array-like of float
        At least ``_ANCHOR_BITS / 52`` uniforms from the shared randomness.

    Returns
    -------
    bits : int

    Examples
    --------
    >>> anchor_bits([0.5] * 10) > 0
    True
    """
    bits = 0
    for i, u in enumerate(uniforms):
        bits |= int(u * 2.0**52) << (52 * i)
    return bits % (1 << _ANCHOR_BITS)


def round_nested(value, ideal_width, spacing, width_offset, anchor):
    """Round a value on nested dyadic grids through one shared anchor.

    The width asked for is rounded on the ``log2`` grid of integer spacing
    ``h`` with the shared ``width_offset`` ``u``: ``w = c 2^(h k)`` with
    ``c = 2^((u + 1/2) h)`` and ``k`` an integer. The value is rounded to the
    nearest point of ``{a + j w}``, where the anchor ``a = c N / 2^256`` (``N``
    the shared integer ``anchor``) is the same for every ``k``: the grids of
    consecutive widths are nested (every ``2^h``-th point of the finer one is a
    point of the coarser), so two runs whose widths round one step apart still
    agree when the finer run lands on a point of the coarser grid, with
    probability ``2^-h`` over the anchor. The point is computed exactly (an
    integer numerator over ``2^256``) and converted once, so a point of both
    grids has the same bits whichever width found it.

    Parameters
    ----------
    value : float
        The value to round.
    ideal_width : float
        The width asked for, positive.
    spacing : int
        Spacing ``h`` of the ``log2`` grid of widths, a positive integer.
    width_offset : float
        Shared offset of the ``log2`` grid, in ``[0, 1)``.
    anchor : int
        Shared integer from :func:`anchor_bits`.

    Returns
    -------
    rounded : float
        The nearest grid point, within ``width / 2`` of ``value``.
    width : float
        The rounded width ``w``.

    Examples
    --------
    >>> anchor = anchor_bits([0.3] * 10)
    >>> a, w = round_nested(10.0, 1.0, 1, 0.5, anchor)
    >>> w, bool(abs(a - 10.0) <= w / 2)
    (1.0, True)
    """
    spacing = int(spacing)
    base = 2.0 ** ((width_offset + 0.5) * spacing)
    level = int(np.floor(np.log2(ideal_width) / spacing - width_offset))
    exponent = spacing * level
    width = float(np.ldexp(base, exponent))
    modulus_bits = _ANCHOR_POINT + exponent
    if not 0 < modulus_bits < _ANCHOR_BITS or not np.isfinite(value / width):
        # Out of the anchor's range (never for data brought near 1 by the
        # magnitude step): the shifted grid of this width alone.
        phase = (anchor % (1 << 52)) / 2.0**52
        return float((np.floor(value / width - phase + 0.5) + phase) * width), width
    residue = anchor % (1 << modulus_bits)
    phase = residue / (1 << modulus_bits)
    index = int(np.floor(value / width - phase + 0.5))
    point = ((index << modulus_bits) + residue) / (1 << _ANCHOR_POINT)
    return float(point * base), width
