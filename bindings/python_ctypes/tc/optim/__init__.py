"""tc.optim: torch.optim's optimizers. SGD, Adam, AdamW, RMSprop and Adagrad
run their update in libtc (tc_optimizer_*; Python only holds the handle);
the others, and user subclasses of :class:`Optimizer`, are Python over tc's
tensor ops (tc/optim/_python_optimizer.py)."""
import ctypes as C
from typing import Any, Callable, Optional

from .. import _decls as D
from .._core import VP, byref, fn
from .._errors import check
from .._tensor import Tensor
from ._required import required
from ._python_optimizer import Optimizer


class _ParamGroup(dict):
    """One entry of param_groups: setting ["lr"] reaches its C optimizer (so
    schedulers written for PyTorch work); the other options are fixed when
    the group is made."""

    def __init__(self, opt, index, params, options):
        super().__init__(options)
        dict.__setitem__(self, "params", params)
        self._opt = opt
        self._index = index

    def _handle(self):
        return self._opt._handles[self._index]

    def __getitem__(self, key):
        if key == "lr":
            out = C.c_double()
            check(fn("tc_optimizer_get_lr")(self._handle(), byref(out)))
            return out.value
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __setitem__(self, key, value):
        if key == "lr":
            check(fn("tc_optimizer_set_lr")(self._handle(), float(value)))
        elif key in ("momentum", "betas") and key in self and value != dict.__getitem__(self, key):
            # Schedulers that cycle momentum (OneCycleLR) reach the C optimizer
            # through its state dict: its hyperparameters and state, reloaded.
            self._opt._set_hyper(self._index, dict(self, **{key: value}))
        dict.__setitem__(self, key, value)


class _COptimizer(Optimizer):
    """The base of the optimizers whose step runs in libtc: parameter groups
    as in PyTorch, each group one C optimizer (tc_optimizer_*) made with the
    defaults updated by the group's options. It overrides every method of the
    Python :class:`Optimizer` that touches state (which lives in C here)."""

    _free = fn("tc_optimizer_free")

    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got " + type(params).__name__)
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = defaults
        self._handles = []
        self._params = []  # keeps the Python objects (and handles) alive
        self.param_groups = []
        for g in groups:
            self.add_param_group(g)

    @property
    def _h(self):
        return self._handles[0]

    def add_param_group(self, param_group):
        """Adds a parameter group (a dict with ``'params'`` and optional settings).

        Args:
            param_group (dict): the group; missing settings take the defaults.
        """
        if not isinstance(param_group, dict):
            raise TypeError("param_group must be a dict, not " + type(param_group).__name__)
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
        seen = {id(p) for p in self._params}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        options = dict(self.defaults)
        options.update({k: v for k, v in param_group.items() if k != "params"})
        for name, value in options.items():
            if value is required:
                raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                 + name)
        self._check_group(options)
        arr = (VP * len(params))(*[p._h for p in params])
        out = VP()
        check(self._create(options, arr, len(params), byref(out)))
        self._handles.append(out.value)
        self._params.extend(params)
        self.param_groups.append(_ParamGroup(self, len(self.param_groups), params, options))

    def __del__(self):
        handles = getattr(self, "_handles", None)
        if handles:
            self._handles = []
            for h in handles:
                try:
                    _COptimizer._free(h)
                except Exception:
                    pass

    def step(self, closure: Optional[Callable[[], Any]] = None) -> Any:
        """Performs one optimization step.

        Args:
            closure (callable, optional): re-evaluates the model and returns the loss.

        Returns:
            the closure's loss, or None.
        """
        from .._core import enable_grad, no_grad
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        step = fn("tc_optimizer_step")
        for h, group in zip(self._handles, self.param_groups):
            # maximize: the C step has no such option; it descends -grad,
            # which is torch's rule (the gradient is negated first, before
            # weight decay). Negation is exact, so .grad comes back unchanged.
            flipped = [p.grad for p in group["params"] if p.grad is not None] if group.get("maximize") else []
            with no_grad():
                for g in flipped:
                    g.mul_(-1)
                try:
                    check(step(h))
                finally:
                    for g in flipped:
                        g.mul_(-1)
        return loss

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Resets the gradients of all optimized parameters.

        Args:
            set_to_none (bool): set them to None rather than zero (default
                False, as in PyTorch 1.13: a parameter that then gets no
                gradient in a step keeps a zero .grad, which momentum and
                weight decay still act on).
        """
        if not set_to_none:
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        p.grad.zero_()
            return
        zero = fn("tc_optimizer_zero_grad")
        for h in self._handles:
            check(zero(h))

    # ---- state dicts: PyTorch's layout, over tc_optimizer_state_dict ----
    _hypers = ()  # the C names of the hyperparameters, in order

    def state_dict(self):
        """{"state": {index: {name: tensor}}, "param_groups": [{hyper: value,
        "params": [indices]}]}, like torch.optim; the tensors are copies.
        Parameters are numbered across groups in order."""
        from ..serialization import TensorDict
        state, groups, first = {}, [], 0
        for h, pg in zip(self._handles, self.param_groups):
            out = VP()
            check(fn("tc_optimizer_state_dict")(h, byref(out)))
            flat = TensorDict(out).to_dict()
            group = {}
            for name in self._hypers:
                group[name] = flat.pop("param_groups.0." + name).item()
            group = self._group_from_c(group)
            # torch's options the C optimizer does not hold (maximize,
            # foreach, ...) come from the group, so the dict has torch's keys.
            for k, v in pg.items():
                if k not in group and k not in ("params", "initial_lr") and k in self.defaults:
                    group[k] = v
            group["params"] = list(range(first, first + len(pg["params"])))
            for name, t in flat.items():
                _, i, field = name.split(".", 2)
                state.setdefault(first + int(i), {})[field] = t
            groups.append(group)
            first += len(pg["params"])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores a state_dict() (hyperparameters and state), group by group."""
        from ..serialization import TensorDict
        from .._tensor import tensor
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, pg in zip(groups, self.param_groups):
            n = len(pg["params"])
            if len(g.get("params", range(n))) != n:
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                                 "of optimizer's group (%d vs %d)" % (len(g["params"]), n))
        first = 0
        for h, g, pg in zip(self._handles, groups, self.param_groups):
            n = len(pg["params"])
            group = dict(g)
            params = group.pop("params", list(range(first, first + n)))
            d = TensorDict()
            for name, v in self._group_to_c(group).items():
                d["param_groups.0." + name] = tensor(float(v), dtype="float64")
            position = {p: i for i, p in enumerate(params)}
            for i, fields in state_dict.get("state", {}).items():
                if i not in position:
                    continue
                for field, t in fields.items():
                    if not isinstance(t, Tensor):
                        t = tensor(t, dtype="int64" if field == "step" else None)
                    elif field == "step" and t.dtype.name != "int64":
                        # torch keeps Adam's and Adagrad's step as a float32
                        # tensor; the C optimizers count in int64.
                        t = tensor(int(t.reshape(-1)[0].item()), dtype="int64")
                    d["state.%d.%s" % (position[i], field)] = t
            check(fn("tc_optimizer_load_state_dict")(h, d._h))
            for k, v in group.items():
                if k != "lr":
                    dict.__setitem__(pg, k, v)
            first += n
        if len(self.param_groups) == 1:
            self.defaults.update({k: v for k, v in groups[0].items() if k not in ("params", "lr")})

    def _check_group(self, options):
        """Refuses a group whose options the C optimizer cannot honour
        (subclasses say which); the C optimizer checks the values."""

    @property
    def state(self):
        """Each stepped parameter's state, as torch's ``optimizer.state``
        ({parameter: {name: tensor}}): a snapshot (copies) of the C state
        (a Python subclass, which sets its own, gets that)."""
        if "state" in self.__dict__:
            return self.__dict__["state"]
        flat = {}
        sd = self.state_dict()["state"]
        params = [p for g in self.param_groups for p in g["params"]]
        for i, fields in sd.items():
            flat[params[i]] = fields
        return flat

    @state.setter
    def state(self, value):
        self.__dict__["state"] = value

    def __getstate__(self):
        raise TypeError("a %s steps in libtc (a C handle): save and load its state_dict() instead of pickling "
                        "or copying it" % type(self).__name__)

    def _set_hyper(self, index, group):
        """Replaces the hyperparameters of group `index` in its C optimizer
        (the state is kept), from a group dict of Python option names."""
        from ..serialization import TensorDict
        from .._tensor import tensor
        h = self._handles[index]
        out = VP()
        check(fn("tc_optimizer_state_dict")(h, byref(out)))
        d = TensorDict(out)
        for name, v in self._group_to_c(group).items():
            d["param_groups.0." + name] = tensor(float(v), dtype="float64")
        check(fn("tc_optimizer_load_state_dict")(h, d._h))

    def _group_from_c(self, g):
        return g

    def _group_to_c(self, g):
        return {h: g[h] for h in self._hypers}


class SGD(_COptimizer):
    """Stochastic gradient descent with optional momentum, as torch.optim.SGD.

    Args:
        params (iterable): parameters or parameter groups (dicts).
        lr (float): the learning rate (required, as in torch).
        momentum (float): the momentum factor.
        dampening (float): dampening of the momentum.
        weight_decay (float): L2 penalty.
        nesterov (bool): Nesterov momentum.
        maximize (bool): ascend the objective (the C step descends the negated gradient).
        foreach (bool, optional): accepted for torch's signature; libtc has one implementation.
        differentiable (bool): must be False: libtc's autograd records no in-place update of
            tensors that require grad (NotImplementedError).
    """
    _hypers = ("lr", "momentum", "dampening", "weight_decay", "nesterov")

    def _group_from_c(self, g):
        g["nesterov"] = bool(g["nesterov"])
        return g

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable))

    _check_group = staticmethod(lambda options: _no_differentiable("SGD", options))

    def _create(self, g, arr, n, out):
        o = D.tc_sgd_options()
        o.size = C.sizeof(o)
        o.lr, o.momentum, o.dampening = float(g["lr"]), float(g["momentum"]), float(g["dampening"])
        o.weight_decay, o.nesterov = float(g["weight_decay"]), 1 if g["nesterov"] else 0
        return fn("tc_optimizer_sgd")(arr, n, byref(o), out)


_DIFFERENTIABLE_MESSAGE = ("tc.optim.%s: differentiable=True is not supported: a differentiable step updates "
                           "non-leaf tensors in place, which libtc's autograd does not record")


def _no_differentiable(name, options):
    """differentiable=True is refused rather than silently ignored: the step
    would update tensors that require grad in place, which libtc's autograd
    refuses (in-place ops on tensors that require grad)."""
    if options.get("differentiable"):
        raise NotImplementedError(_DIFFERENTIABLE_MESSAGE % name)


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise ValueError("Invalid epsilon value: {}".format(eps))
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
    if not 0.0 <= weight_decay:
        raise ValueError("Invalid weight_decay value: {}".format(weight_decay))


def _wants_python_adam(params, args, kwargs):
    """Whether Adam's arguments ask for amsgrad (which only the Python Adam
    does), for the optimizer or for a group given in a list (a generator of
    groups is not looked into: the C optimizer then refuses such a group
    when it is added)."""
    if args[4] if len(args) > 4 else kwargs.get("amsgrad", False):
        return True
    if isinstance(params, (list, tuple)):
        return any(isinstance(g, dict) and g.get("amsgrad") for g in params)
    return False


class Adam(_COptimizer):
    """The Adam optimizer (Kingma & Ba), as torch.optim.Adam. With
    ``amsgrad=True`` it is the Python Adam (tc.optim.adam_python.PythonAdam,
    a subclass); else the update runs in C.

    Args:
        params (iterable): parameters or parameter groups (dicts).
        lr (float): the learning rate.
        betas (tuple of float): the moving-average factors of the gradient and its square.
        eps (float): added to the denominator.
        weight_decay (float): L2 penalty.
        amsgrad (bool): divide by the largest second moment so far (AMSGrad).
        foreach, capturable, fused: accepted for torch's signature; libtc has one implementation.
        maximize (bool): ascend the objective (the C step descends the negated gradient).
        differentiable (bool): must be False: libtc's autograd records no in-place update of
            tensors that require grad (NotImplementedError).
    """
    _decoupled = 0
    _hypers = ("lr", "beta1", "beta2", "eps", "weight_decay", "decoupled_weight_decay")

    def __new__(cls, params=None, *args, **kwargs):
        if cls in (Adam, AdamW) and _wants_python_adam(params, args, kwargs):
            from .adam_python import PythonAdam, PythonAdamW
            cls = PythonAdam if cls is Adam else PythonAdamW
        return object.__new__(cls)

    def _group_from_c(self, g):
        out = {"lr": g["lr"], "betas": (g["beta1"], g["beta2"]), "eps": g["eps"],
               "weight_decay": g["weight_decay"], "decoupled_weight_decay": bool(g["decoupled_weight_decay"])}
        return out

    def _group_to_c(self, g):
        b1, b2 = g["betas"]
        return {"lr": g["lr"], "beta1": b1, "beta2": b2, "eps": g["eps"], "weight_decay": g["weight_decay"],
                "decoupled_weight_decay": g.get("decoupled_weight_decay", self._decoupled)}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused))

    def _check_group(self, options):
        if options.get("amsgrad"):
            raise ValueError("tc.optim.%s: a group with amsgrad=True needs the Python Adam: pass amsgrad=True "
                             "to the constructor, or the groups as a list" % type(self).__name__)
        _no_differentiable(type(self).__name__, options)

    def _create(self, g, arr, n, out):
        o = D.tc_adam_options()
        o.size = C.sizeof(o)
        o.decoupled_weight_decay = self._decoupled
        o.lr, o.beta1, o.beta2 = float(g["lr"]), float(g["betas"][0]), float(g["betas"][1])
        o.eps, o.weight_decay = float(g["eps"]), float(g["weight_decay"])
        return fn("tc_optimizer_adam")(arr, n, byref(o), out)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter), as torch.optim.AdamW.
    With ``amsgrad=True`` it is the Python AdamW (a subclass); else the update runs in C.

    Args:
        params (iterable): parameters or parameter groups (dicts).
        lr (float): the learning rate.
        betas (tuple of float): the moving-average factors of the gradient and its square.
        eps (float): added to the denominator.
        weight_decay (float): the decoupled decay factor.
        amsgrad (bool): divide by the largest second moment so far (AMSGrad).
        maximize (bool): ascend the objective (the C step descends the negated gradient).
        foreach, capturable: accepted for torch's signature; libtc has one implementation.
    """
    _decoupled = 1

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _COptimizer.__init__(self, params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                                amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                                                capturable=capturable))


from .rmsprop_adagrad import Adagrad, RMSprop  # noqa: E402,F401
from . import lr_scheduler  # noqa: E402,F401

# ---- torch.optim's other optimizers, in Python over tc's tensor ops ----
from .adadelta_adamax import Adadelta, Adamax  # noqa: E402,F401
from .nadam_radam import NAdam, RAdam  # noqa: E402,F401
from .asgd_rprop import ASGD, Rprop  # noqa: E402,F401
from .lbfgs import LBFGS  # noqa: E402,F401
from .sparse_adam import SparseAdam  # noqa: E402,F401

# ---- frozen parameters (requires_grad=False) accepted by the C optimizers
# as by torch.optim (frozen_params.py)
from .frozen_params import allow_frozen as _allow_frozen  # noqa: E402

_allow_frozen(_COptimizer)
del _allow_frozen
# ---- end frozen parameters
