"""DataLoader worker processes and tensor passing by shared memory.

1. A data-bound training loop: every sample costs about 1 ms of Python and
   numpy work, batch 64, a small MLP step per batch. Samples per second with
   num_workers=2 against num_workers=0 (target: >= 1.7x; needs 3 free cores:
   two workers plus the training process).
2. Passing a 64 MB tensor to another process: by shared memory
   (tc.multiprocessing: the storage's descriptor is sent, the receiver maps
   it) against pickling its bytes through a pipe (target: <= 0.05x the time).

Prints both as ratios. Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_dataloader.py
"""
import argparse
import os
import pickle
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python_ctypes"))
import tc  # noqa: E402
import tc.multiprocessing as tmp  # noqa: E402
from tc.utils.data import DataLoader, Dataset  # noqa: E402


def _calibrate(target_s=0.001):
    """Rounds of the per-sample numpy work that take about target_s."""
    x = np.random.RandomState(0).rand(48, 48)
    rounds = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(20):
            _work(x, rounds)
        dt = (time.perf_counter() - t0) / 20
        if dt >= target_s:
            return rounds
        rounds = max(rounds + 1, int(rounds * target_s / max(dt, 1e-6)))


def _work(x, rounds):
    for _ in range(rounds):
        x = np.tanh(x @ x.T * 0.01) + 0.5
    return x


class CostlySamples(Dataset):
    """Sample i: 32 features from ~1 ms of numpy work, and a label."""

    def __init__(self, n, rounds):
        self.n, self.rounds = n, rounds

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = _work(np.random.RandomState(i).rand(48, 48), self.rounds)
        return tc.from_numpy(x[0, :32].astype(np.float32)), i % 10


def _train(loader, model, opt, epochs):
    n = 0
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = tc.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            n += x.shape[0]
    return n


def bench_loop(samples, epochs, workers):
    rounds = _calibrate()
    ds = CostlySamples(samples, rounds)
    model = tc.nn.Sequential(tc.nn.Linear(32, 64), tc.nn.ReLU(), tc.nn.Linear(64, 10))
    opt = tc.optim.SGD(model.parameters(), lr=0.01)
    rates = {}
    for nw in (0, workers):
        kwargs = dict(num_workers=nw, persistent_workers=True, multiprocessing_context="fork") if nw else {}
        loader = DataLoader(ds, batch_size=64, shuffle=True, **kwargs)
        _train(loader, model, opt, 1)  # warm-up (starts the persistent workers)
        t0 = time.perf_counter()
        n = _train(loader, model, opt, epochs)
        rates[nw] = n / (time.perf_counter() - t0)
        del loader
    return rates, rounds


def _receiver(conn):
    while True:
        msg = conn.recv()
        if msg is None:
            return
        if isinstance(msg, bytes):
            msg = pickle.loads(msg)
        conn.send(float(msg[-1].item()))  # touch the data: it must really be there


def bench_transfer(mb, reps):
    ctx = tmp.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_receiver, args=(child,))
    p.start()
    t = tc.ones(mb * (1 << 20) // 4)
    t.share_memory_()  # once, like a model or a dataset shared up front

    def timed(payload):
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            parent.send(payload() if callable(payload) else payload)
            assert parent.recv() == 1.0
            best = min(best, time.perf_counter() - t0)
        return best

    shm = timed(t)  # the reducer sends the segment's descriptor
    copied = timed(lambda: pickle.dumps(t, protocol=pickle.HIGHEST_PROTOCOL))  # its bytes
    parent.send(None)
    p.join()
    return shm, copied


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=64 * 24)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    tc.set_num_threads(1)
    rates, rounds = bench_loop(args.samples, args.epochs, args.workers)
    shm, copied = bench_transfer(args.mb, args.reps)
    cores = len(os.sched_getaffinity(0))
    print("| DataLoader and shared memory (bench_dataloader.py, %d cores) | value | target |" % cores)
    print("|---|---:|---:|")
    print("| data-bound loop, samples/s, num_workers=0 (%d numpy rounds/sample) | %.0f | |" % (rounds, rates[0]))
    print("| data-bound loop, samples/s, num_workers=%d | %.0f | |" % (args.workers, rates[args.workers]))
    print("| workers / in-process speed-up | %.2fx | >= 1.7x |" % (rates[args.workers] / rates[0]))
    print("| %d MB tensor to another process: shared memory, ms | %.3f | |" % (args.mb, shm * 1e3))
    print("| %d MB tensor to another process: pickled bytes, ms | %.1f | |" % (args.mb, copied * 1e3))
    print("| shared memory / pickling time | %.4fx | <= 0.05x |" % (shm / copied))


if __name__ == "__main__":
    main()
