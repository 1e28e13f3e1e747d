"""tc.Tensor's batched matrix products: bmm, addmm, baddbmm (a mixin of
tc.Tensor, tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .._tensor_base import _call, fn

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class MatrixMethods:
    """tc.Tensor's batched matrix products: bmm, addmm, baddbmm."""

    __slots__ = ()

    def bmm(self, other) -> "Tensor":
        """Batched matrix product.

        Args:
            other (Tensor): (b, m, p) matrices (self is (b, n, m)).

        Returns:
            Tensor: the (b, n, p) result.
        """
        return _call(fn("tc_bmm"), self._h, other._h)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2), like torch.addmm(self, ...)."""
        return _call(fn("tc_addmm"), self._h, mat1._h, mat2._h, float(beta), float(alpha))

    def baddbmm(self, batch1, batch2, beta=1, alpha=1) -> "Tensor":
        """Returns ``beta * self + alpha * (batch1 @ batch2)``.

        Args:
            batch1 (Tensor): (b, n, m) matrices.
            batch2 (Tensor): (b, m, p) matrices.
            beta (Number): the factor of ``self``.
            alpha (Number): the factor of the product.

        Returns:
            Tensor: the (b, n, p) result.
        """
        return _call(fn("tc_baddbmm"), self._h, batch1._h, batch2._h, float(beta), float(alpha))
