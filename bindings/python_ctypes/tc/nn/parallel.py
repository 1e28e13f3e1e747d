"""tc.nn.parallel.DistributedDataParallel: data-parallel training across the
processes of a tc.distributed process group, like PyTorch's DDP.

At construction rank 0's parameters and buffers are broadcast to every rank.
During backward each parameter's post-accumulate-grad hook copies its .grad
into its bucket (parameters in reverse registration order, since gradients
become ready roughly from the last layer to the first; bucket_cap_mb per
bucket, 25 MB by default like PyTorch); a full bucket is all-reduced (AVG)
asynchronously while backward goes on computing the earlier layers'
gradients. Buckets start in bucket order on every rank (a bucket that fills
early waits for the ones before it), so the ranks' collectives always match.
The hook of the last gradient waits for every bucket and writes the averaged
gradients back into .grad, so once backward returns the optimizer can step.

gradient_as_bucket_view=True (PyTorch's option of that name) makes each
parameter's .grad a view into its bucket instead: backward then accumulates
straight into the bucket, the all-reduce averages the .grads in place, and
neither copy (into the bucket, back into .grad) is made. A .grad that is not
the view when its hook runs (the first backward, or after
zero_grad(set_to_none=True)) is copied in once and replaced by the view.

no_sync() skips the synchronization (gradient accumulation: the .grads keep
summing locally, and the first backward outside the context all-reduces the
sums). Every parameter that requires grad must receive a gradient in every
synchronized backward (PyTorch's find_unused_parameters=False).
"""
import contextlib

from .. import distributed as dist
from .._core import no_grad
from .modules import Module

__all__ = ["DistributedDataParallel"]


class _Bucket:
    __slots__ = ("params", "offsets", "flat", "ready", "work", "views", "view_ptrs")

    def __init__(self, params, as_views=False):
        from .._tensor import zeros
        self.params = params
        self.offsets = []
        n = 0
        for p in params:
            self.offsets.append(n)
            n += p.numel()
        # On the parameters' device: CPU buckets for "mpi", CUDA ones for "nccl".
        self.flat = zeros(n, dtype=params[0].dtype, device=params[0].device)
        self.ready = 0
        self.work = None
        # gradient_as_bucket_view: each parameter's slice, shaped like it, and
        # its address (how a hook tells whether .grad already is the view).
        self.views = [self.flat.narrow(0, off, p.numel()).view(p.shape) for p, off in
                      zip(params, self.offsets)] if as_views else None
        self.view_ptrs = [v.data_ptr() for v in self.views] if as_views else None


class DistributedDataParallel(Module):
    def __init__(self, module: Module, process_group: "dist.ProcessGroup" = None, bucket_cap_mb: float = 25,
                 broadcast_buffers: bool = True, find_unused_parameters: bool = False,
                 gradient_as_bucket_view: bool = False):
        """Wraps module for data-parallel training over process_group's ranks.

        Args:
            module (Module): the model; rank 0's parameters and buffers are
                broadcast to every rank here.
            process_group (ProcessGroup, optional): the group (default: the
                one of init_process_group).
            bucket_cap_mb (float): bucket size in MiB (default 25, as PyTorch).
            broadcast_buffers (bool): broadcast rank 0's buffers before each forward.
            find_unused_parameters (bool): not supported (must be False).
            gradient_as_bucket_view (bool): make each .grad a view into its
                bucket, saving the two gradient copies per step.
        """
        super().__init__()
        if find_unused_parameters:
            raise NotImplementedError("find_unused_parameters=True is not supported: every parameter that "
                                      "requires grad must get a gradient in every backward")
        self.module = module
        object.__setattr__(self, "process_group", process_group if process_group is not None else dist._group(None))
        object.__setattr__(self, "broadcast_buffers", broadcast_buffers)
        object.__setattr__(self, "gradient_as_bucket_view", bool(gradient_as_bucket_view))
        object.__setattr__(self, "require_backward_grad_sync", True)
        pg = self.process_group
        # Every rank starts from rank 0's weights.
        with no_grad():
            for p in module.parameters():
                pg.broadcast(p.detach(), 0)
            for _, b in module.named_buffers():
                pg.broadcast(b, 0)
        params = [p for p in module.parameters() if p.requires_grad]
        cap = max(1, int(bucket_cap_mb * 1024 * 1024))
        buckets, current, size = [], [], 0
        for p in reversed(params):
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > cap or p.dtype != current[0].dtype):
                buckets.append(_Bucket(current, gradient_as_bucket_view))
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(current, gradient_as_bucket_view))
        object.__setattr__(self, "_buckets", buckets)
        object.__setattr__(self, "_next_bucket", 0)
        object.__setattr__(self, "_ready_params", 0)
        object.__setattr__(self, "_num_params", len(params))
        hooks = []
        for bi, b in enumerate(buckets):
            for pi, p in enumerate(b.params):
                hooks.append(p.register_post_accumulate_grad_hook(
                    lambda t, bi=bi, pi=pi: self._grad_ready(t, bi, pi)))
        object.__setattr__(self, "_hooks", hooks)

    def forward(self, *args, **kwargs):
        if self.broadcast_buffers:
            bufs = [b for _, b in self.module.named_buffers()]
            if bufs:
                with no_grad():
                    for b in bufs:
                        self.process_group.broadcast(b, 0)
        return self.module(*args, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside leave gradients unsynchronized (they accumulate)."""
        old = self.require_backward_grad_sync
        object.__setattr__(self, "require_backward_grad_sync", False)
        try:
            yield
        finally:
            object.__setattr__(self, "require_backward_grad_sync", old)

    @property
    def bucket_sizes(self):
        """Elements per bucket, in the order they are all-reduced."""
        return [b.flat.numel() for b in self._buckets]

    # ---- the hooks (run by backward) ----
    def _grad_ready(self, param, bi, pi):
        if not self.require_backward_grad_sync:
            return
        b = self._buckets[bi]
        with no_grad():
            g = param.grad
            if b.views is None:
                b.flat.narrow(0, b.offsets[pi], g.numel()).copy_(g.reshape(-1))
            elif g.data_ptr() != b.view_ptrs[pi]:
                # Not (yet) the view: copy it in once and make the view .grad.
                b.views[pi].copy_(g)
                param.grad = b.views[pi]
        b.ready += 1
        # Start every consecutive full bucket, in order.
        while self._next_bucket < len(self._buckets):
            nb = self._buckets[self._next_bucket]
            if nb.ready < len(nb.params):
                break
            nb.work = self.process_group.all_reduce(nb.flat, dist.ReduceOp.AVG, async_op=True)
            object.__setattr__(self, "_next_bucket", self._next_bucket + 1)
        object.__setattr__(self, "_ready_params", self._ready_params + 1)
        if self._ready_params == self._num_params:
            self._finish()

    def _finish(self):
        object.__setattr__(self, "_ready_params", 0)
        object.__setattr__(self, "_next_bucket", 0)
        with no_grad():
            for b in self._buckets:
                b.work.wait()
                b.work = None
                b.ready = 0
                if b.views is not None:
                    continue  # the .grads are the bucket's views: averaged in place
                for p, off in zip(b.params, b.offsets):
                    g = p.grad
                    g.copy_(b.flat.narrow(0, off, g.numel()).view(*g.shape))
