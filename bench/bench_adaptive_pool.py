#!/usr/bin/env python3
"""Adaptive pooling in tc next to PyTorch (torch 1.13), float32: the global
pool of a ResNet head ([32, 512, 7, 7] -> 1x1) and [8, 64, 56, 56] -> 7x7,
average and max, forward and forward + backward. Three implementations:
torch; tc's op (tc_adaptive_*_pool2d: the dedicated kernels); and
"composed", the path the op took before those kernels, rebuilt here from
tc's public ops in the same order (average: window-averaging matrices, y =
P_h x P_w^T by two matmuls; max: the window taps gathered by index_select
from the plane with a -inf pad column, max over them, the indices gathered
from the window table). The composed path's tables are built once per child
(the op built them per call, in C++), while each of its ops pays a Python
call (a few us): small next to the times measured here.

Each implementation runs each shape in a fresh process, interleaved,
--rounds times; the table shows the median over rounds of each child's
median time, and the ratios to torch and composed / op.

Run: /usr/bin/python3 bench/bench_adaptive_pool.py [--tc build/libtc.so] [--threads 1]
     [--reps 15] [--rounds 3] [--cpu]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
SHAPES = {"G": ((32, 512, 7, 7), (1, 1)), "R": ((8, 64, 56, 56), (7, 7))}
CASES = ["avg_fwd", "avg_fwdbwd", "max_fwd", "max_fwdbwd"]
IMPLS = ["torch", "tc", "composed"]


def windows(n_in, n_out):
    """PyTorch's adaptive windows along one axis: [(begin, end)]."""
    return [((o * n_in) // n_out, -(-(o + 1) * n_in // n_out)) for o in range(n_out)]


def composed_ops(tc, shape, out):
    """The adaptive pools as the pre-kernel op composed them (src/ops/nn_layers.cpp before)."""
    n, c, h, w = shape
    wh, ww = windows(h, out[0]), windows(w, out[1])

    def pool_matrix(ws, n_in):
        m = [[0.0] * n_in for _ in ws]
        for o, (b, e) in enumerate(ws):
            for i in range(b, e):
                m[o][i] = 1.0 / (e - b)
        return tc.tensor(m, dtype=tc.float32)

    ph, pwt = pool_matrix(wh, h), pool_matrix(ww, w).transpose(0, 1)
    kh, kw = max(e - b for b, e in wh), max(e - b for b, e in ww)
    table = []
    for bh, eh in wh:
        rows = list(range(bh, eh)) + [-1] * (kh - (eh - bh))
        for bw, ew in ww:
            cols = list(range(bw, ew)) + [-1] * (kw - (ew - bw))
            table += [i * w + j if i >= 0 and j >= 0 else -1 for i in rows for j in cols]
    k = kh * kw
    sel = tc.tensor([i if i >= 0 else h * w for i in table], dtype=tc.int64)
    idx_table = tc.tensor(table, dtype=tc.int64).reshape(1, 1, out[0], out[1], k)
    pad = tc.full((n, c, 1), float("-inf"), dtype=tc.float32)

    def avg(x):
        return tc.matmul(tc.matmul(ph, x), pwt)

    def max_(x):
        plane = tc.cat([x.reshape(n, c, h * w), pad], 2)
        taps = plane.index_select(2, sel).reshape(n, c, out[0], out[1], k)
        values, which = taps.max(-1)
        indices = idx_table.expand(n, c, out[0], out[1], k).gather(-1, which.unsqueeze(-1)).squeeze(-1)
        return values, indices

    return avg, max_


def make_cases(impl, lib, F, shape, out):
    x = lib.randn(*shape)
    xg = lib.randn(*shape)
    xg.requires_grad_(True)
    g = lib.randn(shape[0], shape[1], *out)
    if impl == "composed":
        avg, max_ = composed_ops(lib, shape, out)
    else:
        def avg(t):
            return F.adaptive_avg_pool2d(t, out)

        def max_(t):
            return F.adaptive_max_pool2d(t, out, return_indices=True)

    def fwdbwd(y):
        y.backward(g)
        xg.grad = None

    return {
        "avg_fwd": lambda: avg(x),
        "avg_fwdbwd": lambda: fwdbwd(avg(xg)),
        "max_fwd": lambda: max_(x),
        "max_fwdbwd": lambda: fwdbwd(max_(xg)[0]),
    }


def child(impl, shape_key, reps, threads):
    if impl == "torch":
        import torch as lib
        import torch.nn.functional as F
    else:
        sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
        import tc as lib
        import tc.nn.functional as F
    lib.set_num_threads(threads)
    lib.manual_seed(0)
    shape, out = SHAPES[shape_key]
    cases = make_cases(impl, lib, F, shape, out)
    res = {}
    for name in CASES:
        res[name] = median_times(cases[name], reps)
    print(json.dumps(res))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tc", default=os.path.join(REPO, "build", "libtc.so"), help="path of the libtc.so")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cpu", action="store_true", help="CPU (process) times instead of wall times")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-shape", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.child_shape, args.reps, args.threads)
    key = "cpu" if args.cpu else "wall"
    print("adaptive pooling, float32, %d thread(s); median of %d runs per child, median over %d interleaved "
          "rounds (%s, us)" % (args.threads, args.reps, args.rounds, key))
    for shape_key, (shape, out) in SHAPES.items():
        samples = {impl: {} for impl in IMPLS}
        for _ in range(args.rounds):
            for impl in IMPLS:
                env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), TC_LIBRARY=os.path.abspath(args.tc))
                env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                cmd = [sys.executable, os.path.abspath(__file__), "--child", impl, "--child-shape", shape_key,
                       "--reps", str(args.reps), "--threads", str(args.threads)]
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    sys.exit("bench_adaptive_pool: the %s child failed:\n%s%s" % (impl, r.stdout, r.stderr))
                for name, v in json.loads(r.stdout.strip().splitlines()[-1]).items():
                    samples[impl].setdefault(name, []).append(v[key])
        print("\n%s -> %s" % (list(shape), list(out)))
        print("%-11s %9s %9s %9s %9s %9s %12s" % ("case", "torch", "tc", "composed", "tc/torch", "comp/torch",
                                                  "composed/tc"))
        for name in CASES:
            t, n, c = (statistics.median(samples[i][name]) for i in IMPLS)
            print("%-11s %9.1f %9.1f %9.1f %8.2fx %9.2fx %11.1fx" % (name, 1e6 * t, 1e6 * n, 1e6 * c, n / t, c / t,
                                                                    c / n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
