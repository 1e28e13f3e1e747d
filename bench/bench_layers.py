#!/usr/bin/env python3
"""The normalisation and pooling layers of a ResNet-like CNN in tc next to
PyTorch (torch 1.13), float32, 1 thread: batch_norm (training: forward, and
forward + backward with the running statistics updated; eval: forward),
group_norm (32 groups), max_pool2d (3x3, stride 2, padding 1, as a ResNet's
stem; also with indices), avg_pool2d (2x2, stride 2), at [32, 64, 56, 56]
and [32, 256, 14, 14]. Each library (and each tc build given) runs each
shape in a fresh process, interleaved, --rounds times; the table shows the
median over rounds of each child's median time, and tc / torch (below 1.0:
tc is faster; the target is <= 1.0).

Run: /usr/bin/python3 bench/bench_layers.py [--tc build/libtc.so] [--tc old=/tmp/old/libtc.so]
     [--reps 7] [--rounds 3] [--only bn_train]
Several --tc LABEL=PATH compare builds (before/after) in the same run.
Wall times on a shared machine vary: the CPU times (process time) are
printed too, and the ratios are of CPU times when --cpu is given.
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
SHAPES = {"A": (32, 64, 56, 56), "B": (32, 256, 14, 14)}
CASES = ["bn_train_fwd", "bn_train_fwdbwd", "bn_eval_fwd", "group_norm_fwd", "group_norm_fwdbwd",
         "max_pool_fwd", "max_pool_fwdbwd", "max_pool_idx_fwd", "avg_pool_fwd", "avg_pool_fwdbwd"]


def make_cases(lib, F, shape):
    """name -> a function running the case once."""
    n, c, h, w = shape
    x = lib.randn(n, c, h, w)
    xg = lib.randn(n, c, h, w)
    xg.requires_grad_(True)
    weight, bias = lib.ones(c), lib.zeros(c)
    weight.requires_grad_(True)
    bias.requires_grad_(True)
    rm, rv = lib.zeros(c), lib.ones(c)
    g_same = lib.randn(n, c, h, w)
    g_pool3 = lib.randn(n, c, (h - 1) // 2 + 1, (w - 1) // 2 + 1)
    g_pool2 = lib.randn(n, c, h // 2, w // 2)

    def fwdbwd(y, g):
        y.backward(g)
        xg.grad = None
        weight.grad = None
        bias.grad = None

    return {
        "bn_train_fwd": lambda: F.batch_norm(x, rm, rv, weight.detach(), bias.detach(), True, 0.1, 1e-5),
        "bn_train_fwdbwd": lambda: fwdbwd(F.batch_norm(xg, rm, rv, weight, bias, True, 0.1, 1e-5), g_same),
        "bn_eval_fwd": lambda: F.batch_norm(x, rm, rv, weight.detach(), bias.detach(), False, 0.1, 1e-5),
        "group_norm_fwd": lambda: F.group_norm(x, 32, weight.detach(), bias.detach(), 1e-5),
        "group_norm_fwdbwd": lambda: fwdbwd(F.group_norm(xg, 32, weight, bias, 1e-5), g_same),
        "max_pool_fwd": lambda: F.max_pool2d(x, 3, 2, 1),
        "max_pool_fwdbwd": lambda: fwdbwd(F.max_pool2d(xg, 3, 2, 1), g_pool3),
        "max_pool_idx_fwd": lambda: F.max_pool2d(x, 3, 2, 1, return_indices=True),
        "avg_pool_fwd": lambda: F.avg_pool2d(x, 2, 2),
        "avg_pool_fwdbwd": lambda: fwdbwd(F.avg_pool2d(xg, 2, 2), g_pool2),
    }


def child(lib_name, shape_key, reps, only):
    if lib_name == "torch":
        import torch as lib
        import torch.nn.functional as F
        lib.set_num_threads(1)
        lib.manual_seed(0)
    else:
        sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
        import tc as lib
        import tc.nn.functional as F
        lib.set_num_threads(1)
        lib.manual_seed(0)
    cases = make_cases(lib, F, SHAPES[shape_key])
    out = {}
    for name in CASES:
        if only and not any(o in name for o in only):
            continue
        out[name] = median_times(cases[name], reps)
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tc", action="append", default=[], help="[LABEL=]path of a libtc.so (repeatable)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shapes", default="A,B")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names")
    ap.add_argument("--cpu", action="store_true", help="ratios of CPU times (default: wall)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--child-shape", help=argparse.SUPPRESS)
    args = ap.parse_args()
    only = [o for o in args.only.split(",") if o]
    if args.child:
        return child(args.child, args.child_shape, args.reps, only)
    builds = []
    for spec in args.tc or [os.path.join(REPO, "build", "libtc.so")]:
        label, _, path = spec.rpartition("=")
        builds.append((label or "tc" if len(args.tc) <= 1 else label or path, os.path.abspath(path)))
    libs = [("torch", None)] + builds
    key = "cpu" if args.cpu else "wall"
    print("layers, float32, 1 thread; median of %d runs per child, median over %d interleaved rounds (%s ms)" %
          (args.reps, args.rounds, "cpu" if args.cpu else "wall"))
    for shape_key in args.shapes.split(","):
        samples = {label: {} for label, _ in libs}
        for _ in range(args.rounds):
            for label, path in libs:
                env = dict(os.environ, OMP_NUM_THREADS="1")
                env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                if path:
                    env["TC_LIBRARY"] = path
                cmd = [sys.executable, os.path.abspath(__file__), "--child", "torch" if path is None else "tc",
                       "--child-shape", shape_key, "--reps", str(args.reps), "--only", args.only]
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    sys.exit("bench_layers: the %s child failed:\n%s%s" % (label, r.stdout, r.stderr))
                for name, v in json.loads(r.stdout.strip().splitlines()[-1]).items():
                    samples[label].setdefault(name, []).append(v[key])
        print("\nshape %s = %s" % (shape_key, list(SHAPES[shape_key])))
        head = "%-18s %9s" % ("case", "torch")
        for label, _ in builds:
            head += " %9s %8s" % (label[:9], "/torch")
        print(head)
        for name in CASES:
            if name not in samples["torch"]:
                continue
            t = statistics.median(samples["torch"][name])
            row = "%-18s %9.2f" % (name, 1e3 * t)
            for label, _ in builds:
                v = statistics.median(samples[label][name])
                row += " %9.2f %7.2fx" % (1e3 * v, v / t)
            print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
