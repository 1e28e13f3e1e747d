#!/usr/bin/env python3
"""Higher-order autograd and activation checkpointing, as ratios:

1. hvp: a Hessian-vector product of an MLP's loss with respect to its
   parameters (grad with create_graph=True, then the gradient of <grad, v>),
   tc vs PyTorch 1.13, each in a fresh process, 1 thread; the target is tc
   at most 0.8x PyTorch's time.
2. gpt_ckpt: one training step of bench_gpt.py's GPT (examples/train_gpt.py)
   with every block under tc.utils.checkpoint, against the same step without
   checkpointing, both in tc: the activation memory peak (targets: at most
   0.4x the plain step's) and the step time (at most 1.4x; its floor, 1 +
   the blocks' forward / the plain step, is printed too: checkpointing runs
   that forward twice).

The peak is measured as the process's peak resident memory during its first
forward and backward above its resident memory before them (Linux:
/proc/self/clear_refs resets the peak, VmHWM reads it), each variant in a
fresh process with glibc's mmap threshold pinned at 64 KiB, so that big
buffers are mapped on allocation and unmapped on free. libtc's CPU allocator
keeps freed large blocks for reuse, so this is the peak of memory in use
plus that cache (the gradients of the parameters included): the same
measure for both variants. A second peak row reads libtc's CPU allocator
statistics (the flags cpu_allocated_bytes and cpu_peak_allocated_bytes): the
highest total of tensor data alive during the first forward and backward
above what was alive before, the allocator's caches left out.

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_higher_order.py [--steps N] [--only hvp|gpt]
Prints one table: metric, tc, reference, ratio, target, met."""
import argparse
import json
import os
import subprocess
import sys

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
HVP_SIZES = (256, 512, 512, 10)
HVP_BATCH = 128
TARGETS = {"hvp_mlp": 0.8, "gpt_ckpt_peak": 0.4, "gpt_ckpt_live_peak": 0.4, "gpt_ckpt_time": 1.4}


def _tc():
    sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
    import tc
    return tc


# ------------------------------------------------------------------ HVP
def hvp_case(lib_name):
    """The HVP of a tanh MLP's cross-entropy loss; returns a callable step."""
    import numpy as np
    if lib_name == "tc":
        lib = _tc()
    else:
        import torch as lib
    lib.set_num_threads(1)
    rs = np.random.RandomState(0)
    params = []
    for a, b in zip(HVP_SIZES[:-1], HVP_SIZES[1:]):
        params.append(lib.tensor(rs.randn(b, a) / np.sqrt(a), dtype=lib.float32, requires_grad=True))
        params.append(lib.tensor(np.zeros(b), dtype=lib.float32, requires_grad=True))
    vs = [lib.tensor(rs.randn(*p.shape), dtype=lib.float32) for p in params]
    x = lib.tensor(rs.randn(HVP_BATCH, HVP_SIZES[0]), dtype=lib.float32)
    y = lib.tensor(rs.randint(0, HVP_SIZES[-1], HVP_BATCH), dtype=lib.int64)

    def step():
        h = x
        for i in range(0, len(params), 2):
            h = lib.nn.functional.linear(h, params[i], params[i + 1])
            if i + 2 < len(params):
                h = lib.tanh(h)
        loss = lib.nn.functional.cross_entropy(h, y)
        grads = lib.autograd.grad(loss, params, create_graph=True)
        dot = sum((g * v).sum() for g, v in zip(grads, vs))
        hv = lib.autograd.grad(dot, params)
        return float(hv[0].sum())

    return step


# ------------------------------------------------------------------ GPT with checkpointed blocks
def _rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def gpt_case(checkpointed):
    """bench_gpt.py's tc model, its blocks checkpointed or not: (forward and
    backward, the whole training step, the blocks' forward alone without a
    graph: what checkpointing runs once more)."""
    import bench_gpt
    tc, _, model, opt, idx, tgt = bench_gpt.tc_model()
    tc.set_num_threads(1)
    from tc.nn import functional as F
    from tc.utils.checkpoint import checkpoint

    def forward():
        b, t = idx.shape
        x = model.tok(idx) + model.pos(model.positions(t))
        for block in model.blocks:
            x = checkpoint(block, x) if checkpointed else block(x)
        logits = model.head(model.ln_f(x))
        return F.cross_entropy(logits.reshape(b * t, logits.shape[-1]), tgt.reshape(b * t))

    def forward_backward():
        loss = forward()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        return loss

    def step():
        loss = forward_backward()
        opt.step()
        return loss.item()

    x0 = (model.tok(idx) + model.pos(model.positions(idx.shape[1]))).detach()

    def blocks_forward():
        with tc.no_grad():
            x = x0
            for block in model.blocks:
                x = block(x)

    return forward_backward, step, blocks_forward


def child(case, steps, warmup):
    """Runs one case in this (fresh) process and prints its measurements as JSON."""
    if case.startswith("hvp-"):
        step = hvp_case(case[4:])
        t = median_times(step, steps, warmup)
        print(json.dumps({"median_s": t["wall"], "cpu_s": t["cpu"]}))
        return
    forward_backward, step, blocks_forward = gpt_case(case.startswith("gpt-ckpt"))
    # The peak is taken on the process's first forward and backward: libtc's
    # allocator keeps freed blocks for reuse (up to 1 GiB), so after a step
    # the resident memory no longer grows with what a step uses.
    tc = _tc()
    live0 = tc.flags["cpu_allocated_bytes"]
    tc.flags["cpu_peak_allocated_bytes"] = 0
    rss0, _ = _rss()
    _reset_peak()
    forward_backward()
    _, hwm = _rss()
    live_peak = tc.flags["cpu_peak_allocated_bytes"] - live0
    t = median_times(step, steps, warmup)
    blocks = median_times(blocks_forward, steps, warmup)
    print(json.dumps({"median_s": t["wall"], "cpu_s": t["cpu"], "peak_bytes": hwm - rss0,
                      "live_peak_bytes": live_peak, "blocks_forward_s": blocks["wall"]}))


def _run_child(case, args, pin_mmap_threshold=True):
    """One case in a fresh process. The pinned mmap threshold makes the
    resident peak follow what is in use, and slows big allocations down
    (every one a fresh mapping): times come from processes without it."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    if pin_mmap_threshold:
        env["MALLOC_MMAP_THRESHOLD_"] = "65536"
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", case, "--steps", str(args.steps),
           "--warmup", str(args.warmup)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("bench_higher_order: %s failed:\n%s%s" % (case, r.stdout, r.stderr[-3000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def _row(metric, unit, ours, ref, ref_name):
    ratio = ours / ref
    bound = TARGETS[metric]
    print("| %s | %s | %.4g | %.4g (%s) | %.3f | <= %.1f | %s |"
          % (metric, unit, ours, ref, ref_name, ratio, bound, "yes" if ratio <= bound else "no"))


def main():
    """Runs the cases, each in a fresh process, and prints the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--only", choices=["hvp", "gpt"])
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.steps, args.warmup)
    print("| metric | unit | tc | reference | ratio | target | met |")
    print("|---|---|---:|---:|---:|---|---|")
    status = 0
    if args.only in (None, "hvp"):
        try:
            a, b = _run_child("hvp-tc", args), _run_child("hvp-torch", args)
            _row("hvp_mlp", "ms", 1e3 * a["median_s"], 1e3 * b["median_s"], "torch")
        except RuntimeError as e:
            print("| hvp_mlp | ms | failed: %s | | | <= 0.8 | no |" % str(e).strip().splitlines()[-1])
            status = 1
    if args.only in (None, "gpt"):
        plain, ckpt = _run_child("gpt-plain", args), _run_child("gpt-ckpt", args)
        _row("gpt_ckpt_peak", "MB", ckpt["peak_bytes"] / 2 ** 20, plain["peak_bytes"] / 2 ** 20, "tc plain")
        _row("gpt_ckpt_live_peak", "MB", ckpt["live_peak_bytes"] / 2 ** 20, plain["live_peak_bytes"] / 2 ** 20,
             "tc plain")
        plain, ckpt = _run_child("gpt-plain", args, False), _run_child("gpt-ckpt", args, False)
        _row("gpt_ckpt_time", "ms", 1e3 * ckpt["median_s"], 1e3 * plain["median_s"], "tc plain")
        # Checkpointing runs the blocks' forward once more: the time ratio
        # cannot go below 1 + that forward / the plain step.
        floor = 1 + plain["blocks_forward_s"] / plain["median_s"]
        print("| gpt_ckpt_time_floor | x | %.3f | (1 + blocks' forward %.4g ms / plain step) | | | |"
              % (floor, 1e3 * plain["blocks_forward_s"]))
    return status


if __name__ == "__main__":
    sys.exit(main())
