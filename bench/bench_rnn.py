#!/usr/bin/env python3
"""Training steps of recurrent models in tc next to the same models in PyTorch (torch 1.13),
float32, with 1 and 2 threads, each library and thread count in a fresh process; prints the
median step time of each and the ratio tc / torch (below 1.0: tc is faster).

Cases (one step = forward, cross-entropy, backward, SGD step):
  lstm_lm     word language model: embedding 10000x256 -> 2-layer LSTM, hidden 256, over
              35 steps, batch 20 -> Linear to 10000, as PyTorch's word_language_model.
  gru_cls     sequence classifier: embedding 10000x128 -> bidirectional GRU, hidden 128,
              50 steps, batch 32, batch_first -> both final states -> Linear to 10 classes.
  gru_packed  gru_cls on a PackedSequence of lengths 10..50 (pack_padded_sequence with
              enforce_sorted=False), as a classifier of variable-length text is run.

torch runs its ATen LSTM/GRU (each time step a few C++ ops, recorded by its autograd); tc runs
a padded input's layers as one tc_rnn call (on the CPU in float32/float64 one fused op per layer
and direction, src/cpu/rnn_fused.cpp) and a packed input's time steps from tc ops in Python
(tc/nn/_rnn_steps.py).

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_rnn.py [--steps 10] [--warmup 2]
     [--threads 1,2] [--only lstm_lm,gru_cls]
Both children run with OMP_WAIT_POLICY=PASSIVE unless it is set. Wall times on a shared
machine vary: the CPU times (process time) are printed too.
"""
import argparse
import json
import os
import subprocess
import sys

from bench_timing import median_times

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..")
CASES = ["lstm_lm", "gru_cls", "gru_packed"]
VOCAB = 10000


def _import(lib):
    if lib == "torch":
        import torch
        return torch
    sys.path.insert(0, os.path.join(REPO, "bindings", "python_ctypes"))
    import tc
    return tc


def lstm_lm(lib):
    """The word language model's step: (35, 20) tokens -> next-token cross-entropy."""
    nn, F = lib.nn, lib.nn.functional
    steps, batch, hidden = 35, 20, 256

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, hidden)
            self.rnn = nn.LSTM(hidden, hidden, num_layers=2)
            self.out = nn.Linear(hidden, VOCAB)

        def forward(self, tokens):
            y, _ = self.rnn(self.emb(tokens))
            return self.out(y).reshape(steps * batch, VOCAB)

    return Model(), lib.randint(0, VOCAB, (steps, batch)), lib.randint(0, VOCAB, (steps * batch,)), F, None


def gru_cls(lib, packed=False):
    """The classifier's step: (32, 50) tokens -> one of 10 classes from both final states."""
    nn, F = lib.nn, lib.nn.functional
    batch, steps, hidden = 32, 50, 128
    pack = lib.nn.utils.rnn.pack_padded_sequence

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, hidden)
            self.rnn = nn.GRU(hidden, hidden, batch_first=True, bidirectional=True)
            self.out = nn.Linear(2 * hidden, 10)

        def forward(self, tokens, lengths):
            x = self.emb(tokens)
            if lengths is not None:
                x = pack(x, lengths, batch_first=True, enforce_sorted=False)
            _, h = self.rnn(x)
            return self.out(lib.cat([h[0], h[1]], 1))

    lengths = [10 + (i * 37) % 41 for i in range(batch)] if packed else None
    return Model(), lib.randint(0, VOCAB, (batch, steps)), lib.randint(0, 10, (batch,)), F, lengths


def child(lib_name, case, threads, steps, warmup):
    lib = _import(lib_name)
    lib.set_num_threads(threads)
    lib.manual_seed(0)
    if case == "lstm_lm":
        model, tokens, target, F, extra = lstm_lm(lib)
        forward = (lambda: model(tokens))
    else:
        model, tokens, target, F, extra = gru_cls(lib, packed=case == "gru_packed")
        forward = (lambda: model(tokens, extra))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)

    def step():
        loss = F.cross_entropy(forward(), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    t = median_times(step, steps, warmup)
    print(json.dumps({"median_s": t["wall"], "min_s": t["min_wall"], "cpu_s": t["cpu"]}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--child", choices=["tc", "torch"], help=argparse.SUPPRESS)
    ap.add_argument("--child-case", help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.steps < 1 or args.warmup < 0:
        ap.error("--steps must be >= 1 and --warmup >= 0")
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        ap.error("--threads: a comma-separated list of integers")
    cases = [c for c in args.only.split(",") if c] or CASES
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error("unknown case(s) %s; the cases are %s" % (", ".join(unknown), ", ".join(CASES)))
    if args.child:
        return child(args.child, args.child_case, args.child_threads, args.steps, args.warmup)

    print("recurrent training steps (forward, cross-entropy, backward, SGD), float32; "
          "median of %d steps after %d warm-up" % (args.steps, args.warmup))
    print("%-11s %7s %10s %10s %9s %18s" % ("case", "threads", "tc ms", "torch ms", "tc/torch", "(cpu ms tc/torch)"))
    for case in cases:
        for n in thread_counts:
            res = {}
            for lib in ("tc", "torch"):
                cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, "--child-case", case,
                       "--child-threads", str(n), "--steps", str(args.steps), "--warmup", str(args.warmup)]
                env = dict(os.environ, OMP_NUM_THREADS=str(n))
                env.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # idle threads sleep: the machine is shared
                r = subprocess.run(cmd, capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    sys.exit("bench_rnn: the %s child failed:\n%s%s" % (lib, r.stdout, r.stderr))
                res[lib] = json.loads(r.stdout.strip().splitlines()[-1])
            a, b = res["tc"], res["torch"]
            print("%-11s %7d %10.2f %10.2f %8.2fx %10.1f/%.1f" % (
                case, n, 1e3 * a["median_s"], 1e3 * b["median_s"], a["median_s"] / b["median_s"],
                1e3 * a["cpu_s"], 1e3 * b["cpu_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
