"""Status codes -> exceptions, mirroring PyTorch's C++ -> Python translation.

Every exception libtc raises is a TcError carrying .code, .name and .message;
the concrete class also derives from the matching Python built-in, so
`except IndexError` works as with PyTorch, and TcError is a RuntimeError, so
`except RuntimeError` does too.
"""
import ctypes
import threading

from . import _decls as D
from ._ints import IntOverflowError  # noqa: F401 (re-exported: tc.IntOverflowError)
from ._lib import lib


class TcError(RuntimeError):
    """A non-zero libtc status: .code (int), .name ("TC_ERR_SHAPE"), .message.

    Every one is a RuntimeError, as PyTorch raises most of its C++ errors
    (shape, dtype, argument and index checks): code ported from PyTorch that
    catches RuntimeError catches libtc's errors too."""

    def __init__(self, code, name, message):
        super().__init__("%s: %s" % (name, message) if message else name)
        self.code = code
        self.name = name
        self.message = message


class InvalidArgumentError(TcError, ValueError):
    """Raised for an invalid argument value (also a ValueError)."""
    pass


class ReadOnlyError(InvalidArgumentError, RuntimeError):
    """TC_ERR_INVALID_ARGUMENT from a write into a read-only tensor (one over
    a non-writeable numpy array or a read-only DLPack tensor; see
    Tensor.is_readonly). Also a RuntimeError, what PyTorch raises for a write
    it refuses (a libtc extension: PyTorch has no read-only tensors)."""


class InvalidHandleError(TcError, RuntimeError):
    """Raised when a handle is NULL, freed, stale or of the wrong kind."""
    pass


class NotInitializedError(TcError, RuntimeError):
    """Raised when libtc is used before initialization."""
    pass


class ShapeError(TcError, ValueError):
    """Raised for incompatible or invalid shapes (also a ValueError)."""
    pass


class DTypeError(TcError, TypeError):
    """Raised for an unsupported or mismatched dtype (also a TypeError)."""
    pass


class TcIndexError(TcError, IndexError):
    """Raised for an index or dimension out of range (also an IndexError)."""
    pass


class OutOfMemoryError(TcError, MemoryError):
    """Raised when libtc runs out of memory (also a MemoryError)."""
    pass


class DeviceError(TcError, RuntimeError):
    """Raised for an unavailable device or tensors on different devices."""
    pass


class NotCompiledError(TcError, RuntimeError):
    """Raised when a feature was not compiled into this libtc (e.g. CUDA)."""
    pass


class UnavailableError(TcError, RuntimeError):
    """Raised when a resource (device, backend, module) is unavailable at run time."""
    pass


class TcNotImplementedError(TcError, NotImplementedError):
    """Raised for an operation libtc does not implement (also a NotImplementedError)."""
    pass


class AutogradError(TcError, RuntimeError):
    """Raised when autograd cannot proceed (e.g. backward through a freed graph)."""
    pass


class TcIOError(TcError, RuntimeError):
    """Raised when reading or writing a file fails."""
    pass


class InternalError(TcError, RuntimeError):
    """Raised for an internal libtc failure (a bug: please report it)."""
    pass


class CallbackError(TcError, RuntimeError):
    """A callback (hook, custom function) failed; Python re-raises the
    callback's own exception instead where it has it."""


class TcTimeoutError(TcError, TimeoutError):
    """TC_ERR_TIMEOUT: a blocking call gave up (a peer of a process group died,
    hangs, or called another collective). Also Python's TimeoutError."""


class UnknownStatusError(TcError, RuntimeError):
    """A status code this package does not know (a newer libtc)."""

class TcZeroDivisionError(InvalidArgumentError, ZeroDivisionError, RuntimeError):
    """TC_ERR_INVALID_ARGUMENT from an integer division by zero (floor_divide,
    remainder, fmod, div with a rounding mode): also a RuntimeError, what
    PyTorch raises ("ZeroDivisionError"), and Python's ZeroDivisionError."""


ERROR_CLASSES = {
    D.TC_ERR_INVALID_ARGUMENT: InvalidArgumentError,
    D.TC_ERR_INVALID_HANDLE: InvalidHandleError,
    D.TC_ERR_NOT_INITIALIZED: NotInitializedError,
    D.TC_ERR_SHAPE: ShapeError,
    D.TC_ERR_DTYPE: DTypeError,
    D.TC_ERR_INDEX: TcIndexError,
    D.TC_ERR_OUT_OF_MEMORY: OutOfMemoryError,
    D.TC_ERR_DEVICE: DeviceError,
    D.TC_ERR_NOT_COMPILED: NotCompiledError,
    D.TC_ERR_UNAVAILABLE: UnavailableError,
    D.TC_ERR_NOT_IMPLEMENTED: TcNotImplementedError,
    D.TC_ERR_AUTOGRAD: AutogradError,
    D.TC_ERR_IO: TcIOError,
    D.TC_ERR_INTERNAL: InternalError,
    D.TC_ERR_CALLBACK: CallbackError,
    D.TC_ERR_TIMEOUT: TcTimeoutError,
}


def status_name(code):
    """Returns the name of a libtc status code (e.g. ``'TC_ERR_SHAPE'``).

    Args:
        code (int): the status.

    Returns:
        str: its name.
    """
    out = ctypes.c_char_p()
    if lib.tc_status_name(code, ctypes.byref(out)) != 0:
        return "TC_ERR_UNKNOWN(%d)" % code
    return out.value.decode()


def last_error_message():
    out = ctypes.c_char_p()
    lib.tc_last_error(ctypes.byref(out))
    return (out.value or b"").decode("utf-8", "replace")


def last_error():
    """(code, message) of the calling thread's last libtc failure ((0, "")
    when there was none)."""
    code = ctypes.c_int32()
    lib.tc_last_error_code(ctypes.byref(code))
    needed = ctypes.c_int64()
    lib.tc_last_error_copy(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    lib.tc_last_error_copy(buf, len(buf), ctypes.byref(needed))
    return code.value, buf.value.decode("utf-8", "replace")


_callback_state = threading.local()


def keep_callback_exception(exc):
    """A Python callback libtc ran raised exc: the libtc call that ran it
    raises exc itself (error_for gives it back once)."""
    _callback_state.exc = exc


def error_for(code, message=None):
    """The exception for a status code, with this thread's last message; the
    original exception when a Python callback inside the call raised one."""
    exc = getattr(_callback_state, "exc", None)
    if exc is not None:
        _callback_state.exc = None
        return exc
    if message is None:
        message = last_error_message()
    if not code:
        raise ValueError("status 0 (TC_OK) is not an error")
    cls = ERROR_CLASSES.get(code, UnknownStatusError)
    if cls is InvalidArgumentError and "read-only" in message:  # libtc's check_writable says so
        cls = ReadOnlyError
    if cls is InvalidArgumentError and "ZeroDivisionError" in message:  # ops/binary_ext.cpp says so
        cls = TcZeroDivisionError
    return cls(code, status_name(code), message)


def check(rc):
    """Raises the TcError matching libtc status ``rc`` (with the thread's error message) unless it is success.

    Args:
        rc (int): a libtc status code.
    """
    if rc:
        raise error_for(rc)


class MissingFunctionError(NotImplementedError):
    """The loaded libtc does not export a function of tc.h (an older or
    partial build)."""

    def __init__(self, name):
        super().__init__("libtc at %s does not export %s" % (_lib_path(), name))
        self.function = name


def _lib_path():
    from . import _lib
    return _lib.path
