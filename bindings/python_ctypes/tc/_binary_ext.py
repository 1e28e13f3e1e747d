"""Hand-written bindings of the binary ops: div with rounding_mode,
clamp with tensor bounds, isclose/allclose, lerp, addcmul, addcdiv, prelu,
glu, and the in-place forms (x //= 2, x %= 3, x &= m, ...). The plain
elementwise ops (atan2, fmod, remainder, floor_divide, bitwise_*, logical_*,
...) and their operators are generated from ops/ops.toml (_ops_generated).
BinaryExtMethods holds them as Tensor methods; tc/__init__.py exports FUNCTIONS."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional, Union

from . import _core as K
from ._core import fn
from ._ints import check_int64_scalar
from ._tensor_base import TensorBase, _as_tensor, _call
if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this module's mixin
    from ._tensor import Tensor

Number = Union[int, float, bool]
_ROUNDING = (None, "trunc", "floor")


def div(input: Tensor, other: Union[Tensor, Number], *, rounding_mode: Optional[str] = None) -> Tensor:
    """Divides input by other elementwise, as torch.div.

    Args:
        input: the dividend.
        other: the divisor (a Tensor or a Python number; broadcasts).
        rounding_mode: None (true division: integers give the default float
            dtype), "trunc" (rounded toward zero) or "floor" (toward minus
            infinity, as //). Integer division by zero raises ZeroDivisionError.

    Returns:
        The quotient.
    """
    if rounding_mode not in _ROUNDING:
        raise ValueError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found %r"
                         % (rounding_mode,))
    name = {None: "tc_div", "trunc": "tc_div_trunc", "floor": "tc_floor_divide"}[rounding_mode]
    if rounding_mode is None and type(other) is float:
        return _call(fn("tc_div_scalar"), input._h, other)
    b = _as_tensor(other, input)
    return _call(fn(name), input._h, b._h)


def _bound(x: Tensor, bound, name: str) -> Tensor:
    if isinstance(bound, TensorBase):
        return _call(fn("tc_clamp_min_tensor" if name == "min" else "tc_clamp_max_tensor"), x._h, bound._h)
    lo, hi = (bound, None) if name == "min" else (None, bound)
    return _call(fn("tc_clamp"), x._h, math.nan if lo is None else float(lo), math.nan if hi is None else float(hi))


def clamp(input: Tensor, min: Optional[Union[Tensor, Number]] = None,
          max: Optional[Union[Tensor, Number]] = None) -> Tensor:
    """Clamps input into [min, max], as torch.clamp.

    Args:
        input: the tensor.
        min: the lower bound: None, a number, or a Tensor that broadcasts.
        max: the upper bound: None, a number, or a Tensor that broadcasts.

    Returns:
        min(max(input, min), max); with tensor bounds the gradient goes to the
        input where it lies within them, else to the bound it crossed.
    """
    if min is None and max is None:
        raise ValueError("clamp: at least one of 'min' or 'max' must not be None")
    if not isinstance(min, TensorBase) and not isinstance(max, TensorBase):
        lo = math.nan if min is None else float(check_int64_scalar(min))
        hi = math.nan if max is None else float(check_int64_scalar(max))
        return _call(fn("tc_clamp"), input._h, lo, hi)
    out = input if min is None else _bound(input, min, "min")
    return out if max is None else _bound(out, max, "max")


def clamp_min(input: Tensor, min: Union[Tensor, Number]) -> Tensor:
    """clamp(input, min=min): the larger of input and min (a number or a Tensor)."""
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Union[Tensor, Number]) -> Tensor:
    """clamp(input, max=max): the smaller of input and max (a number or a Tensor)."""
    return clamp(input, max=max)


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Whether each element of input is close to other's, as torch.isclose.

    Args:
        input: a Tensor.
        other: a Tensor of the same dtype (broadcasts).
        rtol: relative tolerance (>= 0).
        atol: absolute tolerance (>= 0).
        equal_nan: whether two NaNs count as close.

    Returns:
        A bool tensor: |input - other| <= atol + rtol * |other|, or equal.
    """
    other = other if isinstance(other, TensorBase) else _as_tensor(other, input).to(input.dtype)
    return _call(fn("tc_isclose"), input._h, other._h, float(rtol), float(atol), 1 if equal_nan else 0)


def allclose(input: Tensor, other: Union[Tensor, Number], rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether all of input is close to other (isclose everywhere), as torch.allclose.

    Args:
        input: a Tensor.
        other: a Tensor or a number (broadcasts); differing dtypes are
            compared in their promoted dtype (PyTorch requires one dtype).
        rtol: relative tolerance.
        atol: absolute tolerance.
        equal_nan: whether two NaNs count as close.

    Returns:
        A Python bool.
    """
    if not isinstance(other, TensorBase):
        other = _as_tensor(other, input)
    if other.dtype is not input.dtype:
        common = K.promote_types(input.dtype, other.dtype)
        input, other = input.to(common), other.to(common)
    close = isclose(input, other, rtol, atol, equal_nan)
    return bool(close.to(K.int64).sum().item() == close.numel())


def lerp(input: Tensor, end: Tensor, weight: Union[Tensor, float]) -> Tensor:
    """Linear interpolation input + weight * (end - input), as torch.lerp.

    Args:
        input: the start (floating).
        end: the end (input's dtype; broadcasts).
        weight: a float, or a Tensor of input's dtype (broadcasts).

    Returns:
        The interpolated tensor, differentiable in all tensor arguments.
    """
    if isinstance(weight, TensorBase):
        return _call(fn("tc_lerp"), input._h, end._h, weight._h)
    return _call(fn("tc_lerp_scalar"), input._h, end._h, float(weight))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> Tensor:
    """input + value * tensor1 * tensor2, as torch.addcmul.

    Args:
        input: the tensor added to.
        tensor1: the first factor (broadcasts).
        tensor2: the second factor (broadcasts).
        value: the multiplier (a whole number for integer tensors).

    Returns:
        The result, of the tensors' promoted dtype.
    """
    return _call(fn("tc_addcmul"), input._h, tensor1._h, tensor2._h, float(value))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Number = 1) -> Tensor:
    """input + value * tensor1 / tensor2, as torch.addcdiv.

    Args:
        input: the tensor added to.
        tensor1: the numerator (broadcasts).
        tensor2: the denominator (broadcasts); one of tensor1, tensor2 floating.
        value: the multiplier.

    Returns:
        The result.
    """
    return _call(fn("tc_addcdiv"), input._h, tensor1._h, tensor2._h, float(value))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """PReLU: input where input > 0, else weight * input, as torch.nn.functional.prelu.

    Args:
        input: a floating tensor.
        weight: input's dtype: one element, or one per channel (input's dim 1).

    Returns:
        The activation, differentiable in input and weight.
    """
    return _call(fn("tc_prelu"), input._h, weight._h)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit a * sigmoid(b), a and b input's halves along dim.

    Args:
        input: a floating tensor whose size along dim is even.
        dim: the dim to halve.

    Returns:
        A tensor half as large along dim.
    """
    return _call(fn("tc_glu"), input._h, int(dim))


def _can_cast(src, dst) -> bool:
    """PyTorch's can_cast for the result of an in-place op: no floating to
    integer, nothing but bool to bool."""
    if src is dst:
        return True
    if src.is_floating_point and not dst.is_floating_point:
        return False
    return dst is not K.bool_ or src is K.bool_


def _inplace_of(name: str, method: str):
    """self OP= other for self.<method>(other): computed out of place, then
    copied into self (a version bump, as every in-place op), refusing results
    whose dtype self cannot hold, as PyTorch."""

    def f(self: Tensor, other) -> Tensor:
        r = getattr(self, method)(other)
        return _copy_back(self, r, name)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = "In-place %s: self = self.%s(other); returns self." % (name[:-1], name[:-1])
    return f


def _copy_back(self: Tensor, r: Tensor, name: str) -> Tensor:
    """self.copy_(r) for the in-place op `name` once r has been computed."""
    if not _can_cast(r.dtype, self.dtype):
        raise RuntimeError("%s: result type %s can't be cast to the desired output type %s"
                           % (name, r.dtype, self.dtype))
    if tuple(r.shape) != tuple(self.shape):
        raise RuntimeError("%s: output with shape %s doesn't match the broadcast shape %s"
                           % (name, list(self.shape), list(r.shape)))
    return self.copy_(r)


_div_function = div  # (the method below takes its docstring)


class BinaryExtMethods:
    """tc.Tensor's hand-written binary methods: div with rounding_mode, clamp
    with tensor bounds, isclose/allclose, lerp, addcmul, addcdiv, and the
    in-place forms of the elementwise binary ops (x //= 2, x &= m, ...)."""

    __slots__ = ()

    def div(self, other, *, rounding_mode: Optional[str] = None) -> Tensor:
        return div(self, other, rounding_mode=rounding_mode)

    div.__doc__ = _div_function.__doc__
    divide = div
    clamp = clip = clamp
    clamp_min = clamp_min
    clamp_max = clamp_max
    isclose = isclose
    allclose = allclose
    lerp = lerp
    addcmul = addcmul
    addcdiv = addcdiv

    floor_divide_ = __ifloordiv__ = _inplace_of("floor_divide_", "floor_divide")
    remainder_ = __imod__ = _inplace_of("remainder_", "remainder")
    fmod_ = _inplace_of("fmod_", "fmod")
    bitwise_and_ = __iand__ = _inplace_of("bitwise_and_", "bitwise_and")
    bitwise_or_ = __ior__ = _inplace_of("bitwise_or_", "bitwise_or")
    bitwise_xor_ = __ixor__ = _inplace_of("bitwise_xor_", "bitwise_xor")
    bitwise_left_shift_ = __ilshift__ = _inplace_of("bitwise_left_shift_", "bitwise_left_shift")
    bitwise_right_shift_ = __irshift__ = _inplace_of("bitwise_right_shift_", "bitwise_right_shift")
    atan2_ = _inplace_of("atan2_", "atan2")
    copysign_ = _inplace_of("copysign_", "copysign")
    hypot_ = _inplace_of("hypot_", "hypot")

    def lerp_(self, end: Tensor, weight: Union[Tensor, float]) -> Tensor:
        """In-place lerp: self = self.lerp(end, weight); returns self."""
        return _copy_back(self, lerp(self, end, weight), "lerp_")

    def clamp_(self, min=None, max=None) -> Tensor:
        """In-place clamp: self = self.clamp(min, max); returns self."""
        return _copy_back(self, clamp(self, min, max), "clamp_")

    clip_ = clamp_


# The tc.* functions of this module (tc/__init__.py).
FUNCTIONS = {"div": div, "divide": div, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min,
             "clamp_max": clamp_max, "isclose": isclose, "allclose": allclose, "lerp": lerp,
             "addcmul": addcmul, "addcdiv": addcdiv, "prelu": prelu}
