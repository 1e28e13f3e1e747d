"""Python integers -> C integers, range-checked.

ctypes converts a Python int to c_int64/c_int32/... by masking: 2**64 + 3
becomes 3 and a size, a dim or a flag value silently changes. Every integer
that reaches libtc goes through one of two places here instead:

- the argtypes of the declared functions: `harden(lib)` swaps each plain
  integer parameter type for a checked subclass whose from_param refuses a
  value out of range (it runs on every call, whatever the caller);
- `to_int64` for the values Python packs itself (shape and dim arrays, the
  integer scalars that become doubles).

ctypes wraps an exception raised by from_param in ctypes.ArgumentError;
`unwrap_argument_errors` (used by tc._core.fn) re-raises the original one,
so callers see PyTorch's exception types: IntOverflowError (an OverflowError
and a RuntimeError, like PyTorch's "Overflow when unpacking long") and
TypeError for a float or another non-integer.
"""
import ctypes as C
import functools
import numbers
import operator
import threading

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


class IntOverflowError(OverflowError, RuntimeError):
    """A Python integer that does not fit the C integer libtc takes (int64
    for sizes, dims, indices and integer scalars). PyTorch raises
    RuntimeError("Overflow when unpacking long") there, Python itself
    OverflowError: this is both."""


def _overflow(value, what):
    return IntOverflowError("Overflow when unpacking long: %d does not fit in %s" % (value, what))


def to_int64(value):
    """operator.index(value) (ints, bools, numpy integers, integer 0-d
    tensors; TypeError for floats), checked to fit int64."""
    v = value if type(value) is int else operator.index(value)
    if INT64_MIN <= v <= INT64_MAX:
        return v
    raise _overflow(v, "int64")


def check_int64_scalar(value):
    """Raises IntOverflowError when value is an integer (not a bool) outside
    int64; returns value. For scalars that travel to libtc as doubles: PyTorch
    refuses an integer scalar it cannot unpack as a C long, even next to a
    floating tensor."""
    if type(value) is int or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        v = int(value)
        if not INT64_MIN <= v <= INT64_MAX:
            raise _overflow(v, "int64")
    return value


# The last conversion error of this thread, for unwrap_argument_errors.
_pending = threading.local()


def _fail(error):
    _pending.error = error
    raise error


def _checked(base, lo, hi, what):
    """A subclass of ctypes integer type `base` whose from_param (what ctypes
    calls for each argument) range-checks Python integers."""

    def from_param(cls, value):
        if type(value) is not int:
            if isinstance(value, C._SimpleCData) or not hasattr(type(value), "__index__"):
                try:
                    return base.from_param(value)
                except TypeError as e:  # a float, a str...: TypeError, as PyTorch raises
                    _fail(TypeError("expected an integer for a C %s argument, got %s (%s)"
                                    % (what, type(value).__name__, e)))
            value = operator.index(value)  # bool, numpy integers
        if lo <= value <= hi:
            return base(value)
        _fail(_overflow(value, what))

    return type("checked_" + base.__name__, (base,), {
        "from_param": classmethod(from_param),
        "__doc__": "%s argument whose from_param refuses values outside [%d, %d]." % (what, lo, hi)})


CHECKED = {
    C.c_int64: _checked(C.c_int64, INT64_MIN, INT64_MAX, "int64"),
    C.c_int32: _checked(C.c_int32, -(1 << 31), (1 << 31) - 1, "int32"),
    C.c_uint64: _checked(C.c_uint64, 0, (1 << 64) - 1, "uint64"),
    C.c_uint32: _checked(C.c_uint32, 0, (1 << 32) - 1, "uint32"),
}


def harden(lib, names):
    """Swaps the plain integer argtypes of lib's functions `names` for their
    checked subclasses (lengths and positions unchanged)."""
    for name in names:
        f = getattr(lib, name, None)
        if f is None or f.argtypes is None:
            continue
        f.argtypes = [CHECKED.get(t, t) for t in f.argtypes]


def unwrap_argument_errors(f):
    """f, re-raising the IntOverflowError/TypeError a checked argument type
    raised in place of the ctypes.ArgumentError that wraps it."""

    @functools.wraps(f, assigned=("__name__",), updated=())
    def call(*args):
        try:
            return f(*args)
        except C.ArgumentError as wrapped:
            error = getattr(_pending, "error", None)
            _pending.error = None
            if error is None or str(error) not in str(wrapped):
                raise
            raise error from None

    call.argtypes = f.argtypes
    call.cfunc = f
    return call
