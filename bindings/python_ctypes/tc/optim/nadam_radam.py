"""NAdam and RAdam, as torch.optim's (torch 1.13, whose versions have no
``maximize`` option): Python optimizers over tc's in-place tensor ops. Their
scalar state ('step', NAdam's 'mu_product') is a 0-dim float32 tensor, as in
torch, so that the float32 rounding of mu_product is torch's too."""
import math
from typing import Optional

from .. import _tensor as T
from ._python_optimizer import (_PerParameterStep, _PyOptimizer, _adam_moments, _addcdiv_, _check_adam_options,
                                _check_nonneg, _scalar_state)


class NAdam(_PerParameterStep, _PyOptimizer):
    """NAdam (Adam with Nesterov momentum, Dozat 2016), as torch.optim.NAdam.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate (default 2e-3).
        betas (tuple of float): the decay of the two moments.
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum_decay (float): the momentum schedule's decay (default 4e-3).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
    """

    _group_setdefaults = {"foreach": None}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach: Optional[bool] = None):
        _check_adam_options(lr, betas, eps, weight_decay)
        _check_nonneg("momentum_decay", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))

    _tensor_state = ("step", "mu_product")

    def _init_state(self, p, grad, group):
        return {"step": _scalar_state(0.0), "mu_product": _scalar_state(1.0), "exp_avg": T.zeros_like(p),
                "exp_avg_sq": T.zeros_like(p)}

    def _update(self, group, p, grad, state, step):
        beta1, beta2 = group["betas"]
        lr, decay = group["lr"], group["momentum_decay"]
        bias_correction2 = 1 - beta2 ** step
        # The momentum schedule (Dozat's mu_t); mu_product is a float32
        # tensor as torch's, so its rounding matches.
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state["mu_product"]
        mu_product.mul_(mu)
        mu_product_next = mu_product * mu * mu_next
        exp_avg, exp_avg_sq = _adam_moments(p, grad, state, group["betas"])
        denom = (exp_avg_sq / bias_correction2).sqrt() + group["eps"]
        _addcdiv_(p, grad, denom, -lr * (1. - mu) / (1. - mu_product.item()))
        _addcdiv_(p, exp_avg, denom, -lr * mu_next / (1. - mu_product_next.item()))


class RAdam(_PerParameterStep, _PyOptimizer):
    """RAdam (rectified Adam, Liu et al. 2019), as torch.optim.RAdam.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate (default 1e-3).
        betas (tuple of float): the decay of the two moments.
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
    """

    _group_setdefaults = {"foreach": None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach: Optional[bool] = None):
        _check_adam_options(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))

    _tensor_state = ("step",)

    def _init_state(self, p, grad, group):
        return {"step": _scalar_state(0.0), "exp_avg": T.zeros_like(p), "exp_avg_sq": T.zeros_like(p)}

    def _update(self, group, p, grad, state, step):
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        exp_avg, exp_avg_sq = _adam_moments(p, grad, state, group["betas"])
        corrected = exp_avg / bias_correction1
        # The variance of the adaptive rate is tractable only once
        # rho_t > 5; before that the step is plain momentum SGD.
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive_lr = math.sqrt(bias_correction2) / (exp_avg_sq.sqrt() + group["eps"])
            p.sub_(corrected * lr * adaptive_lr * rect)
        else:
            p.sub_(corrected * lr)
