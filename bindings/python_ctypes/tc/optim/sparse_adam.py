"""SparseAdam, as torch.optim.SparseAdam (torch 1.13): Adam for sparse
gradients. tc has no sparse tensors, so every gradient it can meet is dense,
which torch refuses the same way (RuntimeError at step); the constructor's
checks and the state dict are torch's."""
from ._python_optimizer import _PyOptimizer, _check_betas, _closure_loss, _use_grad


class SparseAdam(_PyOptimizer):
    """Adam for sparse gradients, as torch.optim.SparseAdam (dense gradients are refused).

    Args:
        params (iterable): parameters (dense), or dicts of parameter groups.
        lr (float): the learning rate (default 1e-3, must be > 0).
        betas (tuple of float): the decay of the two moments.
        eps (float): added to the denominator (default 1e-8, must be > 0).
        maximize (bool): ascend the objective instead of descending it.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize: bool = False):
        if not 0.0 < lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 < eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        _check_betas(betas)
        params = list(params)
        sparse_params = []
        for index, param in enumerate(params):
            if isinstance(param, dict):
                for d_index, d_param in enumerate(param.get("params", [])):
                    if getattr(d_param, "is_sparse", False):
                        sparse_params.append([index, d_index])
            elif getattr(param, "is_sparse", False):
                sparse_params.append(index)
        if sparse_params:
            raise ValueError("Sparse params at indices {}: SparseAdam requires dense parameter tensors"
                             .format(sparse_params))
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step; raises RuntimeError, as torch, for a dense gradient.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None (when no parameter has a gradient).
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None and not getattr(p.grad, "is_sparse", False):
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
        return loss
