"""PyTorch's matrix and vector products composed from tc ops (so autograd
comes for free): mm, mv, addmv, addr, addbmm, vdot, inner, kron, tensordot,
cross, cdist, trace, as tc.* functions and, through MatrixProductMethods
(a base class of tc.Tensor), as Tensor methods, with the in-place forms
(addmm_, addmv_, addr_, addbmm_, baddbmm_)."""
import numbers
from ._tensor_base import cat, where
from ._factory_keywords import write_out
from ._shape_ops import diagonal, dot


def _require_dim(t, n, what):
    if t.ndim != n:
        raise RuntimeError("%s must be a %d-D tensor, got a %d-D one" % (what, n, t.ndim))


def _same_dtype(a, b, op):
    if a.dtype != b.dtype:
        raise RuntimeError("%s: expected both operands to have the same dtype, but got %s and %s"
                           % (op, a.dtype, b.dtype))


def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, where beta == 0 ignores input (NaN and
    inf in it do not propagate), as PyTorch's add*mm family."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        shape = _broadcast_shape(input.shape, product.shape)
        return product if tuple(product.shape) == shape else product.expand(*shape).contiguous()
    return product + (input if beta == 1 else input * beta)


def _broadcast_shape(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise RuntimeError("shapes %s and %s cannot be broadcast" % (a, b))
        out.append(max(x, y) if 1 in (x, y) else x)
    return tuple(out)


def mm(input, mat2):
    """The matrix product of two 2-D tensors, like torch.mm.

    Args:
        input (Tensor): an (n, m) matrix.
        mat2 (Tensor): an (m, p) matrix.

    Returns:
        Tensor: the (n, p) product.
    """
    _require_dim(input, 2, "self")
    _require_dim(mat2, 2, "mat2")
    _same_dtype(input, mat2, "mm")
    return input.matmul(mat2)


def mv(input, vec):
    """The product of a matrix and a vector, like torch.mv.

    Args:
        input (Tensor): an (n, m) matrix.
        vec (Tensor): a vector of size m.

    Returns:
        Tensor: a vector of size n.
    """
    _require_dim(input, 2, "self")
    _require_dim(vec, 1, "vec")
    _same_dtype(input, vec, "mv")
    return input.matmul(vec)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``, like torch.addmv.

    Args:
        input (Tensor): broadcastable to size n.
        mat (Tensor): an (n, m) matrix.
        vec (Tensor): a vector of size m.
        beta (Number): the factor of ``input`` (0 ignores it).
        alpha (Number): the factor of the product.

    Returns:
        Tensor: a vector of size n.
    """
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``, like torch.addr.

    Args:
        input (Tensor): broadcastable to (n, m).
        vec1 (Tensor): a vector of size n.
        vec2 (Tensor): a vector of size m.
        beta (Number): the factor of ``input`` (0 ignores it).
        alpha (Number): the factor of the outer product.

    Returns:
        Tensor: an (n, m) matrix.
    """
    _require_dim(vec1, 1, "vec1")
    _require_dim(vec2, 1, "vec2")
    return _scaled_sum(input, vec1.unsqueeze(1) * vec2.unsqueeze(0), beta, alpha)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``, like torch.addbmm.

    Args:
        input (Tensor): broadcastable to (n, p).
        batch1 (Tensor): (b, n, m) matrices.
        batch2 (Tensor): (b, m, p) matrices.
        beta (Number): the factor of ``input`` (0 ignores it).
        alpha (Number): the factor of the summed products.

    Returns:
        Tensor: an (n, p) matrix.
    """
    _require_dim(batch1, 3, "batch1")
    _require_dim(batch2, 3, "batch2")
    return _scaled_sum(input, batch1.bmm(batch2).sum(0), beta, alpha)


def vdot(input, other):
    """The dot product of two 1-D tensors (the first conjugated; tc tensors
    are real, so this is :func:`tc.dot`).

    Args:
        input (Tensor): a 1-D tensor.
        other (Tensor): a 1-D tensor of the same size and dtype.

    Returns:
        Tensor: a 0-D tensor.
    """
    return dot(input, other)


def inner(input, other):
    """The inner product over the last dimension, like torch.inner (a scalar
    operand multiplies).

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor with the same last size.

    Returns:
        Tensor: shape ``input.shape[:-1] + other.shape[:-1]``.
    """
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got shapes %s "
                           "and %s" % (list(input.shape), list(other.shape)))
    return tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]))


def kron(input, other):
    """The Kronecker product, like torch.kron: for operands of n dimensions
    (the smaller padded with leading 1s), block (i0, i1, ...) of the result is
    ``input[i0, i1, ...] * other``.

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor.

    Returns:
        Tensor: shape ``input.shape[k] * other.shape[k]`` per dimension.
    """
    n = max(input.ndim, other.ndim)
    a_shape = (1,) * (n - input.ndim) + tuple(input.shape)
    b_shape = (1,) * (n - other.ndim) + tuple(other.shape)
    # interleave: a gets a 1 after each dim, b a 1 before each, so the
    # product's dims pair up as (a0, b0, a1, b1, ...)
    a = input.reshape(*[s for d in a_shape for s in (d, 1)])
    b = other.reshape(*[s for d in b_shape for s in (1, d)])
    return (a * b).reshape(*[x * y for x, y in zip(a_shape, b_shape)])


def _dims_pair(a, b, dims):
    if isinstance(dims, numbers.Integral) or (hasattr(dims, "ndim") and dims.ndim == 0):
        k = int(dims)
        if k < 0:
            raise RuntimeError("tensordot expects dims >= 0, but got dims=%d" % k)
        if k > a.ndim or k > b.ndim:
            raise RuntimeError("tensordot expects dims < ndim_a or ndim_b, but got dims=%d" % k)
        return list(range(a.ndim - k, a.ndim)), list(range(k))
    da, db = dims
    da = [da] if isinstance(da, numbers.Integral) else [int(d) for d in da]
    db = [db] if isinstance(db, numbers.Integral) else [int(d) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return [d % a.ndim for d in da], [d % b.ndim for d in db]


def tensordot(a, b, dims=2, out=None):
    """Sums the products of ``a``'s and ``b``'s elements over the given
    dimensions, like torch.tensordot.

    Args:
        a (Tensor): the left tensor.
        b (Tensor): the right tensor.
        dims (int or pair of sequences): the last ``dims`` of ``a`` with the
            first ``dims`` of ``b``, or the lists of dimensions to contract.
        out (Tensor, optional): where to write the result.

    Returns:
        Tensor: ``a``'s free dims followed by ``b``'s.
    """
    da, db = _dims_pair(a, b, dims)
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError("contracted dimensions need to match, but first has size %d in dim %d and "
                               "second has size %d in dim %d" % (a.shape[x], x, b.shape[y], y))
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    m = 1
    for d in free_a:
        m *= a.shape[d]
    n = 1
    for d in free_b:
        n *= b.shape[d]
    a2 = a.permute(*(free_a + da)).reshape(m, k)
    b2 = b.permute(*(db + free_b)).reshape(k, n)
    result = a2.matmul(b2).reshape(*([a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]))
    return _into(out, result)


def _into(out, result):
    if out is None:
        return result
    return write_out(out, result)


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim``, like torch.cross (dim
    None: the first dimension of size 3, PyTorch 1.13's deprecated default).

    Args:
        input (Tensor): a tensor.
        other (Tensor): broadcastable to ``input``.
        dim (int, optional): a dimension of size 3.

    Returns:
        Tensor: the broadcast shape.
    """
    shape = _broadcast_shape(input.shape, other.shape)
    a, b = input.expand(*shape), other.expand(*shape)
    if dim is None:
        dims = [d for d, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    dim = dim % len(shape) if shape else dim
    if shape[dim] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
                           % (dim, input.shape[dim] if input.ndim == len(shape) else 1,
                              other.shape[dim] if other.ndim == len(shape) else 1))
    a0, a1, a2 = (a.narrow(dim, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(dim, i, 1) for i in range(3))
    return cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between each row of ``x1`` and each row of
    ``x2`` (batched over leading dims), like torch.cdist; the gradient at a
    zero distance is 0, as PyTorch's.

    Args:
        x1 (Tensor): (..., P, M).
        x2 (Tensor): (..., R, M).
        p (float): the norm's order, >= 0 (``inf`` for the largest difference).
        compute_mode (str): accepted for compatibility (tc always takes the
            differences directly, PyTorch's exact mode).

    Returns:
        Tensor: (..., P, R).
    """
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError("cdist only supports at least 2D tensors, X1 got: %dD" % x1.ndim)
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError("X1 and X2 must have the same number of columns. X1: %d X2: %d"
                           % (x1.shape[-1], x2.shape[-1]))
    diff = (x1.unsqueeze(-2) - x2.unsqueeze(-3)).abs()
    if p == 0:
        return (diff != 0).to(x1.dtype).sum(-1)
    if p == float("inf"):
        return diff.amax(-1) if hasattr(diff, "amax") else diff.max(-1)[0]
    if p == 1:
        return diff.sum(-1)
    powered = (diff * diff) if p == 2 else diff ** p
    s = powered.sum(-1)
    positive = s > 0
    # a root of 0 has an infinite derivative: take it of 1 there and zero
    # the result, so the gradient is 0 (PyTorch's) instead of NaN
    safe = where(positive, s, s.new_ones(()))
    root = safe.sqrt() if p == 2 else safe ** (1.0 / p)
    return where(positive, root, s.new_zeros(()))


def trace(input):
    """The sum of the main diagonal of a 2-D tensor, like torch.trace.

    Args:
        input (Tensor): a matrix.

    Returns:
        Tensor: a 0-D tensor.
    """
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim %d" % input.ndim)
    return diagonal(input).sum()


FUNCTIONS = {f.__name__: f for f in (mm, mv, addmv, addr, addbmm, vdot, inner, kron, tensordot, cross, cdist,
                                     trace)}


class MatrixProductMethods:
    """The Tensor methods of the products above (a base class of tc.Tensor)."""

    __slots__ = ()

    def mm(self, mat2):
        """See :func:`tc.mm`."""
        return mm(self, mat2)

    def mv(self, vec):
        """See :func:`tc.mv`."""
        return mv(self, vec)

    def addmv(self, mat, vec, *, beta=1, alpha=1):
        """See :func:`tc.addmv`."""
        return addmv(self, mat, vec, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, *, beta=1, alpha=1):
        """See :func:`tc.addr`."""
        return addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """See :func:`tc.addbmm`."""
        return addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def vdot(self, other):
        """See :func:`tc.vdot`."""
        return vdot(self, other)

    def inner(self, other):
        """See :func:`tc.inner`."""
        return inner(self, other)

    def kron(self, other):
        """See :func:`tc.kron`."""
        return kron(self, other)

    def cross(self, other, dim=None):
        """See :func:`tc.cross`."""
        return cross(self, other, dim)

    def trace(self):
        """See :func:`tc.trace`."""
        return trace(self)

    def addmm_(self, mat1, mat2, *, beta=1, alpha=1):
        """In-place :meth:`addmm`."""
        return self.copy_(self.addmm(mat1, mat2, beta=beta, alpha=alpha))

    def addmv_(self, mat, vec, *, beta=1, alpha=1):
        """In-place :meth:`addmv`."""
        return self.copy_(addmv(self, mat, vec, beta=beta, alpha=alpha))

    def addr_(self, vec1, vec2, *, beta=1, alpha=1):
        """In-place :meth:`addr`."""
        return self.copy_(addr(self, vec1, vec2, beta=beta, alpha=alpha))

    def addbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """In-place :meth:`addbmm`."""
        return self.copy_(addbmm(self, batch1, batch2, beta=beta, alpha=alpha))

    def baddbmm_(self, batch1, batch2, *, beta=1, alpha=1):
        """In-place :meth:`baddbmm`."""
        return self.copy_(self.baddbmm(batch1, batch2, beta=beta, alpha=alpha))
