"""The matrices ``ReplicableCovariance`` can round: full, diagonal, spherical.

Rounding ``m`` entries so that two runs agree needs a lattice scale of order
``m`` standard errors over the budget, so the richer the structure, the
coarser its rounding. Each candidate prices its expected squared Frobenius
error against the population matrix (bias of the structure, sampling
variance, rounding), and :func:`choose` takes the least with shared offsets
(user guide, "Replicable second moments in detail").
"""

import numpy as np
from scipy import linalg

from .._replicable._lattice import shifted_lattice
from .._replicable._rounding import (
    EXPECTED_ABS_DIFF_PER_SE,
    LOG2_SPACING,
    lattice_width,
    log2_ratio_moments,
)

# The structures "auto" chooses among, from the richest.
STRUCTURES = ("full", "diag", "spherical")
# Smallest magnitude of the lattice scale floor: the floor (WIDTH_FLOOR times
# the entries' magnitude) is then never below the smallest normal float.
FLOOR_MAGNITUDE = float(np.finfo(np.float64).tiny * 2.0**40)
# Width, in log2 units, of the band of the shared offsets of the choice of
# structure: each expected loss is multiplied by 2^(band U) (U uniform) before
# the least is taken, so two runs choose alike unless their losses straddle.
_CHOICE_BAND = 0.5


class Structure:
    """One candidate structure: the entries it rounds and its expected loss.

    ``values``, ``standard_errors`` and ``multiplicity`` (how many entries of
    the matrix each rounded value fills) describe the rounded vector;
    ``bias`` is the estimated squared Frobenius distance between the
    population matrix and its structured part, ``bias_parts`` its terms with
    their sampling variances (for the choice's spread) and ``variance`` the
    summed sampling variance of the entries it fills.
    """

    def __init__(
        self, name, values, standard_errors, multiplicity, variance, bias_parts
    ):
        self.name = name
        self.values = values
        self.standard_errors = standard_errors
        self.multiplicity = multiplicity
        self.variance = variance
        self.bias_parts = bias_parts
        self.bias = sum(max(value, 0.0) for value, _ in bias_parts.values())

    def price(self, rounding, budget, offsets):
        """Lattice scale for ``budget`` and the expected loss it gives.

        The loss is an expectation over the shared offset of the log2-rounded
        scale (``E[r^2]`` times the scale asked for), the same in both runs
        up to sampling noise.
        """
        lattice = shifted_lattice(len(self.values), rounding)
        self.width, ideal = lattice_width(
            lattice.expected_crossing_rate(self.standard_errors, 1.0),
            budget,
            offsets[_width_key(self.name)][0],
            np.abs(self.values).max(),
            FLOOR_MAGNITUDE,
        )
        mean_square = log2_ratio_moments(LOG2_SPACING)[1]
        variance = lattice.coordinate_variance(ideal) * mean_square
        self.rounding_loss = float(self.multiplicity @ variance)
        # (At least the smallest normal float: zero data have no loss.)
        self.loss = max(
            self.bias + self.variance + self.rounding_loss,
            float(np.finfo(np.float64).tiny),
        )

    def round(self, n_features, rounding, width, offsets):
        """The rounded, PSD matrix of this structure and the width used."""
        if not np.any(self.values):
            # All exactly zero (X is zero): nothing to round.
            return np.zeros((n_features, n_features)), 0.0
        lattice = shifted_lattice(len(self.values), rounding)
        key = "entries" if self.name == "full" else self.name
        rounded = lattice.round(self.values, width, offsets[key])
        if self.name == "full":
            matrix = np.zeros((n_features, n_features))
            matrix[np.triu_indices(n_features)] = rounded
            return _project_psd(matrix + np.triu(matrix, 1).T), width
        # A diagonal matrix is PSD when its entries are non-negative; the
        # spherical one repeats its single value.
        diagonal = np.broadcast_to(np.clip(rounded, 0.0, None), n_features)
        return np.diag(diagonal), width


def _width_key(name):
    return "entries_width" if name == "full" else f"{name}_width"


def structures(second, moments, n_samples, upper):
    """The full, diagonal and spherical candidates of the matrix ``second``.

    ``S`` (``second``) is the second moment about the location, and
    ``v_jk = Var(z_j z_k) / n`` (from the moments about the centre) the sampling
    variance of its entries. The squared off-diagonal mass
    ``sum_{j != k} Sigma_jk^2`` is estimated by ``sum_{j != k} (S_jk^2 -
    v_jk)``, and the spread of the variances ``sum_j (Sigma_jj - mu)^2`` by
    ``sum_j (S_jj - mu_hat)^2`` less its noise; each with the delta-method
    variance ``4 S^2 v + 2 v^2`` per entry.
    """
    fourth = moments["fourth"]
    n_features = len(second)
    variance = np.maximum(fourth - moments["second"] ** 2, 0.0) / n_samples
    diagonal = np.diag(second)
    var_diagonal = np.diag(variance)
    off = ~np.eye(n_features, dtype=bool)
    # The mean variance mu = tr(S) / d is the mean of q_i = ||z_i||^2 / d.
    mu = float(diagonal.mean())
    centred_trace = np.trace(moments["second"])
    var_mu = max(float(fourth.sum() - centred_trace**2), 0.0) / (
        n_features**2 * n_samples
    )
    off_part = (
        float(np.sum(second[off] ** 2 - variance[off])),
        float(
            np.sum(2 * (4 * second[off] ** 2 * variance[off] + 2 * variance[off] ** 2))
        ),
    )
    spread_part = (
        float(
            np.sum((diagonal - mu) ** 2) - (var_diagonal.sum() - n_features * var_mu)
        ),
        float(np.sum(4 * (diagonal - mu) ** 2 * var_diagonal + 2 * var_diagonal**2)),
    )
    on_diagonal = upper[0] == upper[1]
    return {
        "full": Structure(
            "full",
            second[upper],
            np.sqrt(variance[upper]),
            np.where(on_diagonal, 1.0, 2.0),
            float(variance.sum()),
            {},
        ),
        "diag": Structure(
            "diag",
            diagonal.copy(),
            np.sqrt(var_diagonal),
            np.ones(n_features),
            float(var_diagonal.sum()),
            {"off": off_part},
        ),
        "spherical": Structure(
            "spherical",
            np.array([mu]),
            np.array([np.sqrt(var_mu)]),
            np.array([float(n_features)]),
            n_features * var_mu,
            {"off": off_part, "spread": spread_part},
        ),
    }


def choose(candidates, offsets):
    """The structure of least perturbed ``log2`` loss, and the choice's cost.

    Each loss is compared in ``log2`` after adding ``_CHOICE_BAND`` times a
    shared uniform offset. Two runs choose differently when the gap between
    the winner and another candidate moves across zero; the gap moves by about
    ``spread`` (``E|Delta|`` of the difference of their ``log2`` losses between
    runs, from the sampling variances of the bias terms), which costs about
    ``spread / _CHOICE_BAND`` when the gap is within four spreads.
    """
    scores = {
        name: np.log2(candidate.loss) + _CHOICE_BAND * offset
        for (name, candidate), offset in zip(candidates.items(), offsets, strict=True)
    }
    best = min(scores, key=scores.get)
    cost = 0.0
    for name, score in scores.items():
        if name == best:
            continue
        spread = _log2_loss_spread(candidates[best], candidates[name])
        if abs(score - scores[best]) < 4.0 * spread + 1e-12:
            cost += min(1.0, spread / _CHOICE_BAND)
    return best, cost


def _log2_loss_spread(a, b):
    """``E|Delta (log2 L_a - log2 L_b)|`` between two runs (delta method).

    The bias terms carry the noise of the losses; a term that both share
    cancels in proportion to the two losses.
    """
    variance = np.float64(0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        for part in set(a.bias_parts) | set(b.bias_parts):
            sd = np.sqrt(np.float64((a.bias_parts.get(part) or b.bias_parts[part])[1]))
            if sd == 0:
                continue
            term = (sd / a.loss if part in a.bias_parts else 0.0) - (
                sd / b.loss if part in b.bias_parts else 0.0
            )
            variance += term * term
    return float(EXPECTED_ABS_DIFF_PER_SE * np.sqrt(variance) / np.log(2))


def _project_psd(matrix):
    """Clip negative eigenvalues; a PSD input is returned unchanged (on grid)."""
    eigval, eigvec = linalg.eigh(matrix)
    if eigval.min() >= 0:
        return matrix
    projected = (eigvec * np.clip(eigval, 0.0, None)) @ eigvec.T
    return (projected + projected.T) / 2
