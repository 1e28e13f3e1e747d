"""tc.optim: SGD, Adam and AdamW over libtc's optimizers (tc_optimizer_*).
The update runs in C; Python only holds the handle."""
import ctypes as C

from . import _decls as D
from ._core import VP, byref, fn
from ._errors import check
from ._tensor import Tensor


class _ParamGroup(dict):
    """param_groups[0]: setting ["lr"] reaches the C optimizer (so
    schedulers written for PyTorch work)."""

    def __init__(self, opt, params, defaults):
        super().__init__(defaults)
        dict.__setitem__(self, "params", params)
        self._opt = opt

    def __getitem__(self, key):
        if key == "lr":
            return self._opt.lr
        return dict.__getitem__(self, key)

    def __setitem__(self, key, value):
        if key == "lr":
            self._opt.lr = value
        dict.__setitem__(self, key, value)


class Optimizer:
    _free = fn("tc_optimizer_free")

    def __init__(self, params, defaults):
        params = list(params)
        if params and isinstance(params[0], dict):
            if len(params) != 1:
                raise NotImplementedError("tc.optim supports one parameter group")
            defaults = dict(defaults, **{k: v for k, v in params[0].items() if k != "params"})
            params = list(params[0]["params"])
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
        self._params = params  # keeps the Python objects (and handles) alive
        self.defaults = defaults
        arr = (VP * len(params))(*[p._h for p in params])
        out = VP()
        self._h = None
        check(self._create(arr, len(params), byref(out)))
        self._h = out.value
        self.param_groups = [_ParamGroup(self, params, defaults)]

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            try:
                Optimizer._free(h)
            except Exception:
                pass

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        check(fn("tc_optimizer_step")(self._h))
        return loss

    def zero_grad(self, set_to_none=True):
        check(fn("tc_optimizer_zero_grad")(self._h))

    @property
    def lr(self):
        out = C.c_double()
        check(fn("tc_optimizer_get_lr")(self._h, byref(out)))
        return out.value

    @lr.setter
    def lr(self, value):
        check(fn("tc_optimizer_set_lr")(self._h, float(value)))

    # ---- state dicts: PyTorch's layout, over tc_optimizer_state_dict ----
    _hypers = ()  # the C names of the hyperparameters, in order

    def state_dict(self):
        """{"state": {index: {name: tensor}}, "param_groups": [{hyper: value,
        "params": [indices]}]}, like torch.optim; the tensors are copies."""
        from .serialization import TensorDict
        out = VP()
        check(fn("tc_optimizer_state_dict")(self._h, byref(out)))
        flat = TensorDict(out).to_dict()
        group = {}
        for h in self._hypers:
            group[h] = flat.pop("param_groups.0." + h).item()
        group = self._group_from_c(group)
        group["params"] = list(range(len(self._params)))
        state = {}
        for name, t in flat.items():
            _, i, field = name.split(".", 2)
            state.setdefault(int(i), {})[field] = t
        return {"state": state, "param_groups": [group]}

    def load_state_dict(self, state_dict):
        """Restores a state_dict() (hyperparameters and state), all or nothing."""
        from .serialization import TensorDict
        from ._tensor import tensor
        groups = state_dict["param_groups"]
        if len(groups) != 1:
            raise ValueError("loaded state dict has %d parameter groups; tc.optim has one" % len(groups))
        group = dict(groups[0])
        params = group.pop("params", list(range(len(self._params))))
        if len(params) != len(self._params):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                             "of optimizer's group (%d vs %d)" % (len(params), len(self._params)))
        d = TensorDict()
        for h, v in self._group_to_c(group).items():
            d["param_groups.0." + h] = tensor(float(v), dtype="float64")
        position = {p: i for i, p in enumerate(params)}
        for i, fields in state_dict.get("state", {}).items():
            for field, t in fields.items():
                if not isinstance(t, Tensor):
                    t = tensor(t, dtype="int64" if field == "step" else None)
                d["state.%d.%s" % (position.get(i, i), field)] = t
        check(fn("tc_optimizer_load_state_dict")(self._h, d._h))
        for k, v in group.items():
            if k != "lr":
                dict.__setitem__(self.param_groups[0], k, v)
                self.defaults[k] = v

    def _group_from_c(self, g):
        return g

    def _group_to_c(self, g):
        return {h: g[h] for h in self._hypers}

    def __repr__(self):
        opts = ", ".join("%s=%r" % kv for kv in sorted(self.defaults.items()))
        return "%s(%s)" % (type(self).__name__, opts)


class SGD(Optimizer):
    _hypers = ("lr", "momentum", "dampening", "weight_decay", "nesterov")

    def _group_from_c(self, g):
        g["nesterov"] = bool(g["nesterov"])
        return g
    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        o = D.tc_sgd_options()
        o.size = C.sizeof(o)
        o.lr, o.momentum, o.dampening = float(lr), float(momentum), float(dampening)
        o.weight_decay, o.nesterov = float(weight_decay), 1 if nesterov else 0
        self._opts = o
        self._create = lambda arr, n, out: fn("tc_optimizer_sgd")(arr, n, byref(o), out)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))


class Adam(Optimizer):
    _decoupled = 0
    _hypers = ("lr", "beta1", "beta2", "eps", "weight_decay", "decoupled_weight_decay")

    def _group_from_c(self, g):
        out = {"lr": g["lr"], "betas": (g["beta1"], g["beta2"]), "eps": g["eps"],
               "weight_decay": g["weight_decay"], "decoupled_weight_decay": bool(g["decoupled_weight_decay"])}
        return out

    def _group_to_c(self, g):
        b1, b2 = g["betas"]
        return {"lr": g["lr"], "beta1": b1, "beta2": b2, "eps": g["eps"], "weight_decay": g["weight_decay"],
                "decoupled_weight_decay": g.get("decoupled_weight_decay", self._decoupled)}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        o = D.tc_adam_options()
        o.size = C.sizeof(o)
        o.decoupled_weight_decay = self._decoupled
        o.lr, o.beta1, o.beta2 = float(lr), float(betas[0]), float(betas[1])
        o.eps, o.weight_decay = float(eps), float(weight_decay)
        self._opts = o
        self._create = lambda arr, n, out: fn("tc_optimizer_adam")(arr, n, byref(o), out)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay))


class AdamW(Adam):
    _decoupled = 1

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr, betas, eps, weight_decay)
