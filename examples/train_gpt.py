#!/usr/bin/env python3
"""Trains a small character-level GPT on tiny Shakespeare with tc (the
Python bindings) and prints a generated sample: token and position
embeddings, pre-LayerNorm transformer blocks (causal self-attention through
tc.nn.functional.scaled_dot_product_attention, a GELU MLP), AdamW with weight
decay on the 2-D weights only (two parameter groups), a linear warm-up then a
cosine learning-rate schedule (SequentialLR), gradient-norm clipping.

    python3 examples/train_gpt.py [--steps N] [--lr X] [--layers N] [--d N] [--heads N]
                                  [--context N] [--batch N] [--threads N] [--seed N] ...

Uses the installed package (pip install ./bindings/python_ctypes) when there
is one, else the checkout's copy (which finds libtc.so in TC_LIBRARY or a
build*/ directory). The data (examples/data/
tinyshakespeare.txt.gz) is split 90% / 10% into training and validation
text. Prints a progress bar (on a terminal), the training and validation
losses every --eval-every steps, the final validation loss and a sample;
exits 1 if the final validation loss is above --max-val-loss (default: no
limit), 2 on bad arguments.
"""
import argparse
import gzip
import math
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# OpenMP threads that wait by spinning burn the cores they share with other
# processes: on a busy 2-core machine a step took 30x longer. Sleeping waits
# cost little here (unless the caller chose a policy). Read when libgomp loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

try:
    import tc  # noqa: E402  (the installed package: pip install ./bindings/python_ctypes)
except ImportError:
    # Not installed: the checkout's copy, which finds the library in <repo>/build*/.
    sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))
    import tc  # noqa: E402
from tc import nn  # noqa: E402
from tc.nn import functional as F  # noqa: E402


# ------------------------------------------------------------------ the model

class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).split(d, dim=2)
        # [B, T, H, D/H] -> [B, H, T, D/H]: views, the matmuls read the strides.
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, 4 * d)
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.proj(F.gelu(self.fc(x)))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, context, layers=4, d=128, heads=4):
        super().__init__()
        if d % heads:
            raise ValueError("d = %d is not a multiple of heads = %d" % (d, heads))
        self.context = context
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(context, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        # GPT-2's initialization: N(0, 0.02) weights, zero biases, the
        # residual projections scaled down by sqrt(2 * layers).
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.ndim == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith("proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)
        self._positions = {}

    def positions(self, t):
        if t not in self._positions:
            self._positions[t] = tc.arange(t, dtype=tc.int64)
        return self._positions[t]

    def forward(self, idx, targets=None):
        b, t = idx.shape
        x = self.tok(idx) + self.pos(self.positions(t))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln_f(x))
        if targets is None:
            return logits, None
        return logits, F.cross_entropy(logits.reshape(b * t, logits.shape[-1]), targets.reshape(b * t))


def param_groups(model, weight_decay):
    """AdamW's usual GPT recipe: decay the 2-D weights (matmuls, embeddings),
    not the biases and LayerNorm parameters."""
    decay = [p for p in model.parameters() if p.ndim >= 2]
    no_decay = [p for p in model.parameters() if p.ndim < 2]
    return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


def lr_schedule(opt, warmup, steps, min_ratio=0.1):
    """Linear warm-up from 1% of the lr, then cosine down to min_ratio * lr."""
    lr = opt.param_groups[0]["lr"]
    sched = tc.optim.lr_scheduler
    warm = sched.LinearLR(opt, start_factor=0.01, end_factor=1.0, total_iters=max(warmup, 1))
    cos = sched.CosineAnnealingLR(opt, T_max=max(steps - warmup, 1), eta_min=lr * min_ratio)
    return sched.SequentialLR(opt, [warm, cos], milestones=[warmup])


# ------------------------------------------------------------------- the data

def load_text(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return f.read()


class Batches:
    """Random windows of context + 1 characters from a token tensor."""

    def __init__(self, data, context, batch, rng):
        self.data, self.context, self.batch, self.rng = data, context, batch, rng
        self.n = data.numel()
        self.offsets = tc.arange(context, dtype=tc.int64).reshape(1, context)

    def next(self):
        starts = [self.rng.randrange(self.n - self.context - 1) for _ in range(self.batch)]
        idx = tc.tensor(starts, dtype=tc.int64).reshape(self.batch, 1) + self.offsets
        flat = idx.reshape(-1)
        x = self.data.index_select(0, flat).reshape(self.batch, self.context)
        y = self.data.index_select(0, flat + 1).reshape(self.batch, self.context)
        return x, y


@tc.no_grad()
def estimate_loss(model, batches, iters):
    model.eval()
    total = 0.0
    for _ in range(iters):
        x, y = batches.next()
        total += model(x, y)[1].item()
    model.train()
    return total / iters


@tc.no_grad()
def generate(model, start, length, temperature=1.0, top_k=None):
    """Samples `length` tokens after the int64 [1, T0] prompt `start`."""
    model.eval()
    idx = start
    out = []
    for _ in range(length):
        ctx = idx if idx.shape[1] <= model.context else idx[:, -model.context:]
        logits, _ = model(ctx)
        logits = logits.select(1, -1) / temperature  # [1, vocab]
        if top_k is not None and top_k < logits.shape[-1]:
            kth = logits.topk(top_k, dim=-1).values.select(1, -1).reshape(1, 1)
            logits = logits.masked_fill(logits < kth, float("-inf"))
        nxt = logits.softmax(-1).multinomial(1)  # [1, 1]
        out.append(nxt.item())
        idx = tc.cat([idx, nxt], dim=1)
    model.train()
    return out


def progress(step, steps, loss, lr, width=30):
    if not sys.stdout.isatty():
        return
    done = width * step // steps
    sys.stdout.write("\rstep %5d/%d [%s] loss %.4f lr %.2e" % (step, steps, "#" * done + "." * (width - done),
                                                               loss, lr))
    sys.stdout.flush()


def positive(kind):
    def parse(s):
        v = kind(s)
        if not v > 0:
            raise argparse.ArgumentTypeError("must be positive, got %s" % s)
        return v
    return parse


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=positive(int), default=1000)
    ap.add_argument("--lr", type=positive(float), default=3e-3)
    ap.add_argument("--warmup", type=int, default=100, help="warm-up steps (default 100)")
    ap.add_argument("--weight-decay", type=float, default=0.1)
    ap.add_argument("--clip", type=positive(float), default=1.0, help="gradient-norm clipping")
    ap.add_argument("--layers", type=positive(int), default=4)
    ap.add_argument("--d", type=positive(int), default=128)
    ap.add_argument("--heads", type=positive(int), default=4)
    ap.add_argument("--context", type=positive(int), default=64)
    ap.add_argument("--batch", type=positive(int), default=16)
    ap.add_argument("--eval-every", type=positive(int), default=100)
    ap.add_argument("--eval-iters", type=positive(int), default=20)
    ap.add_argument("--final-eval-iters", type=positive(int), default=100)
    ap.add_argument("--sample", type=int, default=400, help="characters to generate at the end (0: none)")
    ap.add_argument("--top-k", type=positive(int), default=None)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--data", default=os.path.join(HERE, "data", "tinyshakespeare.txt.gz"))
    ap.add_argument("--max-val-loss", type=float, default=None,
                    help="exit 1 when the final validation loss is above this")
    args = ap.parse_args(argv)
    if args.d % args.heads:
        ap.error("--d (%d) must be a multiple of --heads (%d)" % (args.d, args.heads))
    if not 0 <= args.warmup < args.steps:
        ap.error("--warmup must be in [0, --steps)")
    if args.threads < 0 or args.sample < 0:
        ap.error("--threads and --sample must be >= 0")
    if not os.path.exists(args.data):
        ap.error("no data file %s" % args.data)

    tc.manual_seed(args.seed)
    rng = random.Random(args.seed)
    if args.threads:
        tc.set_num_threads(args.threads)
    text = load_text(args.data)
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = tc.tensor([stoi[c] for c in text], dtype=tc.int64)
    n_train = int(0.9 * len(text))
    train = Batches(data[:n_train], args.context, args.batch, rng)
    val = Batches(data[n_train:], args.context, args.batch, rng)

    model = GPT(len(chars), args.context, args.layers, args.d, args.heads)
    n_params = sum(p.numel() for p in model.parameters())
    opt = tc.optim.AdamW(param_groups(model, args.weight_decay), lr=args.lr, betas=(0.9, 0.99))
    sched = lr_schedule(opt, args.warmup, args.steps)
    print("data: %d characters (%d train, %d val), vocabulary %d; model: %d layers, d %d, %d heads, context %d, "
          "%.2fM parameters; batch %d, AdamW lr %g, %d steps, %d threads"
          % (len(text), n_train, len(text) - n_train, len(chars), args.layers, args.d, args.heads, args.context,
             n_params / 1e6, args.batch, args.lr, args.steps, tc.get_num_threads()))

    start = time.perf_counter()
    train_time = 0.0
    for step in range(1, args.steps + 1):
        t0 = time.perf_counter()
        x, y = train.next()
        _, loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        sched.step()
        lv = loss.item()
        train_time += time.perf_counter() - t0
        progress(step, args.steps, lv, sched.get_last_lr()[0])
        if step % args.eval_every == 0 or step == args.steps:
            tl = estimate_loss(model, train, args.eval_iters)
            vl = estimate_loss(model, val, args.eval_iters)
            sys.stdout.write("\rstep %5d/%d  train_loss %.4f  val_loss %.4f  lr %.2e  %.1fs (%.0f ms/step)%s\n"
                             % (step, args.steps, tl, vl, sched.get_last_lr()[0], time.perf_counter() - start,
                                1000 * train_time / step, " " * 10))
            sys.stdout.flush()
    final_val = estimate_loss(model, val, args.final_eval_iters)
    elapsed = time.perf_counter() - start
    print("final val_loss %.4f (%d batches) after %d steps in %.1fs (training %.1fs)"
          % (final_val, args.final_eval_iters, args.steps, elapsed, train_time))
    if args.sample:
        prompt = tc.tensor([[stoi["\n"]]], dtype=tc.int64)
        out = generate(model, prompt, args.sample, top_k=args.top_k)
        print("---- sample ----")
        print("".join(chars[i] for i in out))
        print("----------------")
    if args.max_val_loss is not None and not final_val <= args.max_val_loss:
        print("val_loss %.4f is above --max-val-loss %.4f" % (final_val, args.max_val_loss))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
