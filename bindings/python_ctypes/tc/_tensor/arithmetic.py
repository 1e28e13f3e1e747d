"""tc.Tensor's hand-written arithmetic beside the generated elementwise
methods: matmul and @, the reflected -, / and **, unary +, where, equal (a
mixin of tc.Tensor, tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .. import _core as K
from .._tensor_base import _binary, _rbinary, where

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class ArithmeticMethods:
    """tc.Tensor's hand-written arithmetic beside the generated elementwise
    methods: matmul and @, the reflected -, / and **, unary +, where, equal."""

    __slots__ = ()

    # The elementwise families' methods and operators (add, __add__, exp, ...)
    # are ElementwiseMethods (tc/_tensor/elementwise.py, generated).
    matmul = _binary("matmul")
    matmul.__doc__ = "See :func:`tc.matmul`."
    __rsub__ = _rbinary("sub", "rsub_scalar")
    __rtruediv__ = _rbinary("div", "rdiv_scalar")
    __rpow__ = _rbinary("pow")
    __matmul__ = matmul
    __rmatmul__ = _rbinary("matmul")

    def __pos__(self):
        return self

    # clamp, clip, clamp_min, clamp_max (tensor bounds too), isclose, allclose,
    # lerp, addcmul, addcdiv, div(rounding_mode=) and the in-place forms of the
    # binary ops (//=, %=, &=, ...): tc/_binary_ext.py installs them.

    def where(self, condition, other) -> "Tensor":
        """Returns ``self`` where ``condition`` is True, else ``other``.

        Args:
            condition (Tensor): a bool tensor.
            other (Tensor or Number): the alternative.

        Returns:
            Tensor: the result.
        """
        return where(condition, self, other)

    def equal(self, other) -> bool:
        """Returns True if ``other`` has the same shape and elements.

        Args:
            other (Tensor): the tensor to compare with.

        Returns:
            bool: whether they are equal.
        """
        return self.shape == other.shape and bool((self == other).to(K.int64).sum().item() == self.numel())
