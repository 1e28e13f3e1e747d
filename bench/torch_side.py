#!/usr/bin/python3
"""The PyTorch side of bench/run.sh: the same measurements as the bench_*.c
programs, printed as "RESULT <metric> torch <value> <unit>" lines.

How PyTorch is measured (its best configuration, so the ratios are honest):
every thread-dependent measurement (the 16M add, matmul, the MLP training
step) runs in a fresh interpreter of its own, started with OMP_NUM_THREADS,
OPENBLAS_NUM_THREADS and MKL_NUM_THREADS set to the thread count and
torch.set_num_threads() called once before any work. Switching thread counts
inside one process leaves OpenBLAS's and OpenMP's pools at odds (PyTorch's
2-thread MLP step measured that way was slower than its 1-thread step). The
MLP step is the idiomatic one: one model, one SGD optimizer,
zero_grad(set_to_none=True), warmed up, then the best of 5 timed runs.

  /usr/bin/python3 bench/torch_side.py [--quick]
  /usr/bin/python3 bench/torch_side.py --one KIND THREADS   (one child)
"""
import os
import subprocess
import sys
import time

QUICK = "--quick" in sys.argv


def result(metric, value, unit):
    print(f"RESULT {metric} torch {value:.6g} {unit}", flush=True)


def best_of(fn, reps=3, iters=1):
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best


def child(kind, threads):
    """One measurement kind at one thread count, in this (fresh) process."""
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(threads)
    torch.manual_seed(1)
    t = threads
    if kind == "add":
        a, b = torch.rand(16 << 20), torch.rand(16 << 20)
        s = best_of(lambda: torch.add(a, b), reps=15)
        result(f"add_16M_t{t}", 3 * 4 * (16 << 20) / s / 1e9, "GB/s")
    elif kind == "matmul":
        for n in (64, 128, 256, 512, 1024, 2048):
            x, y = torch.rand(n, n), torch.rand(n, n)
            torch.matmul(x, y)
            reps = max(3, min(200, int(0.25 / max(2 * n**3 / 50e9, 1e-6))))
            s = best_of(lambda: torch.matmul(x, y), reps=reps)
            result(f"matmul_{n}_t{t}", 2 * n**3 / s / 1e9, "GFLOP/s")
    elif kind.startswith("mlp"):
        n = int(kind[3:])
        w1 = (torch.rand(256, 784) * 0.1 - 0.05).requires_grad_()
        b1 = (torch.rand(256) * 0.1 - 0.05).requires_grad_()
        w2 = (torch.rand(10, 256) * 0.1 - 0.05).requires_grad_()
        b2 = (torch.rand(10) * 0.1 - 0.05).requires_grad_()
        opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.01)
        x = torch.rand(n, 784)
        y = (torch.rand(n) * 9.999).long()

        def step():
            loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        steps = (400 if n == 64 else 40) // (4 if QUICK else 1)
        best_of(step, reps=1, iters=max(1, steps // 4))  # warm-up: caches, allocator, thread pool
        result(f"mlp_step_b{n}_t{t}", best_of(step, reps=5, iters=steps) * 1e6, "us")
    else:
        raise SystemExit(f"torch_side.py: unknown kind {kind}")


def run_child(kind, threads):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    args = [sys.executable, os.path.abspath(__file__), "--one", kind, str(threads)]
    if QUICK:
        args.append("--quick")
    out = subprocess.run(args, env=env, capture_output=True, text=True)
    sys.stdout.write(out.stdout)
    sys.stdout.flush()
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"torch_side.py: child {kind} at {threads} threads failed")


def import_cost():
    # A fresh interpreter: import time and peak RSS with torch loaded.
    code = ("import time,resource;t=time.perf_counter();import torch;"
            "print((time.perf_counter()-t)*1e3, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    runs = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        ms, kb = out.stdout.split()
        runs.append((float(ms), float(kb) / 1024))
    runs.sort()
    result("init_time", runs[1][0], "ms")
    result("init_peak_rss", runs[1][1], "MB")


def main():
    if "--one" in sys.argv:
        i = sys.argv.index("--one")
        child(sys.argv[i + 1], int(sys.argv[i + 2]))
        return
    import torch

    torch.set_num_threads(1)
    a1, b1 = torch.ones(1), torch.ones(1)
    result("add_1elem", best_of(lambda: torch.add(a1, b1), iters=200000) * 1e9, "ns")
    for t in (1, 2):
        run_child("add", t)
    for t in (1, 2):
        run_child("matmul", t)
    for t in (1, 2):
        for n in (64, 1024):
            run_child(f"mlp{n}", t)

    x = torch.randn(16)
    w = torch.randn(16, requires_grad=True)
    bb = torch.randn(16, requires_grad=True)

    def tiny():
        (x * w + bb).relu().sum().backward()
        w.grad = None
        bb.grad = None

    result("tiny_graph", best_of(tiny, iters=20000) * 1e6, "us")
    import_cost()


if __name__ == "__main__":
    main()
