"""The layer under tc.Tensor: wrapping libtc handles into Tensor objects,
the helpers the method mixins share (_call, _binary, _as_tensor, ...), the
small value types (Size, GradFn) and the factories (tc.tensor, tc.zeros,
tc.cat, ...). Everything here is importable before the Tensor class exists,
so that the mixins of tc.Tensor can import it at module level; the class
itself (tc/_tensor/__init__.py) calls bind_tensor_class once it is built,
which is when the functions here start making Tensors.

Test membership with ``isinstance(x, TensorBase)``; never import ``Tensor``
from here (it is None until the class is bound)."""
import array
import collections
import ctypes as C
import math
import numbers
import operator
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from . import _complex as Z
from . import _core as K
from . import _decls as D
from ._core import VP, byref, fast, fn
from ._errors import check, error_for  # noqa: F401  (re-exported to the mixins)
from ._ints import INT64_MAX, INT64_MIN, IntOverflowError, check_int64_scalar, to_int64  # noqa: F401

# tc.Tensor, once tc/_tensor/__init__.py has built it (bind_tensor_class): the
# class every handle-wrapping function below instantiates.
Tensor = None


class TensorBase:
    """The root of tc.Tensor: its instance layout (the libtc handle and the
    cached dtype). ``isinstance(x, TensorBase)`` is the Tensor test for code
    that runs before (or without importing) the Tensor class."""

    __slots__ = ("_h", "_dt", "__weakref__")


def bind_tensor_class(cls):
    """Makes cls (tc.Tensor) the class that _wrap, _call and the factories
    instantiate; called once, right after the class statement."""
    global Tensor
    Tensor = cls

_new = object.__new__
_I64 = C.c_int64
_I32 = C.c_int32

_free = fast("tc_tensor_free")
_double = C.c_double
_retain = fn("tc_tensor_retain")
_full = fn("tc_full")


def _wrap(h):
    """A Tensor owning handle h (an int or a c_void_p). Tensors keep their
    handle as a c_void_p, passed to ctypes without conversion."""
    t = _new(Tensor)
    t._h = h if type(h) is VP else VP(h)
    t._dt = None
    return t


def _call(f, *args):
    """Calls f(*args, &out) and wraps the new handle."""
    out = VP()
    rc = f(*args, byref(out))
    if rc:
        raise error_for(rc)
    t = _new(Tensor)
    t._h = out
    t._dt = None
    return t


def _dims(dim):
    """(int64 array, count) for an optional dim or tuple of dims."""
    if dim is None:
        return None, 0
    if hasattr(dim, "__index__"):  # an int, a bool, a numpy integer
        return K.int64_array((dim,))
    return K.int64_array(dim)


def _shape_args(size):
    """Accepts f(2, 3), f((2, 3)), f([2, 3]) and f(tc.Size); each size an
    integer that fits int64 (numpy integers too; floats raise TypeError)."""
    if len(size) == 1 and not hasattr(size[0], "__index__"):
        if not hasattr(size[0], "__iter__"):
            raise TypeError("size must be integers or a sequence of integers, got %s"
                            % type(size[0]).__name__)
        size = tuple(size[0])
    return tuple(map(to_int64, size))


def _float_scalar_dtype(like):
    """The dtype a Python float takes next to `like` (never widening it)."""
    dt = like.dtype
    return dt if dt.is_floating_point else K.get_default_dtype()


_EXACT_DOUBLE = 1 << 53


def _large_int(value):
    """value as an int when it is an integer (not a bool) past +-2**53, where
    a double no longer holds every integer (tc_full and tc_fill_ take
    doubles), else None; raises IntOverflowError past int64."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        v = to_int64(value)
        if not -_EXACT_DOUBLE <= v <= _EXACT_DOUBLE:
            return v
    return None


def _exact_int64_scalar(value, device_code):
    """A 0-d int64 tensor holding value exactly (tc_full takes a double,
    which would round 2**63 - 1 up and out of int64)."""
    buf = _I64(to_int64(value))
    t = _call(_from_data_f, C.addressof(buf), 8, None, 0, K.int64.code)
    return t if device_code == K.CPU_CODE else _call(_to_device_f, t._h, device_code)


def _scalar_tensor(value, like):
    """A 0-d tensor for a Python scalar, on like's device: int -> int64
    (exactly; IntOverflowError past int64, like PyTorch, even next to a
    floating tensor), bool -> bool, float -> like's floating dtype (or the
    default one), complex -> a complex dtype of like's width."""
    if isinstance(value, bool):
        dt = K.bool_
    elif isinstance(value, complex):
        return Z.scalar_complex_tensor(value, like)
    elif isinstance(value, numbers.Integral):
        dt = K.int64
        if _large_int(value) is not None:
            return _exact_int64_scalar(value, like.device.code if like is not None else K.CPU_CODE)
    elif isinstance(value, numbers.Real):
        dt = _float_scalar_dtype(like) if like is not None else K.get_default_dtype()
    else:
        raise TypeError("expected a Tensor or a Python number, got %s" % type(value).__name__)
    dev = like.device.code if like is not None else 0
    return _call(_full, None, 0, float(value), dt.code, dev)


def _as_tensor(x, like):
    if isinstance(x, TensorBase):
        return x
    if hasattr(x, "__array__") and not isinstance(x, (int, float, bool)):
        return tensor(x)
    return _scalar_tensor(x, like)


def _binary(name, scalar_name=None, rscalar_name=None):
    """a OP b with a Tensor a; b a Tensor or a Python number."""
    f = fast("tc_" + name)
    fs = fast("tc_" + scalar_name) if scalar_name else None

    def op(a, b):
        out = VP()
        if type(b) is Tensor or isinstance(b, TensorBase):
            rc = f(a._h, b._h, byref(out))
        elif fs is not None and type(b) is float:
            rc = fs(a._h, _double(b), byref(out))
        else:
            b = _as_tensor(b, a)
            rc = f(a._h, b._h, byref(out))
        if rc:
            raise error_for(rc)
        t = _new(Tensor)
        t._h = out
        t._dt = None
        return t

    op.__name__ = name
    return op


def _rbinary(name, rscalar_name=None):
    """b OP a with a Tensor a and a Python number b."""
    f = fast("tc_" + name)
    frs = fast("tc_" + rscalar_name) if rscalar_name else None

    def op(a, b):
        out = VP()
        if frs is not None and type(b) is float:
            rc = frs(a._h, _double(b), byref(out))
        else:
            b = _as_tensor(b, a)
            rc = f(b._h, a._h, byref(out))
        if rc:
            raise error_for(rc)
        t = _new(Tensor)
        t._h = out
        t._dt = None
        return t

    return op


def _unary(name):
    f = fast("tc_" + name)

    def op(self, *params):  # params: the op's doubles (tc_leaky_relu's negative_slope, ...)
        out = VP()
        rc = f(self._h, *[_double(p) for p in params], byref(out)) if params else f(self._h, byref(out))
        if rc:
            raise error_for(rc)
        t = _new(Tensor)
        t._h = out
        t._dt = None
        return t

    op.__name__ = name
    return op


def _inplace(name, fill=False):
    f = fast("tc_" + name)

    def op(self, other, *, alpha=1):
        if alpha != 1:  # add_/sub_'s scale of other (PyTorch's alpha)
            if name not in ("add_", "sub_"):
                raise TypeError("%s() got an unexpected keyword argument 'alpha'" % name)
            other = other * alpha
        if not isinstance(other, TensorBase):
            other = _scalar_tensor(other, self)
        rc = f(self._h, other._h)
        if rc:
            raise error_for(rc)
        return self

    op.__name__ = name
    op.__doc__ = ("In-place ``self.%s(other)``, broadcasting ``other`` to self's shape.\n\n"
                  "Args:\n    other (Tensor or Number): the other operand.\n\nReturns:\n    Tensor: self."
                  % name.rstrip("_"))
    return op


class Size(tuple):
    """A shape: a tuple with PyTorch's repr."""

    def __repr__(self):
        return "tc.Size([%s])" % ", ".join(str(s) for s in self)

    def numel(self):
        """Returns the number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n


class GradFn:
    """A node's name only (kept for compatibility; Tensor.grad_fn gives a
    tc.autograd.Node)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        """Returns the name of the backward function (e.g. ``'MulBackward0'``)."""
        return self._name

    def __repr__(self):
        return "<%s object>" % self._name


MinMax = collections.namedtuple("MinMax", ["values", "indices"])
TopK = collections.namedtuple("TopK", ["values", "indices"])

_ndim_f = fn("tc_tensor_ndim")
_shape_f = fn("tc_tensor_shape")
_dtype_f = fn("tc_tensor_dtype")
# Bumped by every `.data =`: dtype caches made before it are re-read.
_set_data_epoch = [0]
_item_f = fn("tc_tensor_item")
_to_dtype_f = fn("tc_to_dtype")
_to_device_f = fn("tc_to_device")
_select_f = fn("tc_select")
_slice_f = fn("tc_slice")
_unsqueeze_f = fn("tc_unsqueeze")
_backward_f = fast("tc_backward")
# Hot paths call these unprototyped (every argument already a ctypes object:
# nothing converted, no Python-level range check; see tc._core.fast).
_clear_grad_fast = fast("tc_tensor_clear_grad")
_sum_fast = fast("tc_sum")
_I32_0, _I32_1, _I64_0 = _I32(0), _I32(1), _I64(0)  # shared, never written
_copy_to_f = fn("tc_tensor_copy_to")
_sum_f = fn("tc_sum")
_from_data_f = fn("tc_from_data")

_ARRAY_CODES = {"float32": "f", "float64": "d", "int8": "b", "int16": "h", "int32": "i",
                "int64": "q", "uint8": "B", "bool": "B"}


# What the op table's binary methods accept as their other operand (for type checkers).
_Operand = Union["Tensor", int, float, bool]


lib_tc_tensor_device = fn("tc_tensor_device")


def _split_call(f, t, n, dim):
    count = _I64()
    cap = 64
    while True:
        outs = (VP * cap)()
        rc = f(t._h, n, dim, outs, cap, byref(count))
        if rc == 0:
            return tuple(_wrap(outs[i]) for i in range(count.value))
        if rc == D.TC_ERR_INVALID_ARGUMENT and count.value > cap:
            cap = count.value
            continue
        raise error_for(rc)


# ================================================================ creation

_CREATION_WHAT = {"zeros": "filled with zeros", "ones": "filled with ones",
                  "empty": "with uninitialized values", "rand": "of samples of U(0, 1)",
                  "randn": "of samples of N(0, 1)"}
_CREATION_DOC = """Returns a tensor of shape ``size`` %s.

Args:
    *size (int): the shape (or one sequence of ints).
    dtype (tc.dtype, optional): the dtype (default: the default dtype).
    device (optional): the device.
    requires_grad (bool): record operations for autograd.

Returns:
    Tensor: the new tensor."""
_LIKE_DOC = """Returns ``tc.%s(t.shape)`` with ``t``'s dtype and device unless given.

Args:
    t (Tensor): the tensor whose shape (and by default dtype and device) to take.
    dtype (tc.dtype, optional): the dtype.
    device (optional): the device.
    requires_grad (bool): record operations for autograd.

Returns:
    Tensor: the new tensor."""


def _creation(fname: str) -> Callable[..., "Tensor"]:
    f = fn(fname)

    def make(*size, dtype=None, device=None, requires_grad=False):
        shape = _shape_args(size)
        arr, n = K.int64_array(shape)
        dt = K.to_dtype(dtype) if dtype is not None else K.get_default_dtype()
        t = _call(f, arr, n, dt.code, K.device_code(device))
        if requires_grad:
            t.requires_grad = True
        return t

    make.__name__ = fname[3:]
    make.__doc__ = _CREATION_DOC % _CREATION_WHAT[fname[3:]]
    return make


empty = _creation("tc_empty")
zeros = _creation("tc_zeros")
ones = _creation("tc_ones")
rand = _creation("tc_rand")
randn = _creation("tc_randn")


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """Returns a tensor of ``size`` filled with ``fill_value``.

    Args:
        size (sequence of int): the shape.
        fill_value (Number): the value.
        dtype (tc.dtype, optional): the dtype (inferred from the value when None).
        device (optional): the device.
        requires_grad (bool): record operations for autograd.

    Returns:
        Tensor: the new tensor.
    """
    if hasattr(size, "__index__"):
        size = (size,)
    arr, n = K.int64_array(size)
    if dtype is None:
        if isinstance(fill_value, bool):
            dtype = K.bool_
        elif isinstance(fill_value, numbers.Integral):
            dtype = K.int64
        else:
            dtype = K.get_default_dtype()
    dt = K.to_dtype(dtype)
    exact = _large_int(fill_value)
    if exact is not None and dt is K.int64:  # tc_full's double would round it
        t = _call(_full, arr, n, 0.0, dt.code, K.device_code(device))
        t.fill_(exact)
    else:
        t = _call(_full, arr, n, float(check_int64_scalar(fill_value)), dt.code, K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


def _like(maker: Callable[..., "Tensor"]) -> Callable[..., "Tensor"]:
    def like(t, dtype=None, device=None, requires_grad=False):
        return maker(t.shape, dtype=dtype or t.dtype, device=device or t.device, requires_grad=requires_grad)

    like.__name__ = maker.__name__ + "_like"
    like.__doc__ = _LIKE_DOC % maker.__name__
    return like


empty_like = _like(empty)
zeros_like = _like(zeros)
ones_like = _like(ones)
rand_like = _like(rand)
randn_like = _like(randn)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    """Returns a tensor shaped like ``t`` filled with ``fill_value``.

    Args:
        t (Tensor): the tensor whose shape (and by default dtype and device) to take.
        fill_value (Number): the value.
        dtype (tc.dtype, optional): the dtype.
        device (optional): the device.
        requires_grad (bool): record operations for autograd.

    Returns:
        Tensor: the new tensor.
    """
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device,
                requires_grad=requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Returns the values from ``start`` to ``end`` (exclusive) by ``step``, like :func:`torch.arange`.

    Args:
        start (Number): the first value (the end when ``end`` is None).
        end (Number, optional): the bound.
        step (Number): the spacing.
        dtype (tc.dtype, optional): int64 for integer arguments, else the default dtype.
        device (optional): the device.
        requires_grad (bool): record operations for autograd.

    Returns:
        Tensor: a 1-D tensor.
    """
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = K.int64 if ints else K.get_default_dtype()
    start, end, step = (float(check_int64_scalar(v)) for v in (start, end, step))
    t = _call(fn("tc_arange"), start, end, step, K.to_dtype(dtype).code,
              K.device_code(device))
    if requires_grad:
        t.requires_grad = True
    return t


_NUMBER_TYPES = (bool, int, float)


def _scalar_value(v):
    """A Python number from a number-like leaf (numpy scalar, 1-element tensor)."""
    if isinstance(v, _NUMBER_TYPES):
        return v
    if isinstance(v, TensorBase):
        return v.item()
    if isinstance(v, complex):
        raise TypeError("complex numbers are not supported")
    if hasattr(v, "item"):
        v = v.item()
        if isinstance(v, _NUMBER_TYPES):
            return v
    if isinstance(v, numbers.Real):
        return float(v)
    raise TypeError("tc.tensor: cannot convert %s to a number" % type(v).__name__)


# numpy arrays inside nested lists: torch.tensor([np.array([1, 2]), np.array([3, 4])])
# reads each array as the nested list it holds, as PyTorch does.
def _is_array(x):
    """True for a numpy array (or any array-interface object) with at least
    one dimension; a tc Tensor is not one (its items are checked as leaves)."""
    return (not isinstance(x, TensorBase) and hasattr(x, "__array_interface__")
            and getattr(x, "ndim", 0) > 0 and hasattr(x, "tolist"))


def _arrays_to_lists(level):
    """The level with each array item replaced by its nested list (the list
    itself when it holds no array, so plain data costs one scan)."""
    if not any(_is_array(x) for x in level):
        return level
    return [x.tolist() if _is_array(x) else x for x in level]


def _flatten_nested(data):
    """(flat list of Python numbers, shape) of nested sequences whose items
    may be numpy arrays, level by level; checks they are rectangular
    (ValueError "expected sequence of length n at dim d (got m)" otherwise,
    PyTorch's message)."""
    if isinstance(data, TensorBase):
        return data._flat_values(), tuple(data.shape)
    shape = []
    level = [data]
    while level and isinstance(level[0], (list, tuple)):
        n = len(level[0])
        for x in level:
            if not isinstance(x, (list, tuple)):
                raise ValueError("expected a sequence of equal-length sequences at dim %d" % len(shape))
            if len(x) != n:
                raise ValueError("expected sequence of length %d at dim %d (got %d)" % (n, len(shape), len(x)))
        shape.append(n)
        level = _arrays_to_lists([y for x in level for y in x])
    types = set(map(type, level))
    if not types.issubset(_NUMBER_TYPES):
        level = [_scalar_value(v) for v in level]
    return level, tuple(shape)


def _from_flat(flat, shape, dt):
    """A new CPU tensor of dtype dt from a flat list of Python numbers."""
    staging = dt
    if dt in (K.float16, K.bfloat16):
        staging = K.float32
    code = _ARRAY_CODES[staging.name]
    if staging is K.bool_:
        flat = [1 if v else 0 for v in flat]
    elif not staging.is_floating_point and float in set(map(type, flat)):
        flat = [int(v) for v in flat]  # truncation toward zero, like torch.tensor(..., dtype=int)
    buf = array.array(code, flat)
    arr, n = K.int64_array(shape)
    nbytes = len(buf) * buf.itemsize
    addr = buf.buffer_info()[0] if len(buf) else None
    t = _call(fn("tc_from_data"), addr, nbytes, arr, n, staging.code)
    if staging is not dt:
        t = t.to(dt)
    return t


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
    """A new tensor holding a copy of data (nested lists, numbers, numpy
    arrays, tensors). The dtype is inferred like PyTorch's: bool, int64,
    the default float dtype or, for complex values, the default complex
    dtype for lists; the array's dtype for numpy arrays."""
    if Z._has_complex(data):
        t = Z.complex_tensor(data, dtype)
        if device is not None and K.device(device).type != "cpu":
            t = t.to(device)
        if requires_grad:
            t.requires_grad = True
        return t
    if isinstance(data, TensorBase):
        t = data.detach().clone() if dtype is None else data.detach().to(dtype).clone()
    elif hasattr(data, "__array_interface__") and hasattr(data, "dtype"):
        from ._interop import tensor_from_numpy_copy  # _interop wraps handles with this module: a true cycle
        t = tensor_from_numpy_copy(data, dtype)
    else:
        flat, shape = _flatten_nested(data)
        if dtype is None:
            types = set(map(type, flat))
            if flat and types == {bool}:
                dt = K.bool_
            elif flat and types <= {int, bool}:
                dt = K.int64
            else:
                dt = K.get_default_dtype()
        else:
            dt = K.to_dtype(dtype)
        t = _from_flat(flat, shape, dt)
    if device is not None and K.device(device).type != "cpu":
        t = t.to(device)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_tensor(raw, dtype, shape, requires_grad, is_parameter, device="cpu"):
    """Unpickles Tensor.__reduce__'s form."""
    dt = K.to_dtype(dtype)
    arr, n = K.int64_array(shape)
    t = _call(fn("tc_from_data"), raw, len(raw), arr, n, dt.code)
    if device != "cpu":
        t = t.to(device)
    if is_parameter:
        from .nn import Parameter  # tc.nn.Parameter subclasses Tensor: a true cycle
        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad = True
    return t


def as_tensor(data, dtype=None, device=None):
    """Converts ``data`` to a tensor, sharing memory when it already is one of the right dtype and device.

    Args:
        data: a tensor, array or (nested) sequence of numbers.
        dtype (tc.dtype, optional): the dtype.
        device (optional): the device.

    Returns:
        Tensor: the tensor.
    """
    if isinstance(data, TensorBase) and (dtype is None or data.dtype == K.to_dtype(dtype)):
        return data
    return tensor(data, dtype=dtype, device=device)


# ================================================================ functional

def _tensor_list(tensors, what):
    """(handle array, count, the Tensors) of any iterable of Tensors (a list,
    a generator, a tensor's rows). The array holds bare handles: the caller
    keeps the returned Tensors alive until its C call returns, or the
    temporaries a generator made would be freed (their handles stale) first."""
    ts = list(tensors)
    for i, t in enumerate(ts):
        if not isinstance(t, TensorBase):
            raise TypeError("%s: expected a sequence of Tensors, but element %d is %s"
                            % (what, i, type(t).__name__))
    arr = (VP * max(len(ts), 1))(*[t._h for t in ts])
    return arr, len(ts), ts


def cat(tensors, dim=0):
    """Concatenates tensors along an existing dimension.

    Args:
        tensors (sequence of Tensor): same shape except in ``dim``.
        dim (int): the dimension.

    Returns:
        Tensor: the result.
    """
    arr, n, alive = _tensor_list(tensors, "cat")
    out = _call(fn("tc_cat"), arr, n, dim)
    del alive  # (only now: the handles in arr belong to these)
    return out


concat = cat
concatenate = cat


def stack(tensors, dim=0):
    """Stacks tensors of equal shape along a new dimension.

    Args:
        tensors (sequence of Tensor): the tensors.
        dim (int): the position of the new dimension.

    Returns:
        Tensor: the result.
    """
    arr, n, alive = _tensor_list(tensors, "stack")
    out = _call(fn("tc_stack"), arr, n, dim)
    del alive  # (only now: the handles in arr belong to these)
    return out


def where(condition, input, other):
    """Returns elements of ``input`` where ``condition`` is True, else of ``other``.

    Args:
        condition (Tensor): a bool tensor.
        input (Tensor or Number): chosen where True.
        other (Tensor or Number): chosen where False.

    Returns:
        Tensor: the broadcast result.
    """
    like = input if isinstance(input, TensorBase) else (other if isinstance(other, TensorBase) else None)
    a = _as_tensor(input, like)
    b = _as_tensor(other, like if like is not None else a)
    return _call(fn("tc_where"), condition._h, a._h, b._h)


def maximum(a, b):
    return a.maximum(b)


def minimum(a, b):
    return a.minimum(b)


def split(t, split_size_or_sections, dim=0):
    """See :func:`tc.Tensor.split`."""
    return t.split(split_size_or_sections, dim)


def chunk(t, chunks, dim=0):
    """See :func:`tc.Tensor.chunk`."""
    return t.chunk(chunks, dim)


def gather(t, dim, index):
    """See :func:`tc.Tensor.gather`."""
    return t.gather(dim, index)


def index_select(t, dim, index):
    """See :func:`tc.Tensor.index_select`."""
    return t.index_select(dim, index)


def matmul(a, b):
    """Matrix product with PyTorch's rules for 1-D and batched (broadcast) operands.

    Args:
        a (Tensor): the left operand.
        b (Tensor): the right operand.

    Returns:
        Tensor: the product.
    """
    return a.matmul(b)


def manual_seed(seed):
    """Seeds the default generator; like PyTorch, any integer in
    [-2**63, 2**64) (a negative one taken modulo 2**64), else IntOverflowError."""
    seed = int(seed)
    if not INT64_MIN <= seed < (1 << 64):
        raise IntOverflowError("Overflow when unpacking long: seed %d does not fit in 64 bits" % seed)
    check(fn("tc_manual_seed")(seed & 0xFFFFFFFFFFFFFFFF))


def initial_seed():
    """Returns the seed of the default random generator."""
    out = C.c_uint64()
    check(fn("tc_initial_seed")(byref(out)))
    return out.value


_FILLS = {"empty": D.TC_FILL_UNINITIALIZED, "zeros": D.TC_FILL_ZEROS, "ones": D.TC_FILL_ONES,
          "value": D.TC_FILL_VALUE, "data": D.TC_FILL_DATA, "uniform": D.TC_FILL_UNIFORM,
          "normal": D.TC_FILL_NORMAL}


def tensor_new(*size, fill="zeros", dtype=None, device=None, requires_grad=False, value=0.0, low=0.0,
               high=1.0, mean=0.0, std=1.0, data=None):
    """The general constructor (tc_tensor_new): size, dtype, device,
    requires_grad, and what fills it: "empty", "zeros", "ones", "value"
    (value), "data" (a bytes-like object of the tensor's raw bytes),
    "uniform" (low, high) or "normal" (mean, std)."""
    if fill not in _FILLS:
        raise ValueError("fill must be one of %s, not %r" % (sorted(_FILLS), fill))
    dims = _shape_args(size)
    shape, n = K.int64_array(dims)
    o = D.tc_tensor_options()
    o.size = C.sizeof(o)
    o.dtype = K.to_dtype(dtype if dtype is not None else K.get_default_dtype()).code
    o.shape = shape
    o.ndim = n
    o.device = K.device_code(device) if device is not None else 0
    o.requires_grad = 1 if requires_grad else 0
    o.fill = _FILLS[fill]
    o.value, o.low, o.high, o.mean, o.std = float(value), float(low), float(high), float(mean), float(std)
    keep = None
    if data is not None:
        keep = (C.c_char * len(data)).from_buffer_copy(bytes(data))
        o.data = C.cast(keep, C.c_void_p)
        o.nbytes = len(data)
    return _call(fn("tc_tensor_new"), byref(o))
