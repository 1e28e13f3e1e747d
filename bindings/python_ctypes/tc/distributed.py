"""tc.distributed: process groups and collectives, like torch.distributed.

Over libtc's process groups (tc.h's distributed section): the "mpi" backend
runs CPU tensors across the processes mpirun started (a process started
without mpirun is a group of size 1). Launch with

    mpirun -np 4 python3 train.py        # docs/DISTRIBUTED.md: hostfiles

and in train.py: tc.distributed.init_process_group("mpi"). Every blocking
call has a timeout (init_process_group(timeout=...), $TC_DIST_TIMEOUT, else
300 s): a peer that died or never calls raises tc.TcTimeoutError (also
Python's TimeoutError) instead of hanging. Ranks that disagree on a
collective's dtype or shape raise tc.DTypeError / tc.ShapeError on every rank
before any data moves (check_collectives=False skips that round trip).
"""
import ctypes as C
import datetime
from ctypes import byref

from . import _decls as D
from ._core import copy_string, fn
from ._errors import check

__all__ = ["ReduceOp", "ProcessGroup", "Work", "is_available", "is_backend_available", "is_mpi_available",
           "is_nccl_available", "init_process_group", "is_initialized", "destroy_process_group", "get_rank",
           "get_world_size", "get_backend", "new_group", "all_reduce", "broadcast", "all_gather",
           "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor", "barrier", "send", "recv",
           "isend", "irecv"]


class ReduceOp:
    """Reduction ops of all_reduce and reduce_scatter (AVG: floating dtypes)."""
    SUM = D.TC_REDUCE_SUM
    AVG = D.TC_REDUCE_AVG
    MAX = D.TC_REDUCE_MAX
    MIN = D.TC_REDUCE_MIN
    PRODUCT = D.TC_REDUCE_PRODUCT


def _seconds(timeout):
    if timeout is None:
        return 0.0
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


class Work:
    """An asynchronous collective (async_op=True): wait() blocks until it
    completes (raising its failure, or TcTimeoutError after timeout seconds,
    default the group's), is_completed() drives it on without blocking. The
    tensors it uses must not be touched before it completes."""

    __slots__ = ("_h", "_then", "__weakref__")

    def __init__(self, h, then=None):
        self._h = h
        self._then = then

    def wait(self, timeout=None):
        """Waits for the operation to finish.

        Args:
            timeout (float, optional): seconds to wait at most.

        Returns:
            bool: True once it has finished.
        """
        check(fn("tc_work_wait")(self._h, C.c_double(_seconds(timeout))))
        then, self._then = self._then, None
        if then is not None:
            then()
        return True

    def is_completed(self):
        """Returns True if the operation has finished."""
        out = C.c_int32()
        check(fn("tc_work_test")(self._h, byref(out)))
        return bool(out.value)

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            try:
                fn("tc_work_free")(h)
            except Exception:
                pass


class ProcessGroup:
    """One process group (a handle of libtc's). Usually made once by
    init_process_group; new_group() makes more (collectively: every rank)."""

    def __init__(self, backend="mpi", timeout=None, check_collectives=True):
        opts = D.tc_process_group_options()
        opts.size = C.sizeof(opts)
        opts.skip_checks = 0 if check_collectives else 1
        opts.timeout_seconds = _seconds(timeout)
        h = C.c_void_p()
        check(fn("tc_process_group_create")(backend.encode(), byref(opts), byref(h)))
        self._h = h

    def rank(self):
        """Returns this process's rank in the group."""
        out = C.c_int32()
        check(fn("tc_process_group_rank")(self._h, byref(out)))
        return out.value

    def size(self):
        """Returns the number of processes in the group."""
        out = C.c_int32()
        check(fn("tc_process_group_size")(self._h, byref(out)))
        return out.value

    def backend(self):
        """Returns the backend name (``'gloo'``, ``'mpi'``, ``'nccl'``...)."""
        return copy_string(fn("tc_process_group_backend"), self._h)

    def close(self):
        """Releases the group (further use raises)."""
        h, self._h = getattr(self, "_h", None), None
        if h:
            check(fn("tc_process_group_free")(h))

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    # Each collective: blocking (returns None), or a Work with async_op=True.
    def _run(self, name, args, async_op, then=None):
        if async_op:
            w = C.c_void_p()
            check(fn(name)(self._h, *args, byref(w)))
            return Work(w, then)
        check(fn(name)(self._h, *args, None))
        if then is not None:
            then()
        return None

    def all_reduce(self, tensor, op=ReduceOp.SUM, async_op=False):
        """See :func:`tc.distributed.all_reduce`. Runs on this group."""
        return self._run("tc_all_reduce", (tensor._h, C.c_int32(op)), async_op)

    def broadcast(self, tensor, src=0, async_op=False):
        """See :func:`tc.distributed.broadcast`. Runs on this group."""
        return self._run("tc_broadcast", (tensor._h, C.c_int32(src)), async_op)

    def all_gather_into_tensor(self, output, input, async_op=False):
        """See :func:`tc.distributed.all_gather_into_tensor`. Runs on this group."""
        return self._run("tc_all_gather", (output._h, input._h), async_op)

    def reduce_scatter_tensor(self, output, input, op=ReduceOp.SUM, async_op=False):
        """See :func:`tc.distributed.reduce_scatter_tensor`. Runs on this group."""
        return self._run("tc_reduce_scatter", (output._h, input._h, C.c_int32(op)), async_op)

    def barrier(self, async_op=False):
        """See :func:`tc.distributed.barrier`. Runs on this group."""
        return self._run("tc_barrier", (), async_op)

    def send(self, tensor, dst, tag=0, async_op=False):
        """See :func:`tc.distributed.send`. Runs on this group."""
        return self._run("tc_send", (tensor._h, C.c_int32(dst), C.c_int32(tag)), async_op)

    def recv(self, tensor, src, tag=0, async_op=False):
        """See :func:`tc.distributed.recv`. Runs on this group."""
        return self._run("tc_recv", (tensor._h, C.c_int32(src), C.c_int32(tag)), async_op)


_default = None


def is_available():
    """libtc always has the distributed API (backends may be missing)."""
    return True


def is_backend_available(backend):
    """Returns True if ``backend`` (a name such as ``'gloo'``) can be used here."""
    out = C.c_int32()
    check(fn("tc_dist_backend_available")(backend.encode(), byref(out)))
    return bool(out.value)


def is_mpi_available():
    """Returns True if the MPI backend can be used here."""
    return is_backend_available("mpi")


def is_nccl_available():
    """Returns True if the NCCL backend can be used here."""
    return is_backend_available("nccl")


def init_process_group(backend: str = "mpi", timeout=None, check_collectives: bool = True, **kwargs) -> None:
    """Makes the default group. Rank and world size come from the launcher
    (mpirun, or RANK/WORLD_SIZE/LOCAL_RANK for "nccl").

    Args:
        backend: "mpi" (CPU tensors) or "nccl" (CUDA tensors, one GPU per rank).
        timeout: every blocking call's limit (seconds or a timedelta).
        check_collectives: compare the ranks' dtypes and shapes before each collective.
        init_method: for "nccl", "file:///path": rank 0 writes NCCL's unique id
            there and the others read it (else it goes over MPI under mpirun);
            for "mpi" it is ignored. rank and world_size are accepted for
            torch's signature and must agree with the launcher when given.
    """
    global _default
    if _default is not None:
        raise RuntimeError("trying to initialize the default process group twice")
    init_method = kwargs.get("init_method")
    if backend == "nccl" and isinstance(init_method, str) and init_method.startswith("file://"):
        import os
        os.environ["TC_NCCL_ID_FILE"] = init_method[len("file://"):]
    g = ProcessGroup(backend, timeout, check_collectives)
    for key, value in (("rank", g.rank()), ("world_size", g.size())):
        want = kwargs.pop(key, -1)
        if want not in (-1, None) and want != value:
            g.close()
            raise ValueError("%s=%r but the launcher says %r" % (key, want, value))
    kwargs.pop("init_method", None)
    if kwargs:
        g.close()
        raise TypeError("unexpected arguments: %s" % ", ".join(sorted(kwargs)))
    _default = g


def is_initialized():
    """Returns True if the global process group is initialized."""
    return _default is not None


def _group(group):
    g = group if group is not None else _default
    if g is None:
        raise RuntimeError("Default process group has not been initialized, please make sure to call "
                           "init_process_group.")
    return g


def destroy_process_group(group=None):
    """Destroys ``group`` (the global group and all others when None).

    Args:
        group (ProcessGroup, optional): the group.
    """
    global _default
    if group is None or group is _default:
        g, _default = _default, None
        if g is not None:
            g.close()
    else:
        group.close()


def new_group(backend="mpi", timeout=None, check_collectives=True):
    """Another group of every process (collective: every rank calls it)."""
    return ProcessGroup(backend, timeout, check_collectives)


def get_rank(group=None):
    """Returns this process's rank in ``group`` (default: the global group)."""
    return _group(group).rank()


def get_world_size(group=None):
    """Returns the number of processes in ``group`` (default: the global group)."""
    return _group(group).size()


def get_backend(group=None):
    """Returns the backend name of ``group`` (default: the global group)."""
    return _group(group).backend()


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``tensor`` across ranks in place (every rank gets the result).

    Args:
        tensor (Tensor): input and output.
        op (ReduceOp): the reduction (default SUM).
        group (ProcessGroup, optional): the group (default: the global one).
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    return _group(group).all_reduce(tensor, op, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    """Copies ``tensor`` from rank ``src`` into every rank's ``tensor``.

    Args:
        tensor (Tensor): the data (sent by src, received elsewhere).
        src (int): the source rank.
        group (ProcessGroup, optional): the group (default: the global one).
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    return _group(group).broadcast(tensor, src, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gathers every rank's ``input_tensor`` into ``output_tensor``, concatenated along dim 0.

    Args:
        output_tensor (Tensor): world_size times the input's size along dim 0.
        input_tensor (Tensor): this rank's part.
        group (ProcessGroup, optional): the group (default: the global one).
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    return _group(group).all_gather_into_tensor(output_tensor, input_tensor, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] = rank r's tensor (a list of world-size tensors)."""
    from ._tensor import empty
    g = _group(group)
    if len(tensor_list) != g.size():
        raise ValueError("tensor_list has %d tensors but the group has %d ranks" % (len(tensor_list), g.size()))
    flat = empty((g.size(),) + tuple(tensor.shape), dtype=tensor.dtype)

    def scatter_back():
        from ._core import no_grad
        with no_grad():
            for r, t in enumerate(tensor_list):
                t.copy_(flat[r])

    src = tensor.contiguous()  # (kept alive across the call: its handle is passed)
    return g._run("tc_all_gather", (flat._h, src._h), async_op, scatter_back)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces ``input`` across ranks and scatters the result along dim 0.

    Args:
        output (Tensor): this rank's slice of the result.
        input (Tensor): world_size times ``output``'s size along dim 0.
        op (ReduceOp): the reduction (default SUM).
        group (ProcessGroup, optional): the group.
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    return _group(group).reduce_scatter_tensor(output, input, op, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces the lists across ranks; rank i gets the reduction of everyone's ``input_list[i]``.

    Args:
        output (Tensor): this rank's result.
        input_list (list of Tensor): world_size tensors shaped like ``output``.
        op (ReduceOp): the reduction (default SUM).
        group (ProcessGroup, optional): the group.
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    from ._tensor import cat
    flat = cat([t.reshape(-1) for t in input_list]).contiguous()
    return _group(group).reduce_scatter_tensor(output, flat, op, async_op)


def barrier(group=None, async_op=False):
    """Waits until every rank of the group reaches it.

    Args:
        group (ProcessGroup, optional): the group (default: the global one).
        async_op (bool): return a Work handle instead of waiting.

    Returns:
        Work if ``async_op`` else None.
    """
    return _group(group).barrier(async_op)


def send(tensor, dst, group=None, tag=0):
    """Sends ``tensor`` to rank ``dst`` (blocking).

    Args:
        tensor (Tensor): the data.
        dst (int): the destination rank.
        group (ProcessGroup, optional): the group.
        tag (int): matched by the receiver.
    """
    _group(group).send(tensor, dst, tag)


def recv(tensor, src, group=None, tag=0):
    """Receives ``tensor`` from rank ``src`` (blocking).

    Args:
        tensor (Tensor): filled with the data.
        src (int): the source rank.
        group (ProcessGroup, optional): the group.
        tag (int): matches the sender's tag.
    """
    _group(group).recv(tensor, src, tag)
    return src


def isend(tensor, dst, group=None, tag=0):
    """Starts sending ``tensor`` to rank ``dst``.

    Args:
        tensor (Tensor): the data (unchanged until the send completes).
        dst (int): the destination rank.
        group (ProcessGroup, optional): the group.
        tag (int): matched by the receiver.

    Returns:
        Work: the pending send.
    """
    return _group(group).send(tensor, dst, tag, async_op=True)


def irecv(tensor, src, group=None, tag=0):
    """Starts receiving ``tensor`` from rank ``src``.

    Args:
        tensor (Tensor): filled with the data.
        src (int): the source rank.
        group (ProcessGroup, optional): the group.
        tag (int): matches the sender's tag.

    Returns:
        Work: wait on it before reading ``tensor``.
    """
    return _group(group).recv(tensor, src, tag, async_op=True)
