"""Batched freeing of small tensors' handles.

A foreign call through ctypes costs about as much as a small op itself, so
`a + b` used to pay twice: the op, then tc_tensor_free when its result died.
With TC_PY_BATCH_FREE=1, Tensor.__del__ queues the handle of a *small* tensor
here instead, and one tc_tensor_free_many call frees the queue every
MAX_QUEUED handles. It is off by default: it measured no faster (below).

Only handles libtc marked TC_TENSOR_HANDLE_SMALL are queued: CPU tensors whose
bytes (at most 64) live inline in their storage and that had no graph behind
them when made. A queued tensor is already unreachable from Python, so the
queue only delays the release of a few hundred bytes each; numpy/DLPack
imports, big tensors and graph outputs are never queued and free at once.

The queue is flushed at points where a caller may look at what is alive:
every libtc flag or memory query (tc.get_flag, tc.flags, tc.cuda.memory_*),
backward, tc.shutdown and interpreter exit, after each garbage collection,
and by `flush()`. Everything runs under the GIL; __del__ may run on any thread
and even inside a flush (a collection triggered by its allocations), so a
flush takes its batch off the queue before the foreign call and never nests.
"""
import array
import ctypes as C
import gc
import os

from ._lib import lib

# The bit of tc.h's TC_TENSOR_HANDLE_SMALL; 0 turns batching off. Off unless
# TC_PY_BATCH_FREE=1: measured on CPython 3.11 + glibc it saves nothing (a +
# b: 0.714-0.757 us batched, 0.722-0.734 us freeing at once; see
# docs/PERF_PYTHON.md). The foreign call it saves costs ~0.1 us, and freeing
# 128 tensors at once overflows glibc's per-thread cache of 7 free chunks per
# size, so the next 128 allocations take malloc's slower paths.
ENABLED = os.environ.get("TC_PY_BATCH_FREE", "0") == "1" and hasattr(lib, "tc_tensor_free_many")
SMALL = 1 << 31 if ENABLED else 0
# At most this many handles wait; 128 frees cost ~1.5% of one call each.
MAX_QUEUED = 128

# Handle values of dead small tensors, not yet freed: uint64s, so that a flush
# hands libtc the bytes as they are (converting a list into a ctypes array
# cost ~70 ns a handle, more than the call it saves).
queued = array.array("Q")
_flushing = False

if hasattr(lib, "tc_tensor_free_many"):
    _free_many = type(lib.tc_tensor_free_many)(("tc_tensor_free_many", lib))
    _free_many.restype = C.c_int32
_I64 = C.c_int64


def flush() -> None:
    """Frees every queued handle now (one tc_tensor_free_many call per batch).

    Returns:
        None. A stale handle (after tc_shutdown) is skipped by libtc, never a crash.
    """
    global _flushing
    if _flushing or not queued:
        return
    _flushing = True
    try:
        while queued:
            # A copy: while libtc frees (without the GIL) another thread's
            # __del__ may append, and the array may move. Appends land after n.
            batch = queued.tobytes()
            n = len(batch) // 8
            del queued[:n]
            _free_many(batch, _I64(n))  # bytes pass as a pointer to their data
    finally:
        _flushing = False


def _after_gc(phase, _info):
    if phase == "stop" and queued:
        flush()


def _reset_in_child():
    # A fork while another thread was inside flush() would leave the flag set
    # in the child forever (that thread does not exist there).
    global _flushing
    _flushing = False


if ENABLED:
    gc.callbacks.append(_after_gc)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_reset_in_child)
