#!/usr/bin/env python3
"""tc (Python, ctypes) side by side with PyTorch, in one run; prints a table
of times and ratios (tc / torch: below 1.0 means tc is faster).

  1. a 1-element add: a + b                         (target <= 0.7x torch.add)
  2. the tiny graph (x*w+b).relu().sum().backward()  (target <= 0.3x torch)
  3. one MLP training step (64-128-10, batch 32, cross-entropy, Adam)
  4. `import tc` vs `import torch`: wall time and peak RSS of a fresh process

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_python.py [--quick]
How measured: tc and torch run in this one process, their repeats interleaved
(tc, torch, tc, torch...), each repeat timing `number` calls with
time.perf_counter; a row shows the best (min) repeat of each side, the figure
least disturbed by other load on a shared machine. Threads are set to 1 on
both sides for the tiny cases (like-for-like, no OpenMP wake-ups).

The "ctypes floor" rows are what a + b costs with no Python layer at all: the
foreign calls it needs made directly through ctypes. "tc_add + free" is the
bound of the default binding (tc_add, then tc_tensor_free of the result);
"batched free" is the bound a binding that queued handles and freed 128 at a
time with tc_tensor_free_many would have (measured no lower, which is why the
Python binding frees at once: docs/PERF_PYTHON.md has why).
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "..", "bindings", "python_ctypes")
sys.path.insert(0, PKG)


def per_call_pair(fa, fb, number, repeat):
    """(best seconds per call of fa, of fb): `repeat` runs of `number` calls
    each, the two sides' runs interleaved so that both see the same load."""
    for _ in range(min(number, 200)):
        fa()
        fb()
    ta, tb = [], []
    for _ in range(repeat):
        for f, out in ((fa, ta), (fb, tb)):
            t0 = time.perf_counter()
            for _ in range(number):
                f()
            out.append((time.perf_counter() - t0) / number)
    return min(ta), min(tb)


def import_cost(module):
    # VmHWM (peak RSS of this process image): ru_maxrss would carry the
    # parent's peak over fork+exec on Linux.
    code = ("import time; t0 = time.perf_counter(); import %s; t1 = time.perf_counter(); "
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]; "
            "print(t1 - t0, hwm)" % module)
    env = dict(os.environ, PYTHONPATH=PKG)
    walls, rss = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        total = time.perf_counter() - t0
        imp, kb = out.stdout.split()
        walls.append((float(imp), total))
        rss.append(int(kb) / 1024.0)
    imp = statistics.median(w[0] for w in walls)
    total = statistics.median(w[1] for w in walls)
    return imp, total, statistics.median(rss)


def fmt_t(s):
    if s < 1e-3:
        return "%8.2f us" % (s * 1e6)
    if s < 1:
        return "%8.2f ms" % (s * 1e3)
    return "%8.2f s " % s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    scale = 0.2 if args.quick else 1.0
    rep = 5 if args.quick else 9

    import tc
    import torch

    rows = []
    tc.set_num_threads(1)
    torch.set_num_threads(1)

    # 1. one-element add
    a, b = tc.ones(1), tc.ones(1)
    ta, tb = torch.ones(1), torch.ones(1)
    n = int(50000 * scale)
    rows.append(("1-element add (a + b)",) + per_call_pair(lambda: a + b, lambda: torch.add(ta, tb), n, rep)
                + ("<= 0.7",))
    import ctypes
    from tc._lib import lib as _lib
    add_c = ctypes.CFUNCTYPE(ctypes.c_int32)(("tc_add", _lib))
    free_c = ctypes.CFUNCTYPE(ctypes.c_int32)(("tc_tensor_free", _lib))
    ah, bh, byref, vp = a._h, b._h, ctypes.byref, ctypes.c_void_p

    def floor_add():
        out = vp()
        add_c(ah, bh, byref(out))
        free_c(out)

    rows.append(("  ctypes floor: tc_add + free",) + per_call_pair(floor_add, lambda: torch.add(ta, tb), n, rep)
                + ("bound",))
    # tc_add, and the result's handle queued and freed with 127 others in one
    # tc_tensor_free_many call, as a batching binding would (a uint64 array
    # handed over as bytes).
    import array
    free_many_c = ctypes.CFUNCTYPE(ctypes.c_int32)(("tc_tensor_free_many", _lib))
    queue, batch, i64 = array.array("Q"), 128, ctypes.c_int64

    def floor_add_batched():
        out = vp()
        add_c(ah, bh, byref(out))
        queue.append(out.value)
        if len(queue) >= batch:
            free_many_c(queue.tobytes(), i64(batch))
            del queue[:]

    rows.append(("  ctypes floor: tc_add, batched free",)
                + per_call_pair(floor_add_batched, lambda: torch.add(ta, tb), n, rep) + ("bound",))

    # 2. tiny graph
    x = tc.randn(8)
    w = tc.randn(8, requires_grad=True)
    bb = tc.randn(8, requires_grad=True)
    tx = torch.randn(8)
    tw = torch.randn(8, requires_grad=True)
    tbb = torch.randn(8, requires_grad=True)

    def tiny_tc():
        w.grad = None
        bb.grad = None
        (x * w + bb).relu().sum().backward()

    def tiny_torch():
        tw.grad = None
        tbb.grad = None
        (tx * tw + tbb).relu().sum().backward()

    n = int(10000 * scale)
    rows.append(("tiny graph fwd+bwd",) + per_call_pair(tiny_tc, tiny_torch, n, rep) + ("<= 0.3",))

    # 3. MLP step (default threads on both sides)
    tc.set_num_threads(max(1, os.cpu_count() or 1))
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    tc.manual_seed(0)
    torch.manual_seed(0)
    model = tc.nn.Sequential(tc.nn.Linear(64, 128), tc.nn.ReLU(), tc.nn.Linear(128, 10))
    opt = tc.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = tc.nn.CrossEntropyLoss()
    xb, yb = tc.rand(32, 64), tc.tensor([i % 10 for i in range(32)])
    tmodel = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    topt = torch.optim.Adam(tmodel.parameters(), lr=1e-3)
    tloss = torch.nn.CrossEntropyLoss()
    txb, tyb = torch.rand(32, 64), torch.tensor([i % 10 for i in range(32)])

    def step_tc():
        opt.zero_grad()
        loss_fn(model(xb), yb).backward()
        opt.step()

    def step_torch():
        topt.zero_grad()
        tloss(tmodel(txb), tyb).backward()
        topt.step()

    n = int(1000 * scale)
    rows.append(("MLP step 64-128-10, batch 32",) + per_call_pair(step_tc, step_torch, n, rep) + ("",))

    print("tc %s (%s) vs torch %s; %d threads for the MLP step, 1 for the tiny cases"
          % (tc.version(), tc.library_path, torch.__version__, tc.get_num_threads()))
    print("%-36s %12s %12s %8s %8s %5s" % ("benchmark", "tc", "torch", "ratio", "target", "met"))
    for name, t_tc, t_th, target in rows:
        met = ""
        if target.startswith("<="):
            met = "yes" if t_tc / t_th <= float(target[2:]) else "no"
        print("%-36s %12s %12s %7.2fx %8s %5s" % (name, fmt_t(t_tc), fmt_t(t_th), t_tc / t_th, target, met))

    imp_tc, total_tc, rss_tc = import_cost("tc")
    imp_th, total_th, rss_th = import_cost("torch")
    print("%-32s %12s %12s %7.2fx" % ("import wall time (in process)", fmt_t(imp_tc), fmt_t(imp_th), imp_tc / imp_th))
    print("%-32s %12s %12s %7.2fx" % ("python -c 'import x' wall", fmt_t(total_tc), fmt_t(total_th),
                                      total_tc / total_th))
    print("%-32s %9.1f MB %9.1f MB %7.2fx" % ("peak RSS after import", rss_tc, rss_th, rss_tc / rss_th))


if __name__ == "__main__":
    main()
