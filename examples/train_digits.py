#!/usr/bin/env python3
"""Trains the MLP 64 -> 128 -> ReLU -> 10 on the 8x8 digits with tc (the
Python bindings), exactly like examples/train_digits.c: the same data
scaling (pixels / 16), the same fixed-seed 80/20 split and batch order (the
same LCG), softmax cross-entropy, Adam (lr 3e-3), 20 epochs of batches of 32.

    python3 examples/train_digits.py [--epochs N] [--batch N] [--lr X] [--seed N] [--threads N]
    mpirun -np 2 python3 examples/train_digits.py --distributed [...]

With --distributed (under mpirun; tc.distributed's "mpi" backend) every rank
takes its share of each global batch of --batch samples (the same batches as
one process), the model is wrapped in DistributedDataParallel, and the loss
is each rank's summed loss scaled so that DDP's average of the gradients is
the gradient of the global batch's mean loss, uneven last batch included: the
weights end as one process's would, within float rounding
(tests/dist/train_digits_equivalence.sh). Only rank 0 prints and saves.

Uses the installed package (pip install ./bindings/python_ctypes) when there
is one, else the checkout's copy (which finds libtc.so in TC_LIBRARY or a
build*/ directory). Prints a progress bar per epoch and the
final test accuracy; exits 1 if it is below --min-acc (default 0.95).
"""
import argparse
import gzip
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
try:
    import tc  # the installed package (pip install ./bindings/python_ctypes), when there is one
except ImportError:
    # Not installed: the checkout's copy, which finds the library in <repo>/build*/.
    sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))
    import tc
from tc import nn  # noqa: E402

MASK64 = (1 << 64) - 1


class LCG:
    """Knuth's MMIX LCG, as in train_digits.c: the same split on every machine."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) & MASK64
        return self.state >> 33

    def shuffle(self, idx):
        for i in range(len(idx) - 1, 0, -1):
            j = self.next() % (i + 1)
            idx[i], idx[j] = idx[j], idx[i]


def load_digits(path):
    xs, ys = [], []
    with gzip.open(path, "rt") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            v = [int(s) for s in line.split(",")]
            if len(v) != 65 or not 0 <= v[64] < 10:
                raise SystemExit("train_digits: %s: malformed line %d" % (path, len(xs) + 1))
            xs.append([p / 16.0 for p in v[:64]])
            ys.append(v[64])
    return xs, ys


def batch(x_all, y_all, idx):
    i = tc.tensor(idx, dtype=tc.int64)
    return x_all.index_select(0, i), y_all.index_select(0, i)


def progress(epoch, epochs, step, steps, loss, width=30):
    if not sys.stdout.isatty():
        return  # the bar is for terminals; logs get one line per epoch
    done = width * step // steps
    bar = "#" * done + "." * (width - done)
    sys.stdout.write("\repoch %2d/%d [%s] %3d/%d  loss %.4f" % (epoch, epochs, bar, step, steps, loss))
    sys.stdout.flush()


@tc.no_grad()
def accuracy(model, x, y):
    model.eval()
    pred = model(x).argmax(1)
    model.train()
    return (pred == y).to(tc.int64).sum().item() / y.numel()


def _int_in(lo, hi):
    """argparse type: a whole number in [lo, hi] ("--epochs abc" or 0 exits 2 with usage)."""
    def parse(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not an integer" % text) from None
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError("%d is not in [%d, %d]" % (n, lo, hi))
        return n
    return parse


def _positive(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text) from None
    if not (x > 0 and x != float("inf")):
        raise argparse.ArgumentTypeError("%r is not a positive number" % text)
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=_int_in(1, 100000), default=20)
    ap.add_argument("--batch", type=_int_in(1, 1 << 20), default=32)
    ap.add_argument("--lr", type=_positive, default=3e-3)
    ap.add_argument("--seed", type=_int_in(0, (1 << 63) - 1), default=42)
    ap.add_argument("--threads", type=_int_in(1, 4096), default=0)
    ap.add_argument("--data", default=os.path.join(HERE, "data", "digits.csv.gz"))
    ap.add_argument("--min-acc", type=float, default=0.95)
    ap.add_argument("--save", default=os.path.join(tempfile.gettempdir(), "train_digits.safetensors"),
                    help="checkpoint written after every epoch (model, optimizer, generators, epoch)")
    ap.add_argument("--resume", metavar="PATH", help="continue the run a --save checkpoint stopped at")
    ap.add_argument("--distributed", action="store_true", help="data-parallel over mpirun's processes")
    ap.add_argument("--bucket-mb", type=float, default=25.0, help="DDP's gradient bucket size (--distributed)")
    ap.add_argument("--weights-out", metavar="PATH", help="save the final model weights (safetensors)")
    args = ap.parse_args()

    rank, world = 0, 1
    if args.distributed:
        tc.distributed.init_process_group("mpi")
        rank, world = tc.distributed.get_rank(), tc.distributed.get_world_size()
        if rank != 0:
            args.save = None
            sys.stdout = open(os.devnull, "w")

    tc.manual_seed(args.seed)
    if args.threads:
        tc.set_num_threads(args.threads)
    xs, ys = load_digits(args.data)
    order = list(range(len(xs)))
    rng = LCG(args.seed)
    rng.shuffle(order)
    n_train = len(xs) * 8 // 10
    train_idx, test_idx = order[:n_train], order[n_train:]
    x_all, y_all = tc.tensor(xs, dtype=tc.float32), tc.tensor(ys, dtype=tc.int64)
    x_test, y_test = batch(x_all, y_all, test_idx)
    print("data: %d samples (%d train, %d test); model mlp 64-128-10; %d epochs, batch %d, Adam lr %g, "
          "%d threads; libtc %s" % (len(xs), n_train, len(test_idx), args.epochs, args.batch, args.lr,
                                     tc.get_num_threads(), tc.library_path))

    net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    model = net
    if args.distributed:
        model = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=args.bucket_mb)
        print("distributed: %d ranks (mpi), DDP buckets of %s elements" % (world, model.bucket_sizes))
    opt = tc.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()
    sum_loss = nn.CrossEntropyLoss(reduction="sum")
    steps = (n_train + args.batch - 1) // args.batch
    start = time.perf_counter()
    acc = 0.0
    first_epoch = 1
    if args.resume:
        ckpt = tc.load(args.resume)
        net.load_state_dict(ckpt["model"])
        opt.load_state_dict(ckpt["optim"])
        tc.set_rng_state(ckpt["rng"])
        rng.state, train_idx = ckpt["shuffle_state"], list(ckpt["train_idx"])
        first_epoch = ckpt["epoch"] + 1
        print("resumed from %s after epoch %d" % (args.resume, ckpt["epoch"]))
    for epoch in range(first_epoch, args.epochs + 1):
        t0 = time.perf_counter()
        rng.shuffle(train_idx)
        loss_sum = 0.0
        for s in range(steps):
            idx = train_idx[s * args.batch:(s + 1) * args.batch]
            if args.distributed:
                # This rank's share; DDP averages over the ranks, hence * world.
                x, y = batch(x_all, y_all, idx[rank::world])
                loss = sum_loss(model(x), y) * (world / len(idx))
            else:
                x, y = batch(x_all, y_all, idx)
                loss = loss_fn(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            lv = loss.item()
            if args.distributed:
                lt = tc.tensor([lv / world])
                tc.distributed.all_reduce(lt)  # the global batch's mean loss
                lv = lt.item()
            loss_sum += lv * len(idx)
            progress(epoch, args.epochs, s + 1, steps, lv)
        acc = accuracy(model, x_test, y_test)
        sys.stdout.write("\repoch %2d/%d  train_loss %.4f  test_acc %6.2f%%  time %.3fs%s\n"
                         % (epoch, args.epochs, loss_sum / n_train, 100 * acc, time.perf_counter() - t0, " " * 20))
        if args.save:
            tc.save({"model": net.state_dict(), "optim": opt.state_dict(), "rng": tc.get_rng_state(),
                     "shuffle_state": rng.state, "train_idx": train_idx, "epoch": epoch}, args.save)
    if args.save:
        print("checkpoint: %s (continue with --resume %s)" % (args.save, args.save))
    print("final test accuracy %.2f%% after %d epochs in %.2fs" % (100 * acc, args.epochs,
                                                                 time.perf_counter() - start))
    if args.weights_out and rank == 0:
        tc.save_file(net.state_dict(), args.weights_out)
    if args.distributed:
        tc.distributed.destroy_process_group()
    return 0 if acc >= args.min_acc else 1


if __name__ == "__main__":
    sys.exit(main())
