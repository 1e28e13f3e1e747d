"""Out-of-place "write into a view" ops and their relatives, composed from
tc ops (differentiable for both operands): diagonal_scatter, select_scatter,
slice_scatter, as_strided_scatter, diag_embed, masked_scatter, index_reduce,
renorm; as_strided as a gather (a copy: libtc has no arbitrary strided
views); and the split variants split_with_sizes / unsafe_split /
unsafe_split_with_sizes / unsafe_chunk, narrow_copy.

The *_scatter ops find the flat positions the view covers by taking the
same view of arange(numel), then index_put the source there."""
import numbers

from . import _core as K


def _tc():
    import tc
    return tc


def _positions(input):
    tc = _tc()
    return tc.arange(input.numel(), dtype=K.int64, device=input.device).reshape(*input.shape)


def _put_view(input, view_of, src, name):
    """input with the elements that view_of(input) covers replaced by src."""
    pos = view_of(_positions(input))
    if tuple(src.shape) != tuple(pos.shape):
        raise RuntimeError("%s: expected src to have a size equal to the slice of self. src size = %s, slice size "
                           "= %s" % (name, list(src.shape), list(pos.shape)))
    if src.dtype != input.dtype:
        src = src.to(input.dtype)
    flat = input.reshape(-1).index_put((pos.reshape(-1),), src.reshape(-1))
    return flat.reshape(*input.shape)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """input with its diagonal (as input.diagonal(offset, dim1, dim2)) replaced by src.

    Returns:
        Tensor: a new tensor.
    """
    return _put_view(input, lambda p: p.diagonal(offset, dim1, dim2), src, "diagonal_scatter")


def select_scatter(input, src, dim, index):
    """input with input.select(dim, index) replaced by src.

    Returns:
        Tensor: a new tensor.
    """
    return _put_view(input, lambda p: p.select(dim, index), src, "select_scatter")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """input with the slice start:end:step along dim replaced by src.

    Returns:
        Tensor: a new tensor.
    """
    if step <= 0:
        raise RuntimeError("slice step must be positive")

    def view(p):
        index = [slice(None)] * p.ndim
        index[dim] = slice(start, end, step)
        return p[tuple(index)]
    return _put_view(input, view, src, "slice_scatter")


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose diagonals (offset, dim1, dim2) hold input's last dim, zeros elsewhere, like torch.diag_embed.

    Returns:
        Tensor: input.ndim + 1 dims.
    """
    tc = _tc()
    nd = input.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise RuntimeError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    n = input.shape[-1] + abs(offset)
    batch = list(input.shape[:-1])
    shape = []
    it = iter(batch)
    for i in range(nd):
        shape.append(n if i in (d1, d2) else next(it))
    out = tc.zeros(*shape, dtype=input.dtype, device=input.device)
    src = input.movedim(-1, -1)
    # diagonal() puts the diagonal last with the other dims in order: that is input's layout
    return diagonal_scatter(out, src, offset, d1, d2)


def _strided_positions(input, size, stride, storage_offset, name):
    """Flat indices into input.reshape(-1) of the elements of the strided
    view (size, stride, storage_offset) of input's storage. Only the memory
    of input's own elements is reachable from Python, so every position the
    view touches must be one of them."""
    tc = _tc()
    size, stride = list(size), list(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: %s"
                           % stride)
    off = input.storage_offset() if storage_offset is None else storage_offset
    pos = tc.full((), off, dtype=K.int64, device=input.device)
    for i, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[i] = n
        pos = pos + tc.arange(n, dtype=K.int64, device=input.device).reshape(*shape) * s
    pos = pos.expand(*size) if size else pos
    # where input's own elements sit in its storage
    own = tc.full((), input.storage_offset(), dtype=K.int64, device=input.device)
    for i, (n, s) in enumerate(zip(input.shape, input.stride())):
        shape = [1] * input.ndim
        shape[i] = n
        own = own + tc.arange(n, dtype=K.int64, device=input.device).reshape(*shape) * s
    own = own.reshape(-1)
    if own.numel() == 0:
        if pos.numel():
            raise RuntimeError("%s: the view reaches memory outside the tensor's elements" % name)
        return pos
    order = own.sort()
    found = tc.searchsorted(order.values, pos.reshape(-1)).clamp(max=own.numel() - 1)
    if pos.numel() and not bool((order.values.gather(0, found) == pos.reshape(-1)).all()):
        raise RuntimeError("%s: the view (size %s, stride %s, storage offset %d) reaches memory outside this "
                           "tensor's elements, which tc cannot address" % (name, size, stride, off))
    return order.indices.gather(0, found).reshape(*size)


def as_strided(input, size, stride, storage_offset=None):
    """The elements of the strided view (size, stride, storage_offset) of
    input's memory, like torch.as_strided, but as a copy (gathered, so
    differentiable; overlapping positions accumulate their gradients): libtc
    has no arbitrary strided views, so writes to the result do not reach input.
    The view may only touch memory of input's own elements.

    Returns:
        Tensor: a new tensor of ``size``.
    """
    idx = _strided_positions(input, size, stride, storage_offset, "as_strided")
    return input.reshape(-1).take(idx.reshape(-1)).reshape(*list(size))


def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """input with the elements of its strided view (size, stride,
    storage_offset) replaced by src, like torch.as_strided_scatter.

    Returns:
        Tensor: a new tensor.
    """
    idx = _strided_positions(input, size, stride, storage_offset, "as_strided_scatter")
    if tuple(src.shape) != tuple(size):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = %s, slice size = %s"
                           % (list(src.shape), list(size)))
    flat = input.reshape(-1).index_put((idx.reshape(-1),), src.to(input.dtype).reshape(-1))
    return flat.reshape(*input.shape)


def masked_scatter(input, mask, source):
    """input with the positions where mask (broadcast to input) is True
    filled, in order, by source's first elements, like torch.masked_scatter.

    Returns:
        Tensor: a new tensor.
    """
    if mask.dtype != K.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype %s" % mask.dtype)
    if source.dtype != input.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got %s and %s"
                           % (input.dtype, source.dtype))
    m = mask.expand(*input.shape).reshape(-1)
    where = m.nonzero().reshape(-1)
    k = where.shape[0]
    if source.numel() < k:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as ones in mask")
    return input.reshape(-1).index_put((where,), source.reshape(-1)[:k]).reshape(*input.shape)


def masked_scatter_(self, mask, source):
    """In-place :func:`masked_scatter`.

    Returns:
        Tensor: self.
    """
    return self.copy_(masked_scatter(self, mask, source))


_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduces source's slices into input's slices along dim at ``index``
    with prod, mean, amax or amin (include_self: input's values take part),
    like torch.index_reduce.

    Returns:
        Tensor: a new tensor.
    """
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s."
                           % reduce)
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    d = dim % max(input.ndim, 1)
    if source.ndim and source.shape[d] != index.numel():
        raise IndexError("index_reduce_(): Number of indices (%d) should be equal to source.size(dim) (%d)"
                         % (index.numel(), source.shape[d]))
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = index.numel()
    idx = index.reshape(*shape).expand(*source.shape) if source.ndim else index.reshape(())
    return input.scatter_reduce(d, idx, source, reduce, include_self=include_self)


def index_reduce_(self, dim, index, source, reduce, *, include_self=True):
    """In-place :func:`index_reduce`.

    Returns:
        Tensor: self.
    """
    return self.copy_(index_reduce(self, dim, index, source, reduce, include_self=include_self))


def renorm(input, p, dim, maxnorm):
    """input with each slice along dim (input.select(dim, i)) whose p-norm
    exceeds maxnorm rescaled to norm maxnorm, like torch.renorm.

    Returns:
        Tensor: a new tensor.
    """
    tc = _tc()
    if not input.dtype.is_floating_point:
        raise RuntimeError("renorm: expected a floating point input, got %s" % input.dtype)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError("renorm: expected maxnorm to be >= 0 but got %s" % maxnorm)
    if input.ndim <= 1:
        raise RuntimeError("renorm: input needs at least 2 dimensions, got %d dimensions" % input.ndim)
    d = dim % input.ndim
    others = tuple(i for i in range(input.ndim) if i != d)
    a = input.abs()
    norm = a.amax(others, keepdim=True) if p == float("inf") else (a ** p).sum(others, keepdim=True) ** (1.0 / p)
    factor = tc.where(norm > maxnorm, maxnorm / (norm + 1e-7), tc.ones((), dtype=input.dtype,
                                                                          device=input.device))
    return input * factor


def renorm_(self, p, dim, maxnorm):
    """In-place :func:`renorm`.

    Returns:
        Tensor: self.
    """
    return self.copy_(renorm(self, p, dim, maxnorm))


def split_with_sizes(input, split_sizes, dim=0):
    """Splits input along dim into pieces of exactly split_sizes (which must sum to its size).

    Returns:
        tuple of Tensor: views of input.
    """
    n = input.shape[dim]
    sizes = [int(s) for s in split_sizes]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at "
                           "dimension %d), but got split_sizes=%s" % (n, dim, sizes))
    out, start = [], 0
    for s in sizes:
        out.append(input.narrow(dim, start, s))
        start += s
    return tuple(out)


def unsafe_split(input, split_size, dim=0):
    """Same values as split (torch's unsafe variant only skips view tracking).

    Returns:
        tuple of Tensor: the pieces.
    """
    if not isinstance(split_size, numbers.Integral):
        return split_with_sizes(input, split_size, dim)
    return tuple(input.split(split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """Same values as :func:`split_with_sizes` (unsafe: no view tracking in torch).

    Returns:
        tuple of Tensor: the pieces.
    """
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):
    """Same values as chunk (unsafe: no view tracking in torch).

    Returns:
        tuple of Tensor: the chunks.
    """
    return tuple(input.chunk(chunks, dim))


def narrow_copy(input, dim, start, length):
    """A contiguous copy of input.narrow(dim, start, length).

    Returns:
        Tensor: a new tensor.
    """
    return input.narrow(dim, start, length).clone()


FUNCTIONS = {f.__name__: f for f in (
    diagonal_scatter, select_scatter, slice_scatter, as_strided, as_strided_scatter, diag_embed, masked_scatter,
    index_reduce, renorm, split_with_sizes, unsafe_split, unsafe_split_with_sizes, unsafe_chunk)}

METHODS = dict(FUNCTIONS, masked_scatter_=masked_scatter_, index_reduce_=index_reduce_, renorm_=renorm_,
               narrow_copy=narrow_copy)
