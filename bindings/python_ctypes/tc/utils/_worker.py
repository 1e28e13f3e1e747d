"""What runs inside a DataLoader worker process (torch/utils/data/_utils/
worker.py's behaviour): get_worker_info, the per-worker seeds, the fetchers
and the worker loop. The main process's side is _dataloader_iter.py."""
import os
import queue
import random
import sys
import traceback

# How often a waiting worker checks that its parent is still alive (s).
STATUS_CHECK_INTERVAL = 5.0

_worker_info = None


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed
    and dataset (this worker's copy). Read-only once made."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        return "{}({})".format(self.__class__.__name__,
                               ", ".join("{}={}".format(k, getattr(self, k)) for k in self.__keys))


def get_worker_info():
    """In a DataLoader worker process, a WorkerInfo (id, num_workers, seed,
    dataset); in the main process, None. An IterableDataset's __iter__ uses it
    to give each worker its own share of the data."""
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its
    traceback as text (the traceback objects do not pickle).

    Args:
        exc_info: sys.exc_info() (the current exception when None).
        where: where it was caught, for the message.
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the exception again here, its message holding the original traceback."""
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type == KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    """KeyError quotes its message; this keeps the traceback's newlines."""

    def __repr__(self):
        return self


class _IterableDatasetStopIteration:
    """A worker's IterableDataset copy is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Starts a new epoch in a persistent worker (answered by an echo)."""

    def __init__(self, seed=None):
        self.seed = seed


def numpy_seed_state(base_seed, worker_id):
    """The four 32-bit words torch 1.13 seeds numpy.random with in worker
    worker_id: numpy's SeedSequence mixing (hash, then mix every pair, then
    one more hash per word; constants from O'Neill's seed_seq_fe, numpy's
    bit_generator.pyx, MIT licensed) of [worker_id, base_seed's low and
    high 32 bits, 0]."""
    mask = 0xFFFFFFFF
    shift = 16
    hash_a = [0x43b0d7e5]

    def hashmix(v):
        v = (v ^ hash_a[0]) & mask
        hash_a[0] = (hash_a[0] * 0x931e8875) & mask
        v = (v * hash_a[0]) & mask
        return (v ^ (v >> shift)) & mask

    def mix(x, y):
        r = ((0xca01f9dd * x) - (0x4973f715 * y)) & mask
        return (r ^ (r >> shift)) & mask

    pool = [hashmix(e) for e in (worker_id, base_seed & mask, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    out, hash_b = [], 0x8b51f9dd
    for v in pool:
        v = (v ^ hash_b) & mask
        hash_b = (hash_b * 0x58f38ded) & mask
        v = (v * hash_b) & mask
        out.append((v ^ (v >> shift)) & mask)
    return out


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            return self.collate_fn([self.dataset[i] for i in index])
        return self.collate_fn(self.dataset[index])


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    """The fetcher for a map-style or iterable dataset."""
    cls = _IterableFetcher if iterable else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


def _seed_everything(base_seed, worker_id):
    import tc
    seed = base_seed + worker_id
    random.seed(seed)
    tc.manual_seed(seed)
    try:
        import numpy as np
    except ImportError:
        return seed
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    return seed


def worker_loop(iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                base_seed, init_fn, worker_id, num_workers, persistent_workers, fd_sock=None):
    """A worker process's body: fetch and collate the batches the main process
    asks for, in the order asked, until it sends None. With fd_sock (this
    worker's end of its descriptor socket), batches travel packed: see
    _batch_channel.py."""
    global _worker_info
    try:
        import tc
        # One thread per worker, as torch: N workers each running a full
        # OpenMP team would oversubscribe the cores (and the team a forked
        # child inherited is not there, see docs/MULTIPROCESSING.md).
        tc.set_num_threads(1)
        import tc.multiprocessing  # noqa: F401  (its reducers send the batches by shared memory)
        from ._batch_channel import pack
        seed = _seed_everything(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
        iteration_end = False
        parent = os.getppid()
        while True:
            try:
                r = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent:  # the main process is gone: nobody will read
                    break
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))
                iteration_end = False
                fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
                if fd_sock is not None and not isinstance(data, (ExceptionWrapper, _IterableDatasetStopIteration)):
                    try:
                        data = pack(data, worker_id, fd_sock)
                    except Exception:  # e.g. a batch that does not pickle: the main process raises it
                        data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
            data_queue.put((idx, data))
            del data, idx, index, r
    except KeyboardInterrupt:
        pass  # the main process raises it
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
