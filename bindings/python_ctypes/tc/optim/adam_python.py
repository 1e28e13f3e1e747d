"""Adam and AdamW in Python, for the option libtc's C Adam step lacks
(``amsgrad``): tc.optim.Adam(..., amsgrad=True) builds one
of these classes (subclasses of tc.optim.Adam / AdamW, so isinstance holds).
The update is torch 1.13's single-tensor Adam."""
import math

from . import Adam, AdamW
from .. import _tensor as T
from ._python_optimizer import (Optimizer, _PerParameterStep, _adam_moments, _addcdiv_, _check_adam_options,
                                _scalar_state)


class _AdamSteps(_PerParameterStep):
    """torch 1.13's single-tensor Adam rule (with amsgrad), for PythonAdam and PythonAdamW."""

    _name_in_errors = "Adam"
    _tensor_state = ("step",)

    def _init_state(self, p, grad, group):
        state = {"step": _scalar_state(0.0), "exp_avg": T.zeros_like(p), "exp_avg_sq": T.zeros_like(p)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = T.zeros_like(p)
        return state

    def _update(self, group, p, grad, state, step):
        beta1, beta2 = group["betas"]
        lr, eps, amsgrad = group["lr"], group["eps"], group["amsgrad"]
        if not self._l2_in_grad:
            p.mul_(1 - lr * group["weight_decay"])
        exp_avg, exp_avg_sq = _adam_moments(p, grad, state, group["betas"])
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        if amsgrad:
            # The denominator uses the largest second moment seen so far.
            state["max_exp_avg_sq"].copy_(T.maximum(state["max_exp_avg_sq"], exp_avg_sq))
            denom = state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt + eps
        else:
            denom = exp_avg_sq.sqrt() / bias_correction2_sqrt + eps
        _addcdiv_(p, exp_avg, denom, -step_size)


def _python_protocol(cls):
    """Gives cls (a subclass of the C-backed Adam, so that isinstance holds)
    the Python Optimizer's methods back in place of the C-backed base's."""
    for name in ("add_param_group", "zero_grad", "state_dict", "load_state_dict", "__getstate__", "__setstate__",
                 "__repr__"):
        setattr(cls, name, getattr(Optimizer, name))
    return cls


@_python_protocol
class PythonAdam(_AdamSteps, Adam):
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
        _check_adam_options(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                              amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                              capturable=capturable, differentiable=differentiable,
                                              fused=fused))



@_python_protocol
class PythonAdamW(_AdamSteps, AdamW):
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
        _check_adam_options(lr, betas, eps, weight_decay)
        Optimizer.__init__(self, params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                              amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                                              capturable=capturable))

    _l2_in_grad = False  # AdamW decays the parameter itself (decoupled), not through the gradient

