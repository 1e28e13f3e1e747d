"""RMSprop and Adagrad over libtc's optimizers (tc_optimizer_rmsprop,
tc_optimizer_adagrad): torch.optim's rules, param groups and state dicts."""
import ctypes as C
from typing import Any, Dict, Iterable, Optional

from . import _COptimizer, _no_differentiable
from .. import _decls as D
from .._core import byref, fn


class RMSprop(_COptimizer):
    """RMSprop, as torch.optim.RMSprop.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        alpha: smoothing constant of the square average.
        eps: added to the denominator.
        weight_decay: L2 penalty.
        momentum: momentum factor.
        centered: normalize by an estimate of the gradient's variance.
        foreach: accepted for torch's signature; libtc has one implementation.
        maximize: ascend the objective (the C step descends the negated gradient).
        differentiable: must be False: libtc's autograd records no in-place update of tensors
            that require grad (NotImplementedError).
    """

    _hypers = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered")

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 foreach: Optional[bool] = None, maximize: bool = False, differentiable: bool = False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if not 0.0 <= value:
                raise ValueError("Invalid {}: {}".format(name, value))
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def _check_group(self, options):
        _no_differentiable("RMSprop", options)

    def _group_from_c(self, g: Dict[str, Any]) -> Dict[str, Any]:
        g["centered"] = bool(g["centered"])
        return g

    def _create(self, g, arr, n, out):
        o = D.tc_rmsprop_options()
        o.size = C.sizeof(o)
        o.lr, o.alpha, o.eps = float(g["lr"]), float(g["alpha"]), float(g["eps"])
        o.weight_decay, o.momentum = float(g["weight_decay"]), float(g["momentum"])
        o.centered = 1 if g["centered"] else 0
        return fn("tc_optimizer_rmsprop")(arr, n, byref(o), out)


class Adagrad(_COptimizer):
    """Adagrad, as torch.optim.Adagrad.

    Args:
        params: parameters, or dicts of parameter groups.
        lr: learning rate.
        lr_decay: the learning rate is lr / (1 + (step - 1) * lr_decay).
        weight_decay: L2 penalty.
        initial_accumulator_value: the starting value of the squared-gradient sums.
        eps: added to the denominator.
        foreach: accepted for torch's signature; libtc has one implementation.
        maximize: ascend the objective (the C step descends the negated gradient).
    """

    _hypers = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps")

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: Optional[bool] = None, *,
                 maximize: bool = False):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps)):
            if not 0.0 <= value:
                raise ValueError("Invalid {}: {}".format(name, value))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize))

    def _create(self, g, arr, n, out):
        o = D.tc_adagrad_options()
        o.size = C.sizeof(o)
        o.lr, o.lr_decay, o.weight_decay = float(g["lr"]), float(g["lr_decay"]), float(g["weight_decay"])
        o.initial_accumulator_value, o.eps = float(g["initial_accumulator_value"]), float(g["eps"])
        return fn("tc_optimizer_adagrad")(arr, n, byref(o), out)
