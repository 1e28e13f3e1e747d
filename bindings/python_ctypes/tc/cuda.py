"""tc.cuda: whether libtc can use a GPU, without creating a CUDA context."""
import ctypes as C

from ._core import byref, fn, get_flag
from ._errors import TcError, check


def is_available():
    """True when libtc was built with CUDA and a GPU and driver are usable."""
    return bool(get_flag("has_cuda")) and bool(get_flag("cuda_available"))


def device_count():
    """Returns the number of CUDA devices (0 without CUDA)."""
    return int(get_flag("cuda_device_count")) if get_flag("has_cuda") else 0


def is_initialized():
    """Returns True if the CUDA backend is loaded and initialized."""
    return bool(get_flag("cuda_initialized"))


def init():
    """Runs the lazy cuda stage now; raises NotCompiledError/UnavailableError
    with the reason."""
    check(fn("tc_backend_init")(b"cuda"))


def memory_stats(device=0):
    """Returns the allocator statistics of a CUDA device.

    Args:
        device (int): the device index.

    Returns:
        dict: counters by name.
    """
    from ._decls import tc_cuda_memory_stats

    s = tc_cuda_memory_stats()
    s.size = C.sizeof(s)
    check(fn("tc_cuda_memory_stats_get")((1 << 16) | int(device), byref(s)))
    return {"allocated_bytes": s.allocated, "reserved_bytes": s.reserved,
            "peak_allocated_bytes": s.peak_allocated}


def memory_allocated(device=0):
    """Returns the bytes held by tensors on a CUDA device.

    Args:
        device (int): the device index.

    Returns:
        int: bytes.
    """
    return memory_stats(device)["allocated_bytes"]


def empty_cache():
    """Returns the cached, unused CUDA memory to the driver."""
    check(fn("tc_cuda_empty_cache")())


__all__ = ["is_available", "device_count", "is_initialized", "init", "memory_stats", "memory_allocated",
           "empty_cache", "TcError"]
