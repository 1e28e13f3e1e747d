"""tc.Tensor's in-place arithmetic and copies: add_, sub_, mul_, div_ and
+=, -=, *=, /=, zero_, fill_, copy_ (a mixin of tc.Tensor,
tc/_tensor/__init__.py).

A write goes through libtc's in-place kernel unless autograd must record it:
then the result is computed out of place and put with tc_index_put_, which
rebases the target (tc/_inplace_autograd.py). ``x[key] op= v`` where
``x[key]`` is a view falls back to the out-of-place operator and leaves the
write to __setitem__ (tc/_subscript_augmented.py)."""
from typing import TYPE_CHECKING

from .. import _core as K
from .._inplace_autograd import _put_whole, _records
from .._subscript_augmented import augmented
from .._tensor_base import (TensorBase, _exact_int64_scalar, _large_int, _scalar_tensor, check, error_for, fast,
                            fn, tensor)

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor

_KERNELS = {"add_": fast("tc_add_"), "sub_": fast("tc_sub_"), "mul_": fast("tc_mul_"), "div_": fast("tc_div_")}

_DOC = ("In-place ``self.%s(other)``, broadcasting ``other`` to self's shape.\n\n"
        "Args:\n    other (Tensor or Number): the other operand.\n\nReturns:\n    Tensor: self.")


def _arith_(self, other, alpha, name):
    """self.<name>(other, alpha=alpha): add_, sub_, mul_ or div_."""
    if alpha != 1:  # add_/sub_'s scale of other (PyTorch's alpha)
        if name not in ("add_", "sub_"):
            raise TypeError("%s() got an unexpected keyword argument 'alpha'" % name)
        other = other * alpha
    if _records(self, other):
        # mul and div save their operand for backward: a clone, not self, which
        # the put is about to overwrite (PyTorch's in-place forms save the
        # original self the same way)
        operand = self.clone() if name in ("mul_", "div_") else self
        return _put_whole(self, getattr(operand, name[:-1])(other))
    if not isinstance(other, TensorBase):
        other = _scalar_tensor(other, self)
    rc = _KERNELS[name](self._h, other._h)
    if rc:
        raise error_for(rc)
    return self


class InplaceMethods:
    """tc.Tensor's in-place arithmetic and copies: add_, sub_, mul_, div_ and
    their operators, zero_, fill_, copy_."""

    __slots__ = ()

    def add_(self, other, *, alpha=1) -> "Tensor":
        return _arith_(self, other, alpha, "add_")

    def sub_(self, other, *, alpha=1) -> "Tensor":
        return _arith_(self, other, alpha, "sub_")

    def mul_(self, other, *, alpha=1) -> "Tensor":
        return _arith_(self, other, alpha, "mul_")

    def div_(self, other, *, alpha=1) -> "Tensor":
        return _arith_(self, other, alpha, "div_")

    def __iadd__(self, other) -> "Tensor":
        return augmented(self, other, "add_", "__add__")

    def __isub__(self, other) -> "Tensor":
        return augmented(self, other, "sub_", "__sub__")

    def __imul__(self, other) -> "Tensor":
        return augmented(self, other, "mul_", "__mul__")

    def __itruediv__(self, other) -> "Tensor":
        return augmented(self, other, "div_", "__truediv__")

    add_.__doc__ = __iadd__.__doc__ = _DOC % "add"
    sub_.__doc__ = __isub__.__doc__ = _DOC % "sub"
    mul_.__doc__ = __imul__.__doc__ = _DOC % "mul"
    div_.__doc__ = __itruediv__.__doc__ = _DOC % "div"

    def zero_(self) -> "Tensor":
        """Fills the tensor with zeros in place and returns it."""
        check(fn("tc_zero_")(self._h))
        return self

    def fill_(self, value) -> "Tensor":
        """Fills the tensor with ``value`` in place.

        Args:
            value (Number): the value.

        Returns:
            Tensor: self.
        """
        exact = _large_int(value)
        if exact is not None and self.dtype is K.int64:  # tc_fill_'s double would round it
            return self.copy_(_exact_int64_scalar(exact, self.device.code))
        check(fn("tc_fill_")(self._h, float(value)))
        return self

    def copy_(self, src, non_blocking=False) -> "Tensor":
        """Copies ``src`` into this tensor in place, broadcasting and converting its dtype
        (recorded by autograd when this tensor or ``src`` requires grad).

        Args:
            src (Tensor): the source.
            non_blocking (bool): accepted for PyTorch's signature.

        Returns:
            Tensor: self.
        """
        if not isinstance(src, TensorBase):
            src = tensor(src, dtype=self.dtype)
        elif _records(self, src):
            return _put_whole(self, src)
        check(fn("tc_copy_")(self._h, src._h))
        return self
