"""In-place writes that autograd records, as PyTorch records them:
``loss += criterion(out, y)`` on a loss that requires grad,
``scores.masked_fill_(mask, -1e9)`` on an attention score,
``outputs[i] = layer(x)`` into a ``torch.empty(...)`` buffer.

libtc's in-place kernels (tc_copy_, tc_add_, ...) refuse a tensor that
requires grad, or a source that does, since they record nothing. One in-place
op does record: tc_index_put_, which gives its target (a tensor owning its
memory: not a view, not saved for backward, not a leaf requiring grad) the
put as its new grad_fn, as PyTorch rebases a tensor written in place. So
when autograd is involved (grad mode on, and the target or the source
requires grad), these methods compute their result out of place and put it:

- ``copy_(src)`` (and so every in-place variant of tc/_tensor_inplace.py,
  masked_fill_, exp_, ..., which copy their result in), ``add_``, ``sub_``,
  ``mul_``, ``div_`` and ``+=``, ``-=``, ``*=``, ``/=``: the whole result is
  put into the tensor (an index_put_ with no index);
- ``t[key] = value`` with a basic key (ints, slices, None, ...): the value is
  put at the coordinates the key selects (computed on an arange of t's
  shape), so t itself is rebased, not a temporary view of it.

Everything else, and every write without autograd, takes libtc's in-place
kernels as before. A target libtc cannot rebase (a view, a tensor saved for
backward) gets tc_index_put_'s error, much as PyTorch would fail at
backward; a leaf that requires grad gets the kernels' error, as in PyTorch.

The methods are tc/_tensor/inplace.py's (copy_, add_, ...) and
tc/_tensor/indexing.py's (__setitem__); the helpers are here."""
from . import _indexing
from ._core import is_grad_enabled
from ._tensor_base import TensorBase, arange, tensor


def _records(target, source):
    """True when writing source into target must be recorded by autograd
    (and libtc's in-place kernels would refuse it)."""
    if not is_grad_enabled():
        return False
    if not (target.requires_grad or (isinstance(source, TensorBase) and source.requires_grad)):
        return False
    # a leaf that requires grad: PyTorch refuses the write; so do the kernels
    return not (target.requires_grad and target.is_leaf)


def _put_whole(target, values):
    """target's every element := values (broadcast, converted to target's
    dtype), recorded: target takes the put as its grad_fn."""
    if values.dtype != target.dtype:
        values = values.to(target.dtype)
    return target.index_put_((), values)


def _coordinates(shape, key):
    """Index tensors (one per dim of shape) of the elements t[key] selects for
    a basic key, each of t[key]'s shape."""
    n = 1
    for s in shape:
        n *= s
    flat = arange(n).reshape(tuple(shape))[key]
    coords, inner = [], n
    for size in shape:
        inner //= size
        coords.append((flat // inner) % size if size else flat)
    return tuple(coords)


def put_basic_key(target, key, value):
    """target[key] = value, recorded (target takes the put as its grad_fn), for
    a basic key (ints, slices, None, Ellipsis); False (nothing done) for any
    other key, which takes the plain path."""
    probe = key if isinstance(key, tuple) else (key,)
    basic = all(k is None or k is Ellipsis or isinstance(k, (int, slice)) for k in probe)
    if not basic or any(isinstance(k, bool) for k in probe):
        return False
    coords = _coordinates(target.shape, key)
    if not isinstance(value, TensorBase):
        value = tensor(value, dtype=target.dtype)
    elif value.dtype != target.dtype:
        value = value.to(target.dtype)
    # setitem drops the value's leading size-1 dims, as PyTorch does
    value = _indexing._values_for(target, value)
    target.index_put_(coords, value)
    return True
