"""ASGD and Rprop, as torch.optim's (torch 1.13): Python optimizers over
tc's in-place tensor ops."""
import math
import struct
from typing import Optional

from .. import _tensor as T
from ._python_optimizer import _PerParameterStep, _PyOptimizer, _add_, _check_lr, _check_nonneg, _scalar_state


def _to_float32(x):
    """x rounded to the nearest float32 (as a Python float)."""
    return struct.unpack("f", struct.pack("f", x))[0]


class ASGD(_PerParameterStep, _PyOptimizer):
    """Averaged stochastic gradient descent (Polyak & Juditsky), as torch.optim.ASGD.

    The averaged parameters are in ``state[p]['ax']``.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the learning rate (default 1e-2).
        lambd (float): the decay term (default 1e-4).
        alpha (float): the power of the eta update (default 0.75).
        t0 (float): the step at which averaging starts (default 1e6).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
        maximize (bool): ascend the objective instead of descending it.
    """

    _group_setdefaults = {"foreach": None, "maximize": False}

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach: Optional[bool] = None, maximize: bool = False):
        _check_lr(lr)
        _check_nonneg("weight_decay", weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))

    _tensor_state = ("step", "eta", "mu")

    def _init_state(self, p, grad, group):
        # eta and mu are float32 tensors as in torch: the rounding
        # of eta to float32 is part of torch's update.
        return {"step": _scalar_state(0.0), "eta": _scalar_state(group["lr"]), "mu": _scalar_state(1.0),
                "ax": T.zeros_like(p)}

    def _update(self, group, p, grad, state, step):
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        eta, mu, ax = state["eta"].item(), state["mu"].item(), state["ax"]
        p.mul_(1 - lambd * eta)
        _add_(p, grad, -eta)
        if mu != 1:
            ax.add_((p - ax) * mu)
        else:
            ax.copy_(p)
        # torch computes these as float32 tensors (torch.tensor(x))
        # and copies them in: rounded to float32 even when a loaded
        # state holds eta and mu in float64.
        state["eta"].fill_(_to_float32(lr / math.pow(1 + lambd * lr * step, alpha)))
        state["mu"].fill_(_to_float32(1 / max(1, step - t0)))


class Rprop(_PerParameterStep, _PyOptimizer):
    """Resilient backpropagation (Riedmiller & Braun), as torch.optim.Rprop.

    Args:
        params (iterable): parameters, or dicts of parameter groups.
        lr (float): the initial step size (default 1e-2).
        etas (tuple of float): the step size's factors (decrease, increase), 0 < etaminus < 1 < etaplus.
        step_sizes (tuple of float): the step size's bounds (min, max).
        foreach (bool, optional): accepted for torch's signature; tc has one implementation.
        maximize (bool): ascend the objective instead of descending it.
    """

    _group_setdefaults = {"foreach": None, "maximize": False}

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach: Optional[bool] = None,
                 maximize: bool = False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("Invalid eta values: {}, {}".format(etas[0], etas[1]))
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize))

    def _init_state(self, p, grad, group):
        return {"step": 0, "prev": T.zeros_like(p), "step_size": T.full_like(grad, group["lr"])}

    def _update(self, group, p, grad, state, step):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        prev, step_size = state["prev"], state["step_size"]
        # Per element: the same sign as last step grows the step
        # (etaplus), a sign change shrinks it (etaminus) and skips the
        # update (its gradient counts as 0, also for the next step).
        product = grad * prev
        pos, neg = product > 0, product < 0
        factor = T.where(pos, T.full_like(grad, etaplus),
                         T.where(neg, T.full_like(grad, etaminus), T.ones_like(grad)))
        step_size.mul_(factor).clamp_(step_size_min, step_size_max)
        grad = T.where(neg, T.zeros_like(grad), grad)
        p.sub_(grad.sign() * step_size)
        prev.copy_(grad)
