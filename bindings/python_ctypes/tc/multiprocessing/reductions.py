"""ForkingPickler reducers that send tc tensors by shared-memory handle, not
by copy (after torch/multiprocessing/reductions.py): pickling a CPU tensor for
another process moves its storage into shared memory (in place) and sends the
segment's file descriptor (file_descriptor strategy, through
multiprocessing's DupFd: SCM_RIGHTS) or its name (file_system strategy, with
one reference held for the message in flight, which the receiver drops once it
has mapped the segment). The receiver maps the same memory: writes on either
side are seen by both."""
import os
from multiprocessing import reduction
from multiprocessing.reduction import ForkingPickler

from .. import _shared_memory as S
from .._errors import MissingFunctionError


def _rebuild(t, cls_is_parameter, requires_grad):
    if cls_is_parameter:
        from ..nn import Parameter
        return Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad = True
    return t


def rebuild_tensor_fd(df, nbytes, meta):
    """Maps a tensor sent by file descriptor (the receiving side of reduce_tensor)."""
    fd = df.detach()
    try:
        t = S.from_shared(S.FILE_DESCRIPTOR, fd, None, nbytes, *meta[:4])
    finally:
        os.close(fd)
    return _rebuild(t, *meta[4:])


def rebuild_tensor_filename(name, nbytes, meta):
    """Maps a tensor sent by segment name, then drops the in-flight reference."""
    from . import _manager_client
    _manager_client.ensure_connected()
    t = S.from_shared(S.FILE_SYSTEM, -1, name, nbytes, *meta[:4])
    S.release_segment(name)
    return _rebuild(t, *meta[4:])


def reduce_tensor(t):
    """Pickles t for another process as a handle of its (now shared) storage."""
    from ..nn import Parameter
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries.  "
                           "If you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")
    if t.device.type != "cpu" or getattr(t, "is_sparse", False):
        return t.__reduce__()  # no IPC for these: sent by value
    try:
        t.share_memory_()
    except MissingFunctionError:  # a libtc without shared memory: by value
        return t.__reduce__()
    kind, fd, nbytes, name = S.shared_handle(t)
    meta = (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype, isinstance(t, Parameter),
            t.requires_grad)
    if kind == S.FILE_SYSTEM:
        S.retain_segment(name)
        return rebuild_tensor_filename, (name, nbytes, meta)
    return rebuild_tensor_fd, (reduction.DupFd(fd), nbytes, meta)


def init_reductions():
    """Registers reduce_tensor with ForkingPickler for Tensor and Parameter."""
    from .._tensor import Tensor
    from ..nn import Parameter
    ForkingPickler.register(Tensor, reduce_tensor)
    ForkingPickler.register(Parameter, reduce_tensor)
