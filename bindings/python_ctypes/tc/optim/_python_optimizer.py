"""tc.optim.Optimizer: torch.optim.Optimizer's protocol (torch 1.13) over
tc tensors. It is the base of tc's Python optimizers (Adadelta, Adamax,
NAdam, RAdam, ASGD, Rprop, LBFGS, SparseAdam, Adam/AdamW with amsgrad), of
user optimizers written against torch's base class, and of the C-backed
ones (tc.optim._COptimizer, which keep their state in libtc).

param_groups are plain dicts, ``state`` maps each parameter (the tensor
object) to a dict, and state_dict()/load_state_dict() use torch's layout
(state keyed by the parameter's index across groups, groups holding index
lists), so a state dict made by torch, its tensors converted to tc, loads
here, and the reverse. The updates are tc's in-place ops run under
``tc.no_grad()``; ``differentiable=True`` is refused (NotImplementedError):
libtc's autograd does not record in-place updates of tensors that require grad."""
import warnings
from collections import defaultdict
from itertools import chain
from typing import Any, Callable, Dict, Optional

from ._required import required
from .._core import no_grad, enable_grad, set_grad_enabled
from .._tensor import Tensor




def _use_grad(step):
    """Runs an optimizer's step with grad mode set to its ``differentiable``
    option (off unless asked), restoring the caller's mode afterwards, as
    torch's ``_use_grad_for_differentiable``."""

    def wrapper(self, *args, **kwargs):
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            return step(self, *args, **kwargs)

    wrapper.__name__ = step.__name__
    wrapper.__qualname__ = getattr(step, "__qualname__", step.__name__)
    wrapper.__doc__ = step.__doc__
    return wrapper


def _closure_loss(closure):
    """Evaluates ``closure`` with grad enabled (the step itself runs without)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _clone_state_value(param, value, key=None):
    """A copy of a loaded state value: tensors are copied (the loaded
    optimizer must not share memory with the dict it was given), floating
    ones converted to the parameter's dtype and moved to its device, except
    'step' (torch keeps its dtype); containers are copied element by element."""
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point() and value.is_floating_point():
            value = value.to(param.dtype)
        if str(value.device) != str(param.device):
            value = value.to(param.device)
        return value.clone()
    if isinstance(value, dict):
        return {k: _clone_state_value(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_clone_state_value(param, v) for v in value)
    return value


def _typename(obj):
    """torch.typename's spelling: a tensor's type() ('tc.FloatTensor'), else module.Class."""
    if isinstance(obj, Tensor) and hasattr(obj, "type"):
        try:
            return obj.type()
        except Exception:  # noqa: BLE001 - only for a message
            pass
    module = getattr(obj, "__module__", None)
    prefix = module + "." if module not in (None, "builtins", "__builtin__") else ""
    return prefix + getattr(obj, "__qualname__", getattr(obj, "__name__", type(obj).__name__))


class Optimizer:
    """Base class of all optimizers, as torch.optim.Optimizer: subclasses
    give ``defaults`` and implement :meth:`step`.

    Args:
        params (iterable): tensors, or dicts of parameter groups (``'params'``
            and options overriding ``defaults``).
        defaults (dict): the options' default values.
    """

    # Options that groups loaded from an older state dict may lack, with
    # their values (torch's __setstate__ sets them the same way).
    _group_setdefaults: Dict[str, Any] = {}

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for k, v in self._group_setdefaults.items():
                group.setdefault(k, v)
        self._fix_loaded_state()

    def _fix_loaded_state(self):
        """Hook for subclasses: converts loaded state (older layouts) in place."""

    def __repr__(self):
        out = getattr(self, "_torch_name", self.__class__.__name__) + " ("
        for i, group in enumerate(self.param_groups):
            out += "\nParameter Group {0}\n".format(i)
            for key in sorted(group.keys()):
                if key != "params":
                    out += "    {0}: {1}\n".format(key, group[key])
        return out + ")"

    def add_param_group(self, param_group):
        """Adds a parameter group (a dict with ``'params'`` and optional options).

        Args:
            param_group (dict): the group; the options it lacks take the defaults.
        """
        assert isinstance(param_group, dict), "param group must be a dict"
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or getattr(param, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")
        if param_group.get("differentiable", self.defaults.get("differentiable")):
            # a differentiable step updates tensors that require grad in
            # place, which libtc's autograd refuses
            from . import _DIFFERENTIABLE_MESSAGE
            raise NotImplementedError(_DIFFERENTIABLE_MESSAGE % getattr(self, "_torch_name", type(self).__name__))
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                 + name)
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Resets the gradients of all optimized tensors.

        Args:
            set_to_none (bool): set them to None rather than filling them with
                zeros (default False, as PyTorch 1.13 and tc's other optimizers).
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Performs one optimization step; subclasses implement it.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.
        """
        raise NotImplementedError

    def state_dict(self):
        """Returns the optimizer's state as torch.optim does: ``{'state': {index:
        {name: value}}, 'param_groups': [{option: value, 'params': [indices]}]}``,
        parameters numbered across groups in order. The values are the live
        objects (not copies), as torch."""
        mapping = {}
        start = 0
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores a state dict (this optimizer's, or torch's with its tensors
        converted to tc): the options of each group and each parameter's state,
        copied (floating tensors converted to the parameter's dtype).

        Args:
            state_dict (dict): the state, as :meth:`state_dict` returns it.
        """
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _clone_state_value(param, v)
            else:
                state[k] = v
        param_groups = []
        for g, saved in zip(groups, saved_groups):
            new = dict(saved)
            new["params"] = g["params"]
            param_groups.append(new)
        self.__setstate__({"state": state, "param_groups": param_groups})

    @property
    def lr(self):
        """The first group's learning rate (setting it sets every group's); a tc extension."""
        return self.param_groups[0]["lr"]

    @lr.setter
    def lr(self, value):
        for g in self.param_groups:
            g["lr"] = value


# The name tc's Python optimizers use for their base.
_PyOptimizer = Optimizer


def _check_lr(lr, strict=False):
    """ValueError as torch for a negative learning rate (non-positive with strict)."""
    if lr is required:
        return
    if (strict and not 0.0 < lr) or (not strict and not 0.0 <= lr):
        raise ValueError("Invalid learning rate: {}".format(lr))


def _check_betas(betas):
    """ValueError as torch unless 0 <= beta < 1 for both betas."""
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))


def _check_nonneg(name, value):
    """ValueError as torch (``Invalid <name> value: v``) for a negative value."""
    if not 0.0 <= value:
        raise ValueError("Invalid {} value: {}".format(name, value))


def _check_adam_options(lr, betas, eps, weight_decay):
    """The checks (and torch's ValueErrors) of the Adam family's common options, in torch's order."""
    _check_lr(lr)
    _check_nonneg("epsilon", eps)
    _check_betas(betas)
    _check_nonneg("weight_decay", weight_decay)


def _grads_of(group, name):
    """The (param, grad) pairs of a group's parameters that have a gradient;
    a sparse gradient is refused as torch (tc has none, but a foreign tensor
    type might claim it)."""
    out = []
    for p in group["params"]:
        if p.grad is None:
            continue
        if getattr(p.grad, "is_sparse", False):
            raise RuntimeError("%s does not support sparse gradients" % name)
        out.append((p, p.grad))
    return out


def _add_(x, y, alpha=1.0):
    """x += alpha * y in place (torch's ``x.add_(y, alpha=alpha)``); returns x."""
    return x.add_(y if alpha == 1 else y * alpha)


def _addcmul_(x, a, b, value=1.0):
    """x += value * a * b in place (torch's ``addcmul_``); returns x."""
    return x.add_(a * b if value == 1 else a * b * value)


def _addcdiv_(x, a, b, value=1.0):
    """x += value * a / b in place (torch's ``addcdiv_``); returns x."""
    return x.add_(a / b if value == 1 else a / b * value)


def _adam_moments(p, grad, state, betas):
    """Torch's Adam moment updates in place (exp_avg, exp_avg_sq); returns them."""
    beta1, beta2 = betas
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    _add_(exp_avg.mul_(beta1), grad, 1 - beta1)
    _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
    return exp_avg, exp_avg_sq


def _step_value(step):
    """The number a 'step' state entry holds: a Python number, or a 0-dim
    tensor (torch keeps it as a float32 tensor for most optimizers)."""
    return step.item() if isinstance(step, Tensor) else step


def _scalar_state(value):
    """A 0-dim float32 tensor, as torch's ``torch.tensor(value)`` for a float
    (the dtype torch's state dicts hold for 'step', 'eta', 'mu', ...)."""
    from .._tensor import tensor
    return tensor(float(value), dtype="float32")


def _bump_step(state):
    """Adds one to state['step'] (a tensor or a number) and returns the new count."""
    step = state["step"]
    if isinstance(step, Tensor):
        step.add_(1)
        return step.item()
    state["step"] = step + 1
    return state["step"]


def _tensor_steps(state_values, *names):
    """Turns the numbers an older state dict holds for names into 0-dim
    float32 tensors (torch's __setstate__ does the same)."""
    for s in state_values:
        for name in names:
            if name in s and not isinstance(s[name], Tensor):
                s[name] = _scalar_state(s[name])


class _PerParameterStep:
    """The step shared by tc's Python optimizers (Adadelta, Adamax, NAdam,
    RAdam, ASGD, Rprop, the amsgrad Adam/AdamW): for every parameter with a
    gradient, its state is made on first sight (``_init_state``), 'step' is
    counted up, the gradient is negated for ``maximize`` and given the L2
    term ``weight_decay * p`` (where the group has those options and
    ``_l2_in_grad`` holds), then ``_update`` applies the optimizer's rule.

    A mixin: list it before the optimizer base, so that its step wins."""

    _name_in_errors = None  # the name a sparse gradient's error gives; the class's by default
    _l2_in_grad = True  # False where weight decay is applied otherwise (AdamW's decoupled decay)
    _tensor_state = ()  # scalar state entries kept as float32 tensors, converted on loading

    def _init_state(self, p, grad, group):
        """The new state of parameter ``p`` (a dict; 'step' first)."""
        raise NotImplementedError

    def _update(self, group, p, grad, state, step):
        """Updates ``p`` in place from its gradient and state at count ``step``."""
        raise NotImplementedError

    def _fix_loaded_state(self):
        _tensor_steps(self.state.values(), *self._tensor_state)

    @_use_grad
    def step(self, closure=None):
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        loss = _closure_loss(closure)
        name = self._name_in_errors or type(self).__name__
        for group in self.param_groups:
            for p, grad in _grads_of(group, name):
                state = self.state[p]
                if len(state) == 0:
                    state.update(self._init_state(p, grad, group))
                step = _bump_step(state)
                if group.get("maximize", False):
                    grad = -grad
                wd = group.get("weight_decay", 0)
                if self._l2_in_grad and wd != 0:
                    grad = grad + p * wd
                self._update(group, p, grad, state, step)
        return loss
