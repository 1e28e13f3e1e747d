"""Frozen parameters (requires_grad=False) in the C optimizers' groups.

torch.optim accepts them: a parameter with no gradient is skipped at each
step (``Adam(model.parameters())`` with a frozen pretrained embedding among
them is common). libtc's tc_optimizer_* constructors refuse a parameter that
does not require grad, though their step already skips one whose grad is
None. So, while a group is made, each frozen leaf parameter is marked as
requiring grad and unmarked right after: it then never gets a gradient (as
in PyTorch) unless the program unfreezes it, when it is updated (as in
PyTorch). The end of tc/optim/__init__.py installs this on _COptimizer."""
from .._tensor import Tensor


def allow_frozen(optimizer_class):
    """Wraps ``optimizer_class.add_param_group`` so that the C constructor
    sees the group's frozen leaf parameters as requiring grad."""
    add = optimizer_class.add_param_group

    def add_param_group(self, param_group):
        """Adds a parameter group (a dict with ``'params'`` and optional settings);
        parameters with requires_grad=False are accepted, as in PyTorch.

        Args:
            param_group (dict): the group; missing settings take the defaults.
        """
        if not isinstance(param_group, dict):
            return add(self, param_group)
        params = param_group.get("params")
        if params is None:
            return add(self, param_group)
        params = [params] if isinstance(params, Tensor) else list(params)
        frozen = [p for p in params if isinstance(p, Tensor) and not p.requires_grad and p.is_leaf]
        for p in frozen:
            p.requires_grad_(True)
        try:
            return add(self, dict(param_group, params=params))
        finally:
            for p in frozen:
                p.requires_grad_(False)

    add_param_group.__qualname__ = add.__qualname__
    optimizer_class.add_param_group = add_param_group
