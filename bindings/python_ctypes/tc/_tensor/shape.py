"""tc.Tensor's shape and view methods: reshape, view, transpose, permute,
squeeze, expand, split, tril, ... (a mixin of tc.Tensor,
tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .. import _core as K
from .. import _decls as D
from .._tensor_base import _call, _retain, _select_f, _shape_args, _split_call, _unsqueeze_f, fn

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class ShapeMethods:
    """tc.Tensor's shape and view methods: reshape, view, transpose, permute,
    squeeze, expand, split, tril, ...."""

    __slots__ = ()

    def tril(self, diagonal=0) -> "Tensor":
        """Returns the lower triangle of the last two dimensions, the rest zeroed.

        Args:
            diagonal (int): which diagonal to keep up to.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_tril"), self._h, int(diagonal))

    def triu(self, diagonal=0) -> "Tensor":
        """Returns the upper triangle of the last two dimensions, the rest zeroed.

        Args:
            diagonal (int): which diagonal to keep from.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_triu"), self._h, int(diagonal))

    def reshape(self, *shape) -> "Tensor":
        """Returns a tensor of the same data with a new shape (a view when possible).

        Args:
            *shape (int): the new sizes; one may be -1.

        Returns:
            Tensor: the result.
        """
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_reshape"), self._h, arr, n)

    def view(self, *shape) -> "Tensor":
        """Returns a view of the same data with a new shape (the strides must allow it).

        Args:
            *shape (int): the new sizes; one may be -1.

        Returns:
            Tensor: the view.
        """
        if len(shape) == 1 and isinstance(shape[0], (K.dtype, str)):
            raise NotImplementedError("view(dtype) is not supported")
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_view"), self._h, arr, n)

    def view_as(self, other) -> "Tensor":
        """Returns ``self.view(other.shape)``."""
        return self.view(other.shape)

    def reshape_as(self, other) -> "Tensor":
        """Returns ``self.reshape(other.shape)``."""
        return self.reshape(other.shape)

    def transpose(self, dim0, dim1) -> "Tensor":
        """Returns a view with dimensions ``dim0`` and ``dim1`` swapped.

        Args:
            dim0 (int): the first dimension.
            dim1 (int): the second dimension.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_transpose"), self._h, dim0, dim1)

    swapaxes = transpose

    def t(self) -> "Tensor":
        """Returns the transpose of a tensor of at most 2 dimensions."""
        if self.ndim < 2:
            return _call(_retain, self._h)
        return self.transpose(0, 1)

    @property
    def T(self):
        """The tensor with all its dimensions reversed (a transpose for 2-D tensors)."""
        nd = self.ndim
        return self.permute(*reversed(range(nd))) if nd > 1 else self.t()

    @property
    def mT(self):
        """The tensor with its last two dimensions swapped (batched matrix transpose)."""
        return self.transpose(-2, -1)

    def permute(self, *dims) -> "Tensor":
        """Returns a view with the dimensions reordered.

        Args:
            *dims (int): the new order of the dimensions.

        Returns:
            Tensor: the view.
        """
        arr, n = K.int64_array(_shape_args(dims))
        return _call(fn("tc_permute"), self._h, arr, n)

    def narrow(self, dim, start, length) -> "Tensor":
        """Returns a view of ``length`` entries from ``start`` along ``dim``.

        Args:
            dim (int): the dimension.
            start (int): the first index.
            length (int): how many entries.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_narrow"), self._h, dim, start, length)

    def select(self, dim, index) -> "Tensor":
        """Returns the view at ``index`` along ``dim``, which is removed.

        Args:
            dim (int): the dimension.
            index (int): the index.

        Returns:
            Tensor: the view.
        """
        return _call(_select_f, self._h, dim, index)

    def squeeze(self, dim=None) -> "Tensor":
        """Returns a view without dimensions of size 1 (only ``dim`` if given).

        Args:
            dim (int, optional): the dimension.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_squeeze"), self._h, D.TC_DIM_ALL if dim is None else dim)

    def unsqueeze(self, dim) -> "Tensor":
        """Returns a view with a dimension of size 1 inserted at ``dim``.

        Args:
            dim (int): the position.

        Returns:
            Tensor: the view.
        """
        return _call(_unsqueeze_f, self._h, dim)

    def expand(self, *shape) -> "Tensor":
        """Returns a view broadcast to ``shape`` (-1 keeps a size) without copying.

        Args:
            *shape (int): the new sizes.

        Returns:
            Tensor: the view.
        """
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_expand"), self._h, arr, n)

    def expand_as(self, other) -> "Tensor":
        """Returns ``self.expand(other.shape)``.

        Args:
            other (Tensor): the tensor whose shape to take.

        Returns:
            Tensor: the view.
        """
        return self.expand(other.shape)

    def contiguous(self) -> "Tensor":
        """Returns a contiguous tensor with the same data (itself if already contiguous)."""
        return _call(fn("tc_contiguous"), self._h)

    def clone(self) -> "Tensor":
        """Returns a copy of the tensor with its own memory (differentiable)."""
        return _call(fn("tc_clone"), self._h)

    def split(self, split_size, dim=0):
        """Splits the tensor into views along ``dim``.

        Args:
            split_size (int or list of int): the size of each piece, or the list of sizes.
            dim (int): the dimension.

        Returns:
            tuple of Tensor: the pieces.
        """
        if not hasattr(split_size, "__index__"):
            sizes = list(split_size)
            out, start = [], 0
            for s in sizes:
                out.append(self.narrow(dim, start, s))
                start += s
            return tuple(out)
        return _split_call(fn("tc_split"), self, split_size, dim)

    def chunk(self, chunks, dim=0):
        """Splits the tensor into ``chunks`` views along ``dim``.

        Args:
            chunks (int): the number of chunks (the last may be smaller).
            dim (int): the dimension to split.

        Returns:
            tuple of Tensor: the chunks.
        """
        return _split_call(fn("tc_chunk"), self, chunks, dim)
