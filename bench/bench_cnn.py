#!/usr/bin/env python3
"""Convolutional networks in tc next to the same code in PyTorch (torch 1.13), float32, in one
process: the model is written once as torch code and built twice, with `lib = tc` and
`lib = torch`. Both sides are timed interleaved (one tc call, one torch call, repeated), so a
load change on a shared machine hits both alike; medians are printed with the ratio tc / torch
(below 1.0: tc is faster).

Cases:
  train   CIFAR-sized ResNet-20 (3x3 convs 16/32/64 channels, BatchNorm, residual adds,
          1x1 projection shortcuts, global average pooling, Linear 10): one step = forward,
          cross-entropy, backward, SGD with momentum 0.9. Batch 32 and 128, 32x32 images.
  eval    the same network's forward under no_grad in eval mode (running statistics).
  r18     a ResNet-18-shaped network (torchvision's layout, 224x224 images, 1000 classes),
          eval forward under no_grad, batch 1 and 32.

Targets: train <= 0.8x, eval <= 0.7x, r18 batch 1 <= 0.8x.

Run: TC_LIBRARY=build/libtc.so /usr/bin/python3 bench/bench_cnn.py [--reps 7] [--warmup 2]
     [--threads 1,2] [--only train,eval,r18]
Each thread count sets both libraries' (tc.set_num_threads, torch.set_num_threads).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bindings", "python_ctypes"))

CASES = ["train", "eval", "r18"]


def resnet_cifar(torch, blocks=3, classes=10):
    """ResNet-20 for 32x32 images (He et al. 2016, section 4.2), projection shortcuts."""
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.short = None
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + (x if self.short is None else self.short(x)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
            layers, cin = [], 16
            for i, cout in enumerate((16, 32, 64)):
                for b in range(blocks):
                    layers.append(Block(cin, cout, 2 if (i > 0 and b == 0) else 1))
                    cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(64, classes)

        def forward(self, x):
            y = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))

    return Net()


def resnet18(torch, classes=1000):
    """torchvision's resnet18 layout (7x7 stem, max pool, 4 stages of 2 basic blocks)."""
    nn, F = torch.nn, torch.nn.functional

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            y = F.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return F.relu(y + (x if self.down is None else self.down(x)))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            layers, cin = [], 64
            for i, cout in enumerate((64, 128, 256, 512)):
                for b in range(2):
                    layers.append(Block(cin, cout, 2 if (i > 0 and b == 0) else 1))
                    cin = cout
            self.layers = nn.Sequential(*layers)
            self.fc = nn.Linear(512, classes)

        def forward(self, x):
            y = self.layers(self.stem(x))
            return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))

    return Net()


def make_case(torch, case, batch):
    """A no-argument callable running one train step or one eval forward of the case."""
    torch.manual_seed(0)
    if case == "r18":
        model, size, classes = resnet18(torch), 224, 1000
    else:
        model, size, classes = resnet_cifar(torch), 32, 10
    x = torch.randn(batch, 3, size, size)
    if case != "train":
        model.eval()

        def forward():
            with torch.no_grad():
                return model(x).sum().item()

        return forward
    target = torch.randint(0, classes, (batch,))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    F = torch.nn.functional

    def step():
        loss = F.cross_entropy(model(x), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    return step


def interleaved(runs, reps, warmup):
    """Median wall seconds of each callable in runs, called in turn reps times after warm-up."""
    for _ in range(warmup):
        for r in runs:
            r()
    times = [[] for _ in runs]
    for _ in range(reps):
        for i, r in enumerate(runs):
            t0 = time.perf_counter()
            r()
            times[i].append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--only", default="", help="comma-separated case names")
    args = ap.parse_args()
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be >= 1 and --warmup >= 0")
    cases = [c for c in args.only.split(",") if c] or CASES
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error("unknown case(s) %s; the cases are %s" % (", ".join(unknown), ", ".join(CASES)))
    import tc
    import torch

    print("CNN (float32): ResNet-20 on 32x32 (train step, eval forward), ResNet-18 on 224x224 (eval); "
          "interleaved, median of %d after %d warm-up" % (args.reps, args.warmup))
    print("%-6s %6s %7s %10s %10s %9s" % ("case", "batch", "threads", "tc ms", "torch ms", "tc/torch"))
    for case in cases:
        batches = (1, 32) if case == "r18" else (32, 128)
        for batch in batches:
            for n in [int(t) for t in args.threads.split(",")]:
                tc.set_num_threads(n)
                torch.set_num_threads(n)
                runs = [make_case(tc, case, batch), make_case(torch, case, batch)]
                a, b = interleaved(runs, args.reps, args.warmup)
                print("%-6s %6d %7d %10.2f %10.2f %8.2fx" % (case, batch, n, 1e3 * a, 1e3 * b, a / b), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
