"""Data-parallel MLP step time: one process with the global batch against N
processes (one thread each) with DistributedDataParallel, each with its
share; the same with PyTorch's DDP over gloo (where this python's torch has
it). Run by bench/dist/run.sh; by hand:

    mpirun -np 2 --oversubscribe python3 bench/dist/bench_ddp.py --lib tc   [--batch 256]
    python3 bench/dist/bench_ddp.py --lib tc --single

Prints one line: lib, ranks, median step time in ms (forward, backward with
the overlapped all-reduce, Adam step), then "cpu" and the median CPU time of
the step in ms (the process's, every thread; the slowest rank's): on a
machine shared with other work the wall time mostly says how much of the
cores the scheduler gave the ranks, the CPU time what the step costs."""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bindings", "python_ctypes"))


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def run_tc(args):
    import tc
    from tc import nn
    tc.set_num_threads(1)
    world, rank = 1, 0
    if not args.single:
        tc.distributed.init_process_group("mpi", check_collectives=not args.no_check)
        world, rank = tc.distributed.get_world_size(), tc.distributed.get_rank()
    tc.manual_seed(0)
    net = nn.Sequential(nn.Linear(args.din, args.hidden), nn.ReLU(), nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                        nn.Linear(args.hidden, 10))
    model = net if args.single else nn.parallel.DistributedDataParallel(
        net, bucket_cap_mb=args.bucket_mb, gradient_as_bucket_view=args.bucket_view)
    opt = tc.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    local = args.batch // world
    x = tc.randn(local, args.din)
    y = (tc.rand(local) * 10).to(tc.int64)
    times, cpus = [], []
    for i in range(args.warmup + args.steps):
        if not args.single:
            tc.distributed.barrier()
        t0, c0 = time.perf_counter(), time.process_time()
        loss = loss_fn(model(x), y)
        opt.zero_grad()  # (with bucket views too: a fresh .grad is copied in once, none back)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    ms, cpu = median(times[args.warmup:]) * 1e3, median(cpus[args.warmup:]) * 1e3
    if not args.single:
        t = tc.tensor([ms, cpu], dtype=tc.float64)
        tc.distributed.all_reduce(t, op=tc.distributed.ReduceOp.MAX)
        ms, cpu = t.tolist()
        tc.distributed.destroy_process_group()
    if rank == 0:
        print("tc %d %.3f cpu %.3f" % (world, ms, cpu))


def run_torch(args):
    import torch
    import torch.distributed as dist
    from torch import nn
    torch.set_num_threads(1)
    world, rank = 1, 0
    if not args.single:
        rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
        world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", str(args.port))
        dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(args.din, args.hidden), nn.ReLU(), nn.Linear(args.hidden, args.hidden), nn.ReLU(),
                        nn.Linear(args.hidden, 10))
    model = net if args.single else nn.parallel.DistributedDataParallel(net, bucket_cap_mb=args.bucket_mb)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    local = args.batch // world
    x = torch.randn(local, args.din)
    y = torch.randint(0, 10, (local,))
    times, cpus = [], []
    for i in range(args.warmup + args.steps):
        if not args.single:
            dist.barrier()
        t0, c0 = time.perf_counter(), time.process_time()
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    ms, cpu = median(times[args.warmup:]) * 1e3, median(cpus[args.warmup:]) * 1e3
    if not args.single:
        t = torch.tensor([ms, cpu], dtype=torch.float64)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        ms, cpu = t.tolist()
        dist.destroy_process_group()
    if rank == 0:
        print("torch %d %.3f cpu %.3f" % (world, ms, cpu))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", choices=["tc", "torch"], default="tc")
    ap.add_argument("--single", action="store_true", help="one process, no DDP")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--din", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--bucket-mb", type=float, default=25.0)
    ap.add_argument("--no-check", action="store_true", help="tc: skip the collectives' descriptor check")
    ap.add_argument("--bucket-view", action="store_true",
                    help="tc: DDP(gradient_as_bucket_view=True)")
    ap.add_argument("--port", type=int, default=29533)
    args = ap.parse_args()
    (run_tc if args.lib == "tc" else run_torch)(args)


if __name__ == "__main__":
    main()
