"""Tensors in POSIX shared memory (tc.h's "tensors in shared memory"):
Tensor.share_memory_/is_shared, Module.share_memory, and the export/import
tc.multiprocessing's reducers send tensors by. Installed onto Tensor and
Module by tc/__init__.py."""
import ctypes as C

from . import _core as K
from . import _decls as D
from ._core import VP, byref, fn
from ._errors import MissingFunctionError, check
from ._tensor_base import _wrap

FILE_DESCRIPTOR = D.TC_SHARE_FILE_DESCRIPTOR
FILE_SYSTEM = D.TC_SHARE_FILE_SYSTEM
_NAMES = {"file_descriptor": FILE_DESCRIPTOR, "file_system": FILE_SYSTEM}

_share_f = fn("tc_tensor_share_memory_")
_is_shared_f = fn("tc_tensor_is_shared")
_handle_f = fn("tc_tensor_shared_handle")
_from_shared_f = fn("tc_tensor_from_shared")
_retain_f = fn("tc_shared_memory_retain")
_release_f = fn("tc_shared_memory_release")
_set_strategy_f = fn("tc_set_sharing_strategy")
_get_strategy_f = fn("tc_get_sharing_strategy")

# Called with a segment's name each time this process makes a file_system
# segment (tc.multiprocessing registers it with its cleanup process).
on_file_system_segment = None


def set_library_strategy(name):
    """Tells libtc which strategy new segments of this process use."""
    check(_set_strategy_f(_NAMES[name]))


def library_strategy(default):
    """The strategy libtc uses for this process's new segments, by name
    (default with a libtc that predates shared memory)."""
    out = C.c_int32()
    try:
        check(_get_strategy_f(byref(out)))
    except MissingFunctionError:
        return default
    return {v: k for k, v in _NAMES.items()}[out.value]


def share_memory_(self):
    """Moves the underlying storage to shared memory, in place: this tensor
    and every view of its storage then live in a segment other processes can
    map (tc.multiprocessing sends it by handle, not by copy). A no-op when
    the storage is shared already, and for CUDA tensors (as PyTorch).

    Returns:
        Tensor: self.
    """
    if self.device.type != "cpu":
        return self
    check(_share_f(self._h))
    if on_file_system_segment is not None:
        kind, _fd, _n, name = shared_handle(self)
        if kind == FILE_SYSTEM:
            on_file_system_segment(name)
    return self


def is_shared(self):
    """Whether the tensor's storage is in shared memory (share_memory_, or
    received from another process through tc.multiprocessing)."""
    out = C.c_int32()
    try:
        check(_is_shared_f(self._h, byref(out)))
    except MissingFunctionError:  # a libtc that predates shared memory
        return False
    return bool(out.value)


def shared_handle(t):
    """(kind, fd, nbytes, name) of t's shared storage (tc_tensor_shared_handle):
    fd stays owned by the storage; name is "" for file_descriptor segments."""
    kind, fd, nbytes, needed = C.c_int32(), C.c_int32(), C.c_int64(), C.c_int64()
    buf = C.create_string_buffer(256)
    check(_handle_f(t._h, byref(kind), byref(fd), byref(nbytes), buf, 256, byref(needed)))
    return kind.value, fd.value, nbytes.value, buf.value.decode()


def from_shared(kind, fd, name, nbytes, shape, strides, offset, dtype):
    """Maps an exported storage (tc_tensor_from_shared) as a new Tensor."""
    shape_arr, n = K.int64_array(shape)
    strides_arr, _ = K.int64_array(strides)
    out = VP()
    check(_from_shared_f(kind, fd, name.encode() if name else None, nbytes, shape_arr, strides_arr, n, offset,
                         K.to_dtype(dtype).code, byref(out)))
    return _wrap(out)


def retain_segment(name):
    """Adds the reference a message in flight holds to file_system segment name."""
    check(_retain_f(name.encode()))


def release_segment(name):
    """Drops one reference to file_system segment name (the last unlinks it)."""
    check(_release_f(name.encode()))


def module_share_memory(self):
    """Moves every parameter, gradient and buffer to shared memory (in
    place), as torch.nn.Module.share_memory: processes given this module
    then update one set of weights (Hogwild training).

    Returns:
        Module: self.
    """
    return self._apply(lambda t: t.share_memory_())


class SharedMemoryMethods:
    """tc.Tensor's share_memory_ and is_shared."""

    __slots__ = ()

    share_memory_ = share_memory_
    is_shared = is_shared


def install(module_cls):
    """Puts share_memory on Module (tc.nn.Module)."""
    module_cls.share_memory = module_share_memory
