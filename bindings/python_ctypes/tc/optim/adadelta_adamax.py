"""Adadelta and Adamax, as torch.optim's (torch 1.13): Python optimizers
whose update is a few of tc's in-place tensor ops per parameter."""
from typing import Optional

from .. import _tensor as T
from ._python_optimizer import (_PerParameterStep, _PyOptimizer, _add_, _addcdiv_, _addcmul_, _check_adam_options,
                                _check_lr, _check_nonneg, _scalar_state)


class Adadelta(_PerParameterStep, _PyOptimizer):
    """Adadelta (Zeiler, 2012), as torch.optim.Adadelta.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): scales the update (default 1.0).
        rho (float): the running averages' decay (default 0.9).
        eps (float): added inside the square roots (default 1e-6).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
        maximize (bool): ascend the objective instead of descending it.
    """

    _group_setdefaults = {"foreach": None, "maximize": False}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach: Optional[bool] = None, *,
                 maximize: bool = False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError("Invalid rho value: {}".format(rho))
        _check_nonneg("epsilon", eps)
        _check_nonneg("weight_decay", weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach))

    def _init_state(self, p, grad, group):
        return {"step": 0, "square_avg": T.zeros_like(p), "acc_delta": T.zeros_like(p)}

    def _update(self, group, p, grad, state, step):
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        _addcmul_(square_avg.mul_(rho), grad, grad, 1 - rho)
        std = (square_avg + eps).sqrt()
        delta = (acc_delta + eps).sqrt() / std * grad
        _addcmul_(acc_delta.mul_(rho), delta, delta, 1 - rho)
        _add_(p, delta, -lr)


class Adamax(_PerParameterStep, _PyOptimizer):
    """Adamax (Adam over the infinity norm, Kingma & Ba), as torch.optim.Adamax.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate (default 2e-3).
        betas (tuple of float): the decay of the first moment and of the infinity norm.
        eps (float): added to the norm (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
        maximize (bool): ascend the objective instead of descending it.
    """

    _group_setdefaults = {"foreach": None, "maximize": False}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach: Optional[bool] = None, *, maximize: bool = False):
        _check_adam_options(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    _tensor_state = ("step",)

    def _init_state(self, p, grad, group):
        return {"step": _scalar_state(0.0), "exp_avg": T.zeros_like(p), "exp_inf": T.zeros_like(p)}

    def _update(self, group, p, grad, state, step):
        beta1, beta2 = group["betas"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        _add_(exp_avg.mul_(beta1), grad, 1 - beta1)
        exp_inf.copy_(T.maximum(exp_inf.mul_(beta2), grad.abs() + group["eps"]))
        clr = group["lr"] / (1 - beta1 ** step)
        _addcdiv_(p, exp_avg, exp_inf, -clr)
