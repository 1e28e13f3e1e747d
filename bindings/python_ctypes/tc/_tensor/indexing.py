"""tc.Tensor's indexing: t[key], t[key] = value, gather, index_select,
masked_fill (a mixin of tc.Tensor, tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .. import _core as K
from .. import _indexing
from .._inplace_autograd import _records, put_basic_key
from .._tensor_base import TensorBase, _call, _select_f, fn, tensor

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class IndexingMethods:
    """tc.Tensor's indexing: t[key], t[key] = value, gather, index_select,
    masked_fill."""

    __slots__ = ()

    def masked_fill(self, mask, value) -> "Tensor":
        """Returns a copy with ``value`` where ``mask`` is True.

        Args:
            mask (Tensor): a bool tensor broadcastable to self.
            value (Number or Tensor): the fill value.

        Returns:
            Tensor: the result.
        """
        if isinstance(value, TensorBase):
            value = value.item()
        return _call(fn("tc_masked_fill"), self._h, mask._h, float(value))

    def gather(self, dim, index) -> "Tensor":
        """Gathers values along ``dim`` at ``index``.

        Args:
            dim (int): the dimension to index.
            index (Tensor): int64 indices.

        Returns:
            Tensor: a tensor shaped like ``index``.
        """
        return _call(fn("tc_gather"), self._h, dim, index._h)

    def index_select(self, dim, index) -> "Tensor":
        """Selects the entries at ``index`` along ``dim``.

        Args:
            dim (int): the dimension.
            index (Tensor): 1-D int64 indices.

        Returns:
            Tensor: a new tensor.
        """
        if not isinstance(index, TensorBase):
            index = tensor(index, dtype=K.int64)
        return _call(fn("tc_index_select"), self._h, dim, index._h)

    def __getitem__(self, key):
        if type(key) is int:
            return _call(_select_f, self._h, 0, key)
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value):
        # a write autograd records (tc/_inplace_autograd.py) with a basic key is a
        # put into self; anything else takes tc_index_put_ or a view's copy_
        if _records(self, value) and put_basic_key(self, key, value):
            return
        _indexing.setitem(self, key, value)
