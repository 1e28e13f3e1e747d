"""Functions of PyTorch's torch namespace composed from tc ops (autograd
comes for free): stacking and splitting helpers (hstack, vstack, atleast_2d,
tensor_split, ...), shape queries (broadcast_shapes, broadcast_tensors),
small constructors (tril_indices, vander, block_diag, cartesian_prod),
elementwise helpers (deg2rad, xlogy, heaviside, fmax, nan_to_num, ...) and
type queries (result_type, can_cast). tc/__init__.py adds each one only
where tc has no function of that name, so a native version always wins."""
import builtins
import math
import numbers

from . import _core as K
from ._tensor_base import Size, TensorBase, _unary, cat, ones, stack, tensor, where, zeros
from ._shape_ops import diag, meshgrid


def _tensor(*args, **kwargs):
    return tensor(*args, **kwargs)


def _cat(tensors, dim=0):
    return cat(tensors, dim)


def _seq_args(tensors):
    """f(a, b) and f([a, b]) alike, as PyTorch's atleast_*d."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0]), True
    return list(tensors), len(tensors) != 1


def _each_of(tensors, fix):
    """fix applied to each input of an atleast_* call: one result, or a tuple for several."""
    ts, many = _seq_args(tensors)
    out = [fix(t) for t in ts]
    return tuple(out) if many else out[0]


# ---------------------------------------------------------------- shapes

def atleast_1d(*tensors):
    """Each input with at least 1 dimension (a 0-d tensor becomes shape (1,)).

    Args:
        *tensors (Tensor): one tensor, several, or one sequence of them.

    Returns:
        Tensor, or a tuple of them for several inputs.
    """
    return _each_of(tensors, lambda t: t.reshape(1) if t.ndim == 0 else t)


def atleast_2d(*tensors):
    """Each input with at least 2 dimensions: (n,) becomes (1, n).

    Args:
        *tensors (Tensor): one tensor, several, or one sequence of them.

    Returns:
        Tensor, or a tuple of them for several inputs.
    """
    return _each_of(tensors, lambda t: t.reshape(1, 1) if t.ndim == 0 else (t.unsqueeze(0) if t.ndim == 1 else t))


def atleast_3d(*tensors):
    """Each input with at least 3 dimensions: (n,) -> (1, n, 1), (m, n) -> (m, n, 1).

    Args:
        *tensors (Tensor): one tensor, several, or one sequence of them.

    Returns:
        Tensor, or a tuple of them for several inputs.
    """
    def three(t):
        if t.ndim == 0:
            return t.reshape(1, 1, 1)
        if t.ndim == 1:
            return t.reshape(1, t.shape[0], 1)
        if t.ndim == 2:
            return t.unsqueeze(2)
        return t

    return _each_of(tensors, three)


def hstack(tensors):
    """Concatenates along dim 1 (dim 0 for 1-D inputs), like torch.hstack.

    Args:
        tensors (sequence of Tensor): the tensors.

    Returns:
        Tensor: the result.
    """
    ts = atleast_1d(list(tensors))
    return _cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors):
    """Concatenates along dim 0 after making inputs at least 2-D, like torch.vstack.

    Args:
        tensors (sequence of Tensor): the tensors.

    Returns:
        Tensor: the result.
    """
    return _cat(atleast_2d(list(tensors)), 0)


row_stack = vstack


def dstack(tensors):
    """Concatenates along dim 2 after making inputs at least 3-D, like torch.dstack.

    Args:
        tensors (sequence of Tensor): the tensors.

    Returns:
        Tensor: the result.
    """
    return _cat(atleast_3d(list(tensors)), 2)


def column_stack(tensors):
    """Stacks 0-D/1-D inputs as columns and concatenates 2-D ones along dim 1.

    Args:
        tensors (sequence of Tensor): the tensors.

    Returns:
        Tensor: the result.
    """
    cols = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors]
    return _cat(cols, 1)


def swapaxes(input, axis0, axis1):
    """Same as :func:`tc.transpose` (NumPy's name).

    Args:
        input (Tensor): the tensor.
        axis0 (int): a dimension.
        axis1 (int): another dimension.

    Returns:
        Tensor: a view.
    """
    return input.transpose(axis0, axis1)


swapdims = swapaxes


def ravel(input):
    """The elements as a 1-D tensor (a view when possible).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: 1-D.
    """
    return input.reshape(-1)


def fliplr(input):
    """Reverses dim 1 (left/right), like torch.fliplr.

    Args:
        input (Tensor): at least 2-D.

    Returns:
        Tensor: the result.
    """
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


def flipud(input):
    """Reverses dim 0 (up/down), like torch.flipud.

    Args:
        input (Tensor): at least 1-D.

    Returns:
        Tensor: the result.
    """
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)


def rot90(input, k=1, dims=(0, 1)):
    """Rotates by 90 degrees k times in the plane of dims, from the first
    towards the second, like torch.rot90.

    Args:
        input (Tensor): at least 2-D.
        k (int): the number of quarter turns (any integer).
        dims (pair of int): the plane.

    Returns:
        Tensor: the result.
    """
    d0, d1 = dims
    if len(dims) != 2 or input.ndim < 2 or d0 % input.ndim == d1 % input.ndim:
        raise RuntimeError("rot90: expected two distinct dims of a tensor of at least 2 dimensions")
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip(d0).flip(d1)
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to, like torch.broadcast_shapes.

    Args:
        *shapes (int or sequence of int): the shapes.

    Returns:
        tc.Size: the broadcast shape.
    """
    dims = []
    for s in shapes:
        s = (s,) if isinstance(s, numbers.Integral) else tuple(s)
        for i in range(1, len(s) + 1):
            if len(dims) < i:
                dims.insert(0, 1)
            cur, new = dims[-i], s[-i]
            if cur == 1:
                dims[-i] = new
            elif new != 1 and new != cur:
                raise RuntimeError("Shape mismatch: objects cannot be broadcast to a single shape")
    return Size(dims)


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (views), like torch.broadcast_tensors.

    Args:
        *tensors (Tensor): the tensors.

    Returns:
        tuple of Tensor.
    """
    shape = broadcast_shapes(*[t.shape for t in tensors])
    return tuple(t.expand(*shape) for t in tensors)


def tensor_split(input, indices_or_sections, dim=0):
    """Splits into views along dim: n near-equal parts (the first size % n one
    longer) or at the given indices, like torch.tensor_split.

    Args:
        input (Tensor): the tensor.
        indices_or_sections (int or sequence of int): the count or the split points.
        dim (int): the dimension.

    Returns:
        tuple of Tensor.
    """
    size = input.shape[dim]
    if isinstance(indices_or_sections, numbers.Integral) or (
            isinstance(indices_or_sections, TensorBase) and indices_or_sections.ndim == 0):
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError("number of sections must be larger than 0, got %d" % n)
        q, r = divmod(size, n)
        points, at = [], 0
        for i in range(n - 1):
            at += q + (1 if i < r else 0)
            points.append(at)
    else:
        points = [int(i) for i in indices_or_sections]
    parts, start = [], 0
    for p in points + [size]:
        p = builtins.max(builtins.min(p if p >= 0 else p + size, size), 0)
        begin = builtins.min(start, size)
        parts.append(input.narrow(dim, begin, builtins.max(p - begin, 0)))
        start = builtins.max(start, p)
    return tuple(parts)


def _split_dim(input, indices_or_sections, dim, what, min_dims):
    if input.ndim < min_dims:
        raise RuntimeError("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                           "dimensions!" % (what, min_dims, input.ndim))
    if isinstance(indices_or_sections, numbers.Integral) and input.shape[dim] % indices_or_sections:
        raise RuntimeError("torch.%s attempted to split along dimension %d, but the size of the dimension %d is "
                           "not divisible by the split_size %d!" % (what, dim, input.shape[dim], indices_or_sections))
    return tensor_split(input, indices_or_sections, dim)


def hsplit(input, indices_or_sections):
    """tensor_split along dim 1 (dim 0 for 1-D), requiring equal parts for a count.

    Args:
        input (Tensor): at least 1-D.
        indices_or_sections (int or sequence of int): the count or the split points.

    Returns:
        tuple of Tensor.
    """
    return _split_dim(input, indices_or_sections, 1 if input.ndim > 1 else 0, "hsplit", 1)


def vsplit(input, indices_or_sections):
    """tensor_split along dim 0, requiring equal parts for a count.

    Args:
        input (Tensor): at least 2-D.
        indices_or_sections (int or sequence of int): the count or the split points.

    Returns:
        tuple of Tensor.
    """
    return _split_dim(input, indices_or_sections, 0, "vsplit", 2)


def dsplit(input, indices_or_sections):
    """tensor_split along dim 2, requiring equal parts for a count.

    Args:
        input (Tensor): at least 3-D.
        indices_or_sections (int or sequence of int): the count or the split points.

    Returns:
        tuple of Tensor.
    """
    return _split_dim(input, indices_or_sections, 2, "dsplit", 3)


def take_along_dim(input, indices, dim=None):
    """Picks values along dim at indices broadcast against input (over the
    flattened input when dim is None), like torch.take_along_dim.

    Args:
        input (Tensor): the tensor.
        indices (Tensor): int64 indices.
        dim (int, optional): the dimension.

    Returns:
        Tensor: the picked values.
    """
    if dim is None:
        return input.reshape(-1).gather(0, indices.reshape(-1))
    d = dim % input.ndim
    in_shape = list(input.shape)
    ix_shape = list(indices.shape)
    in_shape[d] = ix_shape[d] = 1
    common = list(broadcast_shapes(in_shape, ix_shape))
    a_shape, i_shape = list(common), list(common)
    a_shape[d], i_shape[d] = input.shape[d], indices.shape[d]
    return input.expand(*a_shape).gather(d, indices.expand(*i_shape))


# ---------------------------------------------------------------- constructors

def _index_pairs(row, col, offset, lower):
    rows, cols = [], []
    for i in range(row):
        for j in range(col):
            if (j - i <= offset) if lower else (j - i >= offset):
                rows.append(i)
                cols.append(j)
    return rows, cols


def _triangle_indices(row, col, offset, lower, dtype, device):
    rows, cols = _index_pairs(row, col, offset, lower)
    return _tensor([rows, cols], dtype=dtype or K.int64, device=device)


_TRIANGLE_INDICES_DOC = """The (2, N) coordinates of the {} triangle of a row x col matrix, row by row.

    Args:
        row (int): the number of rows.
        col (int): the number of columns.
        offset (int): the diagonal (0 main, > 0 above, < 0 below).
        dtype (tc.dtype, optional): default int64.
        device (optional): the device.

    Returns:
        Tensor: (2, N).
    """


def tril_indices(row, col, offset=0, *, dtype=None, device="cpu", layout=None):
    return _triangle_indices(row, col, offset, True, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device="cpu", layout=None):
    return _triangle_indices(row, col, offset, False, dtype, device)


tril_indices.__doc__ = _TRIANGLE_INDICES_DOC.format("lower")
triu_indices.__doc__ = _TRIANGLE_INDICES_DOC.format("upper")


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a 1-D tensor: columns x**(N-1) ... x**0
    (or increasing powers), like torch.vander.

    Args:
        x (Tensor): 1-D.
        N (int, optional): the number of columns (default len(x)).
        increasing (bool): powers from 0 upwards.

    Returns:
        Tensor: (len(x), N).
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    cols = [ones(x.shape[0], dtype=x.dtype if x.dtype != K.bool_ else K.int64, device=x.device)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    cols = cols[:n]
    if not increasing:
        cols = cols[::-1]
    return stack(cols, 1) if cols else x.new_zeros((x.shape[0], 0))


def block_diag(*tensors):
    """The block-diagonal matrix of the inputs (0-D and 1-D taken as 1-row matrices).

    Args:
        *tensors (Tensor): the blocks.

    Returns:
        Tensor: a 2-D tensor.
    """
    mats = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    if any(m.ndim != 2 for m in mats):
        raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer dimensions")
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = K.promote_types(dtype, m.dtype)
    cols = sum(m.shape[1] for m in mats)
    rows, at = [], 0
    for m in mats:
        parts = []
        if at:
            parts.append(zeros(m.shape[0], at, dtype=dtype))
        parts.append(m.to(dtype))
        rest = cols - at - m.shape[1]
        if rest:
            parts.append(zeros(m.shape[0], rest, dtype=dtype))
        rows.append(_cat(parts, 1))
        at += m.shape[1]
    return _cat(rows, 0)


def cartesian_prod(*tensors):
    """The cartesian product of 1-D tensors, one combination per row.

    Args:
        *tensors (Tensor): 1-D tensors.

    Returns:
        Tensor: (prod of sizes, number of inputs), or the input itself for one.
    """
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def diagflat(input, offset=0):
    """The flattened input on a diagonal of a square matrix.

    Args:
        input (Tensor): any shape.
        offset (int): the diagonal.

    Returns:
        Tensor: 2-D.
    """
    return diag(input.reshape(-1), offset)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A 0-D tensor of the number s (the default float dtype unless given).

    Args:
        s (Number): the value.
        dtype (tc.dtype, optional): the dtype.
        device (optional): the device.
        requires_grad (bool): record operations for autograd.

    Returns:
        Tensor: 0-D.
    """
    return _tensor(float(s) if dtype is None else s, dtype=dtype or K.get_default_dtype(), device=device,
                   requires_grad=requires_grad)


# ---------------------------------------------------------------- elementwise

def deg2rad(input):
    """Degrees to radians.

    Args:
        input (Tensor): angles in degrees.

    Returns:
        Tensor: radians.
    """
    return input * (math.pi / 180.0)


def rad2deg(input):
    """Radians to degrees.

    Args:
        input (Tensor): angles in radians.

    Returns:
        Tensor: degrees.
    """
    return input * (180.0 / math.pi)


def _float_of(t):
    return t if t.dtype.is_floating_point else t.to(K.get_default_dtype())


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (even when other is 0), NaN where other is NaN.

    Args:
        input (Tensor or Number): x.
        other (Tensor or Number): y.

    Returns:
        Tensor: the result.
    """
    like = input if isinstance(input, TensorBase) else other
    dt = like.dtype if like.dtype.is_floating_point else None  # a Python number takes the tensor's dtype
    x = input if isinstance(input, TensorBase) else _tensor(float(input), dtype=dt)
    y = other if isinstance(other, TensorBase) else _tensor(float(other), dtype=dt)
    x, y = _float_of(x), _float_of(y)
    return where((x == 0) & y.isnan().logical_not(), x.new_zeros(()), x * y.log())


def heaviside(input, values):
    """0 where input < 0, values where input == 0, 1 where input > 0.

    Args:
        input (Tensor): the tensor.
        values (Tensor): the value at 0 (broadcast).

    Returns:
        Tensor: the result.
    """
    return where(input == 0, values, (input > 0).to(input.dtype))


def _nan_pick(a, b, pick):
    both = pick(a, b)
    return where(a.isnan(), b, where(b.isnan(), a, both))


def fmax(input, other):
    """The larger of input and other, elementwise, ignoring a NaN (NaN only when both are).

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor.

    Returns:
        Tensor: the result.
    """
    return _nan_pick(input, other, lambda a, b: a.maximum(b))


def fmin(input, other):
    """The smaller of input and other, elementwise, ignoring a NaN (NaN only when both are).

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor.

    Returns:
        Tensor: the result.
    """
    return _nan_pick(input, other, lambda a, b: a.minimum(b))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by nan, posinf and neginf (default: the
    dtype's largest and lowest finite values).

    Args:
        input (Tensor): the tensor.
        nan (float): replaces NaN.
        posinf (float, optional): replaces +inf.
        neginf (float, optional): replaces -inf.

    Returns:
        Tensor: the result.
    """
    if not input.dtype.is_floating_point:
        return input.clone()
    big = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38,
           "float64": 1.7976931348623157e308}[input.dtype.name]
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    out = where(input.isnan(), input.new_full((), nan), input)
    out = where(out == float("inf"), out.new_full((), hi), out)
    return where(out == float("-inf"), out.new_full((), lo), out)


def _is_value(input, value):
    # only a floating tensor can hold an infinity
    return input == value if input.dtype.is_floating_point else input.new_zeros(input.shape).bool()


_IS_INF_DOC = """Whether each element is {}.

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: bool.
    """


def isposinf(input):
    return _is_value(input, float("inf"))


def isneginf(input):
    return _is_value(input, float("-inf"))


isposinf.__doc__ = _IS_INF_DOC.format("+inf")
isneginf.__doc__ = _IS_INF_DOC.format("-inf")


def isreal(input):
    """True everywhere: tc tensors are real.

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: bool, all True.
    """
    return input.new_ones(input.shape).bool()


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether |input - other| <= atol + rtol * |other|, elementwise (equal infinities are close).

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor.
        rtol (float): relative tolerance.
        atol (float): absolute tolerance.
        equal_nan (bool): NaNs compare equal.

    Returns:
        Tensor: bool.
    """
    if input.dtype != other.dtype:
        raise RuntimeError("%s did not match %s" % (input.dtype, other.dtype))
    a, b = _float_of(input), _float_of(other)
    close = (a == b) | ((a - b).abs() <= atol + rtol * b.abs())
    if equal_nan:
        close = close | (a.isnan() & b.isnan())
    return close


def count_nonzero(input, dim=None):
    """The number of nonzero elements (along dim or dims).

    Args:
        input (Tensor): the tensor.
        dim (int or tuple of int, optional): the dimensions to count over.

    Returns:
        Tensor: int64 counts.
    """
    nz = (input != 0).to(K.int64)
    return nz.sum() if dim is None else nz.sum(dim)


def signbit(input):
    """Whether the sign bit is set (True for -0.0 and negative values).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: bool.
    """
    if not input.dtype.is_floating_point:
        return input < 0
    return (input < 0) | ((input == 0) & ((1.0 / input) < 0))


def sgn(input):
    """The sign (same as :func:`tc.sign` for real tensors).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: the signs.
    """
    return input.sign()


def float_power(input, exponent):
    """input ** exponent in float64.

    Args:
        input (Tensor or Number): the base.
        exponent (Tensor or Number): the exponent.

    Returns:
        Tensor: float64.
    """
    base = input.to(K.float64) if isinstance(input, TensorBase) else _tensor(float(input), dtype=K.float64)
    if isinstance(exponent, TensorBase):
        exponent = exponent.to(K.float64)
    return base ** exponent


def ldexp(input, other):
    """input * 2 ** other.

    Args:
        input (Tensor): the mantissas.
        other (Tensor): the exponents.

    Returns:
        Tensor: the result (floating).
    """
    return _float_of(input) * (2.0 ** _float_of(other))


def logit(input, eps=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given.

    Args:
        input (Tensor): probabilities.
        eps (float, optional): the clamp.

    Returns:
        Tensor: the log-odds.
    """
    p = input if eps is None else input.clamp(eps, 1.0 - eps)
    # tc_logit: one fused kernel forward and one backward (the op table's row;
    # integer input promotes to the default float dtype there)
    return _unary("logit")(p)


def rsub(input, other, alpha=1):
    """other - alpha * input (PyTorch's reversed subtraction).

    Args:
        input (Tensor): subtracted.
        other (Tensor or Number): subtracted from.
        alpha (Number): the factor of input.

    Returns:
        Tensor: the result.
    """
    return -(input * alpha) + other if alpha != 1 else -input + other


def clamp_min(input, min):
    """input clamped from below.

    Args:
        input (Tensor): the tensor.
        min (Number or Tensor): the lower bound.

    Returns:
        Tensor: the result.
    """
    return input.clamp(min=min)


def clamp_max(input, max):
    """input clamped from above.

    Args:
        input (Tensor): the tensor.
        max (Number or Tensor): the upper bound.

    Returns:
        Tensor: the result.
    """
    return input.clamp(max=max)


def positive(input):
    """input itself (unary plus).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: input.
    """
    return input


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (prepend/append concatenated first).

    Args:
        input (Tensor): the tensor.
        n (int): the number of times to difference.
        dim (int): the dimension.
        prepend (Tensor, optional): values put before input along dim.
        append (Tensor, optional): values put after input along dim.

    Returns:
        Tensor: the differences.
    """
    parts = [p for p in (prepend, input, append) if p is not None]
    t = _cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        m = t.shape[dim]
        if m == 0:
            break
        if t.dtype == K.bool_:
            t = t.narrow(dim, 1, m - 1) ^ t.narrow(dim, 0, m - 1)
        else:
            t = t.narrow(dim, 1, m - 1) - t.narrow(dim, 0, m - 1)
    return t


def dist(input, other, p=2):
    """The p-norm of input - other (broadcast), as a 0-D tensor.

    Args:
        input (Tensor): a tensor.
        other (Tensor): a tensor.
        p (float): the norm's order (0, inf and -inf too).

    Returns:
        Tensor: 0-D.
    """
    d = (input - other).abs()
    if p == 0:
        return (d != 0).to(d.dtype).sum()
    if p == float("inf"):
        return d.max()
    if p == float("-inf"):
        return d.min()
    if p == 2:
        return (d * d).sum().sqrt()
    return (d ** p).sum() ** (1.0 / p)


def sinc(input):
    """sin(pi x) / (pi x), 1 at x == 0 (with derivative 0 there).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: the result (floating).
    """
    x = _float_of(input)
    zero = x == 0
    safe = where(zero, x.new_ones(()), x) * math.pi
    return where(zero, x.new_ones(()), safe.sin() / safe)


def real(input):
    """input itself: the real part of a real tensor.

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: input.
    """
    return input


def msort(input):
    """input sorted along dim 0 (the values).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: sorted.
    """
    return input.sort(dim=0)[0]


# ---------------------------------------------------------------- types

def _category(dt):
    if dt == K.bool_:
        return 0
    return 2 if dt.is_floating_point else 1


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two gives, with PyTorch's rules: a
    dimensioned tensor decides over a 0-D tensor, which decides over a Python
    number, unless the weaker one is of a higher category (bool < integer <
    floating).

    Args:
        tensor1 (Tensor or Number): an operand.
        tensor2 (Tensor or Number): an operand.

    Returns:
        tc.dtype.
    """
    def describe(x):
        if isinstance(x, TensorBase):
            return (2 if x.ndim > 0 else 1), x.dtype
        if isinstance(x, bool):
            return 0, K.bool_
        if isinstance(x, numbers.Integral):
            return 0, K.int64
        return 0, K.get_default_dtype()

    (p1, d1), (p2, d2) = describe(tensor1), describe(tensor2)
    c1, c2 = _category(d1), _category(d2)
    if c1 == c2:
        if p1 == p2:
            return K.promote_types(d1, d2)
        return d1 if p1 > p2 else d2
    hi_d, hi_p = (d1, p1) if c1 > c2 else (d2, p2)
    if hi_p == 0:  # a Python number of a higher category: its default type
        return K.get_default_dtype() if _category(hi_d) == 2 else K.int64
    return hi_d


def can_cast(from_, to):
    """Whether PyTorch's type promotion may cast from_ to to (never to a
    lower category: floating to integer, or anything but bool to bool).

    Args:
        from_ (tc.dtype): the source.
        to (tc.dtype): the target.

    Returns:
        bool.
    """
    return _category(K.to_dtype(from_)) <= _category(K.to_dtype(to))


FUNCTIONS = {f.__name__: f for f in (
    atleast_1d, atleast_2d, atleast_3d, hstack, vstack, dstack, column_stack, swapaxes, ravel, fliplr,
    flipud, rot90, broadcast_shapes, broadcast_tensors, tensor_split, hsplit, vsplit, dsplit, take_along_dim,
    tril_indices, triu_indices, vander, block_diag, cartesian_prod, diagflat, scalar_tensor, deg2rad,
    rad2deg, xlogy, heaviside, fmax, fmin, nan_to_num, isposinf, isneginf, isreal, isclose, count_nonzero,
    signbit, sgn, float_power, ldexp, logit, rsub, clamp_min, clamp_max, positive, diff, dist, msort,
    result_type, can_cast, sinc, real)}
FUNCTIONS["row_stack"] = vstack
FUNCTIONS["swapdims"] = swapaxes

# torch.X that is tc.nn.functional.X with the same leading parameters
FUNCTIONAL_ALIASES = ("cosine_similarity", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
                      "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                      "relu", "selu", "celu", "prelu", "threshold", "hardshrink", "dropout", "alpha_dropout",
                      "feature_alpha_dropout", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
                      "adaptive_avg_pool1d", "bilinear")


def functional_aliases(functional):
    """{name: tc.nn.functional.name} for the FUNCTIONAL_ALIASES tc.nn.functional has."""
    return {n: getattr(functional, n) for n in FUNCTIONAL_ALIASES if callable(getattr(functional, n, None))}


# Tensor methods of the same names (PyTorch has these as methods too).
METHOD_NAMES = ("ravel", "fliplr", "flipud", "rot90", "swapaxes", "swapdims", "tensor_split", "hsplit", "vsplit",
                "dsplit", "take_along_dim", "diagflat", "deg2rad", "rad2deg", "xlogy", "heaviside", "fmax", "fmin",
                "nan_to_num", "isposinf", "isneginf", "isreal", "isclose", "count_nonzero", "signbit", "sgn",
                "float_power", "ldexp", "logit", "clamp_min", "clamp_max", "positive", "diff", "dist", "msort",
                "sinc")

# torch.X(input, ...) that is input.X(...) for a Tensor method tc has
FORWARDED = ("is_complex", "is_conj", "is_floating_point", "is_inference", "is_neg", "is_nonzero", "is_same_size",
             "is_signed", "get_device", "conj", "conj_physical", "resolve_conj", "resolve_neg", "adjoint", "fix",
             "absolute", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "arctan2", "greater",
             "greater_equal", "less", "less_equal", "not_equal", "nansum", "nanmean", "aminmax", "argwhere")


def _forward(name):
    def f(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = "tc.%s(t, ...) is t.%s(...)." % (name, name)
    return f


def forwarded(tensor_class):
    """{name: function} for the FORWARDED names tensor_class has as methods."""
    return {n: _forward(n) for n in FORWARDED if callable(getattr(tensor_class, n, None))}


def _method(f, name):
    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "See :func:`tc.%s`." % name
    return method


# A base class of tc.Tensor holding those methods (Tensor's own methods of
# the same names, if any, come first in its MRO).
NamespaceExtraMethods = type("NamespaceExtraMethods", (), dict(
    {n: _method(FUNCTIONS[n], n) for n in METHOD_NAMES},
    __slots__=(), __module__=__name__,
    __doc__="Tensor methods of the torch functions in tc/_torch_namespace_extras.py."))
