"""tc.distributed under mpirun (run by ctest as dist.python with 2 ranks):
the collectives, async works, errors, DistributedSampler and
DistributedDataParallel (broadcast of rank 0's weights, bucketed
all-reduce, no_sync) against a one-process reference computed on every
rank. Exits non-zero on the first failure."""

import tc
import tc.distributed as dist
from tc import nn
from tc.utils.data import DistributedSampler


def main():
    assert not dist.is_initialized()
    assert dist.is_mpi_available()
    if not dist.is_nccl_available():  # no GPU here, or libtc without CUDA/NCCL: a clear error
        try:
            dist.init_process_group("nccl")
            raise AssertionError("a nccl group without NCCL")
        except tc.TcError as e:
            assert "nccl" in str(e).lower() or "cuda" in str(e).lower(), e
    dist.init_process_group("mpi")
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    rank, world = dist.get_rank(), dist.get_world_size()
    assert world >= 2, world

    # Collectives.
    t = tc.arange(6, dtype=tc.float32) + rank
    dist.all_reduce(t)
    expect = [world * i + world * (world - 1) / 2 for i in range(6)]
    assert t.tolist() == expect, (t.tolist(), expect)
    t = tc.full((3,), float(rank + 1))
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    assert t.tolist() == [float(world)] * 3
    t = tc.full((3,), float(rank + 1))
    w = dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True)
    w.wait()
    assert w.is_completed()
    assert abs(t[0].item() - (world + 1) / 2) < 1e-6
    b = tc.full((2, 2), 7.0) if rank == 1 else tc.zeros(2, 2)
    dist.broadcast(b, src=1)
    assert b.tolist() == [[7.0, 7.0], [7.0, 7.0]]
    parts = [tc.zeros(2) for _ in range(world)]
    dist.all_gather(parts, tc.full((2,), float(rank)))
    assert [p.tolist() for p in parts] == [[float(r)] * 2 for r in range(world)]
    out = tc.zeros(2)
    dist.reduce_scatter_tensor(out, tc.ones(2 * world) * (rank + 1))
    assert out.tolist() == [world * (world + 1) / 2] * 2
    dist.barrier()
    if rank == 0:
        dist.send(tc.tensor([1.0, 2.0, 3.0]), dst=1, tag=5)
    elif rank == 1:
        r = tc.zeros(3)
        assert dist.recv(r, src=0, tag=5) == 0
        assert r.tolist() == [1.0, 2.0, 3.0]

    # Ranks that disagree: every rank raises, before any data moves.
    x = tc.ones(2 + rank)
    try:
        dist.all_reduce(x)
        raise AssertionError("a shape mismatch went through")
    except tc.ShapeError as e:
        assert "rank 1" in str(e), e
    assert x.tolist() == [1.0] * (2 + rank)
    y = tc.ones(2, dtype=tc.float32 if rank == 0 else tc.float64)
    try:
        dist.all_reduce(y)
        raise AssertionError("a dtype mismatch went through")
    except tc.DTypeError:
        pass

    # DistributedSampler: disjoint shares that cover the data.
    shares = [list(DistributedSampler(range(10), num_replicas=world, rank=r, seed=3)) for r in range(world)]
    assert len({len(s) for s in shares}) == 1
    assert set(sum(shares, [])) == set(range(10))
    assert list(DistributedSampler(range(10), seed=3)) == shares[rank]

    # DDP: start from different weights; rank 0's win. Gradients equal the
    # global batch's, with the gradient-accumulation step under no_sync().
    tc.manual_seed(100 + rank)
    net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    ddp = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=200 / 2**20)  # 200-byte buckets
    assert len(ddp.bucket_sizes) >= 3, ddp.bucket_sizes
    tc.manual_seed(100)
    ref = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))  # rank 0's weights, everywhere
    for p, q in zip(net.parameters(), ref.parameters()):
        assert p.tolist() == q.tolist()
    tc.manual_seed(7)
    xs = [tc.randn(4 * world, 5) for _ in range(2)]
    ys = [tc.randn(4 * world, 3) for _ in range(2)]
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
    assert not dist.is_initialized()
    print("rank %d of %d: tc.distributed tests passed" % (rank, world))


if __name__ == "__main__":
    from rank_main import run

    run(main)
