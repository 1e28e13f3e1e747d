#!/usr/bin/python3
"""The PyTorch side of bench/run.sh: the same measurements as the bench_*.c
programs, printed as "RESULT <metric> torch <value> <unit>" lines."""
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
    import torch
    import torch.nn.functional as F

    torch.manual_seed(1)
    a1, b1 = torch.ones(1), torch.ones(1)
    result("add_1elem", best_of(lambda: torch.add(a1, b1), iters=200000) * 1e9, "ns")
    a, b = torch.rand(16 << 20), torch.rand(16 << 20)
    for t in (1, 2):
        torch.set_num_threads(t)
        s = best_of(lambda: torch.add(a, b), reps=15)
        result(f"add_16M_t{t}", 3 * 4 * (16 << 20) / s / 1e9, "GB/s")
    del a, b

    for t in (1, 2):
        torch.set_num_threads(t)
        for n in (64, 128, 256, 512, 1024, 2048):
            x, y = torch.rand(n, n), torch.rand(n, n)
            torch.matmul(x, y)
            reps = max(3, min(200, int(0.25 / max(2 * n**3 / 50e9, 1e-6))))
            s = best_of(lambda: torch.matmul(x, y), reps=reps)
            result(f"matmul_{n}_t{t}", 2 * n**3 / s / 1e9, "GFLOP/s")

    w1 = (torch.rand(256, 784) * 0.1 - 0.05).requires_grad_()
    b1 = (torch.rand(256) * 0.1 - 0.05).requires_grad_()
    w2 = (torch.rand(10, 256) * 0.1 - 0.05).requires_grad_()
    b2 = (torch.rand(10) * 0.1 - 0.05).requires_grad_()
    opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.01)
    for t in (1, 2):
        torch.set_num_threads(t)
        for n in (64, 1024):
            x = torch.rand(n, 784)
            y = (torch.rand(n) * 9.999).long()

            def step():
                loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)
                opt.zero_grad()
                loss.backward()
                opt.step()

            steps = 400 if n == 64 else 40
            result(f"mlp_step_b{n}_t{t}", best_of(step, iters=steps // (4 if QUICK else 1)) * 1e6, "us")

    torch.set_num_threads(1)
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
