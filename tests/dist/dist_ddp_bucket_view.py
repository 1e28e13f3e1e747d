"""DistributedDataParallel(gradient_as_bucket_view=True) under mpirun (ctest
dist.ddp_bucket_view, 2 and 3 ranks): after N steps its weights equal,
bit for bit, those of the default path (gradients copied into the bucket
and back), and, within float tolerance, those of one process training on
the same global batches; its .grads are views into the buckets (the same
addresses every step), also with zero_grad(set_to_none=False), Adam, and
gradient accumulation under no_sync(). Exits non-zero on the first failure."""

import tc
import tc.distributed as dist
from tc import nn


def make_net(seed):
    tc.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 20), nn.Tanh(), nn.Linear(20, 12), nn.ReLU(), nn.Linear(12, 3))


def train(model, params, batches, rank, world, opt_name, set_to_none, accumulate, local=True):
    """Runs len(batches) steps; local: each rank takes its share of every global batch."""
    opt = tc.optim.SGD(params, lr=0.1, momentum=0.9) if opt_name == "sgd" else tc.optim.Adam(params, lr=0.01)
    mse = nn.MSELoss()
    per = batches[0][0].shape[0] // world
    for step, (x, y) in enumerate(batches):
        if local:
            x, y = x[rank * per:(rank + 1) * per], y[rank * per:(rank + 1) * per]
        if accumulate and step % 2 == 0 and hasattr(model, "no_sync"):
            with model.no_sync():  # gradient accumulation: this backward is not synchronized
                mse(model(x), y).backward()
            continue
        if accumulate and step % 2 == 0:
            mse(model(x), y).backward()
            continue
        mse(model(x), y).backward()
        opt.step()
        if set_to_none:
            opt.zero_grad()
        else:  # zeroed in place (PyTorch's set_to_none=False): the views stay .grad
            with tc.no_grad():
                for p in params:
                    p.grad.zero_()


def main():
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    tc.manual_seed(11)
    batches = [(tc.randn(4 * world, 6), tc.randn(4 * world, 3)) for _ in range(8)]

    for opt_name, set_to_none, accumulate, cap in [("sgd", True, False, 25), ("sgd", False, False, 300 / 2**20),
                                                   ("adam", True, True, 300 / 2**20),
                                                   ("adam", False, True, 25)]:
        # Every rank starts from different weights: DDP broadcasts rank 0's.
        default = nn.parallel.DistributedDataParallel(make_net(5 + rank), bucket_cap_mb=cap)
        views = nn.parallel.DistributedDataParallel(make_net(5 + rank), bucket_cap_mb=cap,
                                                    gradient_as_bucket_view=True)
        single = make_net(5)  # rank 0's weights, all the global batch, one process
        assert views.bucket_sizes == default.bucket_sizes
        train(default, list(default.parameters()), batches, rank, world, opt_name, set_to_none, accumulate)
        train(views, list(views.parameters()), batches, rank, world, opt_name, set_to_none, accumulate)
        train(single, list(single.parameters()), batches, rank, world, opt_name, set_to_none, accumulate,
              local=False)
        for p, q, r in zip(default.parameters(), views.parameters(), single.parameters()):
            assert p.tolist() == q.tolist(), (opt_name, set_to_none, accumulate)
            d = (q - r).abs().max().item()
            assert d < 1e-5, (opt_name, set_to_none, accumulate, d)

        # After a synchronized backward every .grad is its bucket's view.
        x, y = batches[0]
        nn.MSELoss()(views(x[:4]), y[:4]).backward()
        ptrs = [p.grad.data_ptr() for p in views.parameters()]
        for b in views._buckets:
            lo = b.flat.data_ptr()
            hi = lo + b.flat.numel() * b.flat.element_size()
            for p, ptr in zip(b.params, b.view_ptrs):
                assert lo <= p.grad.data_ptr() < hi and p.grad.data_ptr() == ptr
        # The averaged gradient equals the default path's.
        nn.MSELoss()(default(x[:4]), y[:4]).backward()
        for p, q in zip(default.parameters(), views.parameters()):
            assert p.grad.tolist() == q.grad.tolist()
        # A second backward without zero_grad accumulates in place: same addresses.
        nn.MSELoss()(views(x[:4]), y[:4]).backward()
        assert [p.grad.data_ptr() for p in views.parameters()] == ptrs

    dist.destroy_process_group()
    print("rank %d of %d: gradient_as_bucket_view tests passed" % (rank, world))


if __name__ == "__main__":
    from rank_main import run

    run(main)
