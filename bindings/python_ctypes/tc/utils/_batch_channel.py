"""How a DataLoader worker hands its batches to the main process.

tc.multiprocessing's general reducer sends a file_descriptor segment through
multiprocessing's DupFd: the receiver connects to a server thread in the
sender (a new Unix socket, an HMAC handshake, then the descriptor), once per
tensor. In a DataLoader that server thread must win the worker's GIL from
the dataset code for every step of the handshake (up to the 5 ms switch
interval each), and the main process waits for it: that round trip, not the
mapping, was most of the main process's time per batch.

Here each worker instead gets one Unix socket pair, made by the main process
before the worker starts. The worker pickles a batch itself (pack): tensors
are moved to shared memory as before, and the descriptors of the
file_descriptor segments are collected and sent on the socket with SCM_RIGHTS
(one sendmsg per batch) before the pickled batch goes on the data queue. The
main process (unpack) reads that worker's descriptors off its socket when the
batch arrives, maps them and closes them. Both streams are first-in
first-out per worker, and a worker sends the descriptors before it queues
the batch, so the n-th batch of a worker always finds its descriptors
already waiting. file_system segments and tensors that cannot be shared
travel as tc.multiprocessing sends them elsewhere.

Descriptors nobody reads are dropped by the kernel when the main process
closes its socket, and file_descriptor segments have no name in /dev/shm:
an ended loader leaves nothing behind, whatever ended it."""
import io
import pickle
import socket
import threading
from multiprocessing.reduction import ForkingPickler, recvfds, sendfds

from .. import _shared_memory as S
from ..multiprocessing import reductions as R

# The kernel's limit of descriptors in one SCM_RIGHTS message (SCM_MAX_FD).
_FDS_PER_MESSAGE = 253

_receiving = threading.local()


class PackedBatch:
    """A worker's pickled batch and how many descriptors went ahead of it.

    Args:
        worker_id: the worker whose socket holds the descriptors.
        nfds: how many descriptors it sent for this batch.
        payload: the batch, pickled by pack.
    """

    __slots__ = ("worker_id", "nfds", "payload")

    def __init__(self, worker_id, nfds, payload):
        self.worker_id, self.nfds, self.payload = worker_id, nfds, payload

    def __reduce__(self):
        return PackedBatch, (self.worker_id, self.nfds, self.payload)


def socket_pair():
    """(main's end, the worker's end) of a new worker's descriptor socket."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


class _Packer(ForkingPickler):
    """ForkingPickler whose tensors leave their descriptors in self.fds."""

    def __init__(self, buf):
        super().__init__(buf, pickle.HIGHEST_PROTOCOL)
        from .._tensor import Tensor
        from ..nn import Parameter
        self.fds, self.retained = [], []
        self.dispatch_table[Tensor] = self._reduce_tensor
        self.dispatch_table[Parameter] = self._reduce_tensor

    def _reduce_tensor(self, t):
        handle = R.shared_handle_for_pickling(t)
        if handle[0] is None:
            return handle[1]
        kind, fd, nbytes, name, meta = handle
        if kind == S.FILE_SYSTEM:
            S.retain_segment(name)  # the message's reference, dropped by the receiver
            self.retained.append(name)
            return R.rebuild_tensor_filename, (name, nbytes, meta)
        self.fds.append(fd)
        return rebuild_tensor_passed_fd, (len(self.fds) - 1, nbytes, meta)


def pack(data, worker_id, sock):
    """Pickles data for the main process and sends its descriptors on sock.

    Returns:
        PackedBatch: what to put on the data queue (after this returns).
    """
    buf = io.BytesIO()
    packer = _Packer(buf)
    try:
        packer.dump(data)
    except BaseException:
        for name in packer.retained:  # the message will not be sent: nobody will release them
            S.release_segment(name)
        raise
    # The storages keep the descriptors open until data is dropped, after
    # this returns: the kernel holds its own reference once sendmsg is done.
    for i in range(0, len(packer.fds), _FDS_PER_MESSAGE):
        sendfds(sock, packer.fds[i:i + _FDS_PER_MESSAGE])
    return PackedBatch(worker_id, len(packer.fds), buf.getvalue())


def _receive_fds(sock, n):
    fds = []
    try:
        while len(fds) < n:
            fds.extend(recvfds(sock, min(n - len(fds), _FDS_PER_MESSAGE)))
    except BaseException:
        _close_all(fds)
        raise
    return fds


def _close_all(fds):
    import os
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def unpack(packed, sock):
    """The batch of packed, its tensors mapped from the descriptors waiting on sock."""
    fds = _receive_fds(sock, packed.nfds)
    _receiving.fds = fds
    try:
        return pickle.loads(packed.payload)
    finally:
        _receiving.fds = None
        _close_all(fds)  # each mapped storage holds its own duplicate


def discard(packed, sock):
    """Lets go of a batch nobody will read (at shutdown): its descriptors
    are taken off sock and closed, its file_system references dropped."""
    try:
        unpack(packed, sock)
    except Exception:  # a worker already gone: what it left is the kernel's to drop
        pass


def rebuild_tensor_passed_fd(slot, nbytes, meta):
    """Maps the slot-th descriptor sent ahead of the batch being unpacked."""
    fds = getattr(_receiving, "fds", None)
    if fds is None:
        raise RuntimeError("a DataLoader batch's tensors can only be unpickled by its DataLoader")
    t = S.from_shared(S.FILE_DESCRIPTOR, fds[slot], None, nbytes, *meta[:4])
    return R.rebuild_view(t, *meta[4:])
