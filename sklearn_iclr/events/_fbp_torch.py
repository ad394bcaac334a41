"""The torch side of the differentiable histograms: ops, and FBP's autograd.Function.

This module imports torch at its top, so only the functions of
:mod:`._fbp` import it, after :func:`~sklearn_iclr.utils.import_torch` has
checked that the optional ``[torch]`` extra is installed.
"""

import builtins

import numpy as np
import torch

from ._fbp import _PAD, _check_bins_range, _table


def _check_points(points, weights):
    if not torch.is_tensor(points):
        raise TypeError("points must be a torch tensor of shape (N, D) or (B, N, D).")
    if points.ndim not in (2, 3) or not 1 <= points.shape[-1] <= 3:
        raise ValueError(
            "points must have shape (N, D) or (B, N, D) with D in 1..3, got "
            f"{tuple(points.shape)}."
        )
    if not points.is_floating_point():
        raise TypeError(f"points must be floating point, got {points.dtype}.")
    batched = points.ndim == 3
    if not batched:
        points = points.unsqueeze(0)
    if weights is None:
        weights = torch.ones(points.shape[:2], dtype=points.dtype, device=points.device)
    else:
        if not torch.is_tensor(weights):
            raise TypeError("weights must be a torch tensor or None.")
        if not batched:
            weights = weights.unsqueeze(0)
        if tuple(weights.shape) != tuple(points.shape[:2]):
            raise ValueError(
                f"weights must have shape {tuple(points.shape[:-1])}, got "
                f"{tuple(weights.shape) if batched else tuple(weights.shape[1:])}."
            )
        weights = weights.to(points.dtype)
    return points, weights, batched


def _rect_index(points, bins, lows, highs):
    """Bin index per point and dimension as numpy.histogramdd computes it.

    Returns the integer index (B, N, D), the fractional position in the bin
    (B, N, D) and the in-range mask (B, N).
    """
    index, frac = [], []
    inside = torch.ones(points.shape[:2], dtype=torch.bool, device=points.device)
    for d, (n, low, high) in enumerate(zip(bins, lows, highs, strict=True)):
        x = points[..., d].detach().to(torch.float64)
        edges = torch.as_tensor(
            np.linspace(low, high, n + 1), dtype=torch.float64, device=x.device
        )
        # numpy: searchsorted(side="right"), then the right edge joins the last bin.
        i = torch.searchsorted(edges, x.contiguous(), right=True)
        i = torch.where(x == edges[-1], i - 1, i)
        inside &= (i >= 1) & (i <= n)
        i = (i - 1).clamp(0, n - 1)
        width = (high - low) / n
        r = ((x - low) / width - i.to(torch.float64)).nan_to_num(0.0).clamp(0.0, 1.0)
        index.append(i)
        frac.append(r.to(points.dtype))
    return torch.stack(index, -1), torch.stack(frac, -1), inside


def _linear_index(points, bins, lows, highs):
    """Left neighbour centre and fractional offset for bilinear splatting."""
    index, frac = [], []
    inside = torch.ones(points.shape[:2], dtype=torch.bool, device=points.device)
    for d, (n, low, high) in enumerate(zip(bins, lows, highs, strict=True)):
        x = points[..., d].detach()
        inside &= (x >= low) & (x <= high)
        u = (x.to(torch.float64) - low) / ((high - low) / n) - 0.5
        u = torch.where(torch.isfinite(u), u, torch.zeros_like(u)).clamp(-0.5, n - 0.5)
        i = torch.floor(u)
        index.append(i.to(torch.int64))
        frac.append((u - i).to(points.dtype))
    return torch.stack(index, -1), torch.stack(frac, -1), inside


def _stencil_index(points, bins, lows, highs, kernel, first, n_stencil):
    """Stencil base, fractional position and reach of each point (backward).

    The base is the point's bin (``"rect"``) or the bin centre at its left
    (``"linear"``), from ``floor`` without clamping, so that a point just
    outside the range keeps its stencil, bins ``base + first`` to
    ``base + first + n_stencil - 1``: the part that overlaps the grid reads
    the cotangent there, the rest reads zero. ``reach`` marks the points
    whose stencil touches the grid.
    """
    shift = 0.0 if kernel == "rect" else 0.5
    index, frac = [], []
    reach = torch.ones(points.shape[:2], dtype=torch.bool, device=points.device)
    for d, (n, low, high) in enumerate(zip(bins, lows, highs, strict=True)):
        u = (points[..., d].detach().to(torch.float64) - low) / ((high - low) / n)
        u = u - shift
        i = torch.floor(u)
        ok = torch.isfinite(u) & (i + first + n_stencil - 1 >= 0)
        ok &= i + first <= n - 1
        reach &= ok
        i = torch.where(ok, i, torch.zeros_like(i))
        index.append(i.to(torch.int64))
        frac.append(torch.where(ok, u - i, torch.zeros_like(u)).to(points.dtype))
    return torch.stack(index, -1), torch.stack(frac, -1), reach


def _flat_index(base, offsets, bins, pad=_PAD):
    """Flat index into the padded grid for each (point, offset combination).

    ``base`` (B, N, D) holds the per-dimension index of offset 0 (unpadded),
    ``offsets`` is the list of per-dimension offset ranges. Returns (B, N, K)
    with K the product of the offset counts, padded strides.
    """
    padded = [n + 2 * pad for n in bins]
    strides = [int(np.prod(padded[d + 1 :], dtype=np.int64)) for d in range(len(bins))]
    # one flat index per point, plus one constant offset per combination
    start = sum(
        (base[..., d] + pad + offs[0]) * strides[d] for d, offs in enumerate(offsets)
    )
    combo = np.zeros(1, dtype=np.int64)
    for d, offs in enumerate(offsets):
        steps = (np.asarray(offs, dtype=np.int64) - offs[0]) * strides[d]
        combo = (combo[:, None] + steps[None, :]).ravel()
    return start.unsqueeze(-1) + torch.as_tensor(combo, device=base.device)


def _outer(factors):
    """Outer product over dims of per-dimension factors (B, N, K_d) -> (B, N, K)."""
    out = factors[0]
    for f in factors[1:]:
        out = (out.unsqueeze(-1) * f.unsqueeze(-2)).flatten(-2)
    return out


def _splat(base, offsets, factors, weights, bins, pad=_PAD):
    """Scatter ``weights * prod_d factors_d`` into the grid; crop the padding."""
    n_batch = base.shape[0]
    padded = [n + 2 * pad for n in bins]
    size = int(np.prod(padded))
    flat = _flat_index(base, offsets, bins, pad)
    values = _outer(factors) * weights.unsqueeze(-1)
    flat = flat + size * torch.arange(n_batch, device=base.device).view(-1, 1, 1)
    out = torch.zeros(n_batch * size, dtype=weights.dtype, device=weights.device)
    out.index_add_(0, flat.reshape(-1), values.reshape(-1))
    out = out.view(n_batch, *padded)
    crop = (slice(None),) + tuple(slice(pad, pad + n) for n in bins)
    return out[crop]


def _gather(grad_out, base, offsets, bins):
    """Gather the zero-padded cotangent at every (point, offset combination).

    The grid is small next to the points: it is copied once per offset
    combination into a (cells, K) table, so that each point reads one row.
    """
    n_batch = grad_out.shape[0]
    pad = []
    for _ in bins:
        pad += [_PAD, _PAD]
    padded = torch.nn.functional.pad(grad_out, pad).reshape(n_batch, -1)
    n_cells = padded.shape[1]
    padded_dims = [n + 2 * _PAD for n in bins]
    strides = [
        int(np.prod(padded_dims[d + 1 :], dtype=np.int64)) for d in range(len(bins))
    ]
    start = sum(
        (base[..., d] + _PAD + offs[0]) * strides[d] for d, offs in enumerate(offsets)
    )
    combo = np.zeros(1, dtype=np.int64)
    for d, offs in enumerate(offsets):
        steps = (np.asarray(offs, dtype=np.int64) - offs[0]) * strides[d]
        combo = (combo[:, None] + steps[None, :]).ravel()
    extended = torch.nn.functional.pad(padded, (0, int(combo[-1])))
    table = torch.stack([extended[:, c : c + n_cells] for c in combo.tolist()], -1)
    rows = start + n_cells * torch.arange(n_batch, device=base.device).view(-1, 1)
    out = table.reshape(n_batch * n_cells, -1).index_select(0, rows.reshape(-1))
    return out.view(*start.shape, len(combo))


def _bspline(coefficients, r, width):
    """Weights (..., K) and derivatives (..., K) divided by the bin width."""
    n_powers, n_cols = coefficients.shape
    scale = np.r_[np.ones(n_cols // 2), np.full(n_cols // 2, 1.0 / width)]
    c = torch.as_tensor(coefficients * scale, dtype=r.dtype, device=r.device)
    powers = r.unsqueeze(-1) ** torch.arange(n_powers, dtype=r.dtype, device=r.device)
    values = powers @ c
    return values[..., : n_cols // 2], values[..., n_cols // 2 :]


class FBPHistogram(torch.autograd.Function):
    """Binning forward, functional backpropagation backward (``fbp_histogramdd``)."""

    @staticmethod
    def forward(ctx, points, weights, bins, lows, highs, kernel, reconstruction):
        n_dims = points.shape[-1]
        if kernel == "rect":
            index, frac, inside = _rect_index(points, bins, lows, highs)
            factors = [torch.ones_like(frac[..., :1]) for _ in range(n_dims)]
            offsets = [[0]] * n_dims
        else:
            index, frac, inside = _linear_index(points, bins, lows, highs)
            factors = [
                torch.stack([1 - frac[..., d], frac[..., d]], -1) for d in range(n_dims)
            ]
            offsets = [[0, 1]] * n_dims
        w = torch.where(inside, weights, torch.zeros_like(weights))
        hist = _splat(index, offsets, factors, w, bins)
        # the backward pass also reaches points just outside the range
        first, coefficients = _table(kernel, reconstruction)
        n_stencil = coefficients.shape[1] // 2
        index, frac, reach = _stencil_index(
            points, bins, lows, highs, kernel, first, n_stencil
        )
        ctx.save_for_backward(index, frac, reach, weights)
        ctx.bins, ctx.lows, ctx.highs = bins, lows, highs
        ctx.first, ctx.coefficients = first, coefficients
        return hist

    @staticmethod
    def backward(ctx, grad_out):
        index, frac, reach, weights = ctx.saved_tensors
        bins, lows, highs = ctx.bins, ctx.lows, ctx.highs
        n_dims = index.shape[-1]
        first, coefficients = ctx.first, ctx.coefficients
        n_stencil = coefficients.shape[1] // 2
        ws, dws, offsets = [], [], []
        for d in range(n_dims):
            width = (highs[d] - lows[d]) / bins[d]
            w, dw = _bspline(coefficients, frac[..., d], width)
            ws.append(w)
            dws.append(dw)
            offsets.append(list(range(first, first + n_stencil)))
        g = _gather(grad_out.contiguous(), index, offsets, bins)
        mask = reach.to(g.dtype)
        grad_points = grad_weights = None
        # contract the (B, N, K, ..., K) stencil one dimension at a time
        g = g.view(*g.shape[:2], *[w.shape[-1] for w in ws])
        letters = "ijk"[:n_dims]
        spec = "bn" + letters + "," + ",".join(f"bn{c}" for c in letters) + "->bn"
        if ctx.needs_input_grad[0]:
            cols = []
            for d in range(n_dims):
                factors = [dws[e] if e == d else ws[e] for e in range(n_dims)]
                cols.append(torch.einsum(spec, g, *factors))
            grad_points = torch.stack(cols, -1) * (weights * mask).unsqueeze(-1)
        if ctx.needs_input_grad[1]:
            grad_weights = torch.einsum(spec, g, *ws) * mask
        return grad_points, grad_weights, None, None, None, None, None


def autograd_histogramdd(points, bins=10, *, range=None, weights=None, kernel="rect"):
    """The same forward pass written in plain torch ops, for plain autograd.

    The kernel weights are polynomials of the fractional position, so autograd
    differentiates them: the gradient is exactly zero for ``"rect"`` and the
    (biased) piecewise-constant bilinear derivative for ``"linear"``. This is
    the baseline the paper improves on.
    """
    points, weights, batched = _check_points(points, weights)
    bins, lows, highs = _check_bins_range(bins, range, points.shape[-1])
    n_dims = points.shape[-1]
    widths = [(h - lo) / n for n, lo, h in zip(bins, lows, highs, strict=True)]
    if kernel == "rect":
        index, _, inside = _rect_index(points, bins, lows, highs)
        # the box weight is a constant of the fractional position r
        factors = []
        for d in builtins.range(n_dims):
            r = (points[..., d] - lows[d]) / widths[d] - index[..., d]
            r = torch.where(inside, r, torch.zeros_like(r))
            factors.append((1.0 + 0.0 * r).unsqueeze(-1))
        offsets = [[0]] * n_dims
    else:
        index, _, inside = _linear_index(points, bins, lows, highs)
        factors = []
        for d in builtins.range(n_dims):
            r = (points[..., d] - lows[d]) / widths[d] - 0.5 - index[..., d]
            factors.append(torch.stack([1 - r, r], -1))
        offsets = [[0, 1]] * n_dims
    w = torch.where(inside, weights, torch.zeros_like(weights))
    hist = _splat(index, offsets, factors, w, bins)
    return hist if batched else hist[0]


def gaussian_histogramdd(points, bins=10, *, range=None, weights=None, sigma=1.0):
    """Gaussian splatting (the smoothed surrogate), differentiable by autograd.

    Each point adds ``w * exp(-d^2 / (2 sigma^2)) / (2 pi sigma^2)^(D/2)`` to
    every bin centre within ``3 sigma`` bins, ``d`` its distance in bins. The
    forward pass is not the histogram: the gradient is exact for a blurred
    objective, not for the binned one.
    """
    points, weights, batched = _check_points(points, weights)
    bins, lows, highs = _check_bins_range(bins, range, points.shape[-1])
    n_dims = points.shape[-1]
    half = int(np.ceil(3 * sigma))
    offs = np.arange(-half, half + 1).tolist()
    index, _, inside = _rect_index(points, bins, lows, highs)
    factors = []
    for d in builtins.range(n_dims):
        width = (highs[d] - lows[d]) / bins[d]
        u = (points[..., d] - lows[d]) / width - 0.5 - index[..., d]
        dist = u.unsqueeze(-1) - torch.as_tensor(offs, dtype=u.dtype)
        factors.append(
            torch.exp(-(dist**2) / (2 * sigma**2)) / np.sqrt(2 * np.pi * sigma**2)
        )
    w = torch.where(inside, weights, torch.zeros_like(weights))
    hist = _splat(index, [offs] * n_dims, factors, w, bins, pad=half)
    return hist if batched else hist[0]
