"""NAdam and RAdam, as torch.optim's (torch 1.13, whose versions have no
``maximize`` option): Python optimizers over tc's in-place tensor ops. Their
scalar state ('step', NAdam's 'mu_product') is a 0-dim float32 tensor, as in
torch, so that the float32 rounding of mu_product is torch's too."""
import math
from typing import Optional

from .. import _tensor as T
from ._python_optimizer import (_PyOptimizer, _add_, _addcdiv_, _addcmul_, _bump_step, _check_betas, _check_lr,
                                _check_nonneg, _closure_loss, _grads_of, _scalar_state, _use_grad)


def _tensor_steps(state_values, *names):
    """Turns the numbers an older state dict holds for names into 0-dim
    float32 tensors (torch's __setstate__ does the same)."""
    for s in state_values:
        for name in names:
            if name in s and not isinstance(s[name], T.Tensor):
                s[name] = _scalar_state(s[name])


class NAdam(_PyOptimizer):
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
        _check_lr(lr)
        _check_nonneg("epsilon", eps)
        _check_betas(betas)
        _check_nonneg("weight_decay", weight_decay)
        _check_nonneg("momentum_decay", momentum_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))

    def _fix_loaded_state(self):
        _tensor_steps(self.state.values(), "step", "mu_product")

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd, decay = group["lr"], group["eps"], group["weight_decay"], group["momentum_decay"]
            for p, grad in _grads_of(group, "NAdam"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state(0.0)
                    state["mu_product"] = _scalar_state(1.0)
                    state["exp_avg"] = T.zeros_like(p)
                    state["exp_avg_sq"] = T.zeros_like(p)
                step = _bump_step(state)
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    grad = grad + p * wd
                # The momentum schedule (Dozat's mu_t); mu_product is a float32
                # tensor as torch's, so its rounding matches.
                mu = beta1 * (1. - 0.5 * (0.96 ** (step * decay)))
                mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * decay)))
                mu_product = state["mu_product"]
                mu_product.mul_(mu)
                mu_product_next = mu_product * mu * mu_next
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _add_(exp_avg.mul_(beta1), grad, 1 - beta1)
                _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                denom = (exp_avg_sq / bias_correction2).sqrt() + eps
                _addcdiv_(p, grad, denom, -lr * (1. - mu) / (1. - mu_product.item()))
                _addcdiv_(p, exp_avg, denom, -lr * mu_next / (1. - mu_product_next.item()))
        return loss


class RAdam(_PyOptimizer):
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
        _check_lr(lr)
        _check_nonneg("epsilon", eps)
        _check_betas(betas)
        _check_nonneg("weight_decay", weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))

    def _fix_loaded_state(self):
        _tensor_steps(self.state.values(), "step")

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            for p, grad in _grads_of(group, "RAdam"):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _scalar_state(0.0)
                    state["exp_avg"] = T.zeros_like(p)
                    state["exp_avg_sq"] = T.zeros_like(p)
                step = _bump_step(state)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    grad = grad + p * wd
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _add_(exp_avg.mul_(beta1), grad, 1 - beta1)
                _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
                corrected = exp_avg / bias_correction1
                # The variance of the adaptive rate is tractable only once
                # rho_t > 5; before that the step is plain momentum SGD.
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    adaptive_lr = math.sqrt(bias_correction2) / (exp_avg_sq.sqrt() + eps)
                    p.sub_(corrected * lr * adaptive_lr * rect)
                else:
                    p.sub_(corrected * lr)
        return loss
