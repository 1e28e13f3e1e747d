"""DataLoader worker processes and tensor passing by shared memory.

1. A data-bound training loop: every sample costs about 1 ms of Python and
   numpy work, batch 64, a small MLP step per batch. Samples per second with
   num_workers=2 against num_workers=0 (target: >= 1.7x; needs 3 free cores:
   two workers plus the training process), and the same loop with torch's
   own DataLoader alongside when torch is installed (--libs). Worker counts
   and libraries are interleaved over --loop-reps repetitions; medians are
   printed, with the load average (the machine may be shared).
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

    def __init__(self, n, rounds, lib=None):
        self.n, self.rounds, self.lib = n, rounds, lib or tc

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = _work(np.random.RandomState(i).rand(48, 48), self.rounds)
        return self.lib.from_numpy(x[0, :32].astype(np.float32)), i % 10


def _train(lib, loader, model, opt, epochs):
    n = 0
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            n += x.shape[0]
    return n


def _setup(lib, ds, workers):
    """The model, optimizer and both loaders (in-process, and persistent
    workers) of one library: torch's own DataLoader for torch."""
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(32, 64), lib.nn.ReLU(), lib.nn.Linear(64, 10))
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    if lib is tc:
        loader_cls, data = DataLoader, ds
    else:
        from torch.utils.data import DataLoader as loader_cls, Dataset as TorchDataset

        class _Wrapped(TorchDataset):
            def __len__(self):
                return len(ds)

            def __getitem__(self, i):
                return ds[i]
        data = _Wrapped()
    loaders = {0: loader_cls(data, batch_size=64, shuffle=True),
               workers: loader_cls(data, batch_size=64, shuffle=True, num_workers=workers,
                                   persistent_workers=True, multiprocessing_context="fork")}
    for loader in loaders.values():
        _train(lib, loader, model, opt, 1)  # warm-up (starts the persistent workers)
    return model, opt, loaders


def _workers_cpu_s(loader):
    """CPU seconds used so far by a loader's persistent worker processes
    (tc's and torch's iterators both keep them in _workers)."""
    it = getattr(loader, "_iterator", None)
    total = 0.0
    for w in getattr(it, "_workers", []) or []:
        try:
            with open("/proc/%d/stat" % w.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
        except (OSError, ValueError, IndexError):
            pass
    return total


def bench_loop(samples, epochs, workers, reps, libs):
    """Samples/s of the data-bound loop per library and worker count, the
    libraries and worker counts interleaved within each repetition (a
    loaded machine's drift hits all alike), with the CPU time per sample of
    the training process and of the workers.

    Returns:
        ({lib name: {num_workers: [samples/s per repetition]}},
         {lib name: {num_workers: [(main CPU s/sample, workers CPU s/sample) per repetition]}},
         numpy rounds per sample)
    """
    rounds = _calibrate()
    setups = {}
    for name in libs:
        lib = tc if name == "tc" else __import__(name)
        setups[name] = (lib,) + _setup(lib, CostlySamples(samples, rounds, lib), workers)
    rates = {name: {0: [], workers: []} for name in libs}
    cpu = {name: {0: [], workers: []} for name in libs}
    for _ in range(reps):
        for name, (lib, model, opt, loaders) in setups.items():
            for nw, loader in loaders.items():
                c0, w0, t0 = time.process_time(), _workers_cpu_s(loader), time.perf_counter()
                n = _train(lib, loader, model, opt, epochs)
                rates[name][nw].append(n / (time.perf_counter() - t0))
                cpu[name][nw].append(((time.process_time() - c0) / n, (_workers_cpu_s(loader) - w0) / n))
    return rates, cpu, rounds


def projected_speedup(cpu0, cpu_w, workers, cores):
    """The speed-up the CPU times alone allow on `cores` idle cores: in
    process, a sample costs its CPU time; with workers, the busiest of the
    training process, each worker (one core at most) and all of them
    together on the cores. Waits (a blocked handshake, scheduling) are not
    in it: the measured ratio on an idle machine is at most this."""
    main, work = cpu_w
    return cpu0[0] / max(main, work / workers, (main + work) / cores)


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
    p = ctx.Process(target=_receiver, args=(child,), daemon=True)  # an error here must not wait for it
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


def _median(xs):
    xs = sorted(xs)
    return 0.5 * (xs[(len(xs) - 1) // 2] + xs[len(xs) // 2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=64 * 24)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--loop-reps", type=int, default=3, help="interleaved repetitions of the loop (medians)")
    ap.add_argument("--libs", default="tc,torch", help="libraries whose loop runs (torch: skipped if absent)")
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-transfer", action="store_true", help="the data-bound loop only")
    args = ap.parse_args()
    libs = []
    for name in args.libs.split(","):
        if name == "torch":
            try:
                import torch
            except ImportError:
                continue
            torch.set_num_threads(1)
        libs.append(name)
    tc.set_num_threads(1)
    load_before = os.getloadavg()
    rates, cpu, rounds = bench_loop(args.samples, args.epochs, args.workers, args.loop_reps, libs)
    load_after = os.getloadavg()
    cores = len(os.sched_getaffinity(0))
    w = args.workers
    print("| DataLoader and shared memory (bench_dataloader.py, %d cores, load average %.1f -> %.1f, "
          "medians of %d) | value | target |" % (cores, load_before[0], load_after[0], args.loop_reps))
    print("|---|---:|---:|")
    for name in libs:
        r0, rw = rates[name][0], rates[name][w]
        ratios = [b / a for a, b in zip(r0, rw)]
        print("| %s data-bound loop, samples/s, num_workers=0 (%d numpy rounds/sample) | %.0f | |"
              % (name, rounds, _median(r0)))
        print("| %s data-bound loop, samples/s, num_workers=%d | %.0f | |" % (name, w, _median(rw)))
        print("| %s workers / in-process speed-up (per repetition: %s) | %.2fx | >= 1.7x |"
              % (name, " ".join("%.2f" % r for r in ratios), _median(ratios)))
        c0 = _median([c[0] for c in cpu[name][0]])
        cm, cw = _median([c[0] for c in cpu[name][w]]), _median([c[1] for c in cpu[name][w]])
        print("| %s CPU ms/sample: in-process %.3f; with %d workers: training process %.3f, workers %.3f | | |"
              % (name, c0 * 1e3, w, cm * 1e3, cw * 1e3))
        print("| %s speed-up the CPU times allow on %d idle cores | %.2fx | |"
              % (name, cores, projected_speedup((c0, 0.0), (cm, cw), w, cores)))
    if args.no_transfer:
        return
    shm, copied = bench_transfer(args.mb, args.reps)
    print("| %d MB tensor to another process: shared memory, ms | %.3f | |" % (args.mb, shm * 1e3))
    print("| %d MB tensor to another process: pickled bytes, ms | %.1f | |" % (args.mb, copied * 1e3))
    print("| shared memory / pickling time | %.4fx | <= 0.05x |" % (shm / copied))


if __name__ == "__main__":
    main()
