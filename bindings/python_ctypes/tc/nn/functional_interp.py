"""tc.nn.functional.interpolate with all of torch 1.13's modes: "nearest",
"nearest-exact", "linear", "bilinear", "bicubic", "trilinear" and "area",
for 3-D, 4-D and 5-D inputs, and recompute_scale_factor. The forms that
tc.h's tc_interpolate computes (nearest and (bi)linear on 3-D/4-D input) go
to it; the others are separable along each spatial dim and are composed
here from index_select and weights as ATen's UpSample.h computes them (the
nearest source index in float32 arithmetic, as ATen's), area is adaptive
average pooling. antialias is not supported."""
import math
import struct
from typing import List, Optional

import tc as _tc

from .._tensor import Tensor
from . import functional_layers as _FL
from . import functional_nd as _FN

__all__ = ["interpolate", "upsample"]

_DIMS = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}


class _ModeDimsError(NotImplementedError, ValueError):
    """A mode given an input of the wrong rank: torch's NotImplementedError, and
    the ValueError tc's interpolate raised before."""


def _f32(v: float) -> float:
    """v rounded to float32, the type of ATen's nearest-index arithmetic."""
    return struct.unpack("f", struct.pack("f", v))[0]


def _scale(in_size: int, out_size: int, align_corners: bool, scale: Optional[float]) -> float:
    """ATen's area_pixel_compute_scale."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _nearest_index(o: int, in_size: int, out_size: int, scale: Optional[float], exact: bool) -> int:
    if not exact:
        if out_size == in_size:
            return o
        if out_size == 2 * in_size:
            return o >> 1
    s = _f32(1.0 / scale) if scale is not None and scale > 0 else _f32(_f32(in_size) / _f32(out_size))
    pos = _f32(_f32(o + 0.5) * s) if exact else _f32(o * s)
    return min(int(math.floor(pos)), in_size - 1)


def _along(x: Tensor, axis: int, indices: List[int], weights: Optional[List[float]] = None) -> Tensor:
    """x's slices at indices along axis, times per-output weights if given."""
    idx = _tc.tensor(indices, dtype=_tc.int64, device=x.device)
    out = x.index_select(axis, idx)
    if weights is None:
        return out
    shape = [1] * x.ndim
    shape[axis] = len(weights)
    return out * _tc.tensor(weights, dtype=x.dtype, device=x.device).reshape(*shape)


def _linear_1d(x: Tensor, axis: int, out_size: int, align_corners: bool, scale: Optional[float]) -> Tensor:
    in_size = x.shape[axis]
    if in_size == out_size:
        return x
    s = _scale(in_size, out_size, align_corners, scale)
    i0s, i1s, l0s, l1s = [], [], [], []
    for o in range(out_size):
        src = s * o if align_corners else max(s * (o + 0.5) - 0.5, 0.0)
        i0 = int(src)
        i1 = i0 + (1 if i0 < in_size - 1 else 0)
        lam = min(max(src - i0, 0.0), 1.0)
        i0s.append(i0)
        i1s.append(i1)
        l0s.append(1.0 - lam)
        l1s.append(lam)
    return _along(x, axis, i0s, l0s) + _along(x, axis, i1s, l1s)


def _cubic_1d(x: Tensor, axis: int, out_size: int, align_corners: bool, scale: Optional[float]) -> Tensor:
    in_size = x.shape[axis]
    s = _scale(in_size, out_size, align_corners, scale)
    A = -0.75
    taps = [([], []) for _ in range(4)]
    for o in range(out_size):
        src = s * o if align_corners else s * (o + 0.5) - 0.5
        base = math.floor(src)
        t = src - base
        x1, x2, x3 = t + 1.0, 1.0 - t, 2.0 - t
        coeffs = (((A * x1 - 5 * A) * x1 + 8 * A) * x1 - 4 * A, ((A + 2) * t - (A + 3)) * t * t + 1,
                  ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1, ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A)
        for k in range(4):
            taps[k][0].append(min(max(base - 1 + k, 0), in_size - 1))
            taps[k][1].append(coeffs[k])
    out = None
    for idx, w in taps:
        term = _along(x, axis, idx, w)
        out = term if out is None else out + term
    return out


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None, recompute_scale_factor: Optional[bool] = None,
                antialias: bool = False) -> Tensor:
    """Resamples [N, C, *spatial] (1 to 3 spatial dims), as torch.nn.functional.interpolate.

    Args:
        input: the input.
        size: the output spatial size (an int or one per dim), or None.
        scale_factor: a float or one per dim, when size is None.
        mode: "nearest", "nearest-exact", "linear" (3-D), "bilinear" (4-D), "bicubic" (4-D),
            "trilinear" (5-D) or "area".
        align_corners: for the interpolating modes (default False).
        recompute_scale_factor: compute the output size from scale_factor and then forget the factor.
        antialias: not supported (NotImplementedError when True).

    Returns:
        [N, C, *size].
    """
    modes = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    n = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: Optional[List[float]] = None
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != n:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 "with spatial dimensions of {} and output size of {}.".format(
                                     list(input.shape[2:]), size))
            out = [int(s) for s in size]
        else:
            out = [int(size)] * n
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != n:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 "input with spatial dimensions of {} and scale_factor of shape {}.".format(
                                     list(input.shape[2:]), scale_factor))
            scales = [float(f) for f in scale_factor]
        else:
            scales = [float(scale_factor)] * n
        out = [int(math.floor(float(input.shape[2 + i]) * scales[i])) for i in range(n)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = None
    if antialias:
        if not (mode in ("bilinear", "bicubic") and input.ndim == 4):
            raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
        raise NotImplementedError("interpolate: antialias is not supported by tc")
    if mode not in modes:
        raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: "
                                  "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {})"
                                  .format(input.ndim, mode))
    if mode in _DIMS and input.ndim != _DIMS[mode]:
        if input.ndim in (3, 4, 5):
            raise _ModeDimsError("Got {}D input, but {} mode needs {}D input".format(input.ndim, mode, _DIMS[mode]))
    if input.ndim not in (3, 4, 5):
        raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: "
                                  "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got {})"
                                  .format(input.ndim, mode))
    if mode == "area":
        if n == 1:
            return _FL.adaptive_avg_pool1d(input, out[0])
        if n == 2:
            return _FL.adaptive_avg_pool2d(input, out)
        return _FN.adaptive_avg_pool3d(input, out)
    if mode in ("nearest", "linear", "bilinear") and n in (1, 2):
        # tc_interpolate's kernel: the scales given only while not recomputed
        return _FL.interpolate(input, size=out if scales is None else None,
                               scale_factor=scales if scales is not None else None, mode=mode,
                               align_corners=None if mode == "nearest" else align_corners)
    x = input
    for i in range(n):
        axis = 2 + i
        sc = scales[i] if scales is not None else None
        if mode in ("nearest", "nearest-exact"):
            in_size = x.shape[axis]
            x = _along(x, axis, [_nearest_index(o, in_size, out[i], sc, mode == "nearest-exact")
                                 for o in range(out[i])])
        elif mode == "bicubic":
            x = _cubic_1d(x, axis, out[i], align_corners, sc)
        else:
            x = _linear_1d(x, axis, out[i], align_corners, sc)
    return x


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """The same as interpolate (torch.nn.functional.upsample, deprecated)."""
    return interpolate(input, size, scale_factor, mode, align_corners)
