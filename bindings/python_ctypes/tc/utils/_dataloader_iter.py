"""The main process's side of multi-process loading (torch 1.13's
_MultiProcessingDataLoaderIter): starts the workers, hands them batch
indices round-robin (prefetch_factor per worker in flight), returns their
batches in sampler order, re-raises what a worker raised, reports a worker
that died, and shuts the workers down at the end, on break, on an exception
and when collected. Batches arrive through tc.multiprocessing's reducers:
the worker's tensors are in shared memory and mapped here, not copied."""
import itertools
import multiprocessing
import multiprocessing.connection
import os

from . import _batch_channel as B
from . import _worker as W

# How long shutdown waits for a worker to exit before terminating it (s).
_JOIN_TIMEOUT = 5.0


class _InfiniteConstantSampler:
    """None forever: an IterableDataset's stand-in indices."""

    def __iter__(self):
        while True:
            yield None


def index_sampler(loader):
    """What the main process sends to workers: lists of indices (batched), single indices, or
    for an IterableDataset lists of None (how many samples each batch takes)."""
    if loader._iterable:
        if loader.batch_size is None:
            return _InfiniteConstantSampler()
        return _ConstantBatches(loader.batch_size)
    if loader.batch_sampler is not None:
        return loader.batch_sampler
    return loader.sampler


class _ConstantBatches:
    def __init__(self, batch_size):
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size


def _base_seed(loader):
    """A seed drawn from the loader's generator (or the default one), as torch
    draws its workers' base seed: int64 random_() of a 0-dim tensor."""
    import tc
    return int(tc.empty((), dtype=tc.int64).random_(generator=loader.generator).item())


class MultiProcessingDataLoaderIter:
    """An epoch's iterator over a DataLoader with num_workers > 0 (reused
    across epochs when persistent_workers)."""

    def __init__(self, loader):
        import tc.multiprocessing  # noqa: F401  (registers the reducers the batches travel by)
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader.batch_size is not None or loader.batch_sampler is not None
        self._drop_last = loader.drop_last
        self._index_sampler = index_sampler(loader)
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0
        self._shutdown = True  # until the workers are up: __del__ has nothing to stop
        # The process whose workers these are. A worker forked while this
        # iterator still lived (kept by a cycle, as a raised exception's
        # traceback keeps one) has a copy of it; when the worker's garbage
        # collector frees that copy, the shutdown must not run there: it would
        # read this process's queue (blocking, or taking its batches) and
        # send None to this process's workers.
        self._owner_pid = os.getpid()
        ctx = loader.multiprocessing_context or multiprocessing
        self._worker_init_fn = loader.worker_init_fn
        self._data_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        self._fd_socks = []  # main's end of each worker's descriptor socket (_batch_channel.py)
        self._workers_status = [True] * self._num_workers
        self._base_seed = _base_seed(loader)
        self._shutdown = False
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # a dead worker must not block our exit
                self._index_queues.append(index_queue)
                main_end, worker_end = B.socket_pair()
                self._fd_socks.append(main_end)
                try:
                    w = ctx.Process(target=W.worker_loop,
                                    args=(self._iterable, self._dataset, index_queue, self._data_queue,
                                          self._workers_done_event, self._auto_collation, self._collate_fn,
                                          self._drop_last, self._base_seed, self._worker_init_fn, i,
                                          self._num_workers, self._persistent_workers, worker_end))
                    w.daemon = True
                    w.start()
                finally:
                    worker_end.close()  # the worker has its own (fork) or a duplicate (spawn) by now
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._send_idx = 0  # next task to send
        self._rcvd_idx = 0  # next task to return
        self._task_info = {}  # idx -> (worker,) while outstanding, (worker, data) once arrived early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # a persistent worker starts a new epoch: wait for every echo
            for q in self._index_queues:
                q.put(W._ResumeIteration())
            waiting = self._num_workers
            while waiting > 0:
                ok, data = self._try_get_data()
                if not ok:
                    continue
                if isinstance(data[0], W._ResumeIteration):
                    waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    # ---- receiving
    def _try_get_data(self, timeout=W.STATUS_CHECK_INTERVAL):
        """(True, item) from the data queue, or (False, None) after timeout;
        raises when a worker still expected to answer has died."""
        reader = self._data_queue._reader
        watched = {w.sentinel: w for i, w in enumerate(self._workers) if self._workers_status[i]}
        ready = multiprocessing.connection.wait([reader] + list(watched), timeout)
        if reader in ready or reader.poll(0):
            return True, self._receive()
        dead = [watched[s] for s in ready if s in watched]
        if dead:
            # Data it sent before dying may still be in the pipe: take that first.
            if reader.poll(0.05):
                return True, self._receive()
            self._worker_died(dead)
        return False, None

    def _receive(self):
        """One item off the data queue. A batch whose worker died before the
        main process fetched its shared memory descriptor cannot be
        unpickled: that is reported as the worker's death."""
        try:
            item = self._data_queue.get()
            if type(item[1]) is B.PackedBatch:
                item = (item[0], B.unpack(item[1], self._fd_socks[item[1].worker_id]))
            return item
        except Exception as e:
            # The sender may be dying right now (its descriptor server reset
            # the connection): give it a moment to be reaped before deciding.
            active = [w for i, w in enumerate(self._workers) if self._workers_status[i]]
            patience = 5.0 if isinstance(e, (EOFError, ConnectionError)) else 0.0
            multiprocessing.connection.wait([w.sentinel for w in active], patience)
            dead = [w for w in active if not w.is_alive()]
            if not dead and patience:
                # The descriptor's sender is gone though not yet seen as dead:
                # name every worker still counted on.
                dead = active
            if not dead:
                raise
            self._worker_died(dead, e)

    def _worker_died(self, dead, cause=None):
        pids = ", ".join(str(w.pid) for w in dead)
        self._shutdown_workers()
        raise RuntimeError("DataLoader worker (pid(s) {}) exited unexpectedly".format(pids)) from cause

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout))
            return data
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _next_data(self):
        while True:
            # Skip the tasks of workers that have stopped (an exhausted IterableDataset copy).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                data = self._task_info.pop(self._rcvd_idx)[1]
                return self._process_data(data)
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._iterable and isinstance(data, W._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:  # early: keep it until its turn
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, W.ExceptionWrapper):
            data.reraise()
        return data

    # ---- sending
    def _try_put_index(self):
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker]:
                break
        else:
            return  # every worker has stopped
        self._index_queues[worker].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        """Stops sending to a worker and tells it to exit."""
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    # ---- shutdown
    def _drain(self):
        """Takes what workers sent and nobody will read, so that the shared
        memory it holds (file_system references in flight) is let go of."""
        reader = self._data_queue._reader
        try:
            while reader.poll(0.01):
                item = self._data_queue.get()
                if type(item[1]) is B.PackedBatch:
                    B.discard(item[1], self._fd_socks[item[1].worker_id])
        except Exception:  # a worker already gone cannot hand over its descriptor
            pass

    def _shutdown_workers(self):
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for i in range(len(self._workers)):
                if self._workers_status[i] or self._persistent_workers:
                    try:
                        self._index_queues[i].put(None)
                    except Exception:
                        pass
                    self._workers_status[i] = False
            self._drain()
            for w in self._workers:
                w.join(timeout=_JOIN_TIMEOUT)
            self._drain()
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._data_queue.cancel_join_thread()
            self._data_queue.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=1.0)
            for sock in self._fd_socks:
                sock.close()  # descriptors still in it are dropped by the kernel

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass

