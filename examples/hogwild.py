"""Hogwild training: several processes update one model in shared memory
without locks (PyTorch's examples/mnist_hogwild, with libtc).

The model's parameters are moved into shared memory (Module.share_memory);
each process started by tc.multiprocessing receives the model by handle, so
every optimizer step writes the same weights. Each process trains on its own
shard of a synthetic classification task; the main process then measures the
shared model's accuracy, which all the processes improved together.

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 examples/hogwild.py [--procs 2] [--steps 150]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings", "python_ctypes"))
import tc  # noqa: E402
import tc.multiprocessing as mp  # noqa: E402


def make_data(n, seed):
    """Points in 8-D labelled by which of 4 fixed directions they are nearest."""
    g = tc.Generator().manual_seed(seed)
    x = tc.randn(n, 8, generator=g)
    centers = tc.randn(4, 8, generator=tc.Generator().manual_seed(1234))
    y = (x @ centers.t()).argmax(1)
    return x, y


def train(rank, model, steps, seed):
    """One Hogwild worker: SGD on its own data, straight into the shared weights."""
    tc.set_num_threads(1)  # the processes share the cores
    x, y = make_data(512, seed + rank)
    opt = tc.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        i = (step * 32) % 512
        opt.zero_grad()
        loss = tc.nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
        loss.backward()
        opt.step()


def accuracy(model):
    x, y = make_data(1024, 999)
    with tc.no_grad():
        return float((model(x).argmax(1) == y).float().mean().item())


def main():
    ap = argparse.ArgumentParser(description="Hogwild training with tc.multiprocessing")
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--start-method", default="fork", choices=["fork", "spawn"])
    args = ap.parse_args()
    tc.manual_seed(0)
    model = tc.nn.Sequential(tc.nn.Linear(8, 32), tc.nn.ReLU(), tc.nn.Linear(32, 4))
    model.share_memory()  # the processes will all write these parameters
    before = accuracy(model)
    ctx = mp.get_context(args.start_method)
    procs = [ctx.Process(target=train, args=(rank, model, args.steps, 10)) for rank in range(args.procs)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit("a training process failed (exit code %d)" % p.exitcode)
    after = accuracy(model)
    print("accuracy of the shared model: %.3f before, %.3f after %d processes x %d steps"
          % (before, after, args.procs, args.steps))
    return after


if __name__ == "__main__":
    main()
