#!/usr/bin/env python3
"""The PyTorch side of bench/run_cuda.sh: the measurements of bench_cuda.c in
PyTorch on the same GPU, printed as "RESULT <metric> torch <value> <unit>".
Exits 0 with a message when torch or a GPU is missing."""
import sys
import time


def result(metric, value, unit):
    print(f"RESULT {metric} torch {value:.6g} {unit}", flush=True)


def timed(fn, iters, reps=3):
    import torch

    best = float("inf")
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            out = fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - t0) / iters)
        del out
    return best


def main():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch_cuda.py: skipped, no torch", file=sys.stderr)
        return 0
    if not torch.cuda.is_available():
        print("torch_cuda.py: skipped, torch sees no CUDA GPU", file=sys.stderr)
        return 0
    dev = torch.device("cuda")
    torch.manual_seed(1)
    for n in (4096, 8192):
        for name, dtype, precision in (("bf16", torch.bfloat16, "highest"), ("f32", torch.float32, "highest"),
                                       ("tf32", torch.float32, "high")):
            torch.set_float32_matmul_precision(precision)
            a = torch.rand(n, n, device=dev, dtype=dtype)
            b = torch.rand(n, n, device=dev, dtype=dtype)
            for _ in range(3):
                torch.matmul(a, b)
            flop = 2.0 * n**3
            iters = max(5, int(0.3 / (flop / (50e12 if name == "f32" else 600e12))))
            s = timed(lambda: torch.matmul(a, b), iters)
            result(f"matmul_{name}_{n}", flop / s / 1e12, "TFLOP/s")
            del a, b
    torch.set_float32_matmul_precision("highest")

    n = 256 << 20
    a = torch.rand(n, device=dev)
    b = torch.rand(n, device=dev)
    torch.add(a, b)
    s = timed(lambda: torch.add(a, b), 20, reps=5)
    result("add_256M_cuda", 3 * 4 * n / s / 1e9, "GB/s")
    del a, b

    w1 = (torch.rand(256, 784, device=dev) * 0.1 - 0.05).requires_grad_()
    b1 = (torch.rand(256, device=dev) * 0.1 - 0.05).requires_grad_()
    w2 = (torch.rand(10, 256, device=dev) * 0.1 - 0.05).requires_grad_()
    b2 = (torch.rand(10, device=dev) * 0.1 - 0.05).requires_grad_()
    opt = torch.optim.SGD([w1, b1, w2, b2], lr=0.01)
    for batch in (64, 1024):
        x = torch.rand(batch, 784, device=dev)
        y = (torch.rand(batch, device=dev) * 9.999).long()

        def step():
            loss = F.cross_entropy(F.linear(F.relu(F.linear(x, w1, b1)), w2, b2), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        for _ in range(5):
            step()
        steps = 400 if batch == 64 else 100
        result(f"mlp_step_b{batch}_cuda", timed(step, steps) * 1e6, "us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
