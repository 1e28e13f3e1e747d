"""Shape, creation and matrix ops with PyTorch's signatures: tc.flip, roll,
repeat_interleave, tile, diag, diagonal, eye, linspace, logspace, meshgrid,
movedim, flatten, unflatten, broadcast_to, unbind, outer, dot, einsum,
randint, randperm, bernoulli, and the Tensor methods of the same names (plus
Tensor.repeat), held by ShapeOpsMethods, a mixin of tc.Tensor."""

import ctypes as C
from typing import Optional, Sequence, Tuple, Union

from . import _core as K
from . import _decls as D
from ._core import VP, byref, fn
from ._errors import check
from ._ints import to_int64
from . import _tensor_base as _base
from ._tensor_base import TensorBase, _call, _tensor_list, _wrap

_Ints = Union[int, Sequence[int]]


def _int_args(values, what: str) -> Tuple[int, ...]:
    """f(1, 2), f((1, 2)), f([1, 2]) -> (1, 2)."""
    if len(values) == 1 and not hasattr(values[0], "__index__"):
        values = tuple(values[0])
    return tuple(map(to_int64, values))


def _seq(x) -> Tuple[int, ...]:
    return (to_int64(x),) if hasattr(x, "__index__") else tuple(map(to_int64, x))


def _handles_out(f, *args):
    """Calls a tc_* function writing (outs, cap, count) and wraps the handles."""
    cap = 16
    while True:
        outs = (VP * cap)()
        count = C.c_int64()
        rc = f(*args, outs, cap, byref(count))
        if rc and count.value > cap:
            cap = count.value
            continue
        check(rc)
        return tuple(_wrap(outs[i]) for i in range(count.value))


def _dtype_code(dtype, default):
    return K.to_dtype(dtype if dtype is not None else default).code


# ---------------------------------------------------------------- shape ops

def flip(input, dims: _Ints):
    """Reverses the order of elements along the given dims.

    Args:
        input (Tensor): the input tensor.
        dims (int or sequence of ints): the dims to flip.

    Returns:
        Tensor: a new tensor.
    """
    arr, n = K.int64_array(_seq(dims))
    return _call(fn("tc_flip"), input._h, arr, n)


def roll(input, shifts: _Ints, dims: Optional[_Ints] = None):
    """Rolls input along dims (or the flattened tensor when dims is None):
    elements that leave one end come back at the other.

    Args:
        input (Tensor): the input tensor.
        shifts (int or sequence of ints): how far to roll along each dim.
        dims (int or sequence of ints, optional): the dims; None rolls the flattened tensor.

    Returns:
        Tensor: a new tensor of input's shape.
    """
    sa, sn = K.int64_array(_seq(shifts))
    da, dn = K.int64_array(() if dims is None else _seq(dims))
    return _call(fn("tc_roll"), input._h, sa, sn, da, dn)


def repeat(input, *sizes: int):
    """Tiles input sizes[i] times along each dim (Tensor.repeat).

    Args:
        input (Tensor): the input tensor.
        sizes (ints or a sequence): repeats per dim, at least input.ndim of them.

    Returns:
        Tensor: a new tensor.
    """
    arr, n = K.int64_array(_int_args(sizes, "sizes"))
    return _call(fn("tc_repeat"), input._h, arr, n)


def tile(input, dims: Sequence[int]):
    """Like Tensor.repeat, with fewer dims than input.ndim padded with leading 1s.

    Args:
        input (Tensor): the input tensor.
        dims (sequence of ints): repeats per dim.

    Returns:
        Tensor: a new tensor.
    """
    arr, n = K.int64_array(_seq(dims))
    return _call(fn("tc_tile"), input._h, arr, n)


def repeat_interleave(input, repeats=None, dim: Optional[int] = None, *, output_size: Optional[int] = None):
    """Repeats each element of input `repeats` times along dim (of the
    flattened input when dim is None). With a tensor as the only argument,
    returns the indices 0, 1, ... each repeated by its count.

    Args:
        input (Tensor): the input tensor (or the repeats, alone).
        repeats (int or Tensor): the repeats, one for all or one per element along dim.
        dim (int, optional): the dim; None flattens input first.
        output_size (int, optional): accepted for PyTorch compatibility (checked).

    Returns:
        Tensor: a new tensor.
    """
    T = _base  # arange, ... (tc._tensor_base)
    if repeats is None:  # torch.repeat_interleave(repeats)
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave: repeats must be 1-D when given alone, got shape %s"
                               % (tuple(input.shape),))
        idx = T.arange(input.shape[0], dtype=K.int64, device=input.device)
        out = repeat_interleave(idx, input, 0)
    else:
        d = D.TC_DIM_ALL if dim is None else int(dim)
        if isinstance(repeats, T.Tensor):
            out = T._call(fn("tc_repeat_interleave_tensor"), input._h, repeats._h, d)
        else:
            out = T._call(fn("tc_repeat_interleave"), input._h, to_int64(repeats), d)
    if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
        raise RuntimeError("repeat_interleave: output_size %d does not match the result's size %d"
                           % (output_size, out.shape[0 if dim is None else dim]))
    return out


def diag(input, diagonal: int = 0):
    """1-D input: a square matrix with input on a diagonal; 2-D input: that diagonal.

    Args:
        input (Tensor): a 1-D or 2-D tensor.
        diagonal (int): 0 the main diagonal, > 0 above it, < 0 below.

    Returns:
        Tensor: a new 2-D or 1-D tensor.
    """
    return _call(fn("tc_diag"), input._h, to_int64(diagonal))


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """A view of the diagonal `offset` of dims dim1 and dim2, as the last dim.

    Args:
        input (Tensor): a tensor with at least 2 dims.
        offset (int): 0 the main diagonal, > 0 above it, < 0 below.
        dim1 (int): the first dim.
        dim2 (int): the second dim.

    Returns:
        Tensor: a view of input.
    """
    return _call(fn("tc_diagonal"), input._h, to_int64(offset), to_int64(dim1), to_int64(dim2))


def movedim(input, source: _Ints, destination: _Ints):
    """A view with the dims `source` moved to `destination`, the others in order.

    Args:
        input (Tensor): the input tensor.
        source (int or sequence of ints): the dims to move.
        destination (int or sequence of ints): where they go.

    Returns:
        Tensor: a view of input.
    """
    sa, sn = K.int64_array(_seq(source))
    da, dn = K.int64_array(_seq(destination))
    return _call(fn("tc_movedim"), input._h, sa, sn, da, dn)


moveaxis = movedim


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """Merges dims start_dim..end_dim into one (a view where possible).

    Args:
        input (Tensor): the input tensor.
        start_dim (int): the first dim to merge.
        end_dim (int): the last dim to merge.

    Returns:
        Tensor: input reshaped.
    """
    return _call(fn("tc_flatten"), input._h, to_int64(start_dim), to_int64(end_dim))


def unflatten(input, dim: int, sizes: Sequence[int]):
    """Splits dim into sizes (one may be -1).

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to split.
        sizes (sequence of ints): its new sizes; their product is its size.

    Returns:
        Tensor: input reshaped.
    """
    arr, n = K.int64_array(_seq(sizes))
    return _call(fn("tc_unflatten"), input._h, to_int64(dim), arr, n)


def broadcast_to(input, size: Sequence[int]):
    """input broadcast to size, as a view (-1 keeps a size).

    Args:
        input (Tensor): the input tensor.
        size (sequence of ints): the target shape.

    Returns:
        Tensor: a view of input.
    """
    arr, n = K.int64_array(_seq(size))
    return _call(fn("tc_broadcast_to"), input._h, arr, n)


def unbind(input, dim: int = 0) -> tuple:
    """The slices of input along dim, with that dim removed.

    Args:
        input (Tensor): the input tensor.
        dim (int): the dim to remove.

    Returns:
        tuple of Tensors: views of input.
    """
    return _handles_out(fn("tc_unbind"), input._h, to_int64(dim))


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """Coordinate grids of 0-D or 1-D tensors.

    Args:
        tensors (Tensors or one sequence of them): the coordinates along each dim.
        indexing (str): "ij" (matrix, the default) or "xy" (Cartesian: the first two dims swapped).

    Returns:
        tuple of Tensors: one expanded view per input, all of the grid's shape.
    """
    if len(tensors) == 1 and not isinstance(tensors[0], TensorBase):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError('meshgrid: indexing must be "ij" or "xy", not %r' % (indexing,))
    arr, n, alive = _tensor_list(tensors, "meshgrid")
    code = D.TC_MESHGRID_IJ if indexing == "ij" else D.TC_MESHGRID_XY
    out = _handles_out(fn("tc_meshgrid"), arr, n, code)
    del alive
    return out


_PAD_MODES = {"constant": D.TC_PAD_CONSTANT, "reflect": D.TC_PAD_REFLECT,
              "replicate": D.TC_PAD_REPLICATE, "circular": D.TC_PAD_CIRCULAR}


def pad(input, pad: Sequence[int], mode: str = "constant", value: Optional[float] = None):
    """Pads input like torch.nn.functional.pad: pad = (left, right) of the last
    dim, then (top, bottom) of the one before, and so on.

    Args:
        input (Tensor): the input tensor.
        pad (sequence of ints): an even number of sizes; negative ones crop (constant mode).
        mode (str): "constant", "reflect", "replicate" or "circular".
        value (float, optional): the fill of constant padding (default 0).

    Returns:
        Tensor: a new tensor.
    """
    if mode not in _PAD_MODES:
        raise NotImplementedError("pad: unknown padding mode %r (constant, reflect, replicate, circular)" % (mode,))
    arr, n = K.int64_array(_seq(pad))
    v = 0.0 if value is None else float(value)
    return _call(fn("tc_pad"), input._h, arr, n, _PAD_MODES[mode], v)


# ---------------------------------------------------------------- matrix ops

def outer(input, vec2):
    """The outer product of two 1-D tensors: out[i][j] = input[i] * vec2[j].

    Args:
        input (Tensor): a 1-D tensor.
        vec2 (Tensor): a 1-D tensor.

    Returns:
        Tensor: a 2-D tensor.
    """
    return _call(fn("tc_outer"), input._h, vec2._h)


ger = outer


def dot(input, other):
    """The inner product of two 1-D tensors of the same size and dtype.

    Args:
        input (Tensor): a 1-D tensor.
        other (Tensor): a 1-D tensor.

    Returns:
        Tensor: a 0-D tensor.
    """
    return _call(fn("tc_dot"), input._h, other._h)


def einsum(equation: str, *operands):
    """Einstein summation, like torch.einsum: "ij,jk->ik", implicit outputs,
    "..." ellipsis, repeated indices (diagonals), sums over indices not in the output.

    Args:
        equation (str): the subscripts.
        operands (Tensors, or one sequence of them): the operands, of one dtype.

    Returns:
        Tensor: the result.
    """
    if len(operands) == 1 and not isinstance(operands[0], TensorBase):
        operands = tuple(operands[0])
    arr, n, alive = _tensor_list(operands, "einsum")
    out = _call(fn("tc_einsum"), str(equation).encode(), arr, n)
    del alive
    return out


# ---------------------------------------------------------------- creation

def eye(n: int, m: Optional[int] = None, *, dtype=None, device=None, requires_grad: bool = False):
    """A 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns (default n).
        dtype (tc.dtype, optional): default: the default float dtype.
        device (optional): default: the CPU.
        requires_grad (bool): make the result a leaf that requires grad.

    Returns:
        Tensor: an n x m tensor.
    """
    t = _call(fn("tc_eye"), to_int64(n), -1 if m is None else to_int64(m),
                   _dtype_code(dtype, K.get_default_dtype()), K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def linspace(start: float, end: float, steps: int, *, dtype=None, device=None, requires_grad: bool = False):
    """steps values evenly spaced from start to end inclusive.

    Args:
        start (float): the first value.
        end (float): the last value.
        steps (int): how many values.
        dtype (tc.dtype, optional): default: the default float dtype.
        device (optional): default: the CPU.
        requires_grad (bool): make the result a leaf that requires grad.

    Returns:
        Tensor: a 1-D tensor of steps values.
    """
    t = _call(fn("tc_linspace"), float(start), float(end), to_int64(steps),
                   _dtype_code(dtype, K.get_default_dtype()), K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False):
    """base ** linspace(start, end, steps).

    Args:
        start (float): the first exponent.
        end (float): the last exponent.
        steps (int): how many values.
        base (float): the base (default 10).
        dtype (tc.dtype, optional): default: the default float dtype.
        device (optional): default: the CPU.
        requires_grad (bool): make the result a leaf that requires grad.

    Returns:
        Tensor: a 1-D tensor of steps values.
    """
    t = _call(fn("tc_logspace"), float(start), float(end), to_int64(steps), float(base),
                   _dtype_code(dtype, K.get_default_dtype()), K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def randint(*args, dtype=None, device=None, generator=None, requires_grad: bool = False):
    """Integers uniform in [low, high) from the default generator:
    randint(high, size) or randint(low, high, size).

    Args:
        low (int, optional): the lowest value (default 0).
        high (int): one past the highest value.
        size (sequence of ints): the shape.
        dtype (tc.dtype, optional): default int64.
        device (optional): default: the CPU.
        generator (tc.Generator, optional): the stream drawn from (default: libtc's default generator).

    Returns:
        Tensor: a new tensor.
    """
    if generator is not None:
        with generator._active():
            return randint(*args, dtype=dtype, device=device, requires_grad=requires_grad)
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() takes (high, size) or (low, high, size), got %d arguments" % len(args))
    arr, n = K.int64_array(_seq(size))
    t = _call(fn("tc_randint"), to_int64(low), to_int64(high), arr, n, _dtype_code(dtype, K.int64),
                   K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def randperm(n: int, *, dtype=None, device=None, generator=None, requires_grad: bool = False):
    """A random permutation of 0..n-1 from the default generator.

    Args:
        n (int): the number of values.
        dtype (tc.dtype, optional): default int64.
        device (optional): default: the CPU.
        generator (tc.Generator, optional): the stream drawn from (default: libtc's default generator).

    Returns:
        Tensor: a 1-D tensor.
    """
    if generator is not None:
        with generator._active():
            return randperm(n, dtype=dtype, device=device, requires_grad=requires_grad)
    t = _call(fn("tc_randperm"), to_int64(n), _dtype_code(dtype, K.int64), K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def bernoulli(input, p: Optional[float] = None, *, generator=None):
    """0/1 samples from the default generator: 1 with probability input
    (each in [0, 1]), or with probability p in input's shape and dtype.

    Args:
        input (Tensor): the probabilities (floating), or the template when p is given.
        p (float, optional): one probability for every element.
        generator (tc.Generator, optional): the stream drawn from (default: libtc's default generator).

    Returns:
        Tensor: a new tensor of input's shape and dtype.
    """
    if generator is not None:
        with generator._active():
            return bernoulli(input, p)
    if p is None:
        return _call(fn("tc_bernoulli"), input._h)
    return _call(fn("tc_bernoulli_p"), input._h, float(p))


FUNCTIONS = ["flip", "roll", "tile", "repeat_interleave", "diag", "diagonal", "movedim", "moveaxis", "flatten",
             "unflatten", "broadcast_to", "unbind", "meshgrid", "outer", "ger", "dot", "einsum", "eye", "linspace",
             "logspace", "randint", "randperm", "bernoulli"]


_TILE_DOC = tile.__doc__


class ShapeOpsMethods:
    """tc.Tensor's methods of the ops above: flip, roll, repeat, tile,
    repeat_interleave, diag, diagonal, movedim, moveaxis, flatten, unflatten,
    broadcast_to, unbind, outer, ger, dot, bernoulli."""

    __slots__ = ()

    def flip(self, *dims, **kwargs):
        """Reverses the order of the elements along the given dims.

        Args:
            dims (int or sequence of int): the dimensions (positionally, or as ``dims=``).
        """
        if kwargs:  # t.flip(dims=(1,)), a flow's permutation
            if dims or set(kwargs) != {"dims"}:
                raise TypeError("flip() received an invalid combination of arguments: expected (tuple of ints dims)")
            dims = (kwargs["dims"],)
        return flip(self, _int_args(dims, "dims"))

    def tile(self, *dims):
        return tile(self, _int_args(dims, "dims"))

    tile.__doc__ = _TILE_DOC
    roll = roll
    repeat = repeat
    repeat_interleave = repeat_interleave
    diag = diag
    diagonal = diagonal
    movedim = moveaxis = movedim
    flatten = flatten
    unflatten = unflatten
    broadcast_to = broadcast_to
    unbind = unbind
    outer = ger = outer
    dot = dot
    bernoulli = bernoulli
