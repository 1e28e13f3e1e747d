"""Run under mpirun by test_nn_layers_more.py (2 ranks): SyncBatchNorm in
training over each rank's shard of one batch gives, on every rank, the
output rows, input gradient and running statistics of a one-process
BatchNorm over the whole batch, and the weight/bias gradient of its own
shard (torch's convention: DDP averages them). Exits non-zero on a mismatch."""
import numpy as np

import tc
import tc.distributed as dist
from tc import nn


def close(a, b, what):
    a = np.asarray(a.tolist()) if hasattr(a, "tolist") else np.asarray(a)
    b = np.asarray(b.tolist()) if hasattr(b, "tolist") else np.asarray(b)
    assert a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-11), (what, a, b)


def main():
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(11)
    shards = [rng.standard_normal((2 + r, 3, 4)) * 2 + 1 for r in range(world)]  # unequal shard sizes
    g = [rng.standard_normal(s.shape) for s in shards]
    full, gfull = np.concatenate(shards), np.concatenate(g)
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    lo = sum(s.shape[0] for s in shards[:rank])
    hi = lo + shards[rank].shape[0]

    ref = nn.BatchNorm1d(3).to(tc.float64)
    ref.register_buffer("running_mean", ref.running_mean.to(tc.float64))
    ref.register_buffer("running_var", ref.running_var.to(tc.float64))
    sync = nn.SyncBatchNorm(3).to(tc.float64)
    sync.register_buffer("running_mean", sync.running_mean.to(tc.float64))
    sync.register_buffer("running_var", sync.running_var.to(tc.float64))
    for m in (ref, sync):
        with tc.no_grad():
            m.weight.copy_(tc.tensor(w))
            m.bias.copy_(tc.tensor(b))
    x_ref = tc.tensor(full)
    x_ref.requires_grad = True
    out_ref = ref(x_ref)
    out_ref.backward(tc.tensor(gfull))
    x = tc.tensor(shards[rank])
    x.requires_grad = True
    out = sync(x)
    out.backward(tc.tensor(g[rank]))
    close(out, out_ref[lo:hi], "output")
    close(x.grad, x_ref.grad[lo:hi], "input gradient")
    close(sync.running_mean, ref.running_mean, "running_mean")
    close(sync.running_var, ref.running_var, "running_var")
    # the shard's own weight/bias gradients: a BatchNorm with the global statistics would give them;
    # their sum over the ranks is the one-process gradient
    gw = sync.weight.grad.clone()
    gb = sync.bias.grad.clone()
    dist.all_reduce(gw)
    dist.all_reduce(gb)
    close(gw, ref.weight.grad, "weight gradient summed over ranks")
    close(gb, ref.bias.grad, "bias gradient summed over ranks")
    # eval mode: the running statistics, no collective
    sync.eval()
    ref.eval()
    close(sync(tc.tensor(shards[rank])), ref(tc.tensor(shards[rank])), "eval output")
    dist.destroy_process_group()
    print("rank %d ok" % rank)


if __name__ == "__main__":
    main()
