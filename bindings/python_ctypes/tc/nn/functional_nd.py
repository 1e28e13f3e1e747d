"""tc.nn.functional's N-d window ops that tc.h has no kernel for: 3-D
convolutions and pooling, unfold/fold, max unpooling, power-average and
fractional max pooling, and the ``*_with_indices`` forms, as
torch.nn.functional's (1.13). They are composed from tc ops, so autograd
comes from those ops:

- convolutions in 3-D are tc.h's (tc_conv3d, tc_conv_transpose3d: oneDNN on
  the CPU for float32), after torch's argument checks;
- 3-D pooling runs tc's 2-D pooling kernel on every depth slice, then
  reduces the depth windows (gathered with index_select); max pooling takes
  the argmax and gathers it, so the gradient goes to that one element, as
  torch's, and the indices combine the depth with the 2-D kernel's;
- unfold and fractional pooling gather whole windows (memory = output *
  kernel size); fold is a grouped transposed convolution.

Single-threaded, the pooling runs a few times slower than torch's kernels
(max_pool3d about 5x)."""
import itertools
import math
import numbers
from typing import List, Optional, Sequence, Tuple

import tc as _tc

from .._ints import to_int64
from ..autograd import Function
from .._tensor import Tensor
from . import functional_layers as _FL
from .._shape_ops import pad

__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "unfold", "fold",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d",
           "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]


def _ntuple(v, n: int, what: str = "argument") -> Tuple[int, ...]:
    """n int64 values from an int or an n-sequence (at most n+1 items looked at)."""
    if hasattr(v, "__index__"):
        return (to_int64(v),) * n
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError("%s must be an int or a tuple of %d ints, got %s" % (what, n, type(v).__name__))
    items = tuple(itertools.islice(v, n + 1))
    if len(items) == 1:
        items = items * n
    if len(items) != n:
        raise ValueError("%s must be an int or a tuple of %d ints, got %r" % (what, n, items))
    return tuple(to_int64(i) for i in items)


def _batched(input: Tensor, n: int, name: str) -> Tuple[Tensor, bool]:
    """input as [N, C, *n spatial]: an unbatched [C, *spatial] gets N = 1."""
    nd = input.ndim
    if nd == n + 1:
        return input.unsqueeze(0), True
    if nd != n + 2:
        raise RuntimeError("%s: Expected %dD or %dD input tensor, but got %dD input" % (name, n + 1, n + 2, nd))
    return input, False


def _index(values, device) -> Tensor:
    return _tc.tensor(list(values), dtype=_tc.int64, device=device)


def _windows(x: Tensor, tables: Sequence[Tensor]) -> Tensor:
    """x [N, C, L1..Ln] and int64 tables [O_i, K_i] of positions along dim i
    -> [N, C, O1..On, K1*...*Kn]: every window's elements, in (k1, ..., kn)
    row-major order (index_select, so the gradient scatters back)."""
    n = len(tables)
    for i in reversed(range(n)):  # the last dim first: the earlier dims keep their axis
        o, k = tables[i].shape
        x = x.index_select(2 + i, tables[i].reshape(-1))
        x = x.reshape(tuple(x.shape[:2 + i]) + (o, k) + tuple(x.shape[3 + i:]))
    # [N, C, O1, K1, O2, K2, ...] -> [N, C, O1..On, K1..Kn]
    perm = [0, 1] + [2 + 2 * i for i in range(n)] + [3 + 2 * i for i in range(n)]
    x = x.permute(*perm)
    return x.reshape(tuple(x.shape[:2 + n]) + (-1,))


def _flat_positions(tables: Sequence[Tensor], sizes: Sequence[int]) -> Tensor:
    """[O1..On, K] int64: the flat index within the L1*...*Ln plane of every
    window element, from per-dim position tables [O_i, K_i]."""
    n = len(tables)
    total = None
    stride = 1
    for i in reversed(range(n)):
        o, k = tables[i].shape
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = o, k
        term = tables[i].reshape(o, k).permute(0, 1).reshape(*shape) * stride
        total = term if total is None else total + term
        stride *= sizes[i]
    outs = tuple(t.shape[0] for t in tables)
    full = total.expand(*(outs + tuple(t.shape[1] for t in tables)))
    return full.reshape(outs + (-1,))


def _pool_out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    """torch's pooling_output_shape: a window must start inside the input or the left padding."""
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = num // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_args(name: str, input: Tensor, n: int, kernel_size, stride, padding, dilation, ceil_mode):
    x, unbatched = _batched(input, n, name)
    k = _ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None or (not hasattr(stride, "__index__") and len(tuple(stride)) == 0) else \
        _ntuple(stride, n, "stride")
    p, d = _ntuple(padding, n, "padding"), _ntuple(dilation, n, "dilation")
    if any(v <= 0 for v in k):
        raise RuntimeError("%s: kernel_size must be greater than zero, but got %s" % (name, k))
    if any(v <= 0 for v in s):
        raise RuntimeError("%s: stride must be greater than zero, but got %s" % (name, s))
    if any(v <= 0 for v in d):
        raise RuntimeError("%s: dilation must be greater than zero, but got %s" % (name, d))
    if any(pi < 0 or pi > ki // 2 for pi, ki in zip(p, k)):
        raise RuntimeError("%s: pad should be at most half of effective kernel size, but got pad=%s and "
                           "kernel_size=%s" % (name, p, k))
    sizes = tuple(x.shape[2:])
    outs = tuple(_pool_out_size(L, ki, si, pi, di, ceil_mode) for L, ki, si, pi, di in zip(sizes, k, s, p, d))
    if any(o < 1 for o in outs):
        raise RuntimeError("%s: Given input size: %s. Calculated output size: %s. Output size is too small"
                           % (name, tuple(input.shape), outs))
    return x, unbatched, k, s, p, d, sizes, outs


def _padded_for(x: Tensor, sizes, k, s, p, d, outs, value: float) -> Tensor:
    """x padded by p on the left and, on the right, by p plus whatever the
    last (ceil_mode) window reaches past it, with value."""
    spec: List[int] = []
    for L, ki, si, pi, di, o in reversed(list(zip(sizes, k, s, p, d, outs))):
        right = max(pi, (o - 1) * si + di * (ki - 1) + 1 - L - pi)
        spec += [pi, right]
    if any(spec):
        x = pad(x, spec, value=value)
    return x


def _tables(k, s, d, outs, device) -> List[Tensor]:
    """Per-dim [O, K] window positions o*s + j*d (in the padded input)."""
    return [_index([o * si + j * di for o in range(oi) for j in range(ki)], device).reshape(oi, ki)
            for ki, si, di, oi in zip(k, s, d, outs)]


def _depth_windows(y: Tensor, k, s, p, d, D: int, Do: int, ceil_mode: bool, value: float) -> Tensor:
    """y [N, C, D, *] -> [N, C, Do, kD, *]: the depth windows of the pooling
    (padded with value), for the second stage of the 3-D poolings."""
    spec = [0, 0] * (y.ndim - 3) + [p, max(p, (Do - 1) * s + d * (k - 1) + 1 - D - p)]
    if any(spec):
        y = pad(y, spec, value=value)
    tab = _index([o * s + j * d for o in range(Do) for j in range(k)], y.device)
    out = y.index_select(2, tab)
    return out.reshape(tuple(y.shape[:2]) + (Do, k) + tuple(y.shape[3:]))


def _max_pool3d_staged(x: Tensor, k, s, p, d, ceil_mode, sizes, outs, return_indices):
    """3-D max pooling as tc's 2-D max pooling of every depth slice (its
    kernel, with indices) and then a max over the depth windows: the first
    maximum in (d, h, w) order, as torch's."""
    N, C, D, H, W = x.shape
    v2, i2 = _FL.max_pool2d(x.reshape(N, C * D, H, W), k[1:], s[1:], p[1:], d[1:], ceil_mode, True)
    Ho, Wo = v2.shape[2], v2.shape[3]
    vd = _depth_windows(v2.reshape(N, C, D, Ho, Wo), k[0], s[0], p[0], d[0], D, outs[0], ceil_mode,
                        float("-inf"))
    with _tc.no_grad():
        nan = vd.isnan()
        key = _tc.where(nan, _tc.full((), float("inf"), dtype=vd.dtype, device=vd.device), vd)
        am = key.argmax(3, keepdim=True)
    values = vd.gather(3, am).squeeze(3)
    if not return_indices:
        return values, None
    with _tc.no_grad():
        planes = _depth_windows(i2.reshape(N, C, D, Ho, Wo), k[0], s[0], p[0], d[0], D, outs[0], ceil_mode, 0)
        depth = _index([o * s[0] + j * d[0] - p[0] for o in range(outs[0]) for j in range(k[0])], x.device)
        depth = depth.reshape(1, 1, outs[0], k[0], 1, 1).expand(N, C, outs[0], k[0], Ho, Wo)
        indices = (depth.gather(3, am) * (H * W) + planes.gather(3, am)).squeeze(3)
    return values, indices


def _max_pool(name, input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    x, unbatched, k, s, p, d, sizes, outs = _pool_args(name, input, n, kernel_size, stride, padding,
                                                        dilation, ceil_mode)
    if n == 3:
        values, indices = _max_pool3d_staged(x, k, s, p, d, ceil_mode, sizes, outs, return_indices)
        if unbatched:
            values = values.squeeze(0)
            indices = indices.squeeze(0) if indices is not None else None
        return (values, indices) if return_indices else values
    tables = _tables(k, s, d, outs, x.device)
    win = _windows(_padded_for(x, sizes, k, s, p, d, outs, float("-inf")), tables)
    values, idx = _take_max(win)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    # positions in the unpadded input: the table minus the left padding
    flat = _flat_positions([t - pi for t, pi in zip(tables, p)], sizes)
    N, C = x.shape[:2]
    indices = flat.expand(N, C, *flat.shape).gather(-1, idx).squeeze(-1)
    return values, (indices.squeeze(0) if unbatched else indices)


def _take_max(win: Tensor) -> Tuple[Tensor, Tensor]:
    """The first maximum of the last axis (a NaN counts as the maximum, as in
    torch's kernels) and its position, keeping the axis for the index."""
    with _tc.no_grad():
        nan = win.isnan()
        key = _tc.where(nan, _tc.full((), float("inf"), dtype=win.dtype, device=win.device), win)
        idx = key.argmax(-1, keepdim=True)
    return win.gather(-1, idx).squeeze(-1), idx


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """3-D max pooling of [N, C, D, H, W] or [C, D, H, W], as torch.nn.functional.max_pool3d.

    Args:
        input: the input.
        kernel_size, stride (None: kernel_size), padding, dilation: an int or a triple.
        ceil_mode: rounds the output size up.
        return_indices: also return the int64 argmax, flat within each D*H*W volume.

    Returns:
        The pooled tensor, or (values, indices) with return_indices.
    """
    return _max_pool("max_pool3d", input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """max_pool3d returning (values, indices), as torch.nn.functional.max_pool3d_with_indices."""
    return _max_pool("max_pool3d", input, 3, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """max_pool2d returning (values, indices), as torch.nn.functional.max_pool2d_with_indices."""
    return _FL.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False, return_indices: bool = False):
    """max_pool1d returning (values, indices), as torch.nn.functional.max_pool1d_with_indices."""
    return _FL.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Optional[int] = None) -> Tensor:
    """3-D average pooling of [N, C, D, H, W] or [C, D, H, W], as torch.nn.functional.avg_pool3d.

    Args:
        input: the input.
        kernel_size, stride (None: kernel_size), padding: an int or a triple.
        ceil_mode: rounds the output size up.
        count_include_pad: whether the padded zeros count in the divisor.
        divisor_override: a fixed divisor, or None.

    Returns:
        The pooled tensor.
    """
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    x, unbatched, k, s, p, d, sizes, outs = _pool_args("avg_pool3d", input, 3, kernel_size, stride, padding, 1,
                                                        ceil_mode)
    # window sums: tc's 2-D average pooling with divisor 1 on every depth
    # slice, then the sum over the depth windows
    N, C, D, H, W = x.shape
    s2 = _FL.avg_pool2d(x.reshape(N, C * D, H, W), k[1:], s[1:], p[1:], ceil_mode, True, 1)
    s2 = s2.reshape(N, C, D, s2.shape[2], s2.shape[3])
    total = _depth_windows(s2, k[0], s[0], p[0], 1, D, outs[0], ceil_mode, 0.0).sum(3)
    if divisor_override is not None:
        out = total / float(divisor_override)
    else:
        # The divisor of torch's kernel is separable: a product of per-dim counts.
        div = None
        for i, (L, ki, si, pi, oi) in enumerate(zip(sizes, k, s, p, outs)):
            counts = []
            for o in range(oi):
                start = o * si - pi
                end = min(start + ki, L + pi)
                counts.append(end - start if count_include_pad else min(end, L) - max(start, 0))
            shape = [1] * 3
            shape[i] = oi
            c = _tc.tensor(counts, dtype=x.dtype, device=x.device).reshape(*shape)
            div = c if div is None else div * c
        out = total / div
    return out.squeeze(0) if unbatched else out


def _adaptive_bounds(L: int, O: int) -> List[Tuple[int, int]]:
    """torch's adaptive windows: [floor(o*L/O), ceil((o+1)*L/O))."""
    return [((o * L) // O, -((-(o + 1) * L) // O)) for o in range(O)]


def _adaptive_sizes(input: Tensor, output_size, n: int) -> Tuple[int, ...]:
    if hasattr(output_size, "__index__"):
        output_size = (output_size,) * n
    sizes = tuple(output_size)
    if len(sizes) != n:
        raise ValueError("output_size must have %d entries, got %r" % (n, sizes))
    return tuple(int(input.shape[-n + i]) if v is None else int(v) for i, v in enumerate(sizes))


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Adaptive 3-D average pooling of [N, C, D, H, W] or [C, D, H, W], as
    torch.nn.functional.adaptive_avg_pool3d (each dim averaged by a matrix; the
    windows are separable).

    Args:
        input: the input.
        output_size: an int or a triple (None keeps that dim).

    Returns:
        [..., D_out, H_out, W_out].
    """
    if input.ndim not in (4, 5):
        raise RuntimeError("adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got %s" % (tuple(input.shape),))
    outs = _adaptive_sizes(input, output_size, 3)
    if any(o < 0 for o in outs):
        raise RuntimeError("adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0")
    # tc's 2-D kernel on every depth slice, then the depth averaged by a matrix
    x, unbatched = _batched(input, 3, "adaptive_avg_pool3d")
    N, C, D, H, W = x.shape
    y = _FL.adaptive_avg_pool2d(x.reshape(N, C * D, H, W), outs[1:])
    Ho, Wo = y.shape[2], y.shape[3]
    rows = []
    for a, b in _adaptive_bounds(D, outs[0]):
        rows.append([1.0 / (b - a) if a <= j < b else 0.0 for j in range(D)])
    m = _tc.tensor(rows, dtype=x.dtype, device=x.device).reshape(outs[0], D)
    out = m.matmul(y.reshape(N * C, D, Ho * Wo)).reshape(N, C, outs[0], Ho, Wo)
    return out.squeeze(0) if unbatched else out


def _adaptive_max3d_staged(x: Tensor, outs, return_indices: bool):
    """Adaptive 3-D max pooling as tc's adaptive 2-D max pooling of every depth
    slice and then a max over each output's depth window (the first maximum in
    (d, h, w) order, as torch's)."""
    N, C, D, H, W = x.shape
    v2, i2 = _FL.adaptive_max_pool2d(x.reshape(N, C * D, H, W), outs[1:], True)
    Ho, Wo = v2.shape[2], v2.shape[3]
    bounds = _adaptive_bounds(D, outs[0])
    kmax = max((b - a for a, b in bounds), default=1)
    pos = [min(a + j, b - 1) for a, b in bounds for j in range(kmax)]  # repeats: the same maximum
    tab = _index(pos, x.device)
    vd = v2.reshape(N, C, D, Ho, Wo).index_select(2, tab).reshape(N, C, outs[0], kmax, Ho, Wo)
    with _tc.no_grad():
        key = _tc.where(vd.isnan(), _tc.full((), float("inf"), dtype=vd.dtype, device=vd.device), vd)
        am = key.argmax(3, keepdim=True)
    values = vd.gather(3, am).squeeze(3)
    if not return_indices:
        return values, None
    with _tc.no_grad():
        planes = i2.reshape(N, C, D, Ho, Wo).index_select(2, tab).reshape(N, C, outs[0], kmax, Ho, Wo)
        depth = tab.reshape(1, 1, outs[0], kmax, 1, 1).expand(N, C, outs[0], kmax, Ho, Wo)
        indices = (depth.gather(3, am) * (H * W) + planes.gather(3, am)).squeeze(3)
    return values, indices


def _adaptive_max(name, input, output_size, n, return_indices):
    x, unbatched = _batched(input, n, name)
    outs = _adaptive_sizes(x, output_size, n)
    sizes = tuple(x.shape[2:])
    if n == 3:
        values, indices = _adaptive_max3d_staged(x, outs, return_indices)
        if unbatched:
            values = values.squeeze(0)
            indices = indices.squeeze(0) if indices is not None else None
        return (values, indices) if return_indices else values
    tables = []
    for L, O in zip(sizes, outs):
        bounds = _adaptive_bounds(L, O)
        kmax = max((b - a for a, b in bounds), default=1)
        # positions past a short window repeat its last element: the maximum is the same
        tables.append(_index([min(a + j, b - 1) for a, b in bounds for j in range(kmax)], x.device).reshape(O, kmax))
    values, idx = _take_max(_windows(x, tables))
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    flat = _flat_positions(tables, sizes)
    N, C = x.shape[:2]
    indices = flat.expand(N, C, *flat.shape).gather(-1, idx).squeeze(-1)
    return values, (indices.squeeze(0) if unbatched else indices)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Adaptive 3-D max pooling of [N, C, D, H, W] or [C, D, H, W], as torch.nn.functional.adaptive_max_pool3d.

    Args:
        input: the input.
        output_size: an int or a triple (None keeps that dim).
        return_indices: also return the int64 argmax, flat within each D*H*W volume.

    Returns:
        The pooled tensor, or (values, indices) with return_indices.
    """
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, return_indices)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool3d returning (values, indices)."""
    return _adaptive_max("adaptive_max_pool3d", input, output_size, 3, True)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool2d returning (values, indices)."""
    return _FL.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False):
    """adaptive_max_pool1d returning (values, indices)."""
    return _FL.adaptive_max_pool1d(input, output_size, True)


# ---------------------------------------------------------------- convolutions

def _same_pads(k, d) -> List[Tuple[int, int]]:
    """torch's padding='same': total d*(k-1), the odd one on the right."""
    out = []
    for ki, di in zip(k, d):
        total = di * (ki - 1)
        out.append((total // 2, total - total // 2))
    return out


def conv3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D convolution, as torch.nn.functional.conv3d (tc_conv3d).

    Args:
        input: [N, C, D, H, W] or [C, D, H, W].
        weight: [O, C/groups, kD, kH, kW].
        bias: [O] or None.
        stride, dilation: an int or a triple.
        padding: an int, a triple, "valid" or "same" (stride 1).
        groups: splits the channels.

    Returns:
        [N, O, D_out, H_out, W_out] (or without N).
    """
    if weight.ndim != 5:
        raise RuntimeError("conv3d: Expected 5-dimensional weight, but got weight of size %s"
                           % (list(weight.shape),))
    x, unbatched = _batched(input, 3, "conv3d")
    s, d = _ntuple(stride, 3, "stride"), _ntuple(dilation, 3, "dilation")
    k = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError("Invalid padding string %r, should be one of {'valid', 'same'}" % (padding,))
        if padding == "same" and s != (1, 1, 1):
            raise ValueError("padding='same' is not supported for strided convolutions")
        pads = _same_pads(k, d) if padding == "same" else [(0, 0)] * 3
    else:
        pads = [(v, v) for v in _ntuple(padding, 3, "padding")]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    C, O = x.shape[1], weight.shape[0]
    if C != weight.shape[1] * groups:
        raise RuntimeError("Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d "
                           "channels instead" % (groups, list(weight.shape), list(x.shape),
                                                 weight.shape[1] * groups, C))
    if any(a != b for a, b in pads):  # "same" with an even kernel: the odd one on the far side
        x = pad(x, [v for i in (2, 1, 0) for v in pads[i]])
        pads = [(0, 0)] * 3
    _, _, D, H, W = x.shape
    if D + 2 * pads[0][0] - d[0] * (k[0] - 1) - 1 < 0:
        raise RuntimeError("conv3d: Calculated padded input size per channel: (%d x %d x %d). Kernel size: "
                           "(%d x %d x %d). Kernel size can't be greater than actual input size"
                           % ((D, H, W) + tuple(k)))
    out = _FL._call(_FL.fn("tc_conv3d"), x._h, weight._h, _FL._h(bias), _FL._arr(s), _FL._arr([a for a, _ in pads]),
                _FL._arr(d), int(groups))
    return out.squeeze(0) if unbatched else out


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """3-D transposed convolution, as torch.nn.functional.conv_transpose3d
    (tc_conv_transpose3d).

    Args:
        input: [N, C, D, H, W] or [C, D, H, W].
        weight: [C, O/groups, kD, kH, kW].
        bias: [O] or None.
        stride, padding, output_padding, dilation: an int or a triple.
        groups: splits the channels.

    Returns:
        [N, O, D_out, H_out, W_out], D_out = (D-1)*stride - 2*padding + dilation*(kD-1) + output_padding + 1.
    """
    if weight.ndim != 5:
        raise RuntimeError("conv_transpose3d: Expected 5-dimensional weight, but got weight of size %s"
                           % (list(weight.shape),))
    x, unbatched = _batched(input, 3, "conv_transpose3d")
    s, p = _ntuple(stride, 3, "stride"), _ntuple(padding, 3, "padding")
    op, d = _ntuple(output_padding, 3, "output_padding"), _ntuple(dilation, 3, "dilation")
    if any(o >= max(si, di) for o, si, di in zip(op, s, d)):
        raise RuntimeError("conv_transpose3d: output padding must be smaller than either stride or dilation, "
                           "but got output_padding=%s, stride=%s, dilation=%s" % (op, s, d))
    N, C, D, H, W = x.shape
    if C != weight.shape[0]:
        raise RuntimeError("Given transposed=1, weight of size %s, expected input%s to have %d channels, but got "
                           "%d channels instead" % (list(weight.shape), list(x.shape), weight.shape[0], C))
    kd = weight.shape[2]
    Do = (D - 1) * s[0] + d[0] * (kd - 1) + 1 + op[0] - 2 * p[0]
    if Do < 1:
        raise RuntimeError("conv_transpose3d: the output depth %d is not positive" % Do)
    out = _FL._call(_FL.fn("tc_conv_transpose3d"), x._h, weight._h, _FL._h(bias), _FL._arr(s), _FL._arr(p),
                _FL._arr(op), _FL._arr(d), int(groups))
    return out.squeeze(0) if unbatched else out


# ---------------------------------------------------------------- unfold / fold

def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of [N, C, H, W] (or [C, H, W]) as columns, as
    torch.nn.functional.unfold (im2col).

    Args:
        input: the input.
        kernel_size, dilation, padding, stride: an int or a pair.

    Returns:
        [N, C*kH*kW, L] (or without N), L the number of blocks.
    """
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor for input with possibly 0 batch size and "
                           "non-zero dimensions, but got: %s" % (list(input.shape),))
    x, unbatched = _batched(input, 2, "unfold")
    k, d = _ntuple(kernel_size, 2, "kernel_size"), _ntuple(dilation, 2, "dilation")
    p, s = _ntuple(padding, 2, "padding"), _ntuple(stride, 2, "stride")
    if any(v <= 0 for v in k + d + s) or any(v < 0 for v in p):
        raise RuntimeError("unfold: kernel size, dilation and stride must be greater than zero and padding "
                           "non-negative, but got kernel_size=%s, dilation=%s, padding=%s, stride=%s" % (k, d, p, s))
    sizes = tuple(x.shape[2:])
    outs = tuple((L + 2 * pi - di * (ki - 1) - 1) // si + 1 for L, ki, si, pi, di in zip(sizes, k, s, p, d))
    if any(o < 1 for o in outs):
        raise RuntimeError("Given input with spatial size %s, kernel_size=%s, dilation=%s, padding=%s, calculated "
                           "shape of the array of sliding blocks as %s, but its components must be at least one."
                           % (sizes, k, d, p, outs))
    if any(p):
        x = pad(x, [p[1], p[1], p[0], p[0]])
    win = _windows(x, _tables(k, s, d, outs, x.device))  # [N, C, Oh, Ow, kh*kw]
    N, C = x.shape[:2]
    out = win.permute(0, 1, 4, 2, 3).reshape(N, C * k[0] * k[1], outs[0] * outs[1])
    return out.squeeze(0) if unbatched else out


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sums columns of sliding blocks back into an image, as
    torch.nn.functional.fold (col2im; the adjoint of unfold). Composed as a
    grouped transposed convolution with one-hot kernels, so an inf or NaN in a
    column spreads NaN over its block's zeros-weighted neighbours.

    Args:
        input: [N, C*kH*kW, L] or [C*kH*kW, L].
        output_size: the spatial (H, W) of the output, an int or a pair.
        kernel_size, dilation, padding, stride: an int or a pair.

    Returns:
        [N, C, H, W] (or without N).
    """
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           "non-zero dimensions, but got: %s" % (list(input.shape),))
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    size = _ntuple(output_size, 2, "output_size")
    k, d = _ntuple(kernel_size, 2, "kernel_size"), _ntuple(dilation, 2, "dilation")
    p, s = _ntuple(padding, 2, "padding"), _ntuple(stride, 2, "stride")
    if any(v <= 0 for v in k + d + s) or any(v < 0 for v in p):
        raise RuntimeError("fold: kernel size, dilation and stride must be greater than zero and padding "
                           "non-negative, but got kernel_size=%s, dilation=%s, padding=%s, stride=%s" % (k, d, p, s))
    N, CK, L = x.shape
    K = k[0] * k[1]
    if CK % K:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           "but got input.size(1)=%d and kernel_size=%s" % (CK, k))
    blocks = tuple((sz + 2 * pi - di * (ki - 1) - 1) // si + 1 for sz, ki, si, pi, di in zip(size, k, s, p, d))
    if blocks[0] * blocks[1] != L or any(b < 1 for b in blocks):
        raise RuntimeError("Given output_size=%s, kernel_size=%s, dilation=%s, padding=%s, stride=%s, expected "
                           "size of input's dimension 2 to match the calculated number of sliding blocks %d * %d "
                           "= %d, but got input.size(2)=%d." % (size, k, d, p, s, blocks[0], blocks[1],
                                                                blocks[0] * blocks[1], L))
    C = CK // K
    # weight [C*K, 1, kh, kw]: channel (c, j) puts its value at kernel position j
    eye = _tc.zeros(K, K, dtype=x.dtype, device=x.device)
    for j in range(K):
        eye[j, j] = 1.0
    w = eye.reshape(1, K, 1, k[0], k[1]).expand(C, K, 1, k[0], k[1]).reshape(C * K, 1, k[0], k[1]).contiguous()
    opad = tuple(sz - ((b - 1) * si - 2 * pi + di * (ki - 1) + 1)
                 for sz, b, ki, si, pi, di in zip(size, blocks, k, s, p, d))
    if any(o >= max(si, di) for o, si, di in zip(opad, s, d)):
        # the last rows/cols get nothing: pad the output instead of output_padding
        out = _FL.conv_transpose2d(x.reshape(N, CK, blocks[0], blocks[1]), w, None, s, p, 0, C, d)
        out = pad(out, [0, size[1] - out.shape[3], 0, size[0] - out.shape[2]])
    else:
        out = _FL.conv_transpose2d(x.reshape(N, CK, blocks[0], blocks[1]), w, None, s, p, opad, C, d)
    return out.squeeze(0) if unbatched else out


# ---------------------------------------------------------------- unpooling

def _unpool_sizes(input: Tensor, k, s, p, output_size) -> Tuple[int, ...]:
    n = len(k)
    default = [(input.shape[-n + i] - 1) * s[i] + k[i] - 2 * p[i] for i in range(n)]
    if output_size is None:
        return tuple(default)
    out = list(output_size)
    if len(out) == n + 2:
        out = out[2:]
    if len(out) != n:
        raise ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                         "'{}'".format(n, n + 2, len(out)))
    for i in range(n):
        if not default[i] - s[i] < out[i] < default[i] + s[i]:
            raise ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                output_size, i, default[i] - s[i], default[i] + s[i]))
    return tuple(int(v) for v in out)


def _max_unpool(name, input, indices, n, kernel_size, stride, padding, output_size):
    k = _ntuple(kernel_size, n, "kernel_size")
    s = k if stride is None else _ntuple(stride, n, "stride")
    p = _ntuple(padding, n, "padding")
    sizes = _unpool_sizes(input, k, s, p, output_size)
    if indices.dtype != _tc.int64:
        raise RuntimeError("%s: expected indices to have type int64 but got: %s" % (name, indices.dtype))
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor (%s) but got "
                           "indices tensor with shape: %s" % (list(input.shape), list(indices.shape)))
    x, unbatched = _batched(input, n, name)
    idx = indices.unsqueeze(0) if unbatched else indices
    N, C = x.shape[:2]
    plane = math.prod(sizes)
    flat_idx = idx.reshape(N, C, -1)
    if flat_idx.numel() and (int(flat_idx.min()) < 0 or int(flat_idx.max()) >= plane):
        bad = int(flat_idx.max()) if int(flat_idx.max()) >= plane else int(flat_idx.min())
        raise RuntimeError("Found an invalid max index: %d (output volumes are of size %s" % (bad, "x".join(
            str(v) for v in sizes)))
    out = _Unpool.apply(x.reshape(N, C, -1), flat_idx, plane)
    out = out.reshape(N, C, *sizes)
    return out.squeeze(0) if unbatched else out


class _Unpool(Function):
    """out[..., idx[j]] = x[..., j] on zeros; the gradient gathers back."""

    @staticmethod
    def forward(ctx, x, idx, plane):
        """Scatters x [N, C, L] into zero planes [N, C, plane] at idx [N, C, L]."""
        N, C, L = x.shape
        # one flat scatter (a 3-D index of size 1 in its last dim crashes libtc's scatter)
        base = _tc.arange(N * C, dtype=_tc.int64, device=x.device).reshape(N, C, 1) * plane
        flat = (idx + base).reshape(-1)
        ctx.save_for_backward(flat)
        out = _tc.zeros(N * C * plane, dtype=x.dtype, device=x.device)
        return out.scatter(0, flat, x.reshape(-1)).reshape(N, C, plane)

    @staticmethod
    def backward(ctx, grad):
        """The gradient of x: grad at the scattered positions."""
        flat, = ctx.saved_tensors
        N, C = grad.shape[0], grad.shape[1]
        return grad.reshape(-1).gather(0, flat).reshape(N, C, -1), None, None


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool1d: input placed at indices, zeros elsewhere
    (torch.nn.functional.max_unpool1d).

    Args:
        input, indices: [N, C, L] or [C, L], indices from max_pool1d(return_indices=True).
        kernel_size, stride (None: kernel_size), padding: as the pooling's.
        output_size: the output's spatial size (or with N, C), None for the default.

    Returns:
        [N, C, L_out] (or without N).
    """
    return _max_unpool("max_unpool1d", input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool2d (torch.nn.functional.max_unpool2d); arguments as max_unpool1d's."""
    return _max_unpool("max_unpool2d", input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """The partial inverse of max_pool3d (torch.nn.functional.max_unpool3d); arguments as max_unpool1d's."""
    return _max_unpool("max_unpool3d", input, indices, 3, kernel_size, stride, padding, output_size)


# ---------------------------------------------------------------- power-average pooling

def _lp_finish(out: Tensor, norm_type: float, kernel_elems: int) -> Tensor:
    # torch's formula: sign(out) * relu(|out|) keeps a zero sum's gradient zero
    return (out.sign() * out.abs().relu()).mul(kernel_elems).pow(1.0 / norm_type)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """2-D power-average pooling, (sum of x^p over each window)^(1/p), as torch.nn.functional.lp_pool2d.

    Args:
        input: [N, C, H, W] or [C, H, W].
        norm_type: p.
        kernel_size, stride (None: kernel_size): an int or a pair.
        ceil_mode: rounds the output size up.

    Returns:
        The pooled tensor.
    """
    kw, kh = _ntuple(kernel_size, 2, "kernel_size")
    out = _FL.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kw * kh)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """1-D power-average pooling, as torch.nn.functional.lp_pool1d.

    Args:
        input: [N, C, L] or [C, L].
        norm_type: p.
        kernel_size, stride (None: kernel_size): ints.
        ceil_mode: rounds the output size up.

    Returns:
        The pooled tensor.
    """
    out = _FL.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_finish(out, norm_type, kernel_size)


# ---------------------------------------------------------------- fractional max pooling

def _fractional(name, input, n, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    x, unbatched = _batched(input, n, name)
    k = _ntuple(kernel_size, n, "kernel_size")
    sizes = tuple(x.shape[2:])
    if output_size is None:
        if output_ratio is None:
            raise ValueError("%s requires specifying either an output_size or an output_ratio" % name)
        ratio = (float(output_ratio),) * n if isinstance(output_ratio, numbers.Real) else tuple(
            float(r) for r in output_ratio)
        if len(ratio) != n:
            raise ValueError("output_ratio must have %d entries, got %r" % (n, ratio))
        outs = tuple(int(L * r) for L, r in zip(sizes, ratio))
    else:
        outs = _ntuple(output_size, n, "output_size")
    for L, ki, o in zip(sizes, k, outs):
        if o + ki - 1 > L:
            raise RuntimeError("%s(): pool size %d too large relative to input size %d (output size %d)"
                               % (name, ki, L, o))
    N, C = x.shape[:2]
    if _random_samples is None:
        samples = _tc.rand(N, C, n, dtype=x.dtype, device=x.device)
    else:
        samples = _random_samples
        if tuple(samples.shape) != (N, C, n):
            raise RuntimeError("%s(): expected _random_samples of shape %s, got %s"
                               % (name, (N, C, n), tuple(samples.shape)))
    # torch's generate_intervals, in the input's dtype: the start of window i is
    # int((i + u) * alpha) - int(u * alpha), the last one L - k.
    positions = []
    with _tc.no_grad():
        for i, (L, ki, o) in enumerate(zip(sizes, k, outs)):
            # torch's sample order: (w, h) in 2-D, but (t, h, w) in 3-D
            u = samples.select(2, n - 1 - i if n == 2 else i).reshape(N, C, 1).to(x.dtype)
            if o > 1:
                alpha = _tc.tensor(float(L - ki), dtype=x.dtype, device=x.device) / float(o - 1)
                steps = _tc.arange(o, dtype=x.dtype, device=x.device).reshape(1, 1, o)
                start = ((steps + u) * alpha).long() - (u * alpha).long()
                last = _tc.full((N, C, 1), L - ki, dtype=_tc.int64, device=x.device)
                start = _tc.cat([start.narrow(2, 0, o - 1), last], 2)
            else:
                start = _tc.full((N, C, 1), L - ki, dtype=_tc.int64, device=x.device)
            offs = _tc.arange(ki, dtype=_tc.int64, device=x.device).reshape(1, 1, 1, ki)
            positions.append(start.unsqueeze(-1) + offs)  # [N, C, O_i, K_i]
        # flat index of every window element, [N, C, O1..On, K1..Kn]
        flat = None
        stride = 1
        for i in reversed(range(n)):
            o, ki = outs[i], k[i]
            shape = [N, C] + [1] * (2 * n)
            shape[2 + i], shape[2 + n + i] = o, ki
            term = positions[i].reshape(*shape) * stride
            flat = term if flat is None else flat + term
            stride *= sizes[i]
        flat = flat.expand(N, C, *(outs + k)).reshape(N, C, -1)
    win = x.reshape(N, C, -1).gather(2, flat).reshape(N, C, *outs, -1)
    values, idx = _take_max(win)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    indices = flat.reshape(N, C, *outs, -1).gather(-1, idx).squeeze(-1)
    return values, (indices.squeeze(0) if unbatched else indices)


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Optional[Tensor] = None):
    """Fractional max pooling of [N, C, H, W] or [C, H, W] (Graham), as
    torch.nn.functional.fractional_max_pool2d: pseudo-random window starts from
    one uniform sample per plane and dim (tc's generator, so not torch's
    numbers for the same seed; pass _random_samples [N, C, 2] to fix them).

    Args:
        input: the input.
        kernel_size: an int or a pair.
        output_size: an int or a pair, or None with output_ratio.
        output_ratio: a float or a pair in (0, 1): output = int(input * ratio).
        return_indices: also return the int64 argmax, flat within each H*W plane.
        _random_samples: [N, C, 2] samples in [0, 1), (w, h) order as torch's.

    Returns:
        The pooled tensor, or (values, indices) with return_indices.
    """
    return _fractional("fractional_max_pool2d", input, 2, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Optional[Tensor] = None):
    """fractional_max_pool2d returning (values, indices)."""
    return _fractional("fractional_max_pool2d", input, 2, kernel_size, output_size, output_ratio, True,
                       _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Optional[Tensor] = None):
    """Fractional max pooling of [N, C, D, H, W] or [C, D, H, W], as
    torch.nn.functional.fractional_max_pool3d; arguments as fractional_max_pool2d's
    with triples (_random_samples [N, C, 3], (t, h, w) order)."""
    return _fractional("fractional_max_pool3d", input, 3, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Optional[Tensor] = None):
    """fractional_max_pool3d returning (values, indices)."""
    return _fractional("fractional_max_pool3d", input, 3, kernel_size, output_size, output_ratio, True,
                       _random_samples)
