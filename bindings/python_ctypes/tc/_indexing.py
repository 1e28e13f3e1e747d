"""Indexing as PyTorch's Tensor.__getitem__/__setitem__: basic indices (ints,
slices, None, Ellipsis) make views; advanced ones (integer tensors, lists,
bool masks, Python bools) go to tc_index / tc_index_put_ with one entry per
remaining dim (None = a full slice). Also the scatter family's methods and
functions (nonzero, take, masked_select, scatter, scatter_add,
scatter_reduce, index_add, index_copy, index_fill, index_put), the former
held by AdvancedIndexingMethods, a mixin of tc.Tensor."""
import numbers
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple, Union

from . import _core as K
from . import _decls as D
from ._core import VP, fn
from ._errors import check
from ._ints import INT64_MAX, INT64_MIN
from ._tensor_base import TensorBase, _call, _select_f, _slice_f, _unsqueeze_f, full, tensor, zeros

if TYPE_CHECKING:
    from ._tensor import Tensor

# An advanced index: an integer/bool tensor, or a (nested) list of ints or bools.
IndexLike = Union["Tensor", List[Any]]

_index_f = fn("tc_index")
_index_put_f = fn("tc_index_put")
_index_put__f = fn("tc_index_put_")
_REDUCE = {"sum": D.TC_SCATTER_SUM, "prod": D.TC_SCATTER_PROD, "mean": D.TC_SCATTER_MEAN,
           "amax": D.TC_SCATTER_AMAX, "amin": D.TC_SCATTER_AMIN}


def _as_index_tensor(k):
    T = TensorBase
    if isinstance(k, T):
        return k
    if isinstance(k, range):  # PyTorch indexes with a range as with the list of its values
        k = list(k)
    idx = tensor(k)
    if idx.numel() == 0 and idx.dtype is not K.bool_:
        idx = idx.to(K.int64)  # tensor([]) is float; an empty list indexes nothing
    return idx


def _handles(indices):
    arr = (VP * max(len(indices), 1))()
    for i, t in enumerate(indices):
        arr[i] = t._h if t is not None else None
    return arr, len(indices)


def _is_full_slice(k):
    return isinstance(k, slice) and k.start is None and k.stop is None and k.step is None


def _sequence_as_tuple(key, T):
    """PyTorch's (and old NumPy's) rule: a short list (under 32 items) holding
    a sequence, slice, tensor, Ellipsis or None is read as a tuple of
    indices, one per dim: x[[[0, 1], [2, 0]]] is x[[0, 1], [2, 0]]."""
    if not isinstance(key, list) or len(key) >= 32:
        return False
    return any(k is None or k is Ellipsis or isinstance(k, (list, tuple, range, slice, T)) for k in key)


def apply_basic(self, key):
    """Applies the basic part of key. Returns (view, indices): the view after
    ints, slices, None and Ellipsis, and for each of its dims None or an
    advanced index (tensor); indices is None when key has no advanced part."""
    T = TensorBase
    if _sequence_as_tuple(key, T):
        key = tuple(key)
    if not isinstance(key, tuple):
        key = (key,)
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")

    def dims_of(k):
        if k is None or k is Ellipsis or isinstance(k, bool):
            return 0
        if isinstance(k, T) and k.dtype is K.bool_:
            return k.ndim
        if isinstance(k, (list, tuple)) and _is_bool_list(k):
            return _nested_ndim(k)
        return 1

    consumed = sum(dims_of(k) for k in key)
    nd = self.ndim
    if consumed > nd:
        raise IndexError("too many indices for tensor of dimension %d" % nd)
    t = self
    dim = 0
    indices = []
    advanced = False
    for k in key:
        if k is Ellipsis:
            n = nd - consumed
            indices.extend([None] * n)
            dim += n
        elif k is None:
            t = _call(_unsqueeze_f, t._h, dim)
            indices.append(None)
            dim += 1
        elif isinstance(k, bool) or (isinstance(k, T) and k.ndim == 0 and k.dtype is K.bool_):
            # A scalar bool adds a dim of size 1 (True) or 0 (False), like PyTorch.
            t = _call(_unsqueeze_f, t._h, dim)
            indices.append(tensor([bool(k)]))
            advanced = True
            dim += 1
        elif isinstance(k, numbers.Integral) or (isinstance(k, T) and k.ndim == 0
                                                 and not k.dtype.is_floating_point):
            t = _call(_select_f, t._h, dim, int(k))
        elif _is_full_slice(k):
            indices.append(None)  # no view: index_put_ then writes self itself
            dim += 1
        elif isinstance(k, slice):
            step = 1 if k.step is None else k.step.__index__()
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start = 0 if k.start is None else min(max(k.start.__index__(), INT64_MIN), INT64_MAX)
            stop = INT64_MAX if k.stop is None else min(max(k.stop.__index__(), INT64_MIN), INT64_MAX)
            t = _call(_slice_f, t._h, dim, start, stop, step)
            indices.append(None)
            dim += 1
        elif isinstance(k, (list, tuple, range, T)) or hasattr(k, "__array__"):
            idx = _as_index_tensor(k)
            if idx.dtype.is_floating_point:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            indices.append(idx)
            advanced = True
            dim += idx.ndim if idx.dtype is K.bool_ else 1
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                             "Variables are valid indices (got %s)" % type(k).__name__)
    return t, (indices if advanced else None)


def _is_bool_list(k):
    while isinstance(k, (list, tuple)) and k:
        k = k[0]
    return isinstance(k, bool)


def _nested_ndim(k):
    n = 0
    while isinstance(k, (list, tuple)):
        n += 1
        if not k:
            break
        k = k[0]
    return n


def getitem(self: "Tensor", key: Any) -> "Tensor":
    t, indices = apply_basic(self, key)
    if indices is None:
        return t
    arr, n = _handles(indices)
    return _call(_index_f, t._h, arr, n)


def _values_for(t, value):
    """value as a tensor (numbers and lists take t's dtype), leading size-1 dims dropped
    (PyTorch's setitem drops them too)."""
    T = TensorBase
    if not isinstance(value, T):
        value = tensor(value, dtype=t.dtype, device=t.device)
    # A tensor of another dtype is refused by tc_index_put_, as PyTorch 1.13 refuses it.
    while value.ndim > 0 and value.shape[0] == 1:
        value = value.squeeze(0)
    return value


def setitem(self: "Tensor", key: Any, value: Any) -> None:
    t, indices = apply_basic(self, key)
    if indices is None:
        if isinstance(value, TensorBase):
            t.copy_(value)
        else:
            t.fill_(value)
        return
    v = _values_for(t, value)
    arr, n = _handles(indices)
    check(_index_put__f(t._h, arr, n, v._h, 0))


# ------------------------------------------------------------------ methods

def index(self: "Tensor", indices: Sequence[Optional[IndexLike]]) -> "Tensor":
    """a[indices] as PyTorch's aten::index.

    Args:
        indices (sequence): one entry per leading dim: an integer tensor, a
            bool mask or None (a full slice).

    Returns:
        Tensor: a new tensor.
    """
    idx = [None if i is None else _as_index_tensor(i) for i in indices]
    arr, n = _handles(idx)
    return _call(_index_f, self._h, arr, n)


def index_put(self: "Tensor", indices: Sequence[Optional[IndexLike]], values: "Tensor",
              accumulate: bool = False) -> "Tensor":
    """A copy of self with self[indices] = values (or += with accumulate).

    Args:
        indices (sequence): as for :meth:`index`.
        values (Tensor): of self's dtype, broadcasting to self[indices]'s shape.
        accumulate (bool): add at repeated indices instead of overwriting.

    Returns:
        Tensor: a new tensor.
    """
    idx = [None if i is None else _as_index_tensor(i) for i in indices]
    arr, n = _handles(idx)
    return _call(_index_put_f, self._h, arr, n, values._h, int(bool(accumulate)))


def index_put_(self: "Tensor", indices: Sequence[Optional[IndexLike]], values: "Tensor",
               accumulate: bool = False) -> "Tensor":
    """self[indices] = values (or += with accumulate), in place.

    Args:
        indices (sequence): as for :meth:`index`.
        values (Tensor): of self's dtype, broadcasting to self[indices]'s shape.
        accumulate (bool): add at repeated indices instead of overwriting.

    Returns:
        Tensor: self.
    """
    idx = [None if i is None else _as_index_tensor(i) for i in indices]
    arr, n = _handles(idx)
    check(_index_put__f(self._h, arr, n, values._h, int(bool(accumulate))))
    return self


def nonzero(self: "Tensor", as_tuple: bool = False) -> Union["Tensor", Tuple["Tensor", ...]]:
    """The indices of the non-zero elements.

    Args:
        as_tuple (bool): return one 1-D index tensor per dim instead.

    Returns:
        Tensor: int64 [count, ndim], or a tuple of ndim int64 [count] tensors.
    """
    out = _call(fn("tc_nonzero"), self._h)
    if not as_tuple:
        return out
    if self.ndim == 0:
        # PyTorch: one tensor holding position 0 once if the scalar is non-zero.
        return (zeros(out.shape[0], dtype=K.int64, device=self.device),)
    return tuple(out[:, k] for k in range(self.ndim))


def take(self: "Tensor", index: IndexLike) -> "Tensor":
    """The elements of self flattened, at index (int64, any shape; negative wraps).

    Args:
        index (Tensor): int64 positions.

    Returns:
        Tensor: of index's shape.
    """
    return _call(fn("tc_take"), self._h, _as_index_tensor(index)._h)


def masked_select(self: "Tensor", mask: "Tensor") -> "Tensor":
    """The elements where the bool mask (broadcasting with self) is true.

    Args:
        mask (Tensor): bool.

    Returns:
        Tensor: 1-D.
    """
    return _call(fn("tc_masked_select"), self._h, mask._h)


def scatter(self: "Tensor", dim: int, index: "Tensor", src: Union["Tensor", float, None] = None,
            value: Optional[float] = None, reduce: Optional[str] = None) -> "Tensor":
    """A copy of self with src (or the scalar value) written along dim at index.

    Args:
        dim (int): the dim to scatter along.
        index (Tensor): int64, self's number of dims.
        src (Tensor or number): the values (index's shape or larger), or a scalar.
        value (number): a scalar instead of src.
        reduce (str): None, or "add"/"multiply" (the deprecated torch.scatter form).

    Returns:
        Tensor: a new tensor.
    """
    if src is None:
        src = value
    T = TensorBase
    if reduce is not None:
        r = {"add": "sum", "multiply": "prod"}[reduce]
        if not isinstance(src, T):
            src = full(tuple(index.shape), src, dtype=self.dtype, device=self.device)
        return scatter_reduce(self, dim, index, src, r, include_self=True)
    if isinstance(src, T):
        return _call(fn("tc_scatter"), self._h, dim, index._h, src._h)
    return _call(fn("tc_scatter_value"), self._h, dim, index._h, float(src))


def scatter_add(self: "Tensor", dim: int, index: "Tensor", src: "Tensor") -> "Tensor":
    """A copy of self with src added along dim at index (repeated indices sum).

    Args:
        dim (int): the dim to scatter along.
        index (Tensor): int64, self's number of dims.
        src (Tensor): the values (index's shape or larger).

    Returns:
        Tensor: a new tensor.
    """
    return _call(fn("tc_scatter_add"), self._h, dim, index._h, src._h)


def scatter_reduce(self: "Tensor", dim: int, index: "Tensor", src: "Tensor", reduce: str,
                   include_self: bool = True) -> "Tensor":
    """A copy of self with src reduced along dim at index.

    Args:
        dim (int): the dim to scatter along.
        index (Tensor): int64, self's number of dims.
        src (Tensor): the values (index's shape or larger).
        reduce (str): "sum", "prod", "mean", "amax" or "amin".
        include_self (bool): whether self's values take part at the scattered positions.

    Returns:
        Tensor: a new tensor.
    """
    if reduce not in _REDUCE:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got %s" % reduce)
    return _call(fn("tc_scatter_reduce"), self._h, dim, index._h, src._h, _REDUCE[reduce],
                 int(bool(include_self)))


def _dim_index(index):
    idx = _as_index_tensor(index)
    return idx


def index_add(self: "Tensor", dim: int, index: IndexLike, source: "Tensor", alpha: float = 1) -> "Tensor":
    """A copy of self with alpha * source added at the entries index of dim.

    Args:
        dim (int): the dim.
        index (Tensor): int64/int32, 1-D.
        source (Tensor): self's shape but len(index) at dim.
        alpha (number): the factor of source.

    Returns:
        Tensor: a new tensor.
    """
    return _call(fn("tc_index_add"), self._h, dim, _dim_index(index)._h, source._h, float(alpha))


def index_copy(self: "Tensor", dim: int, index: IndexLike, source: "Tensor") -> "Tensor":
    """A copy of self with source copied to the entries index of dim.

    Args:
        dim (int): the dim.
        index (Tensor): int64, 1-D.
        source (Tensor): self's shape but len(index) at dim.

    Returns:
        Tensor: a new tensor.
    """
    return _call(fn("tc_index_copy"), self._h, dim, _dim_index(index)._h, source._h)


def index_fill(self: "Tensor", dim: int, index: IndexLike, value: Union[float, "Tensor"]) -> "Tensor":
    """A copy of self with value at the entries index of dim.

    Args:
        dim (int): the dim.
        index (Tensor): int64, 1-D (negative entries wrap).
        value (number or 0-dim Tensor): the value.

    Returns:
        Tensor: a new tensor.
    """
    if isinstance(value, TensorBase):
        value = value.item()
    return _call(fn("tc_index_fill"), self._h, dim, _dim_index(index)._h, float(value))


class AdvancedIndexingMethods:
    """tc.Tensor's methods of the functions above: index, index_put(_),
    nonzero, take, masked_select, the scatter family and index_add/copy/fill."""

    __slots__ = ()

    index = index
    index_put = index_put
    index_put_ = index_put_
    nonzero = nonzero
    take = take
    masked_select = masked_select
    scatter = scatter
    scatter_add = scatter_add
    scatter_reduce = scatter_reduce
    index_add = index_add
    index_copy = index_copy
    index_fill = index_fill
