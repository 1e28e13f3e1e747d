#!/usr/bin/env python3
"""torch.linalg in tc next to PyTorch 1.13, float64 and float32 on the CPU,
each library and thread count in a fresh process; prints the median time of
each case and the ratio tc / torch (target <= 1.0: tc as fast or faster).

Cases:
  inv_b256_64     linalg.inv of a batch of 256 64x64 matrices
  cholesky_512    linalg.cholesky of one 512x512 SPD matrix
  solve_512       linalg.solve of a 512x512 system with 16 right-hand sides
  svd_256         linalg.svd (reduced) of one 256x256 matrix
  svd_b64_32      linalg.svd of a batch of 64 32x32 matrices
  cholesky_b512_16  linalg.cholesky of a batch of 512 16x16 SPD matrices

Both libraries call the same LAPACK on this machine: Debian's torch 1.13 is
built against the system liblapack.so.3 / libblas.so.3, which Debian's
alternatives point at OpenBLAS 0.3.21 (the pthread build); libtc's LAPACKE
calls it too (tc.config() names it). The difference is around the calls:
tc spreads a batch of small matrices over its OpenMP threads (OpenBLAS's own
threads set to 1 meanwhile), torch calls LAPACK matrix after matrix.

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_linalg.py [--reps 10] [--threads 1,2]
     [--only inv_b256_64,svd_256] [--dtype float64]
Children run with OMP_WAIT_POLICY=PASSIVE unless it is set. Wall times on a
shared machine vary: the CPU times are printed too.
"""
import argparse
import json
import os
import subprocess
import sys

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
CASES = ["inv_b256_64", "cholesky_512", "solve_512", "svd_256", "svd_b64_32", "cholesky_b512_16"]


def _import(lib):
    if lib == "torch":
        import torch
        return torch
    sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
    import tc
    return tc


def _spd(lib, batch, n, dtype):
    g = lib.Generator().manual_seed(0)
    a = lib.randn(*batch, n, n, generator=g, dtype=dtype)
    return a @ a.transpose(-2, -1) + n * lib.eye(n, dtype=dtype)


def make_case(lib, name, dtype):
    """The case's closure (inputs built once, outside the timing)."""
    g = lib.Generator().manual_seed(1)
    la = lib.linalg
    if name == "inv_b256_64":
        a = lib.randn(256, 64, 64, generator=g, dtype=dtype) + 8 * lib.eye(64, dtype=dtype)
        return lambda: la.inv(a)
    if name == "cholesky_512":
        a = _spd(lib, (), 512, dtype)
        return lambda: la.cholesky(a)
    if name == "solve_512":
        a = lib.randn(512, 512, generator=g, dtype=dtype) + 20 * lib.eye(512, dtype=dtype)
        b = lib.randn(512, 16, generator=g, dtype=dtype)
        return lambda: la.solve(a, b)
    if name == "svd_256":
        a = lib.randn(256, 256, generator=g, dtype=dtype)
        return lambda: la.svd(a, full_matrices=False)
    if name == "svd_b64_32":
        a = lib.randn(64, 32, 32, generator=g, dtype=dtype)
        return lambda: la.svd(a, full_matrices=False)
    if name == "cholesky_b512_16":
        a = _spd(lib, (512,), 16, dtype)
        return lambda: la.cholesky(a)
    raise ValueError(name)


def child(lib_name, threads, cases, reps, dtype_name):
    """Times the cases in this process and prints one JSON line."""
    lib = _import(lib_name)
    lib.set_num_threads(threads)
    dtype = getattr(lib, dtype_name)
    out = {}
    for name in cases:
        with lib.no_grad():
            out[name] = median_times(make_case(lib, name, dtype), reps, warmup=2)
    print(json.dumps(out))


def run_child(lib_name, threads, args):
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    env["OMP_NUM_THREADS"] = str(threads)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", lib_name, "--threads", str(threads), "--reps",
           str(args.reps), "--only", ",".join(args.cases), "--dtype", args.dtype]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if res.returncode != 0:
        raise SystemExit("bench_linalg: %s child failed:\n%s" % (lib_name, res.stderr))
    return json.loads(res.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--dtype", default="float64", choices=["float32", "float64"])
    ap.add_argument("--child", choices=["tc", "torch"])
    args = ap.parse_args()
    args.cases = [c for c in args.only.split(",") if c]
    for c in args.cases:
        if c not in CASES:
            ap.error("unknown case %s (one of %s)" % (c, ", ".join(CASES)))
    if args.child:
        child(args.child, int(args.threads), args.cases, args.reps, args.dtype)
        return
    print("| case (%s) | threads | tc ms | torch ms | tc/torch | tc cpu ms | torch cpu ms | target |" % args.dtype)
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for t in (int(x) for x in args.threads.split(",")):
        r_tc, r_t = run_child("tc", t, args), run_child("torch", t, args)
        for c in args.cases:
            a, b = r_tc[c], r_t[c]
            ratio = a["wall"] / b["wall"]
            print("| %s | %d | %.3f | %.3f | %.2f | %.3f | %.3f | <= 1.0 %s |" % (
                c, t, a["wall"] * 1e3, b["wall"] * 1e3, ratio, a["cpu"] * 1e3, b["cpu"] * 1e3,
                "met" if ratio <= 1.0 else "not met"))


if __name__ == "__main__":
    main()
