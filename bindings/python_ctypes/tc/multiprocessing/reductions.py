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


def rebuild_view(t, cls_is_parameter, requires_grad):
    """Gives a mapped tensor its Parameter class and requires_grad back."""
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
    return rebuild_view(t, *meta[4:])


def rebuild_tensor_filename(name, nbytes, meta):
    """Maps a tensor sent by segment name, then drops the in-flight reference."""
    from . import _manager_client
    _manager_client.ensure_connected()
    t = S.from_shared(S.FILE_SYSTEM, -1, name, nbytes, *meta[:4])
    S.release_segment(name)
    return rebuild_view(t, *meta[4:])


def shared_handle_for_pickling(t):
    """Moves t's storage to shared memory for sending it to another process.

    Returns:
        (None, by_value) where t cannot travel by shared memory (by_value is
        its ordinary __reduce__), else (kind, fd, nbytes, name, meta): the
        segment's handle (fd stays owned by the storage) and what the
        receiver needs to rebuild the view (shape, strides, offset, dtype,
        is_parameter, requires_grad).
    """
    from ..nn import Parameter
    if t.requires_grad and not t.is_leaf:
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                           "since autograd does not support crossing process boundaries.  "
                           "If you just want to transfer the data, call detach() on the tensor "
                           "before serializing (e.g., putting it on the queue).")
    if t.device.type != "cpu" or getattr(t, "is_sparse", False):
        return None, t.__reduce__()  # no IPC for these: sent by value
    try:
        t.share_memory_()
    except MissingFunctionError:  # a libtc without shared memory: by value
        return None, t.__reduce__()
    kind, fd, nbytes, name = S.shared_handle(t)
    meta = (tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.dtype, isinstance(t, Parameter),
            t.requires_grad)
    return kind, fd, nbytes, name, meta


def reduce_tensor(t):
    """Pickles t for another process as a handle of its (now shared) storage."""
    handle = shared_handle_for_pickling(t)
    if handle[0] is None:
        return handle[1]
    kind, fd, nbytes, name, meta = handle
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
