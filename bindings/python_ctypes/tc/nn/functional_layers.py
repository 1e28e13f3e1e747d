"""tc.nn.functional's layer functions (norms, 1-D/2-D and transposed
convolutions, pooling, resampling, pixel shuffle, channel dropout), as
torch.nn.functional's. The 1-D forms run the 2-D ops of tc.h on a size-1
height; tc.nn.functional re-exports every public name here."""
import itertools
import math
from typing import Optional, Sequence, Tuple, Union

from .. import _core as K
from .. import _decls as D
from .._core import VP, byref, fn
from .._errors import check
from .._ints import to_int64
from .._tensor import Tensor, _call, _wrap
from .functional import _arr2, _pair

IntPair = Union[int, Sequence[int]]

__all__ = ["batch_norm", "group_norm", "instance_norm", "conv1d", "conv2d", "conv_transpose1d",
           "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "interpolate", "upsample", "pixel_shuffle",
           "pixel_unshuffle", "embedding", "dropout2d"]


def _h(t: Optional[Tensor]):
    return t._h if t is not None else None


def _arr(values):
    return K.int64_array(tuple(values))[0]


def _single(v) -> int:
    """One int64 from an int or a 1-sequence (at most 2 items looked at)."""
    if hasattr(v, "__index__"):
        return to_int64(v)
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError("expected an int or a 1-tuple, got %s" % type(v).__name__)
    items = tuple(itertools.islice(v, 2))
    if len(items) != 1:
        raise ValueError("expected an int or a 1-tuple, got %r" % (items,))
    return to_int64(items[0])


def _pair_out(f, *args):
    """Calls f(*args, &out, &indices): (values, indices)."""
    out, idx = VP(), VP()
    check(f(*args, byref(out), byref(idx)))
    return _wrap(out), _wrap(idx)


# ---------------------------------------------------------------- norms

def batch_norm(input: Tensor, running_mean: Optional[Tensor], running_var: Optional[Tensor],
               weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Batch normalization of input [N, C, *] over N and the spatial dims.

    Args:
        input: [N, C, *].
        running_mean, running_var: [C] or None; updated in place when training.
        weight, bias: [C] affine parameters or None.
        training: batch statistics (and running-stat updates) if True, else the running stats.
        momentum: the running stats' update factor.
        eps: added to the variance.

    Returns:
        A tensor shaped like input.
    """
    return _call(fn("tc_batch_norm"), input._h, _h(weight), _h(bias), _h(running_mean), _h(running_var),
                 1 if training else 0, float(momentum), float(eps))


def group_norm(input: Tensor, num_groups: int, weight: Optional[Tensor] = None, bias: Optional[Tensor] = None,
               eps: float = 1e-5) -> Tensor:
    """Group normalization: input [N, C, *] normalized over groups of C/num_groups channels.

    Args:
        input: [N, C, *].
        num_groups: divides C.
        weight, bias: [C] or None.
        eps: added to the variance.

    Returns:
        A tensor shaped like input.
    """
    return _call(fn("tc_group_norm"), input._h, int(num_groups), _h(weight), _h(bias), float(eps))


def instance_norm(input: Tensor, running_mean: Optional[Tensor] = None, running_var: Optional[Tensor] = None,
                  weight: Optional[Tensor] = None, bias: Optional[Tensor] = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Instance normalization: each (sample, channel) of input [N, C, *] over its spatial dims.

    Args:
        input: [N, C, *] with at least one spatial dim.
        running_mean, running_var: [C] or None; updated in place when use_input_stats.
        weight, bias: [C] or None.
        use_input_stats: the instance statistics if True, else the running stats.
        momentum: the running stats' update factor.
        eps: added to the variance.

    Returns:
        A tensor shaped like input.
    """
    return _call(fn("tc_instance_norm"), input._h, _h(weight), _h(bias), _h(running_mean), _h(running_var),
                 1 if use_input_stats else 0, float(momentum), float(eps))


# ---------------------------------------------------------- convolutions

def _same_padding(kernel: Sequence[int], dilation: Sequence[int]):
    """(before, after) per spatial dim for padding="same": the total d*(k-1),
    the odd element at the end, as PyTorch."""
    out = []
    for k, d in zip(kernel, dilation):
        total = d * (k - 1)
        out.append((total // 2, total - total // 2))
    return out


def conv2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntPair = 1,
           padding: Union[str, IntPair] = 0, dilation: IntPair = 1, groups: int = 1) -> Tensor:
    """2-D convolution, as torch.nn.functional.conv2d.

    Args:
        input: [N, C, H, W].
        weight: [O, C/groups, kH, kW].
        bias: [O] or None.
        stride, dilation: an int or a pair.
        padding: an int, a pair, "valid" (none) or "same" (output size = input size; stride 1).
        groups: splits the channels.

    Returns:
        [N, O, H_out, W_out].
    """
    dil = _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if _pair(stride) != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            (t, b), (l, r) = _same_padding(tuple(weight.shape[2:]), dil)
            return _call(fn("tc_conv2d_padded"), input._h, weight._h, _h(bias), _arr2(stride),
                         _arr((t, b, l, r)), _arr2(dil), int(groups))
        else:
            raise ValueError("Invalid padding string %r, should be one of {'valid', 'same'}" % (padding,))
    return _call(fn("tc_conv2d"), input._h, weight._h, _h(bias), _arr2(stride), _arr2(padding), _arr2(dil),
                 int(groups))


def conv1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: int = 1,
           padding: Union[str, int] = 0, dilation: int = 1, groups: int = 1) -> Tensor:
    """1-D convolution, as torch.nn.functional.conv1d.

    Args:
        input: [N, C, L].
        weight: [O, C/groups, k].
        bias: [O] or None.
        stride, dilation: ints.
        padding: an int, "valid" or "same".
        groups: splits the channels.

    Returns:
        [N, O, L_out].
    """
    s, d = _single(stride), _single(dilation)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError("Invalid padding string %r, should be one of {'valid', 'same'}" % (padding,))
        if padding == "same" and s != 1:
            raise ValueError("padding='same' is not supported for strided convolutions")
        before, after = _same_padding((weight.shape[2],), (d,))[0] if padding == "same" else (0, 0)
    else:
        before = after = _single(padding)
    x2, w2 = input.unsqueeze(2), weight.unsqueeze(2)  # kept alive across the call
    y = _call(fn("tc_conv2d_padded"), x2._h, w2._h, _h(bias), _arr((1, s)),
              _arr((0, 0, before, after)), _arr((1, d)), int(groups))
    return y.squeeze(2)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: IntPair = 1,
                     padding: IntPair = 0, output_padding: IntPair = 0, groups: int = 1,
                     dilation: IntPair = 1) -> Tensor:
    """2-D transposed convolution, as torch.nn.functional.conv_transpose2d.

    Args:
        input: [N, C, H, W].
        weight: [C, O/groups, kH, kW].
        bias: [O] or None.
        stride, padding, output_padding, dilation: an int or a pair.
        groups: splits the channels.

    Returns:
        [N, O, H_out, W_out], H_out = (H-1)*stride - 2*padding + dilation*(kH-1) + output_padding + 1.
    """
    return _call(fn("tc_conv_transpose2d"), input._h, weight._h, _h(bias), _arr2(stride), _arr2(padding),
                 _arr2(output_padding), _arr2(dilation), int(groups))


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: int = 1,
                     padding: int = 0, output_padding: int = 0, groups: int = 1, dilation: int = 1) -> Tensor:
    """1-D transposed convolution, as torch.nn.functional.conv_transpose1d.

    Args:
        input: [N, C, L].
        weight: [C, O/groups, k].
        bias: [O] or None.
        stride, padding, output_padding, dilation: ints.
        groups: splits the channels.

    Returns:
        [N, O, L_out].
    """
    x2, w2 = input.unsqueeze(2), weight.unsqueeze(2)  # kept alive across the call
    y = _call(fn("tc_conv_transpose2d"), x2._h, w2._h, _h(bias),
              _arr((1, _single(stride))), _arr((0, _single(padding))), _arr((0, _single(output_padding))),
              _arr((1, _single(dilation))), int(groups))
    return y.squeeze(2)


# -------------------------------------------------------------- pooling

def max_pool2d(input: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None, padding: IntPair = 0,
               dilation: IntPair = 1, ceil_mode: bool = False, return_indices: bool = False):
    """2-D max pooling, as torch.nn.functional.max_pool2d.

    Args:
        input: [N, C, H, W].
        kernel_size, stride (None: kernel_size), padding, dilation: an int or a pair.
        ceil_mode: rounds the output size up.
        return_indices: also return the int64 argmax, flat within each H*W plane.

    Returns:
        [N, C, H_out, W_out], or (values, indices) with return_indices.
    """
    if not return_indices and not ceil_mode and _pair(dilation) == (1, 1):
        return _call(fn("tc_max_pool2d"), input._h, _arr2(kernel_size),
                     _arr2(stride) if stride is not None else None, _arr2(padding))
    f = fn("tc_max_pool2d_with_indices")
    args = (input._h, _arr2(kernel_size), _arr2(stride) if stride is not None else None, _arr2(padding),
            _arr2(dilation), 1 if ceil_mode else 0)
    if return_indices:
        return _pair_out(f, *args)
    out = VP()
    check(f(*args, byref(out), None))
    return _wrap(out)


def max_pool1d(input: Tensor, kernel_size: int, stride: Optional[int] = None, padding: int = 0,
               dilation: int = 1, ceil_mode: bool = False, return_indices: bool = False):
    """1-D max pooling of input [N, C, L], as torch.nn.functional.max_pool1d.

    Args:
        input: [N, C, L].
        kernel_size, stride (None: kernel_size), padding, dilation: ints.
        ceil_mode: rounds the output size up.
        return_indices: also return the int64 argmax along L.

    Returns:
        [N, C, L_out], or (values, indices) with return_indices.
    """
    k = _single(kernel_size)
    r = max_pool2d(input.unsqueeze(2), (1, k), (1, _single(stride) if stride is not None else k),
                   (0, _single(padding)), (1, _single(dilation)), ceil_mode, True)
    return (r[0].squeeze(2), r[1].squeeze(2)) if return_indices else r[0].squeeze(2)


def avg_pool2d(input: Tensor, kernel_size: IntPair, stride: Optional[IntPair] = None, padding: IntPair = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: Optional[int] = None) -> Tensor:
    """2-D average pooling, as torch.nn.functional.avg_pool2d.

    Args:
        input: [N, C, H, W].
        kernel_size, stride (None: kernel_size), padding: an int or a pair.
        ceil_mode: rounds the output size up.
        count_include_pad: whether padded zeros count in the divisor.
        divisor_override: a fixed divisor, or None.

    Returns:
        [N, C, H_out, W_out].
    """
    if divisor_override is not None and int(divisor_override) <= 0:
        raise ValueError("divisor must be not zero")
    if not ceil_mode and count_include_pad and divisor_override is None:
        return _call(fn("tc_avg_pool2d"), input._h, _arr2(kernel_size),
                     _arr2(stride) if stride is not None else None, _arr2(padding))
    return _call(fn("tc_avg_pool2d_ex"), input._h, _arr2(kernel_size),
                 _arr2(stride) if stride is not None else None, _arr2(padding), 1 if ceil_mode else 0,
                 1 if count_include_pad else 0, int(divisor_override or 0))


def avg_pool1d(input: Tensor, kernel_size: int, stride: Optional[int] = None, padding: int = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling of input [N, C, L], as torch.nn.functional.avg_pool1d.

    Args:
        input: [N, C, L].
        kernel_size, stride (None: kernel_size), padding: ints.
        ceil_mode: rounds the output size up.
        count_include_pad: whether padded zeros count in the divisor.

    Returns:
        [N, C, L_out].
    """
    k, x2 = _single(kernel_size), input.unsqueeze(2)
    return _call(fn("tc_avg_pool2d_ex"), x2._h, _arr((1, k)),
                 _arr((1, _single(stride) if stride is not None else k)), _arr((0, _single(padding))),
                 1 if ceil_mode else 0, 1 if count_include_pad else 0, 0).squeeze(2)


def _out_size(input: Tensor, output_size, n: int) -> Tuple[int, ...]:
    if hasattr(output_size, "__index__"):
        output_size = (output_size,) * n
    sizes = tuple(output_size)
    if len(sizes) != n:
        raise ValueError("output_size must have %d entries, got %r" % (n, sizes))
    spatial = input.shape[-n:]
    return tuple(int(s) if s is not None else int(i) for s, i in zip(sizes, spatial))


def adaptive_avg_pool2d(input: Tensor, output_size: Union[int, Sequence[Optional[int]]]) -> Tensor:
    """Adaptive 2-D average pooling, as torch.nn.functional.adaptive_avg_pool2d: output (i, j)
    averages input rows [floor(i*H/H_out), ceil((i+1)*H/H_out)) and the columns alike.

    Args:
        input: [N, C, H, W] or [C, H, W].
        output_size: an int, or a pair (None keeps that dim).

    Returns:
        [N, C, H_out, W_out] (or [C, H_out, W_out]).
    """
    return _call(fn("tc_adaptive_avg_pool2d"), input._h, _arr(_out_size(input, output_size, 2)))


def adaptive_avg_pool1d(input: Tensor, output_size: int) -> Tensor:
    """Adaptive 1-D average pooling, as torch.nn.functional.adaptive_avg_pool1d.

    Args:
        input: [N, C, L] or [C, L].
        output_size: an int (or a 1-tuple).

    Returns:
        [N, C, output_size] (or [C, output_size]).
    """
    return _call(fn("tc_adaptive_avg_pool1d"), input._h, _single(output_size))


def adaptive_max_pool2d(input: Tensor, output_size: Union[int, Sequence[Optional[int]]],
                        return_indices: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]:
    """Adaptive 2-D max pooling, as torch.nn.functional.adaptive_max_pool2d (the first maximum of
    each window; NaN propagates).

    Args:
        input: [N, C, H, W] or [C, H, W].
        output_size: an int, or a pair (None keeps that dim).
        return_indices: also return the int64 argmax, flat within each H*W plane.

    Returns:
        [N, C, H_out, W_out] (or [C, H_out, W_out]), or (values, indices) with return_indices.
    """
    r = _pair_out(fn("tc_adaptive_max_pool2d"), input._h, _arr(_out_size(input, output_size, 2)))
    return r if return_indices else r[0]


def adaptive_max_pool1d(input: Tensor, output_size: int,
                        return_indices: bool = False) -> Union[Tensor, Tuple[Tensor, Tensor]]:
    """Adaptive 1-D max pooling, as torch.nn.functional.adaptive_max_pool1d.

    Args:
        input: [N, C, L] or [C, L].
        output_size: an int (or a 1-tuple).
        return_indices: also return the int64 argmax within each row.

    Returns:
        [N, C, output_size] (or [C, output_size]), or (values, indices) with return_indices.
    """
    r = _pair_out(fn("tc_adaptive_max_pool1d"), input._h, _single(output_size))
    return r if return_indices else r[0]


# ----------------------------------------------------------- resampling

_MODES = {"nearest": D.TC_INTERP_NEAREST, "linear": D.TC_INTERP_LINEAR, "bilinear": D.TC_INTERP_LINEAR}


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
                align_corners: Optional[bool] = None) -> Tensor:
    """Resamples input [N, C, W] (mode "nearest" or "linear") or [N, C, H, W] ("nearest" or
    "bilinear"), as torch.nn.functional.interpolate.

    Args:
        size: the output spatial size (an int or one per spatial dim), or None.
        scale_factor: a float or one per spatial dim, when size is None.
        mode: "nearest", "linear" (3-D input) or "bilinear" (4-D input).
        align_corners: for the linear modes (default False).

    Returns:
        [N, C, *size].
    """
    n = len(input.shape) - 2
    if mode not in _MODES:
        raise NotImplementedError("interpolate: mode %r is not supported" % (mode,))
    if (mode == "linear" and n != 1) or (mode == "bilinear" and n != 2):
        raise ValueError("interpolate: mode %r needs a %d-D input, got shape %s"
                         % (mode, 3 if mode == "linear" else 4, tuple(input.shape)))
    if mode == "nearest" and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    scales = None
    if size is not None:
        sizes = (int(size),) * n if hasattr(size, "__index__") else tuple(int(s) for s in size)
    else:
        factors = (float(scale_factor),) * n if isinstance(scale_factor, (int, float)) else tuple(
            float(f) for f in scale_factor)
        sizes = tuple(int(math.floor(float(i) * f)) for i, f in zip(input.shape[2:], factors))
        scales = (K.C.c_double * n)(*factors)
    if len(sizes) != n:
        raise ValueError("size must have %d entries, got %r" % (n, sizes))
    return _call(fn("tc_interpolate"), input._h, _arr(sizes), scales, _MODES[mode],
                 1 if align_corners else 0)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest",
             align_corners: Optional[bool] = None) -> Tensor:
    """The same as interpolate (torch.nn.functional.upsample)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """[*, C*r^2, H, W] -> [*, C, H*r, W*r] with r = upscale_factor."""
    return _call(fn("tc_pixel_shuffle"), input._h, int(upscale_factor))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """[*, C, H*r, W*r] -> [*, C*r^2, H, W] with r = downscale_factor."""
    return _call(fn("tc_pixel_unshuffle"), input._h, int(downscale_factor))


# ----------------------------------------------------- embedding, dropout

def embedding(input: Tensor, weight: Tensor, padding_idx: Optional[int] = None) -> Tensor:
    """Rows of weight [num, dim] at the int64 indices input; row padding_idx gets no gradient.

    Returns:
        input.shape + [dim].
    """
    if padding_idx is None:
        return _call(fn("tc_embedding"), weight._h, input._h)
    return _call(fn("tc_embedding_padding_idx"), weight._h, input._h, int(padding_idx))


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of input [N, C, *] with probability p, scaling the rest by 1/(1-p).

    Returns:
        A tensor shaped like input (input itself scaled by 1 when not training).
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
    return _call(fn("tc_dropout2d"), input._h, float(p), 1 if training else 0)
