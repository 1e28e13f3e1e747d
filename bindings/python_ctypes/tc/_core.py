"""The shared low-level toolkit: function lookup, status checks, dtypes,
devices, flags and grad mode. Everything above it (Tensor, nn, optim) calls
libtc only through these helpers."""
import ctypes as C
import threading

from . import _decls as D
from ._errors import MissingFunctionError, check
from ._ints import to_int64, unwrap_argument_errors
from ._lib import lib

VP = C.c_void_p
byref = C.byref
I64 = C.c_int64


_checked_fns = {}


def fn(name):
    """The C function `name`, or a stand-in raising MissingFunctionError when
    the loaded library does not export it (yet). A Python integer that does
    not fit its C parameter raises IntOverflowError (TypeError for a float)
    instead of ctypes.ArgumentError (see tc._ints)."""
    f = _checked_fns.get(name)
    if f is not None:
        return f
    try:
        raw = getattr(lib, name)
    except AttributeError:
        def missing(*_args):
            raise MissingFunctionError(name)

        missing.missing = True
        missing.__name__ = name
        return missing
    f = _checked_fns[name] = unwrap_argument_errors(raw)
    return f


def fast(name):
    """An unprototyped pointer to `name` (restype int32, no argtypes) for the
    hot paths: every argument passed to it must already be a ctypes object
    (c_void_p handle, c_double, byref), so ctypes converts nothing. The
    declared function (with argtypes) stays what everything else uses."""
    f = fn(name)
    if getattr(f, "missing", False):
        return f
    g = type(f.cfunc)((name, lib))
    g.restype = C.c_int32
    return g


def has(name):
    return hasattr(lib, name)


def copy_string(func, *args):
    """Calls a string copy-out function (tc.h's buf/cap/needed pattern)."""
    needed = I64(0)
    check(func(*args, None, 0, byref(needed)))
    buf = C.create_string_buffer(needed.value)
    check(func(*args, buf, needed.value, byref(needed)))
    return buf.value.decode("utf-8", "replace")


def int64_array(values):
    """(ctypes int64 array, count) of a sequence of integers, each checked by
    to_int64 (IntOverflowError past int64, TypeError for a float: ctypes
    would wrap or truncate)."""
    values = tuple(map(to_int64, values))
    return (I64 * max(len(values), 1))(*values), len(values)


# ---------------------------------------------------------------- dtypes

class dtype:
    """A libtc dtype (tc.float32, ...). Compare with ==; .code is tc.h's."""

    __slots__ = ("code", "name", "itemsize", "is_floating_point", "is_signed", "_np")

    def __init__(self, code, name, itemsize, floating, signed, np_name):
        self.code = code
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = floating
        self.is_signed = signed
        self._np = np_name

    def __repr__(self):
        return "tc." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


float32 = dtype(D.TC_FLOAT32, "float32", 4, True, True, "float32")
float64 = dtype(D.TC_FLOAT64, "float64", 8, True, True, "float64")
float16 = dtype(D.TC_FLOAT16, "float16", 2, True, True, "float16")
bfloat16 = dtype(D.TC_BFLOAT16, "bfloat16", 2, True, True, None)
int8 = dtype(D.TC_INT8, "int8", 1, False, True, "int8")
int16 = dtype(D.TC_INT16, "int16", 2, False, True, "int16")
int32 = dtype(D.TC_INT32, "int32", 4, False, True, "int32")
int64 = dtype(D.TC_INT64, "int64", 8, False, True, "int64")
uint8 = dtype(D.TC_UINT8, "uint8", 1, False, False, "uint8")
bool_ = dtype(D.TC_BOOL, "bool", 1, False, False, "bool")

DTYPES = (float32, float64, float16, bfloat16, int8, int16, int32, int64, uint8, bool_)
BY_CODE = {d.code: d for d in DTYPES}
_ALIASES = {"float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
            "short": int16, "bool": bool_}


def _dtype_by_name(name):
    for d in DTYPES:
        if d.name == name:
            return d
    code = C.c_int32()
    if lib.tc_dtype_from_name(name.encode(), byref(code)) == 0:  # libtc's aliases ("long", "half"...)
        return BY_CODE[code.value]
    if name in _ALIASES:
        return _ALIASES[name]
    raise TypeError("unknown dtype %r" % (name,))


def library_dtype_info(d):
    """(name, element size) of a dtype as libtc's registry reports them."""
    name, size = C.c_char_p(), C.c_int64()
    check(lib.tc_dtype_name(to_dtype(d).code, byref(name)))
    check(lib.tc_dtype_size(to_dtype(d).code, byref(size)))
    return name.value.decode(), size.value


def to_dtype(x):
    """A tc.dtype from a tc.dtype, a name, a Python type or a numpy dtype."""
    if isinstance(x, dtype):
        return x
    if x is float:
        return get_default_dtype()
    if x is int:
        return int64
    if x is bool:
        return bool_
    if isinstance(x, str):
        return _dtype_by_name(x)
    legacy = getattr(x, "dtype", None)  # tc.FloatTensor & co. (tc/_legacy_tensors.py)
    if isinstance(legacy, dtype):
        return legacy
    name = getattr(x, "name", None)  # numpy dtypes and scalar types
    if name is None and isinstance(x, type):
        name = getattr(x, "__name__", None)
    if name is not None:
        if name == "bool_":
            name = "bool"
        return _dtype_by_name(name)
    raise TypeError("cannot interpret %r as a tc dtype" % (x,))


def promote_types(a, b):
    """Returns the dtype PyTorch's type promotion gives for ``a`` and ``b``.

    Args:
        a (tc.dtype): a dtype.
        b (tc.dtype): another.

    Returns:
        tc.dtype: the promoted dtype.
    """
    out = C.c_int32()
    check(lib.tc_promote_types(to_dtype(a).code, to_dtype(b).code, byref(out)))
    return BY_CODE[out.value]


# ---------------------------------------------------------------- devices

class device:
    """tc.device("cpu"), tc.device("cuda", 0), tc.device("cuda:1")."""

    __slots__ = ("type", "index", "code")

    def __init__(self, type_or_name, index=None):
        if isinstance(type_or_name, device):
            self.type, self.index, self.code = type_or_name.type, type_or_name.index, type_or_name.code
            return
        name = str(type_or_name)
        if index is not None and ":" not in name:
            name = "%s:%d" % (name, index)
        code = C.c_int32()
        check(lib.tc_device_from_name(name.encode(), byref(code)))
        self._set(code.value)

    def _set(self, code):
        self.code = code
        self.type = "cuda" if (code >> 16) == D.TC_DEVICE_CUDA else "cpu"
        self.index = code & 0xFFFF if self.type == "cuda" else None

    @classmethod
    def from_code(cls, code):
        """Returns the device of a libtc device code.

        Args:
            code (int): the code.

        Returns:
            device: the device.
        """
        d = object.__new__(cls)
        d._set(code)
        return d

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and other.code == self.code

    def __hash__(self):
        return hash(self.code)

    def __str__(self):
        return copy_string(lib.tc_device_name, self.code)

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)


CPU_CODE = 0


def device_code(x):
    if x is None:
        return CPU_CODE
    if isinstance(x, device):
        return x.code
    if isinstance(x, int):
        return (D.TC_DEVICE_CUDA << 16) | x
    return device(x).code


# ---------------------------------------------------------------- flags

def get_flag(name):
    """Returns the value of a libtc runtime flag.

    Args:
        name (str): the flag's name.

    Returns:
        int: its value.
    """
    out = C.c_int64()
    check(lib.tc_get_flag(name.encode(), byref(out)))
    return out.value


def set_flag(name, value):
    """Sets a libtc runtime flag.

    Args:
        name (str): the flag's name.
        value (int): the new value.
    """
    check(fn("tc_set_flag")(name.encode(), int(value)))  # checked: 2**64 + 1 raises, never sets 1


def flag_names():
    """[(name, settable)] for every flag libtc knows."""
    n = C.c_int64()
    check(lib.tc_flag_count(byref(n)))
    out = []
    for i in range(n.value):
        name, settable = C.c_char_p(), C.c_int32()
        check(lib.tc_flag_info(i, byref(name), byref(settable)))
        out.append((name.value.decode(), bool(settable.value)))
    return out


def get_default_dtype():
    """Returns the default floating-point dtype (float32 unless changed)."""
    return BY_CODE[get_flag("default_dtype")]


def set_default_dtype(d):
    """Sets the default floating-point dtype.

    Args:
        d (tc.dtype): float32 or float64.
    """
    set_flag("default_dtype", to_dtype(d).code)


# ---------------------------------------------------------------- grad mode

_set_grad_enabled = fn("tc_set_grad_enabled")


def set_grad_mode(enabled):
    """Sets this thread's grad mode; returns the previous one (bool)."""
    prev = C.c_int32()
    check(_set_grad_enabled(1 if enabled else 0, byref(prev)))
    return bool(prev.value)


def is_grad_enabled():
    """Returns True if autograd records operations on this thread."""
    return bool(get_flag("grad_enabled"))


class _GradMode:
    """Base of no_grad/enable_grad: a context manager (re-entrant, per
    thread) and a decorator."""

    _mode = True

    def __init__(self):
        self._prev = threading.local()

    def __enter__(self):
        stack = getattr(self._prev, "stack", None)
        if stack is None:
            stack = self._prev.stack = []
        stack.append(set_grad_mode(self._mode))
        return self

    def __exit__(self, *exc):
        set_grad_mode(self._prev.stack.pop())
        return False

    def __call__(self, func):
        """Decorates ``func`` to run in this grad mode.

        Args:
            func (callable): the function.

        Returns:
            callable: the wrapped function.
        """
        import functools

        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = set_grad_mode(mode)
            try:
                return func(*args, **kwargs)
            finally:
                set_grad_mode(prev)

        return wrapper


class no_grad(_GradMode):
    """Disables graph recording: `with tc.no_grad():` or `@tc.no_grad()`."""

    _mode = False


class enable_grad(_GradMode):
    """Enables graph recording inside a no_grad region."""

    _mode = True


class set_grad_enabled(_GradMode):
    """tc.set_grad_enabled(False) sets the mode now; as a context manager it
    restores the previous mode on exit."""

    def __init__(self, mode):
        super().__init__()
        self._mode = bool(mode)
        self._prev.stack = [set_grad_mode(self._mode)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        set_grad_mode(self._prev.stack.pop())
        return False

# ---- complex dtypes (libtc's TC_COMPLEX64/128; Tensor support in tc/_complex.py) ----
complex64 = dtype(D.TC_COMPLEX64, "complex64", 8, False, True, "complex64")
complex128 = dtype(D.TC_COMPLEX128, "complex128", 16, False, True, "complex128")
DTYPES = DTYPES + (complex64, complex128)
BY_CODE.update({complex64.code: complex64, complex128.code: complex128})
_ALIASES.update({"cfloat": complex64, "cdouble": complex128, "complex": complex64})
dtype.is_complex = property(lambda self: self.code in (D.TC_COMPLEX64, D.TC_COMPLEX128),
                            doc="Whether this is a complex dtype (complex64, complex128).")
# ---- end of the complex dtypes -----------------------------------------------------------------
