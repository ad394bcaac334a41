"""Randomly shifted lattice quantizers for replicable rounding.

Rounding a vector ``x`` in ``R^m`` coordinate by coordinate is closest-point
quantization to a randomly shifted cube lattice ``Z^m``. Any lattice ``L``
can take its place: with a shift ``u`` uniform modulo ``L`` and drawn from the
shared randomness, ``x -> Q(x - u) + u`` (``Q`` the closest lattice point)
returns the same point for two inputs unless a facet of the shifted Voronoi
tiling separates them. For a tiling of cells of volume ``V``, the expected
number of facets the segment from ``x`` to ``x + Delta`` crosses is (a
Crofton formula for a stationary tiling)

    P(Delta) = sum_f A_f |<Delta, n_f>| / (2 V),

summed over the facets ``f`` of one cell (area ``A_f``, unit normal ``n_f``);
it bounds the chance that the two points round apart and equals it to first
order. For the cube it is the rounding lemma ``sum_k |Delta_k| / width``. The
rounding error is uniform over the cell, of mean square ``m G V^(2/m)``
(``G`` the normalized second moment). At a fixed disagreement the mean squared
error therefore scales like ``m G kappa^2`` with ``kappa = S / 2`` the half
surface of the cell of unit volume: ``m^3 / 12`` for the cube, about 0.43 of
that for the ``E8`` lattice (240 facets, ``G = 929 / 12960``) and 0.48 for
``E8 x Z`` in 9 dimensions.

:class:`ShiftedLattice` is the product of ``E8`` blocks (as many as fit) and
one remainder block: ``Z`` for one coordinate, the ``A_r*`` lattice (whose
Voronoi cell is the permutohedron) for ``r`` = 2..7. The blocks are scaled
relative to each other to minimise the squared error at a fixed disagreement
for isotropic ``Delta``. Closest points follow Conway and Sloane, "Sphere
Packings, Lattices and Groups", chapter 20 (``D_n``, ``E8 = D8 u (D8 + 1/2)``,
``A_n`` and ``A_n* = union of the cosets [i] + A_n``).
"""

from functools import cache, lru_cache
from math import sqrt

import numpy as np

from ._rounding import EXPECTED_ABS_DIFF_PER_SE

# Normalized second moments (unit volume) from Conway and Sloane, Table 2.3;
# tests/test_replicable_lattice.py checks them by Monte Carlo.
_SECOND_MOMENT_A_STAR = {
    2: 0.0801875,
    3: 0.0785433,
    4: 0.0775657,
    5: 0.0768895,
    6: 0.0763926,
    7: 0.0760118,
}
_SECOND_MOMENT_E8 = 929.0 / 12960.0
_SECOND_MOMENT_Z = 1.0 / 12.0


def closest_point_d_n(y):
    """Closest points of ``D_n`` (integer vectors of even sum) to each row.

    Parameters
    ----------
    y : ndarray of shape (n_points, n)
        Points.

    Returns
    -------
    points : ndarray of shape (n_points, n)
        The closest point of ``D_n`` to each row (ties broken deterministically).

    Examples
    --------
    >>> closest_point_d_n(np.array([[0.6, 0.1, 0.0], [0.6, 0.7, 0.0]])).tolist()
    [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]
    """
    f = np.rint(y)
    odd = (f.sum(axis=1) % 2) != 0
    if np.any(odd):
        err = y[odd] - f[odd]
        k = np.argmax(np.abs(err), axis=1)
        rows = np.arange(len(k))
        step = np.where(err[rows, k] >= 0, 1.0, -1.0)
        g = f[odd]
        g[rows, k] += step
        f[odd] = g
    return f


def closest_point_e8(y):
    """Closest points of ``E8 = D8 u (D8 + 1/2)`` to each row.

    Parameters
    ----------
    y : ndarray of shape (n_points, 8)
        Points.

    Returns
    -------
    points : ndarray of shape (n_points, 8)
        The closer of the two coset candidates.

    Examples
    --------
    >>> closest_point_e8(np.full((1, 8), 0.4)).tolist()
    [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]]
    """
    even = closest_point_d_n(y)
    odd = closest_point_d_n(y - 0.5) + 0.5
    use_odd = np.sum((y - odd) ** 2, axis=1) < np.sum((y - even) ** 2, axis=1)
    return np.where(use_odd[:, None], odd, even)


def closest_point_a_n(y):
    """Closest points of ``A_n`` (integer vectors of zero sum) to rows summing to 0.

    Parameters
    ----------
    y : ndarray of shape (n_points, n + 1)
        Points of the hyperplane ``sum(y) = 0``.

    Returns
    -------
    points : ndarray of shape (n_points, n + 1)
        Each row rounded, then the coordinates that rounding moved the most
        moved back by one until the sum is zero.

    Examples
    --------
    >>> closest_point_a_n(np.array([[0.6, 0.6, -1.2]])).tolist()
    [[0.0, 1.0, -1.0]]
    """
    f = np.rint(y)
    excess = f.sum(axis=1).astype(np.int64)[:, None]
    rank = np.argsort(np.argsort(y - f, axis=1, kind="stable"), axis=1)
    width = y.shape[1]
    f -= (excess > 0) & (rank < excess)
    f += (excess < 0) & (rank >= width + excess)
    return f


def _glue_a_star(n_coords):
    """The glue vectors ``[i]`` of ``A_n*`` over ``A_n`` (rows, in R^(n+1))."""
    glue = np.empty((n_coords, n_coords))
    for i in range(n_coords):
        j = n_coords - i
        glue[i, :j] = i / n_coords
        glue[i, j:] = -j / n_coords
    return glue


def closest_point_a_star(y):
    """Closest points of ``A_n* = union over i of ([i] + A_n)`` to each row.

    Parameters
    ----------
    y : ndarray of shape (n_points, n + 1)
        Points of the hyperplane ``sum(y) = 0``.

    Returns
    -------
    points : ndarray of shape (n_points, n + 1)
        The closest of the ``n + 1`` coset candidates.

    Examples
    --------
    >>> closest_point_a_star(np.array([[0.3, 0.3, -0.6]])).round(4).tolist()
    [[0.3333, 0.3333, -0.6667]]
    """
    best, best_dist = None, None
    for g in _glue_a_star(y.shape[1]):
        cand = closest_point_a_n(y - g) + g
        dist = np.sum((y - cand) ** 2, axis=1)
        if best is None:
            best, best_dist = cand, dist
        else:
            closer = dist < best_dist
            best = np.where(closer[:, None], cand, best)
            best_dist = np.minimum(dist, best_dist)
    return best


def _helmert(n_coords):
    """Orthonormal basis (columns) of the hyperplane ``sum = 0`` of R^n_coords."""
    basis = np.zeros((n_coords, n_coords - 1))
    for k in range(1, n_coords):
        basis[:k, k - 1] = 1.0
        basis[k, k - 1] = -k
        basis[:, k - 1] /= sqrt(k * (k + 1))
    return basis


def _matmul_in_fixed_order(a, b):
    """``a @ b`` summed term by term in a fixed order (bits independent of BLAS).

    BLAS kernels sum in an order that depends on the machine and on the
    shapes (one row or a batch), so ``a @ b`` can differ in the last bit
    between two runs. Elementwise multiplies and adds are exactly rounded,
    so this sum gives the same bits everywhere.
    """
    out = a[..., :1] * b[0]
    for k in range(1, b.shape[0]):
        out = out + a[..., k : k + 1] * b[k]
    return out


def _permutohedron_volume(k):
    """(k - 1)-volume of the permutohedron of order k (conv of perms of 1..k)."""
    return k ** (k - 2) * sqrt(k) if k > 1 else 1.0


class _Block:
    """One lattice factor at unit cell volume: closest point, shift, facets."""

    def __init__(self, dim):
        self.dim = dim
        if dim == 8:
            self.name, self.second_moment = "E8", _SECOND_MOMENT_E8
            roots = _e8_roots()
            self.normals = roots / np.sqrt(2.0)
            # 240 congruent facets at distance sqrt(2)/2 around a cell of volume 1.
            area = 8.0 / (240 * np.sqrt(2.0) / 2)
            self.weights = np.full(240, area / 2)
            self.covering_radius = 1.0
        elif dim == 1:
            self.name, self.second_moment = "Z", _SECOND_MOMENT_Z
            self.normals = np.array([[1.0], [-1.0]])
            self.weights = np.array([0.5, 0.5])
            self.covering_radius = 0.5
        else:
            self.name, self.second_moment = f"A{dim}*", _SECOND_MOMENT_A_STAR[dim]
            n_coords = dim + 1
            self._embed = _helmert(n_coords)
            # A_n* has cell volume 1 / sqrt(n + 1): scale it to unit volume.
            self._unit = n_coords ** (1.0 / (2 * dim))
            normals, weights = [], []
            for mask in range(1, 2**n_coords - 1):
                members = np.array([(mask >> i) & 1 for i in range(n_coords)], float)
                k = int(members.sum())
                v = members - k / n_coords
                normals.append(self._embed.T @ v / np.linalg.norm(v))
                # The facet is a product of permutohedra of orders k and n+1-k;
                # the cell is the permutohedron of order n+1 shrunk n+1 times.
                area = _permutohedron_volume(k) * _permutohedron_volume(n_coords - k)
                volume = _permutohedron_volume(n_coords)
                weights.append(n_coords * area / volume / 2 / self._unit)
            self.normals, self.weights = np.array(normals), np.array(weights)
            # Covering radius of A_n*: sqrt(n (n + 2) / (12 (n + 1))).
            self.covering_radius = self._unit * sqrt(
                dim * (dim + 2) / (12.0 * n_coords)
            )
        # Half the surface of the unit-volume cell: P = kappa E|<Delta, n>|.
        self.kappa = float(self.weights.sum())

    def closest(self, y):
        if self.name == "E8":
            return closest_point_e8(y)
        if self.name == "Z":
            return np.rint(y)
        coords = _matmul_in_fixed_order(y / self._unit, self._embed.T)
        point = closest_point_a_star(coords)
        return _matmul_in_fixed_order(point, self._embed) * self._unit

    def shift(self, z):
        """Shift uniform modulo the lattice from ``z`` uniform on [0, 1)^dim.

        ``z`` is mapped onto a fundamental cell of a sublattice (``2 Z^8`` for
        ``E8``, ``A_n`` for ``A_n*``), which is uniform modulo the lattice.
        """
        if self.name == "E8":
            return 2.0 * z
        if self.name == "Z":
            return z
        # Basis e_0 - e_i (i = 1..n) of A_n, mapped to the block's coordinates.
        n_coords = self.dim + 1
        basis = np.zeros((self.dim, n_coords))
        basis[:, 0] = 1.0
        basis[np.arange(self.dim), np.arange(1, n_coords)] = -1.0
        shift = _matmul_in_fixed_order(z, basis)
        return _matmul_in_fixed_order(shift, self._embed) * self._unit


@cache
def _block(dim):
    """The (immutable) factor of dimension ``dim``, built once per process."""
    return _Block(dim)


@lru_cache(maxsize=64)
def shifted_lattice(dim, kind="lattice"):
    """A cached :class:`ShiftedLattice` (its facets are built once per process).

    Parameters
    ----------
    dim : int
        Dimension of the vectors to round.
    kind : {"lattice", "cube"}, default="lattice"
        See :class:`ShiftedLattice`.

    Returns
    -------
    lattice : ShiftedLattice

    Examples
    --------
    >>> shifted_lattice(3) is shifted_lattice(3)
    True
    """
    return ShiftedLattice(dim, kind)


def _e8_roots():
    """The 240 minimal vectors (norm sqrt 2) of E8."""
    roots = []
    for i in range(8):
        for j in range(i + 1, 8):
            for si in (1.0, -1.0):
                for sj in (1.0, -1.0):
                    v = np.zeros(8)
                    v[i], v[j] = si, sj
                    roots.append(v)
    for mask in range(256):
        signs = np.array([-1.0 if (mask >> i) & 1 else 1.0 for i in range(8)])
        if np.sum(signs < 0) % 2 == 0:
            roots.append(signs / 2)
    return np.array(roots)


class ShiftedLattice:
    """Product lattice ``E8 x ... x E8 x R`` of dimension ``dim``, randomly shifted.

    ``R`` is empty, ``Z`` (one coordinate left) or ``A_r*`` (``r`` = 2..7).
    With ``kind="cube"`` every block is ``Z`` (per-coordinate rounding).
    Each block is its unit-volume lattice scaled by ``scale * block_scale``
    (a length factor), with relative scales ``(kappa / (dim G))^(1/3)``
    (normalised to a geometric mean of 1), the optimum for isotropic
    run-to-run differences.

    Parameters
    ----------
    dim : int
        Dimension of the vectors to round.
    kind : {"lattice", "cube"}, default="lattice"
        ``"lattice"`` for the ``E8`` blocks and remainder, ``"cube"`` for ``Z^dim``.

    Attributes
    ----------
    blocks : list
        The lattice factors, in coordinate order.
    block_scale : ndarray of shape (dim,)
        Relative scale of the block of each coordinate.

    Examples
    --------
    >>> lattice = ShiftedLattice(9)
    >>> [block.name for block in lattice.blocks]
    ['E8', 'Z']
    >>> z = np.full(9, 0.25)
    >>> x = lattice.round(np.arange(9.0), scale=1.0, z=z)
    >>> bool(np.array_equal(lattice.round(x, scale=1.0, z=z), x))
    True
    """

    def __init__(self, dim, kind="lattice"):
        if kind == "cube":
            sizes = [1] * dim
        else:
            sizes = [8] * (dim // 8) + ([dim % 8] if dim % 8 else [])
        self.blocks = [_block(size) for size in sizes]
        rel = np.array(
            [(b.kappa / (b.dim * b.second_moment)) ** (1 / 3) for b in self.blocks]
        )
        rel /= np.exp(np.average(np.log(rel), weights=sizes))
        self.block_scale = np.repeat(rel, sizes)
        # Runs of identical blocks (all E8 blocks, or all Z for the cube) are
        # handled in one vectorised call: (block, coordinates, relative scale,
        # number of blocks). Row by row the arithmetic is the same as block by
        # block, so the bits do not depend on the grouping.
        self._groups, start = [], 0
        for size in dict.fromkeys(sizes):
            count = sizes.count(size)
            block = _block(size)
            width = size * count
            self._groups.append(
                (block, slice(start, start + width), float(rel[sizes.index(size)]))
            )
            start += width

    @property
    def dim(self):
        return self.block_scale.size

    def round(self, x, scale, z):
        """Closest point of the lattice scaled by ``scale`` and shifted by ``z``.

        Parameters
        ----------
        x : ndarray of shape (dim,) or (n_points, dim)
            Points to round.
        scale : float
            Overall scale ``t`` of the lattice.
        z : ndarray of shape (dim,)
            Uniform [0, 1) numbers from the shared randomness that set the
            shift.

        Returns
        -------
        rounded : ndarray like ``x``
            ``t c (Q(x / (t c) - u) + u)`` block by block, ``c`` the block scale
            and ``u`` the shift: a function of the lattice point and of
            ``(t, z)`` only, so two inputs in one cell give identical bits.
        """
        x = np.asarray(x, dtype=np.float64)
        points = np.atleast_2d(x)
        out = np.empty_like(points)
        for block, sl, rel in self._groups:
            step = scale * rel
            u = block.shift(np.asarray(z[sl], dtype=np.float64).reshape(-1, block.dim))
            part = points[:, sl].reshape(points.shape[0], -1, block.dim)
            closest = block.closest((part / step - u).reshape(-1, block.dim))
            closest = closest.reshape(part.shape)
            out[:, sl] = (step * (closest + u)).reshape(points.shape[0], -1)
        return out.reshape(x.shape)

    def _facet_sums(self, values, reduce):
        """``sum_f A_f reduce(normals_f, values) / rel`` over every block."""
        total = 0.0
        for block, sl, rel in self._groups:
            part = values[sl].reshape(-1, block.dim)
            # Chunks of blocks: at most 1024 x (number of facets) at a time.
            for start in range(0, len(part), 1024):
                chunk = part[start : start + 1024]
                total += np.sum(reduce(block.normals, chunk) @ block.weights) / rel
        return float(total)

    def crossing_rate(self, delta, scale):
        """Expected number of facets between ``x`` and ``x + delta`` (any ``x``).

        ``sum_f A_f |<delta, n_f>| / (2 V)`` over the facets of every block:
        an upper bound on the chance (over the shift) that the two points
        round apart, exact to first order.

        Parameters
        ----------
        delta : ndarray of shape (dim,)
            Difference of the two points.
        scale : float
            Overall scale of the lattice.

        Returns
        -------
        rate : float
        """
        delta = np.asarray(delta, dtype=np.float64)
        total = self._facet_sums(delta, lambda normals, d: np.abs(d @ normals.T))
        return float(total / scale)

    def expected_crossing_rate(self, standard_errors, scale):
        """The crossing rate for two runs with independent Gaussian errors.

        With ``Delta ~ N(0, 2 diag(se^2))``,
        ``E|<Delta, n>| = (2 / sqrt(pi)) sqrt(sum_k n_k^2 se_k^2)``.

        Parameters
        ----------
        standard_errors : ndarray of shape (dim,)
            Standard errors of the rounded coordinates.
        scale : float
            Overall scale of the lattice.

        Returns
        -------
        rate : float
        """
        var = np.asarray(standard_errors, dtype=np.float64) ** 2
        total = self._facet_sums(var, lambda normals, v: np.sqrt(v @ (normals.T**2)))
        return float(EXPECTED_ABS_DIFF_PER_SE * total / scale)

    def mean_squared_error(self, scale):
        """Mean squared rounding error over the shift, ``sum_b dim_b G_b (t c_b)^2``.

        Parameters
        ----------
        scale : float
            Overall scale of the lattice.

        Returns
        -------
        mse : float
        """
        return float(np.sum(self.coordinate_variance(scale)))

    def coordinate_variance(self, scale):
        """Mean squared rounding error of each coordinate, ``G_b (t c_b)^2``.

        The error is uniform over the Voronoi cell, whose second-moment
        matrix is ``G V^(2/m) I`` for every block used here (their symmetry
        groups act irreducibly), so the coordinates' errors are uncorrelated.

        Parameters
        ----------
        scale : float
            Overall scale of the lattice.

        Returns
        -------
        variance : ndarray of shape (dim,)
        """
        moments = np.concatenate([np.full(b.dim, b.second_moment) for b in self.blocks])
        return moments * (scale * self.block_scale) ** 2

    def max_error(self, scale):
        """Per-coordinate bound on the rounding error: each block's covering radius.

        Parameters
        ----------
        scale : float
            Overall scale of the lattice.

        Returns
        -------
        bound : ndarray of shape (dim,)
        """
        radius = np.concatenate(
            [np.full(b.dim, b.covering_radius) for b in self.blocks]
        )
        return scale * self.block_scale * radius
