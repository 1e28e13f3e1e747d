#!/usr/bin/env python3
"""One training step (forward, backward, AdamW) of examples/train_gpt.py's
GPT (4 layers, d 128, 4 heads, context 64, batch 16, vocabulary 65) in tc,
next to the same model in PyTorch (torch 1.13: attention by its formula,
masked_fill + softmax), with 1 and 2 threads, each library and thread count
in a fresh process; prints the median step time of each and the ratio
tc / torch (below 1.0: tc is faster; the target is <= 0.8).

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_gpt.py [--steps 30] [--warmup 5]
     [--threads 1,2] [--profile]
--profile also prints, for tc with 1 thread, the time of the step's parts.
Both children run with OMP_WAIT_POLICY=PASSIVE unless it is set. Wall times
on a shared machine vary: the CPU times (process time) are printed too.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
B, T, D, H, LAYERS, VOCAB = 16, 64, 128, 4, 4, 65
TARGET = 0.8  # the target: tc's step at most 0.8x PyTorch's


def tc_model():
    sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
    sys.path.insert(0, os.path.join(REPO, "examples"))
    import tc
    import train_gpt
    tc.manual_seed(0)
    model = train_gpt.GPT(VOCAB, T, LAYERS, D, H)
    opt = tc.optim.AdamW(train_gpt.param_groups(model, 0.1), lr=1e-3, betas=(0.9, 0.99))
    g = __import__("random").Random(0)
    idx = tc.tensor([[g.randrange(VOCAB) for _ in range(T)] for _ in range(B)], dtype=tc.int64)
    tgt = tc.tensor([[g.randrange(VOCAB) for _ in range(T)] for _ in range(B)], dtype=tc.int64)

    def step():
        _, loss = model(idx, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return tc, step, model, opt, idx, tgt


def torch_model():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
            self.qkv, self.proj = nn.Linear(D, 3 * D), nn.Linear(D, D)
            self.fc, self.fc_proj = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)
            self.register_buffer("mask", torch.ones(T, T, dtype=torch.bool).tril(0).logical_not())

        def forward(self, x):
            b, t, d = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.reshape(b, t, H, d // H).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-2, -1) / math.sqrt(d // H)).masked_fill(self.mask[:t, :t], float("-inf"))
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
            x = x + self.proj(y)
            return x + self.fc_proj(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(VOCAB, D), nn.Embedding(T, D)
            self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
            self.ln_f, self.head = nn.LayerNorm(D), nn.Linear(D, VOCAB, bias=False)
            self.register_buffer("positions", torch.arange(T))

        def forward(self, idx, targets):
            x = self.tok(idx) + self.pos(self.positions[:idx.shape[1]])
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))

    torch.manual_seed(0)
    model = GPT()
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99))
    idx = torch.randint(0, VOCAB, (B, T))
    tgt = torch.randint(0, VOCAB, (B, T))

    def step():
        loss = model(idx, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return torch, step


def child(lib, threads, steps, warmup, profile):
    if lib == "tc":
        tc, step, model, opt, idx, tgt = tc_model()
        tc.set_num_threads(threads)
    else:
        torch, step = torch_model()
        torch.set_num_threads(threads)
    t = median_times(step, steps, warmup)
    out = {"lib": lib, "threads": threads, "median_s": t["wall"], "min_s": t["min_wall"], "cpu_s": t["cpu"]}
    if profile and lib == "tc":
        out["parts"] = profile_parts(tc, model, opt, idx, tgt, steps)
    print(json.dumps(out))


def profile_parts(tc, model, opt, idx, tgt, steps):
    """Median seconds of forward, backward, optimizer step."""
    parts = {"forward": [], "backward": [], "adamw": []}
    for _ in range(steps):
        t0 = time.perf_counter()
        _, loss = model(idx, tgt)
        t1 = time.perf_counter()
        opt.zero_grad()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        parts["forward"].append(t1 - t0)
        parts["backward"].append(t2 - t1)
        parts["adamw"].append(t3 - t2)
    return {k: statistics.median(v) for k, v in parts.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--child", choices=["tc", "torch"], help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.steps < 1 or args.warmup < 0:
        ap.error("--steps must be >= 1 and --warmup >= 0")
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        ap.error("--threads: a comma-separated list of integers")
    if args.child:
        return child(args.child, args.child_threads, args.steps, args.warmup, args.profile)

    print("GPT training step (forward, backward, AdamW): %d layers, d %d, %d heads, context %d, batch %d; "
          "median of %d steps after %d warm-up" % (LAYERS, D, H, T, B, args.steps, args.warmup))
    print("%-8s %12s %12s %9s %8s %4s %14s" % ("threads", "tc ms", "torch ms", "tc/torch", "target", "met",
                                              "(cpu ms tc/torch)"))
    for n in thread_counts:
        res = {}
        for lib in ("tc", "torch"):
            cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, "--child-threads", str(n),
                   "--steps", str(args.steps), "--warmup", str(args.warmup)]
            if args.profile and n == thread_counts[0]:
                cmd.append("--profile")
            env = dict(os.environ, OMP_NUM_THREADS=str(n))
            # Both libraries' OpenMP threads sleep when idle (as train_gpt.py
            # has them): spinning waits swamp a shared machine.
            env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                sys.exit("bench_gpt: the %s child failed:\n%s%s" % (lib, r.stdout, r.stderr))
            res[lib] = json.loads(r.stdout.strip().splitlines()[-1])
        a, b = res["tc"], res["torch"]
        ratio = a["median_s"] / b["median_s"]
        print("%-8d %12.2f %12.2f %8.2fx %8s %4s %8.1f/%.1f" % (n, 1e3 * a["median_s"], 1e3 * b["median_s"], ratio,
                                                               "<= %.1f" % TARGET, "yes" if ratio <= TARGET else "no",
                                                               1e3 * a["cpu_s"], 1e3 * b["cpu_s"]))
        if "parts" in a:
            print("         tc parts: " + ", ".join("%s %.2f ms" % (k, 1e3 * v) for k, v in a["parts"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
