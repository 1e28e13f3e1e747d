"""DataLoader workers hand batches over through their descriptor sockets
(tc/utils/_batch_channel.py): no per-tensor handshake with a server thread
in the worker, the same batches as torch's DataLoader (views, Parameters,
nested containers, more tensors than one SCM_RIGHTS message holds), an
unpicklable batch raised in the main process, and nothing left open."""
import multiprocessing.resource_sharer as resource_sharer
import os

import pytest

import tc
import tc.multiprocessing as tmp
from tc.utils.data import DataLoader, Dataset

torch = pytest.importorskip("torch")
tdata = torch.utils.data

CTX = "fork"


class SharerState(Dataset):
    """Sample i: a tensor, and whether this worker has started
    multiprocessing's descriptor server thread (the per-tensor path) yet."""

    def __len__(self):
        return 16

    def __getitem__(self, i):
        started = resource_sharer._resource_sharer._listener is not None
        return tc.full((3,), float(i)), int(started)


def test_batches_do_not_use_the_resource_sharer_and_sockets_close():
    loader = DataLoader(SharerState(), batch_size=2, num_workers=2, multiprocessing_context=CTX)
    it = iter(loader)
    socks = list(it._fd_socks)
    got = list(it)
    assert [b[0].tolist() for b in got] == [[[float(i)] * 3, [float(i + 1)] * 3] for i in range(0, 16, 2)]
    assert all(b[0].is_shared() for b in got)
    # Later batches of each worker: the first one's tensors did not start the server thread.
    assert [b[1].tolist() for b in got] == [[0, 0]] * 8
    assert all(s.fileno() == -1 for s in socks)  # closed when the epoch ended


class Many(Dataset):
    """One unbatched sample of n small tensors (more than one SCM_RIGHTS
    message's 253 descriptors)."""

    def __init__(self, lib, n=300):
        self.lib, self.n = lib, n

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return [self.lib.full((2,), float(i * 1000 + k)) for k in range(self.n)]


class TorchMany(tdata.Dataset):
    def __init__(self):
        self.inner = Many(torch)

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, i):
        return self.inner[i]


def test_more_tensors_than_one_message_holds_like_torch():
    ours = list(DataLoader(Many(tc), batch_size=None, num_workers=2, multiprocessing_context=CTX))
    ref = list(tdata.DataLoader(TorchMany(), batch_size=None, num_workers=2, multiprocessing_context=CTX))
    assert [[t.tolist() for t in b] for b in ours] == [[t.tolist() for t in b] for b in ref]
    assert all(t.is_shared() for b in ours for t in b)


class Mixed(Dataset):
    """Views with offsets and strides, a Parameter, a tensor requiring grad,
    nested containers and plain values, for tc or torch."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 3

    def __getitem__(self, i):
        lib = self.lib
        base = lib.arange(24, dtype=lib.float64).reshape(4, 6) + i
        return {"view": base[1:, ::2], "t": base.t(), "p": lib.nn.Parameter(lib.ones(2) * i),
                "g": lib.zeros(3).requires_grad_(), "i64": lib.tensor([i, -i]), "n": i,
                "nested": [base[2], ["s", base[0, 1:3]]]}


class TorchMixed(tdata.Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return Mixed(torch)[i]


def _describe(x):
    if hasattr(x, "tolist") and hasattr(x, "stride"):
        return (type(x).__name__, x.tolist(), tuple(x.shape), tuple(x.stride()), str(x.dtype).split(".")[-1],
                x.requires_grad)
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(_describe(v) for v in x)
    return x


def test_views_parameters_and_containers_like_torch():
    ours = list(DataLoader(Mixed(tc), batch_size=None, num_workers=2, multiprocessing_context=CTX))
    ref = list(tdata.DataLoader(TorchMixed(), batch_size=None, num_workers=2, multiprocessing_context=CTX))
    assert [_describe(b) for b in ours] == [_describe(b) for b in ref]
    assert isinstance(ours[1]["p"], tc.nn.Parameter)
    # The views still share the worker's storage between them: a write through one shows in the other.
    ours[0]["t"][1, 1] = -5.0  # base[1, 1]: ours[0]["view"][0, 0] holds base[1, 0], [0, 1] base[1, 2]
    assert ours[0]["view"][0].tolist() == [6.0, 8.0, 10.0]
    ours[0]["t"][2, 1] = -7.0
    assert ours[0]["view"][0, 1].item() == -7.0


class FileSystemWorker(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return tc.full((4,), float(i))


def _file_system_strategy(worker_id):
    tmp.set_sharing_strategy("file_system")


def test_file_system_segments_from_a_worker_still_arrive_by_name():
    loader = DataLoader(FileSystemWorker(), batch_size=2, num_workers=1, multiprocessing_context=CTX,
                        worker_init_fn=_file_system_strategy)
    got = list(loader)
    assert [b.tolist() for b in got] == [[[0.0] * 4, [1.0] * 4], [[2.0] * 4, [3.0] * 4]]
    from tc import _shared_memory as S
    assert all(S.shared_handle(b)[0] == S.FILE_SYSTEM for b in got)


class Unpicklable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return tc.ones(2), (lambda: i)


def test_unpicklable_batch_is_raised_not_lost():
    with pytest.raises(Exception, match="(?i)pickle") as info:
        list(DataLoader(Unpicklable(), batch_size=None, num_workers=1, multiprocessing_context=CTX, timeout=60))
    assert "DataLoader worker process 0" in str(info.value)


def test_no_descriptor_left_open_by_finished_loaders():
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        batches = list(DataLoader(FileSystemWorker(), batch_size=2, num_workers=2, multiprocessing_context=CTX))
        del batches
    import gc
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) - before <= 0
