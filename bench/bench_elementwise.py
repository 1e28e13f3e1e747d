"""The elementwise kernels, libtc beside PyTorch in one run: contiguous,
broadcast (a scalar, a row), strided (a transposed operand), integer, the
fused backward formulas, and the per-call cost of a tiny op. Prints one line
per case: the median milliseconds of libtc and of PyTorch and their ratio.

    TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_elementwise.py [--reps N]

Run it against two builds of libtc (TC_LIBRARY) to see what a change to the
kernels' code or compile options costs at run time."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "bindings", "python_ctypes"))
sys.path.insert(0, os.path.dirname(__file__))

import tc  # noqa: E402
from bench_timing import median_times  # noqa: E402

try:
    import torch
except ImportError:  # libtc's column alone
    torch = None


def cases(lib):
    """(name, setup) pairs; setup(lib) returns the callable to time."""
    n = 1 << 22

    def make(dtype_name, shape):
        if dtype_name.startswith("int"):
            return lib.randint(0, 1000, shape, dtype=getattr(lib, dtype_name))
        return lib.randn(*shape, dtype=getattr(lib, dtype_name))

    def binary(op, dtype, sa, sb, transpose_b=False):
        def setup():
            a, b = make(dtype, sa), make(dtype, sb)
            if transpose_b:
                b = b.t()
            return lambda: op(a, b)
        return setup

    def unary(fn, dtype="float32"):
        def setup():
            a = make(dtype, (n,))
            return lambda: fn(a)
        return setup

    def backward(fn):
        def setup():
            a = make("float32", (n,)).requires_grad_()
            b = make("float32", (n,)).requires_grad_()

            def run():
                fn(a, b).sum().backward()
                a.grad = None
                b.grad = None
            return run
        return setup

    def tiny():
        a, b = make("float32", (1,)), make("float32", (1,))

        def run():
            for _ in range(1000):
                a + b
        return run

    return [
        ("add f32 4M", binary(lambda a, b: a + b, "float32", (n,), (n,))),
        ("add f32 4M + scalar tensor", binary(lambda a, b: a + b, "float32", (n,), (1,))),
        ("mul f32 2048x2048 * row", binary(lambda a, b: a * b, "float32", (2048, 2048), (2048,))),
        ("add f32 2048x2048 + transposed", binary(lambda a, b: a + b, "float32", (2048, 2048), (2048, 2048), True)),
        ("div f64 4M", binary(lambda a, b: a / b, "float64", (n,), (n,))),
        ("add int64 4M", binary(lambda a, b: a + b, "int64", (n,), (n,))),
        ("maximum f32 4M", binary(lib.maximum, "float32", (n,), (n,))),
        ("lt f32 4M", binary(lambda a, b: a < b, "float32", (n,), (n,))),
        ("exp f32 4M", unary(lib.exp)),
        ("tanh f32 4M", unary(lib.tanh)),
        ("sigmoid f32 4M", unary(lib.sigmoid)),
        ("gelu f32 4M", unary(lib.nn.functional.gelu)),
        ("abs int32 4M", unary(lib.abs, "int32")),
        ("backward a*b f32 4M", backward(lambda a, b: a * b)),
        ("backward atan2 f32 4M", backward(lib.atan2)),
        ("1000 tiny adds", tiny),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    threads = int(os.environ.get("TC_NUM_THREADS", os.cpu_count() or 1))
    tc.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    print(f"# elementwise kernels, {threads} threads, median ms of {args.reps} runs")
    print(f"{'case':34s} {'libtc':>9s} {'torch':>9s} {'ratio':>7s}")
    torch_cases = dict(cases(torch)) if torch is not None else {}
    for name, setup in cases(tc):
        ours = median_times(setup(), args.reps)["wall"] * 1e3
        theirs = median_times(torch_cases[name](), args.reps)["wall"] * 1e3 if name in torch_cases else float("nan")
        print(f"{name:34s} {ours:9.3f} {theirs:9.3f} {ours / theirs:7.2f}")


if __name__ == "__main__":
    main()
