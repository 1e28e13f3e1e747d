"""tc.distributed on the "nccl" backend (ctest dist.nccl_python, one rank per
GPU under mpirun): the collectives on CUDA tensors, and DistributedDataParallel
on CUDA ending with the gradients one process gets over the global batch.
Exits 77 (skipped, saying why) when no nccl group can be made here: no GPU,
or libtc built without CUDA or NCCL."""
import sys

import tc
import tc.distributed as dist
from tc import nn


def main():
    if not dist.is_nccl_available():
        try:
            dist.init_process_group("nccl")
        except tc.TcError as e:
            print("SKIPPED: %s" % e)
        sys.exit(77)
    dist.init_process_group("nccl")
    assert dist.get_backend() == "nccl"
    rank, world = dist.get_rank(), dist.get_world_size()
    import os
    dev = "cuda:%d" % (int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", rank)) % tc.cuda.device_count())

    t = (tc.arange(6, dtype=tc.float32) + rank).to(dev)
    dist.all_reduce(t)
    assert t.cpu().tolist() == [world * i + world * (world - 1) / 2 for i in range(6)]
    for op, expect in ((dist.ReduceOp.MAX, world), (dist.ReduceOp.MIN, 1), (dist.ReduceOp.AVG, (world + 1) / 2)):
        t = tc.full((3,), float(rank + 1)).to(dev)
        w = dist.all_reduce(t, op=op, async_op=True)
        w.wait()
        assert abs(t.cpu()[0].item() - expect) < 1e-6, (op, t.cpu().tolist())
    b = (tc.full((2, 2), 7.0) if rank == world - 1 else tc.zeros(2, 2)).to(dev)
    dist.broadcast(b, src=world - 1)
    assert b.cpu().tolist() == [[7.0, 7.0], [7.0, 7.0]]
    parts = [tc.zeros(2).to(dev) for _ in range(world)]
    dist.all_gather(parts, tc.full((2,), float(rank)).to(dev))
    assert [p.cpu().tolist() for p in parts] == [[float(r)] * 2 for r in range(world)]
    dist.barrier()
    try:
        dist.all_reduce(tc.ones(2))  # a CPU tensor
        raise AssertionError("a CPU tensor went through nccl")
    except tc.TcError as e:
        assert "cuda" in str(e), e

    # DDP on CUDA: rank 0's weights everywhere, gradients of the global batch.
    tc.manual_seed(100 + rank)
    net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
    ddp = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=200 / 2**20)
    tc.manual_seed(100)
    ref = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3)).to(dev)
    for p, q in zip(net.parameters(), ref.parameters()):
        assert p.cpu().tolist() == q.cpu().tolist()
    tc.manual_seed(7)
    xs = [tc.randn(4 * world, 5).to(dev) for _ in range(2)]
    ys = [tc.randn(4 * world, 3).to(dev) for _ in range(2)]
    mse = nn.MSELoss()
    with ddp.no_sync():
        mse(ddp(xs[0][4 * rank:4 * rank + 4]), ys[0][4 * rank:4 * rank + 4]).backward()
    mse(ddp(xs[1][4 * rank:4 * rank + 4]), ys[1][4 * rank:4 * rank + 4]).backward()
    for i in range(2):
        mse(ref(xs[i]), ys[i]).backward()
    for p, q in zip(net.parameters(), ref.parameters()):
        d = (p.grad - q.grad).abs().max().item()
        assert d < 1e-5, d

    dist.destroy_process_group()
    print("rank %d of %d: nccl tests passed" % (rank, world))


if __name__ == "__main__":
    from rank_main import run

    run(main)
