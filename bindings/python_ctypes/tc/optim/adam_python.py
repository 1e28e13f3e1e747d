"""Adam and AdamW in Python, for the option libtc's C Adam step lacks
(``amsgrad``): tc.optim.Adam(..., amsgrad=True) builds one
of these classes (subclasses of tc.optim.Adam / AdamW, so isinstance holds).
The update is torch 1.13's single-tensor Adam."""
import math

from . import Adam, AdamW
from .. import _tensor as T
from ._python_optimizer import (Optimizer, _add_, _addcdiv_, _addcmul_, _bump_step, _check_betas, _check_lr,
                                _check_nonneg, _grads_of, _scalar_state, _use_grad, _closure_loss)


def _adam_step(self, closure, decoupled):
    loss = _closure_loss(closure)
    for group in self.param_groups:
        beta1, beta2 = group["betas"]
        lr, eps, wd, amsgrad = group["lr"], group["eps"], group["weight_decay"], group["amsgrad"]
        for p, grad in _grads_of(group, "Adam"):
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state(0.0)
                state["exp_avg"] = T.zeros_like(p)
                state["exp_avg_sq"] = T.zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = T.zeros_like(p)
            step = _bump_step(state)
            if group["maximize"]:
                grad = -grad
            if decoupled:
                p.mul_(1 - lr * wd)
            elif wd != 0:
                grad = grad + p * wd
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            _add_(exp_avg.mul_(beta1), grad, 1 - beta1)
            _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
            step_size = lr / (1 - beta1 ** step)
            bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
            if amsgrad:
                # The denominator uses the largest second moment seen so far.
                state["max_exp_avg_sq"].copy_(T.maximum(state["max_exp_avg_sq"], exp_avg_sq))
                denom = state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt + eps
            else:
                denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps
            _addcdiv_(p, exp_avg, denom, -step_size)
    return loss


def _python_protocol(cls):
    """Gives cls (a subclass of the C-backed Adam, so that isinstance holds)
    the Python Optimizer's methods back in place of the C-backed base's."""
    for name in ("add_param_group", "zero_grad", "state_dict", "load_state_dict", "__getstate__", "__setstate__",
                 "__repr__"):
        setattr(cls, name, getattr(Optimizer, name))
    return cls


def _check_adam(lr, betas, eps, weight_decay):
    _check_lr(lr)
    _check_nonneg("epsilon", eps)
    _check_betas(betas)
    _check_nonneg("weight_decay", weight_decay)


@_python_protocol
class PythonAdam(Adam):
    """torch.optim.Adam in Python (what tc.optim.Adam builds for amsgrad);
    the arguments are Adam's.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate.
        betas (tuple of float): the decay of the two moments.
        eps (float): added to the denominator.
        weight_decay (float): L2 penalty.
        amsgrad (bool): divide by the largest second moment so far (AMSGrad).
        foreach, capturable, fused: accepted for torch's signature; tc has one implementation.
        maximize (bool): ascend the objective instead of descending it.
        differentiable (bool): must be False (NotImplementedError, as tc.optim.Adam).
    """

    _torch_name = "Adam"
    _group_setdefaults = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                          "differentiable": False, "fused": False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                                 amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                                 capturable=capturable, differentiable=differentiable,
                                                 fused=fused))

    def _fix_loaded_state(self):
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], T.Tensor):
                s["step"] = _scalar_state(s["step"])

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        return _adam_step(self, closure, decoupled=False)



@_python_protocol
class PythonAdamW(AdamW):
    """torch.optim.AdamW in Python (what tc.optim.AdamW builds for amsgrad);
    the arguments are AdamW's.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate.
        betas (tuple of float): the decay of the two moments.
        eps (float): added to the denominator.
        weight_decay (float): the decoupled decay factor.
        amsgrad (bool): divide by the largest second moment so far (AMSGrad).
        maximize (bool): ascend the objective instead of descending it.
        foreach, capturable: accepted for torch's signature; tc has one implementation.
    """

    _torch_name = "AdamW"
    _group_setdefaults = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                                 amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                                                 capturable=capturable))

    _fix_loaded_state = PythonAdam._fix_loaded_state

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        return _adam_step(self, closure, decoupled=True)

