"""Sparse COO tensors in Python over dense tc tensors, like PyTorch's
torch.sparse_coo layout: a SparseTensor (a tc.Tensor subclass with no libtc
handle of its own) holds int64 ``indices`` (sparse_dim, nnz) and ``values``
(nnz, *dense_dims) and its size. Made by tc.sparse_coo_tensor or
Tensor.to_sparse(); to_dense, coalesce, indices/values, sparse_dim/dense_dim,
_nnz, transpose of sparse dims, scalar multiply, addition, and the sparse x
dense products (tc.sparse.mm, tc.spmm, tc.smm, tc.sspaddmm, @) are composed
from tc ops, so gradients flow to the dense operand and to the values.
Other Tensor methods raise NotImplementedError naming the op, as PyTorch
does for ops its sparse backend lacks. On a dense tensor, the sparse-only
methods (indices, values, coalesce, ...) raise as PyTorch's do."""
import numbers

from . import _core as K
from ._factory_keywords import layout
from ._tensor import Tensor
from ._tensor.sparse import _dense_only  # noqa: F401  (tc/_sparse_compressed.py's too)
from ._tensor_base import Size

sparse_coo = layout("sparse_coo")


def _tc():
    import tc
    return tc


def _make(indices, values, size, coalesced):
    s = object.__new__(SparseTensor)
    s._h = None
    s._dt = None
    s._ix, s._vals, s._sizes, s._coalesced = indices, values, tuple(int(n) for n in size), coalesced
    return s


def _strides(sizes):
    out, acc = [], 1
    for n in reversed(sizes):
        out.append(acc)
        acc *= n
    return out[::-1]


def _linear(indices, sizes):
    """Row-major positions of the index columns over the sparse dims."""
    tc = _tc()
    lin = tc.zeros(indices.shape[1], dtype=K.int64, device=indices.device)
    for k, st in enumerate(_strides(sizes)):
        lin = lin + indices[k] * st
    return lin


def _unsupported(name):
    def method(self, *args, **kwargs):
        raise NotImplementedError("Could not run 'aten::%s' with arguments from the 'SparseCPU' backend: tc's "
                                  "sparse tensors support to_dense(), coalesce(), indices(), values(), sparse "
                                  "x dense products, addition and scalar multiplication" % name.strip("_"))
    method.__name__ = method.__qualname__ = name
    method.__doc__ = "Not available for sparse tensors (convert with to_dense())."
    return method


# Tensor's operators a sparse tensor must not inherit (the other dunders are the object's own)
_UNSUPPORTED_DUNDERS = ("__getitem__", "__setitem__", "__iter__", "__pow__", "__and__", "__or__", "__lt__", "__le__",
                        "__gt__", "__ge__", "__eq__", "__ne__", "__abs__", "__float__", "__int__", "__bool__",
                        "__index__")
# Tensor methods that handle a sparse self themselves (the compressed layouts' conversions)
_SPARSE_AWARE = ("to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc")


def _unsupported_methods(own):
    """{name: a method raising NotImplementedError} for every Tensor method
    the class body ``own`` does not define: it would reach libtc with no
    handle."""
    out, seen = {}, set()
    for klass in Tensor.__mro__:  # (what dir() and getattr() would give, without their cost at import)
        for name, attr in vars(klass).items():
            if name in seen:
                continue  # a base's attribute the class before it overrides
            seen.add(name)
            if name in own or name in _SPARSE_AWARE or (name.startswith("__") and name not in _UNSUPPORTED_DUNDERS):
                continue
            if callable(attr) and not isinstance(attr, type):
                out[name] = _unsupported(name)
    return out


class SparseTensor(Tensor):
    """A sparse COO tensor (see the module docstring); ``is_sparse`` is True
    and ``layout`` is tc.sparse_coo."""

    __slots__ = ("_ix", "_vals", "_sizes", "_coalesced")

    def __new__(cls, *args, **kwargs):
        raise TypeError("make sparse tensors with tc.sparse_coo_tensor or Tensor.to_sparse()")

    # ------------------------------------------------------------ metadata
    @property
    def is_sparse(self):
        """True: a sparse COO tensor."""
        return True

    @property
    def layout(self):
        """tc.sparse_coo."""
        return sparse_coo

    @property
    def dtype(self):
        """The dtype of the values."""
        return self._vals.dtype

    @property
    def device(self):
        """The device of the indices and values."""
        return self._vals.device

    @property
    def is_cuda(self):
        """True when the values live on a CUDA device."""
        return self._vals.is_cuda

    @property
    def shape(self):
        """The (dense) shape, a tc.Size."""
        return Size(self._sizes)

    def size(self, dim=None):
        """The shape, or the size of one dim."""
        return self.shape if dim is None else self._sizes[dim]

    @property
    def ndim(self):
        """sparse_dim() + dense_dim()."""
        return len(self._sizes)

    def dim(self):
        """sparse_dim() + dense_dim()."""
        return self.ndim

    def numel(self):
        """The element count of the dense equivalent."""
        n = 1
        for s in self._sizes:
            n *= s
        return n

    def element_size(self):
        """The size of one value element in bytes."""
        return self._vals.element_size()

    def sparse_dim(self):
        """The number of sparse dims (rows of indices())."""
        return self._ix.shape[0]

    def dense_dim(self):
        """The number of dense dims (of each value)."""
        return self._vals.ndim - 1

    def _nnz(self):
        """The number of stored entries (index columns)."""
        return self._ix.shape[1]

    def is_coalesced(self):
        """True when the indices are sorted and without duplicates."""
        return self._coalesced

    def indices(self):
        """The (sparse_dim, nnz) int64 indices; the tensor must be coalesced, as in PyTorch."""
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._ix

    def values(self):
        """The (nnz, *dense) values; the tensor must be coalesced, as in PyTorch."""
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def _indices(self):
        """The indices, coalesced or not (PyTorch's _indices())."""
        return self._ix

    def _values(self):
        """The values, coalesced or not (PyTorch's _values())."""
        return self._vals

    def sparse_resize_(self, size, sparse_dim, dense_dim):
        """Resizes in place, like torch.Tensor.sparse_resize_: with stored
        entries, sparse_dim, dense_dim and the dense sizes must stay and no
        sparse size may shrink below an index; an empty tensor may change all.

        Returns:
            SparseTensor: self.
        """
        tc = _tc()
        size = [int(n) for n in size]
        if sparse_dim + dense_dim != len(size):
            raise RuntimeError("number of dimensions must be sparse_dim (%d) + dense_dim (%d), but got %d"
                               % (sparse_dim, dense_dim, len(size)))
        if self._nnz():
            if sparse_dim != self.sparse_dim() or dense_dim != self.dense_dim():
                raise RuntimeError("changing the number of sparse or dense dimensions on a non-empty sparse "
                                   "tensor is not supported")
            if size[sparse_dim:] != list(self._sizes[sparse_dim:]):
                raise RuntimeError("changing the dense dimension sizes of a non-empty sparse tensor is not "
                                   "supported")
            top = self._ix.max(1).values.tolist()
            if any(m >= n for m, n in zip(top, size[:sparse_dim])):
                raise RuntimeError("shrinking the size of dimensions (those which have indices) on a non-empty "
                                   "sparse tensor is not supported")
        else:
            self._ix = tc.zeros(sparse_dim, 0, dtype=K.int64, device=self._ix.device)
            self._vals = tc.zeros(0, *size[sparse_dim:], dtype=self._vals.dtype, device=self._vals.device)
        self._sizes = tuple(size)
        return self

    def sparse_resize_and_clear_(self, size, sparse_dim, dense_dim):
        """Removes every stored entry, then resizes (any sparse_dim / dense_dim).

        Returns:
            SparseTensor: self.
        """
        tc = _tc()
        self._ix = tc.zeros(self._ix.shape[0], 0, dtype=K.int64, device=self._ix.device)
        self._vals = tc.zeros(0, *self._vals.shape[1:], dtype=self._vals.dtype, device=self._vals.device)
        self._coalesced = True
        return self.sparse_resize_(size, sparse_dim, dense_dim)

    def resize_as_sparse_(self, src):
        """:meth:`sparse_resize_` to src's size, sparse_dim and dense_dim.

        Returns:
            SparseTensor: self.
        """
        if tuple(src.shape) == self._sizes and src.sparse_dim() == self.sparse_dim():
            return self
        return self.sparse_resize_(tuple(src.shape), src.sparse_dim(), src.dense_dim())

    # ------------------------------------------------------------ autograd
    @property
    def requires_grad(self):
        """Whether the values require grad."""
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._vals.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """Sets requires_grad on the values; returns self."""
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def is_leaf(self):
        """Whether the values are a graph leaf."""
        return self._vals.is_leaf

    @property
    def grad(self):
        """The gradient with respect to the dense equivalent at the stored
        positions, as a coalesced sparse tensor (None before backward)."""
        g = self._vals.grad
        if g is None:
            return None
        if self._coalesced:
            return self._like(self._ix, g, self._sizes, True)
        # duplicates each got the full gradient of their position: keep it once
        tc = _tc()
        summed = _make(self._ix, g, self._sizes, False).coalesce()
        ones = tc.ones(self._ix.shape[1], dtype=g.dtype, device=g.device)
        counts = _make(self._ix, ones, self._sizes[:self.sparse_dim()], False).coalesce()._vals
        per = counts.reshape(-1, *([1] * (g.ndim - 1)))
        return _make(summed._ix, summed._vals / per, self._sizes, True)

    @property
    def grad_fn(self):
        """The node that made the values (None for a leaf)."""
        return self._vals.grad_fn

    @property
    def data(self):
        """The same sparse tensor with detached values."""
        return self.detach()

    def detach(self):
        """The same indices with detached values."""
        return self._like(self._ix, self._vals.detach(), self._sizes, self._coalesced)

    def _like(self, indices, values, size, coalesced):
        """A tensor of this kind (layout) with these parts."""
        return _make(indices, values, size, coalesced)

    # ------------------------------------------------------------ conversions
    def to_dense(self, dtype=None):
        """The dense tensor (duplicates summed); differentiable in the values.

        Returns:
            Tensor: a dense tensor of self's shape.
        """
        tc = _tc()
        values = self._vals if dtype is None else self._vals.to(dtype)
        out = tc.zeros(*self._sizes, dtype=values.dtype, device=values.device)
        if self._nnz() == 0:
            return out + values.sum() * 0 if values.requires_grad else out
        idx = tuple(self._ix[k] for k in range(self.sparse_dim()))
        return out.index_put(idx, values, True)

    def coalesce(self):
        """The same tensor with sorted, unique indices (duplicates' values summed).

        Returns:
            SparseTensor: coalesced (self when already coalesced).
        """
        tc = _tc()
        if self._coalesced:
            return self
        sizes = self._sizes[:self.sparse_dim()]
        if self._nnz() == 0:
            return _make(self._ix, self._vals, self._sizes, True)
        lin = _linear(self._ix, sizes)
        uniq, inverse = tc.unique(lin, return_inverse=True)
        values = tc.zeros(uniq.shape[0], *self._vals.shape[1:], dtype=self._vals.dtype,
                          device=self._vals.device).index_add(0, inverse, self._vals)
        rows, rest = [], uniq
        for st in _strides(sizes):
            rows.append(rest.div(st, rounding_mode="floor"))
            rest = rest - rows[-1] * st
        return _make(tc.stack(rows) if rows else self._ix[:, :0], values, self._sizes, True)

    def to_sparse(self, sparse_dim=None):
        """self (already sparse with that many sparse dims)."""
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion between sparse_dims of a sparse tensor is not supported")
        return self

    def to_sparse_coo(self):
        """self."""
        return self

    def to(self, *args, **kwargs):
        """Converts the values (dtype and/or device) and the indices (device).

        Returns:
            SparseTensor: the converted tensor.
        """
        values = self._vals.to(*args, **kwargs)
        indices = self._ix.to(values.device)
        return self._like(indices, values, self._sizes, self._coalesced)

    def double(self):
        """The values as float64."""
        return self.to(K.float64)

    def float(self):
        """The values as float32."""
        return self.to(K.float32)

    def cpu(self):
        """The tensor on the CPU."""
        return self.to("cpu")

    def clone(self):
        """A copy of the indices and values (differentiable in the values)."""
        return self._like(self._ix.clone(), self._vals.clone(), self._sizes, self._coalesced)

    # ------------------------------------------------------------ math
    def t(self):
        """The transpose of a 2-D sparse matrix."""
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
            raise RuntimeError("t() expects a 2-D sparse tensor with no dense dims")
        return self.transpose(0, 1)

    def transpose(self, dim0, dim1):
        """Swaps two sparse dims (the result is uncoalesced unless trivially sorted)."""
        tc = _tc()
        d0, d1 = dim0 % self.ndim, dim1 % self.ndim
        if d0 >= self.sparse_dim() or d1 >= self.sparse_dim():
            raise RuntimeError("transpose: tc swaps sparse dims only (sparse_dim=%d)" % self.sparse_dim())
        order = list(range(self.sparse_dim()))
        order[d0], order[d1] = order[d1], order[d0]
        size = list(self._sizes)
        size[d0], size[d1] = size[d1], size[d0]
        indices = tc.stack([self._ix[k] for k in order]) if order else self._ix
        return _make(indices, self._vals, size, d0 == d1 and self._coalesced)

    def mul(self, other):
        """Multiplies the values by a number (a sparse result)."""
        if isinstance(other, numbers.Number) or (isinstance(other, Tensor) and not other.is_sparse
                                                 and other.ndim == 0):
            return self._like(self._ix, self._vals * other, self._sizes, self._coalesced)
        raise NotImplementedError("tc sparse tensors multiply by numbers and 0-dim tensors only")

    __mul__ = __rmul__ = mul

    def div(self, other):
        """Divides the values by a number."""
        return self.mul(1.0 / other) if isinstance(other, numbers.Number) else NotImplemented

    __truediv__ = div

    def neg(self):
        """The negated values."""
        return self._like(self._ix, -self._vals, self._sizes, self._coalesced)

    __neg__ = neg

    def add(self, other, *, alpha=1):
        """sparse + sparse (same size) is sparse (uncoalesced); sparse + dense raises, as in PyTorch."""
        tc = _tc()
        if isinstance(other, SparseTensor):
            if tuple(other.shape) != tuple(self.shape):
                raise RuntimeError("add: expected sizes to match, got %s and %s" % (list(self.shape),
                                                                                   list(other.shape)))
            ov = other._vals if alpha == 1 else other._vals * alpha
            return _make(tc.cat([self._ix, other._ix], 1), tc.cat([self._vals, ov]),
                         self._sizes, False)
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")

    __add__ = add

    def sub(self, other, *, alpha=1):
        """self - alpha * other."""
        return self.add(other, alpha=-alpha)

    __sub__ = sub

    def sum(self, dim=None, keepdim=False, dtype=None):
        """The sum of all elements (a dense scalar), or along dims of the dense equivalent."""
        if dim is None:
            v = self._vals if dtype is None else self._vals.to(dtype)
            return v.sum()
        return self.to_dense(dtype).sum(dim, keepdim=keepdim)

    def mm(self, mat2):
        """sparse (n, m) @ dense (m, p) -> dense (n, p) (see tc.sparse.mm)."""
        return mm(self, mat2)

    matmul = mm

    def __matmul__(self, other):
        return mm(self, other)

    def smm(self, mat):
        """sparse @ dense as a sparse tensor (see tc.smm)."""
        return smm(self, mat)

    def sspaddmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2), sparse (see tc.sspaddmm)."""
        return sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def __repr__(self):
        extra = "" if self.dtype == K.get_default_dtype() else ", dtype=%s" % self.dtype
        return ("tensor(indices=%r,\n       values=%r,\n       size=%s, nnz=%d%s, layout=tc.sparse_coo)"
                % (self._ix, self._vals, tuple(self._sizes), self._nnz(), extra))

    __str__ = __repr__

    def __len__(self):
        if not self._sizes:
            raise TypeError("len() of a 0-d tensor")
        return self._sizes[0]

    __hash__ = object.__hash__

    def __radd__(self, other):
        """other + self for a dense tensor (or number) other: a dense result.
        Tensor.__add__ cannot take a sparse operand (no handle); as the
        subclass, this reflected form is what Python tries first."""
        if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
            return other + self.to_dense()
        return NotImplemented

    # every other Tensor method would reach libtc with no handle: each raises instead
    # (a class namespace is a plain dict while its body runs)
    locals().update(_unsupported_methods(locals()))


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, requires_grad=False,
                      check_invariants=None):
    """A sparse COO tensor from (sparse_dim, nnz) int64 indices and
    (nnz, *dense) values, like torch.sparse_coo_tensor (uncoalesced: call
    coalesce() to sum duplicates). The size is inferred from the indices
    when not given.

    Returns:
        SparseTensor: the tensor.
    """
    tc = _tc()
    T = Tensor
    if not isinstance(indices, T):
        indices = tc.tensor(indices, dtype=K.int64, device=device)
    if not isinstance(values, T):
        values = tc.tensor(values, dtype=dtype, device=device)
    if dtype is not None:
        values = values.to(dtype)
    if device is not None:
        values, indices = values.to(device), indices.to(device)
    if indices.dtype != K.int64:
        raise RuntimeError("indices must be an int64 tensor")
    if indices.ndim != 2:
        raise RuntimeError("indices must be sparse_dim x nnz, but got: %s" % list(indices.shape))
    if values.ndim == 0:
        raise RuntimeError("values must be at least 1-dimensional (nnz, *dense)")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError("indices and values must have same nnz, but got nnz from indices: %d, nnz from values: "
                           "%d" % (indices.shape[1], values.shape[0]))
    sd, nnz = indices.shape
    if nnz and bool((indices < 0).any()):
        raise RuntimeError("found negative index %d for dim %d" % (int(indices.min()),
                                                                   int(indices.min(1).values.argmin())))
    if size is None:
        top = [int(m) + 1 for m in indices.max(1).values.tolist()] if nnz else [0] * sd
        size = top + list(values.shape[1:])
    else:
        size = [int(s) for s in size]
        if len(size) != sd + values.ndim - 1:
            raise RuntimeError("number of dimensions must be sparse_dim (%d) + dense_dim (%d), but got %d"
                               % (sd, values.ndim - 1, len(size)))
        if list(values.shape[1:]) != size[sd:]:
            raise RuntimeError("values has incorrect size, expected %s, got %s"
                               % ([nnz] + size[sd:], list(values.shape)))
        if nnz:
            top = indices.max(1).values.tolist()
            for d, (m, n) in enumerate(zip(top, size[:sd])):
                if m >= n:
                    raise RuntimeError("size is inconsistent with indices: for dim %d, size is %d but found index "
                                       "%d" % (d, n, m))
    if requires_grad:
        values = values.detach().requires_grad_(True)
    return _make(indices, values, size, nnz <= 1)


def to_sparse(self, sparse_dim=None):
    """The sparse COO form of a dense tensor: its nonzero entries over the
    first ``sparse_dim`` dims (default: all), like torch.Tensor.to_sparse.
    The values stay differentiable.

    Returns:
        SparseTensor: a coalesced sparse tensor.
    """
    tc = _tc()
    sd = self.ndim if sparse_dim is None else int(sparse_dim)
    if sd < 0 or sd > self.ndim:
        raise RuntimeError("sparse_dim must be in [0, %d], got %d" % (self.ndim, sd))
    sizes = list(self.shape[:sd])
    n = 1
    for s in sizes:
        n *= s
    flat = self.reshape(n, *self.shape[sd:]) if sd else self.reshape(1, *self.shape)
    nz = flat != 0
    if flat.ndim > 1:
        nz = nz.reshape(n if sd else 1, -1).any(1) if nz.numel() else tc.zeros(n if sd else 1, dtype=K.bool_)
    rows = nz.nonzero().reshape(-1)
    values = flat.index_select(0, rows)
    if sd == 0:
        return _make(tc.zeros(0, values.shape[0], dtype=K.int64, device=self.device), values, self.shape, True)
    idx, rest = [], rows
    for st in _strides(sizes):
        idx.append(rest.div(st, rounding_mode="floor"))
        rest = rest - idx[-1] * st
    return _make(tc.stack(idx), values, self.shape, True)


def to_sparse_coo(self):
    """:func:`to_sparse` with all dims sparse."""
    return to_sparse(self)


def to_dense(self, dtype=None):
    """self (a dense tensor is its own dense form), converted to dtype if given."""
    return self if dtype is None else self.to(dtype)


def sparse_mask(self, mask):
    """The entries of this dense tensor at the indices of the sparse ``mask``, as a sparse tensor.

    Returns:
        SparseTensor: mask's (coalesced) indices with self's values there.
    """
    if not isinstance(mask, SparseTensor):
        raise RuntimeError("sparse_mask: expected mask to be a sparse COO tensor")
    if tuple(mask.shape) != tuple(self.shape):
        raise RuntimeError("sparse_mask(): operands have incompatible sizes; self has size %s but mask has size %s"
                           % (list(self.shape), list(mask.shape)))
    m = mask.coalesce()
    sd = m.sparse_dim()
    sizes = list(self.shape[:sd])
    n = 1
    for s in sizes:
        n *= s
    rows = _linear(m._ix, sizes)
    values = self.reshape(n, *self.shape[sd:]).index_select(0, rows)
    return _make(m._ix, values, self.shape, True)


def _check_mm(sparse, dense, name):
    if not isinstance(sparse, SparseTensor):
        raise RuntimeError("%s: expected a sparse COO first argument" % name)
    if sparse.sparse_dim() != 2 or sparse.dense_dim() != 0:
        raise RuntimeError("%s: expected a 2-D sparse matrix, got sparse_dim=%d, dense_dim=%d"
                           % (name, sparse.sparse_dim(), sparse.dense_dim()))
    if isinstance(dense, SparseTensor):
        dense = dense.to_dense()
    if dense.ndim != 2 or dense.shape[0] != sparse.shape[1]:
        raise RuntimeError("mat1 and mat2 shapes cannot be multiplied (%dx%d and %s)"
                           % (sparse.shape[0], sparse.shape[1], "x".join(map(str, dense.shape))))
    return dense


def mm(mat1, mat2):
    """sparse (n, m) @ dense (m, p) -> dense (n, p), like torch.sparse.mm /
    torch.spmm: gathers mat2's rows at the column indices, scales them by
    the values and adds them into the output rows (differentiable in mat2
    and the values). A dense mat1 gives the ordinary product.

    Returns:
        Tensor: the dense product.
    """
    tc = _tc()
    if not isinstance(mat1, SparseTensor):
        return mat1.mm(mat2.to_dense() if isinstance(mat2, SparseTensor) else mat2)
    dense = _check_mm(mat1, mat2, "mm")
    if mat1.dtype != dense.dtype:
        raise RuntimeError("expected mat1 and mat2 to have the same dtype, but got: %s != %s"
                           % (mat1.dtype, dense.dtype))
    rows, cols = mat1._ix[0], mat1._ix[1]
    contrib = dense.index_select(0, cols) * mat1._vals.unsqueeze(1)
    out = tc.zeros(mat1.shape[0], dense.shape[1], dtype=dense.dtype, device=dense.device)
    return out.index_add(0, rows, contrib)


def spmm(input, mat2):
    """The older name of :func:`mm` for sparse x dense."""
    return mm(input, mat2)


def smm(input, mat):
    """sparse (n, m) @ dense (m, p) as a sparse tensor holding every column of
    each row that has a stored entry, like torch.smm.

    Returns:
        SparseTensor: a coalesced (n, p) sparse tensor.
    """
    tc = _tc()
    dense = mm(input, mat)
    rows = tc.unique(input._ix[0]) if input._nnz() else input._ix[0]
    p = dense.shape[1]
    r = rows.repeat_interleave(p)
    c = tc.arange(p, dtype=K.int64, device=dense.device).repeat(rows.shape[0])
    values = dense.index_select(0, rows).reshape(-1)
    return _make(tc.stack([r, c]), values, (dense.shape[0], p), True)


def sspaddmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) as a sparse tensor (input and
    mat1 sparse, mat2 dense), like torch.sspaddmm; the result is uncoalesced.

    Returns:
        SparseTensor: the sum.
    """
    if not isinstance(input, SparseTensor):
        raise RuntimeError("sspaddmm: expected a sparse COO input")
    prod = smm(mat1, mat2)
    if tuple(prod.shape) != tuple(input.shape):
        raise RuntimeError("sspaddmm: input has size %s but the product has size %s"
                           % (list(input.shape), list(prod.shape)))
    return (input * beta).add(prod * alpha)


FUNCTIONS = {"sparse_coo_tensor": sparse_coo_tensor, "spmm": spmm, "smm": smm, "sspaddmm": sspaddmm,
             "sparse_coo": sparse_coo, "SparseTensor": SparseTensor}



def install(namespace):
    """Adds the sparse functions and tc.sparse to ``namespace``, where absent."""
    from . import sparse
    for name, f in FUNCTIONS.items():
        namespace.setdefault(name, f)
    namespace.setdefault("sparse", sparse)
