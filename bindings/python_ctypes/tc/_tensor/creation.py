"""tc.Tensor's new_* factories: tensors with self's dtype and device (a mixin
of tc.Tensor, tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .._tensor_base import empty, full, ones, tensor, zeros

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class CreationMethods:
    """tc.Tensor's new_* factories: tensors with self's dtype and device."""

    __slots__ = ()

    def new_tensor(self, data) -> "Tensor":
        """Returns a new tensor from ``data`` with this tensor's dtype and device."""
        return tensor(data, dtype=self.dtype)

    def new_zeros(self, *size) -> "Tensor":
        """Returns a tensor of zeros of ``size`` with this tensor's dtype and device."""
        return zeros(*size, dtype=self.dtype, device=self.device)

    def new_ones(self, *size) -> "Tensor":
        """Returns a tensor of ones of ``size`` with this tensor's dtype and device."""
        return ones(*size, dtype=self.dtype, device=self.device)

    def new_full(self, size, value) -> "Tensor":
        """Returns a tensor of ``size`` filled with ``value``, with this tensor's dtype and device."""
        return full(size, value, dtype=self.dtype, device=self.device)

    def new_empty(self, *size) -> "Tensor":
        """Returns an uninitialized tensor of ``size`` with this tensor's dtype and device."""
        return empty(*size, dtype=self.dtype, device=self.device)
