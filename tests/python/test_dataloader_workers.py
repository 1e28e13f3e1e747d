"""DataLoader with num_workers > 0 (worker processes), against torch 1.13's
DataLoader: batches in order, seeds, get_worker_info, IterableDataset
sharding, persistent workers, errors raised in workers, dead workers,
timeouts, argument checks, and clean shutdown."""
import os
import random
import signal
import time

import numpy as np
import pytest

import tc
from tc.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

torch = pytest.importorskip("torch")
tdata = torch.utils.data

CTX = "fork"  # fast to start; one test runs spawn


class Squares(Dataset):
    """i -> (i*i as float64 array, i); built for tc or torch."""

    def __init__(self, n, lib):
        self.n, self.lib = n, lib

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return self.lib.tensor([float(i * i), float(i)], dtype=self.lib.float64), i


class TorchSquares(tdata.Dataset):
    def __init__(self, n):
        self.inner = Squares(n, torch)

    def __len__(self):
        return self.inner.n

    def __getitem__(self, i):
        return self.inner[i]


def _as_lists(batches):
    return [[x.tolist() if hasattr(x, "tolist") else x for x in b] for b in batches]


@pytest.mark.parametrize("workers,batch,prefetch", [(2, 4, 2), (3, 5, 1)])
def test_batches_in_order_like_torch(workers, batch, prefetch):
    ours = DataLoader(Squares(23, tc), batch_size=batch, num_workers=workers, prefetch_factor=prefetch,
                      multiprocessing_context=CTX, pin_memory=True)
    ref = tdata.DataLoader(TorchSquares(23), batch_size=batch, num_workers=0)
    got = list(ours)
    assert _as_lists(got) == _as_lists(ref)
    assert all(b[0].is_shared() for b in got)  # mapped from the worker's segment, not copied
    assert len(ours) == len(ref)


class Slow(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, i):
        # Later indices finish first: the main process must still return them in order.
        time.sleep(0.02 * (12 - i) / 12)
        return tc.tensor([i])


def test_out_of_order_arrival_is_reordered():
    got = [b.tolist() for b in DataLoader(Slow(), batch_size=1, num_workers=3, multiprocessing_context=CTX)]
    assert got == [[[i]] for i in range(12)]


class Seeds(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return (info.id, info.seed, random.random(), float(np.random.rand()),
                float(tc.rand(1).item()) if isinstance(self, Seeds) else 0.0)


def test_worker_seeds_follow_torch_rules():
    tc.manual_seed(5)
    rows = [b for b in DataLoader(Seeds(), batch_size=None, num_workers=2, multiprocessing_context=CTX)]
    by_worker = {}
    for r in rows:  # each worker's first sample: the first draws after seeding
        by_worker.setdefault(r[0], r)
    base = by_worker[0][1]
    assert by_worker[1][1] == base + 1  # seed = base_seed + worker_id
    for wid, (_, seed, py_rand, np_rand, tc_rand) in sorted(by_worker.items()):
        assert py_rand == random.Random(seed).random()
        # numpy is seeded as torch 1.13 seeds it: from the base seed and the worker id.
        from torch.utils.data._utils.worker import _generate_state
        assert np_rand == np.random.RandomState(_generate_state(base, wid)).rand()
        tc.manual_seed(seed)
        assert tc_rand == tc.rand(1).item()
    # The generator decides the base seed, as torch's does.
    g1, g2 = tc.Generator().manual_seed(7), tc.Generator().manual_seed(7)
    s1 = next(iter(DataLoader(Seeds(), batch_size=None, num_workers=1, generator=g1, multiprocessing_context=CTX)))
    s2 = next(iter(DataLoader(Seeds(), batch_size=None, num_workers=1, generator=g2, multiprocessing_context=CTX)))
    assert s1[1] == s2[1]


def test_get_worker_info_is_none_in_main_and_read_only():
    assert get_worker_info() is None
    from tc.utils._worker import WorkerInfo
    info = WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    with pytest.raises(RuntimeError, match="Cannot assign attributes"):
        info.id = 2


class Shards(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class TorchShards(tdata.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = tdata.get_worker_info()
        return iter(range(info.id, self.n, info.num_workers))


def test_iterable_dataset_sharding_like_torch():
    ours = [b.tolist() for b in DataLoader(Shards(11), batch_size=2, num_workers=3, multiprocessing_context=CTX)]
    ref = [b.tolist() for b in tdata.DataLoader(TorchShards(11), batch_size=2, num_workers=3,
                                               multiprocessing_context=CTX)]
    assert ours == ref


def _init_marks(worker_id):
    get_worker_info().dataset.mark = worker_id + 100


class Marked(Dataset):
    mark = None

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.mark


def test_worker_init_fn_runs_in_each_worker():
    got = list(DataLoader(Marked(), batch_size=None, num_workers=2, worker_init_fn=_init_marks,
                          multiprocessing_context=CTX))
    assert got == [100, 101, 100, 101]


class Pids(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return os.getpid()


def test_persistent_workers_are_reused_across_epochs():
    loader = DataLoader(Pids(), batch_size=None, num_workers=2, persistent_workers=True,
                        multiprocessing_context=CTX)
    first, second = set(loader), set(loader)
    assert first == second and os.getpid() not in first
    it = loader._iterator
    next(iter(loader))  # an epoch cut short, then a full one
    assert set(loader) == first and loader._iterator is it
    it._shutdown_workers()


class Fails(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("bad index %d" % i)
        return i


def test_worker_exception_reraised_with_its_traceback():
    with pytest.raises(KeyError) as ours:
        list(DataLoader(Fails(), batch_size=2, num_workers=2, multiprocessing_context=CTX))
    msg = str(ours.value)
    assert "Caught KeyError in DataLoader worker process 0." in msg
    assert "Original Traceback (most recent call last):" in msg and "bad index 5" in msg


def _init_fails(worker_id):
    raise ValueError("init of %d" % worker_id)


def test_worker_init_fn_exception_reraised():
    with pytest.raises(ValueError, match="Caught ValueError in DataLoader worker process 0"):
        list(DataLoader(Pids(), batch_size=None, num_workers=1, worker_init_fn=_init_fails,
                        multiprocessing_context=CTX))


class Dies(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


def test_dead_worker_is_reported_not_hung():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dies(), batch_size=1, num_workers=2, multiprocessing_context=CTX))
    assert time.monotonic() - start < 20


class Sleepy(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(3)
        return i


def test_timeout_like_torch():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iter(DataLoader(Sleepy(), num_workers=1, timeout=0.5, multiprocessing_context=CTX)))


def test_argument_errors_like_torch():
    ds = Squares(4, tc)
    for kwargs in [dict(timeout=-1), dict(prefetch_factor=3), dict(persistent_workers=True),
                   dict(multiprocessing_context="fork"), dict(num_workers=1, multiprocessing_context="nope"),
                   dict(num_workers=-1)]:
        with pytest.raises(ValueError) as ours:
            DataLoader(ds, **kwargs)
        with pytest.raises(ValueError) as ref:
            tdata.DataLoader(TorchSquares(4), **kwargs)
        assert str(ours.value) == str(ref.value)
    with pytest.raises(TypeError):
        DataLoader(ds, num_workers=1, multiprocessing_context=3)


def test_break_and_gc_shut_workers_down():
    loader = DataLoader(Pids(), batch_size=None, num_workers=2, multiprocessing_context=CTX)
    it = iter(loader)
    next(it)
    workers = list(it._workers)
    del it  # garbage collection stops the workers
    for w in workers:
        w.join(10)
        assert not w.is_alive()


def test_spawn_context_works():
    ds = TensorDataset(tc.arange(6, dtype=tc.float32).reshape(6, 1))
    got = [b[0].tolist() for b in DataLoader(ds, batch_size=3, num_workers=1, multiprocessing_context="spawn")]
    assert got == [[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]]]


class CollectsGarbage(Dataset):
    """Runs the garbage collector in the worker before each item."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        import gc
        gc.collect()
        return i


def test_forked_worker_leaves_the_parents_iterators_alone():
    # An iterator the main process has not collected yet (held only by a
    # cycle, as a raised exception's traceback holds one) is copied into every
    # worker forked meanwhile. A worker collecting that copy must not shut the
    # iterator down from there: that read the main process's queue (hanging
    # the worker, or taking the batches) and stopped the main process's workers.
    import gc
    import weakref
    gc.disable()  # here only: the forked workers inherit the setting, and collect explicitly
    try:
        first = DataLoader(Squares(8, tc), batch_size=2, num_workers=1, multiprocessing_context=CTX, timeout=20)
        it = iter(first)
        assert next(it)[1].tolist() == [0, 1]
        cycle = [it]
        cycle.append(cycle)
        unreachable = weakref.ref(it)
        del it, cycle
        second = DataLoader(CollectsGarbage(), batch_size=None, num_workers=2, multiprocessing_context=CTX,
                            timeout=20)
        assert list(second) == [0, 1, 2, 3]
        # The first loader still works: its worker was not told to stop and
        # its batches were not taken.
        assert [b[1].tolist() for b in unreachable()] == [[2, 3], [4, 5], [6, 7]]
    finally:
        gc.enable()
