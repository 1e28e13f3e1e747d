"""tc.nn.functional's spatial-transformer functions of torch 1.13:
affine_grid and grid_sample (bilinear, nearest and, for 4-D input, bicubic;
padding zeros, border or reflection), composed from tc ops as
ATen's GridSampler.h computes them: the grid is unnormalized to pixel
coordinates, padded by clipping or reflection, and the corner (tap) values
are gathered and weighted, so the gradients of input and grid come from
those ops."""
import warnings
from typing import List, Optional, Sequence

import tc as _tc

from .._tensor import Tensor

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _base_coords(n: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalized coordinates of n pixel centres along one dim."""
    if n <= 1:
        return _tc.zeros(max(n, 0), dtype=like.dtype, device=like.device)
    steps = _tc.arange(n, dtype=like.dtype, device=like.device)
    if align_corners:
        return steps * (2.0 / (n - 1)) - 1.0
    return (steps * 2.0 + 1.0) / float(n) - 1.0


def affine_grid(theta: Tensor, size: List[int], align_corners: Optional[bool] = None) -> Tensor:
    """The sampling grid of a batch of affine maps (torch.nn.functional.affine_grid).

    Args:
        theta: [N, 2, 3] (2-D) or [N, 3, 4] (3-D) affine matrices, floating.
        size: the output size [N, C, H, W] or [N, C, D, H, W].
        align_corners: -1 and 1 are the corner pixels' centres (True) or the image's corners (False, default).

    Returns:
        [N, H, W, 2] or [N, D, H, W, 3] of (x, y[, z]) coordinates.
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError("Expected theta to have floating point type, but got {}".format(theta.dtype))
    size = list(size)
    if len(size) == 4:
        if theta.ndim != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}.".format(
                size, list(theta.shape)))
    elif len(size) == 5:
        if theta.ndim != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size {}. Got {}.".format(
                size, list(theta.shape)))
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  "respectively. Got size {}.".format(size))
    spatial = size[2:]
    if min(spatial) <= 0:
        raise ValueError("Expected non-zero, positive output size. Got {}".format(size))
    if theta.shape[0] != size[0]:
        raise RuntimeError("affine_grid: theta's batch size {} does not match size[0] = {}".format(
            theta.shape[0], size[0]))
    n = len(spatial)
    # base [prod(spatial), n + 1]: (x, y[, z], 1) with x along the last dim
    axes = [_base_coords(s, align_corners, theta) for s in spatial]
    grids = _tc.meshgrid(*axes, indexing="ij")
    cols = [g.reshape(-1) for g in reversed(grids)]
    count = cols[0].shape[0]
    cols.append(_tc.ones(count, dtype=theta.dtype, device=theta.device))
    base = _tc.stack(cols, 1)  # [P, n+1]
    out = base.matmul(theta.transpose(1, 2))  # [N, P, n]
    return out.reshape([size[0]] + spatial + [n])


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1.0) / 2.0 * (size - 1)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _clip(coord: Tensor, size: int) -> Tensor:
    return coord.clamp(0.0, float(size - 1))


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    if twice_low == twice_high:
        return coord * 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    d = (coord - low).abs()
    extra = d.fmod(span)
    with _tc.no_grad():
        even = (d / span).floor().fmod(2.0) == 0
    return _tc.where(even, extra + low, (-extra) + (span + low))


def _pad_coords(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """ATen's compute_coordinates: clip (border) or reflect then clip (reflection)."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _gather_taps(flat: Tensor, taps: Sequence[Tensor], sizes: Sequence[int]) -> Tensor:
    """flat [N, C, P] at integer tap coordinates (one [N, Q] int64 tensor per
    spatial dim, first dim first); taps outside the input give 0."""
    N, C = flat.shape[0], flat.shape[1]
    with _tc.no_grad():
        inside = None
        lin = None
        for t, s in zip(taps, sizes):
            ok = (t >= 0).logical_and(t < s)
            inside = ok if inside is None else inside.logical_and(ok)
            tt = t.clamp(0, s - 1)
            lin = tt if lin is None else lin * s + tt
        idx = lin.unsqueeze(1).expand(N, C, lin.shape[1])
    vals = flat.gather(2, idx)
    return _tc.where(inside.unsqueeze(1), vals, _tc.zeros((), dtype=flat.dtype, device=flat.device))


def _cubic_coeffs(t: Tensor) -> List[Tensor]:
    """The 4 weights of ATen's get_cubic_upsample_coefficients (A = -0.75) at fraction t."""
    A = -0.75
    x1 = t + 1.0
    c0 = ((A * x1 - 5.0 * A) * x1 + 8.0 * A) * x1 - 4.0 * A
    c1 = ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0
    x2 = 1.0 - t
    c2 = ((A + 2.0) * x2 - (A + 3.0)) * x2 * x2 + 1.0
    x3 = 2.0 - t
    c3 = ((A * x3 - 5.0 * A) * x3 + 8.0 * A) * x3 - 4.0 * A
    return [c0, c1, c2, c3]


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: Optional[bool] = None) -> Tensor:
    """Samples input at grid's normalized coordinates (torch.nn.functional.grid_sample).

    Args:
        input: [N, C, H, W] or [N, C, D, H, W].
        grid: [N, Ho, Wo, 2] or [N, Do, Ho, Wo, 3] of (x, y[, z]) in [-1, 1].
        mode: "bilinear" (trilinear for 5-D), "nearest" or "bicubic" (4-D only).
        padding_mode: "zeros", "border" or "reflection".
        align_corners: as affine_grid's (default False, with torch's warning).

    Returns:
        [N, C, Ho, Wo] or [N, C, Do, Ho, Wo].
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         "got: '{}'".format(mode))
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         "'reflection', but got: '{}'".format(padding_mode))
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    if input.ndim not in (4, 5):
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           "input with sizes {} and grid with sizes {}".format(list(input.shape), list(grid.shape)))
    n = input.ndim - 2
    if grid.ndim != input.ndim or grid.shape[0] != input.shape[0] or grid.shape[-1] != n:
        raise RuntimeError("grid_sampler(): expected grid to have size {} in last dimension and the same batch size "
                           "and number of dimensions as input, but got grid with sizes {} and input with sizes {}"
                           .format(n, list(grid.shape), list(input.shape)))
    if mode == "bicubic" and n != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    N, C = input.shape[0], input.shape[1]
    sizes = [int(s) for s in input.shape[2:]]
    out_spatial = [int(s) for s in grid.shape[1:-1]]
    flat = input.reshape(N, C, -1)
    g = grid.reshape(N, -1, n)
    # grid's last dim is (x, y[, z]): x indexes the last spatial dim
    raw = [_unnormalize(g.select(2, n - 1 - i), sizes[i], align_corners) for i in range(n)]
    if mode == "bicubic":
        coords = raw  # bicubic pads each tap's integer coordinate instead
        with _tc.no_grad():
            base = [c.floor() for c in coords]
        fracs = [c - b for c, b in zip(coords, base)]
        wy, wx = _cubic_coeffs(fracs[0]), _cubic_coeffs(fracs[1])
        out = None
        for j in range(4):
            for i in range(4):
                taps = []
                for b, off, s in ((base[0], j - 1, sizes[0]), (base[1], i - 1, sizes[1])):
                    with _tc.no_grad():
                        t = _pad_coords(b + float(off), s, padding_mode, align_corners)
                        taps.append(t.long())  # static_cast<int64_t>: truncation
                term = _gather_taps(flat, taps, sizes) * (wy[j] * wx[i]).unsqueeze(1)
                out = term if out is None else out + term
        return out.reshape([N, C] + out_spatial)
    coords = [_pad_coords(c, s, padding_mode, align_corners) for c, s in zip(raw, sizes)]
    if mode == "nearest":
        with _tc.no_grad():
            taps = [c.round().long() for c in coords]  # nearbyint: half to even
        out = _gather_taps(flat, taps, sizes)
        return out.reshape([N, C] + out_spatial)
    with _tc.no_grad():
        lows = [c.floor() for c in coords]
    out = None
    for corner in range(2 ** n):
        weight = None
        taps = []
        for i in range(n):
            high = (corner >> (n - 1 - i)) & 1
            frac = coords[i] - lows[i]
            w = frac if high else (1.0 - frac)
            weight = w if weight is None else weight * w
            taps.append((lows[i] + float(high)).long())
        term = _gather_taps(flat, taps, sizes) * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out.reshape([N, C] + out_spatial)
