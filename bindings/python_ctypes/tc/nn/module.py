"""Module and Parameter, with torch.nn.Module's semantics: registration,
traversal (a tied parameter or a shared module is visited once), state dicts
that name every path of a tied tensor, and conversions (``to``, ``float``,
``cuda``, ...) that change parameters in place, as PyTorch's ``_apply`` does:
``param.data = fn(param.data)``, so a Parameter keeps its identity and tied
weights, optimizers made before and hooks all see the converted data."""
import collections
import collections.abc
from typing import Callable, Dict, Iterator, Optional, Set, Tuple

from .. import _core as K
from .._core import fn
from .._errors import check
from .._tensor import Tensor, _new, empty


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns, as in PyTorch."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class Parameter(Tensor):
    """A leaf tensor that requires grad and that Modules register. Shares
    data with the tensor it is made from (a detached view)."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        out = K.VP()
        check(fn("tc_detach")(data._h, K.byref(out)))
        p = _new(cls)
        p._h = out
        p._dt = None
        if requires_grad:
            p.requires_grad = True
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


class Module:
    """Base class: assign Parameters and Modules as attributes; they are
    found by parameters(), named_parameters(), state_dict()."""

    def __init__(self):
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign attributes before Module.__init__() call")
        params, buffers = self._parameters, self._buffers
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            buffers.pop(name, None)
            params[name] = value
        elif name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)"
                                % (type(value).__name__, name))
            params[name] = None
        elif isinstance(value, Module):
            params.pop(name, None)
            buffers.pop(name, None)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)"
                                % (type(value).__name__, name))
            self._modules[name] = None
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError("cannot assign '%s' as buffer '%s' (torch.Tensor or None expected)"
                                % (type(value).__name__, name))
            buffers[name] = value
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for d in (self._parameters, self._buffers, self._modules):
            d.pop(name, None)
        self._non_persistent_buffers_set.discard(name)
        object.__delattr__(self, name)

    def register_parameter(self, name: str, param: Optional["Parameter"]) -> None:
        """Registers a parameter.

        Args:
            name (str): the attribute name.
            param (Parameter or None): the parameter.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("parameter name should be a string. Got %s" % type(name).__name__)
        if "." in name or name == "":
            raise KeyError('parameter name can\'t contain "." or be empty')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)"
                            % (type(param).__name__, name))
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name: str, tensor: Optional[Tensor], persistent: bool = True) -> None:
        """Registers a tensor that is saved in the state dict but not trained.

        Args:
            name (str): the attribute name.
            tensor (Tensor or None): the buffer.
            persistent (bool): whether the buffer is part of the state dict.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got %s" % type(name).__name__)
        if "." in name or name == "":
            raise KeyError('buffer name can\'t contain "." or be empty')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None required)"
                            % (type(tensor).__name__, name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        object.__setattr__(self, name, tensor)

    def add_module(self, name: str, module: Optional["Module"]) -> None:
        """Registers ``module`` as a child named ``name``.

        Args:
            name (str): the attribute name.
            module (Module or None): the child.
        """
        if module is not None and not isinstance(module, Module):
            raise TypeError("%s is not a Module subclass" % type(module).__name__)
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got %s" % type(name).__name__)
        if "." in name or name == "":
            raise KeyError('module name can\'t contain "." or be empty')
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def forward(self, *args, **kwargs):
        """Computes the module's output; subclasses override it."""
        raise NotImplementedError("%s does not define forward()" % type(self).__name__)

    # ---- hooks (as PyTorch's): each register_* returns a RemovableHandle
    def _hook_dict(self, name):
        d = self.__dict__.get(name)
        if d is None:
            d = collections.OrderedDict()
            object.__setattr__(self, name, d)
        return d

    def _add_hook(self, name, hook):
        from ..autograd import RemovableHandle
        d = self._hook_dict(name)
        key = object()
        d[key] = hook

        def remove():
            if key not in d:
                raise RuntimeError("this hook was already removed")
            del d[key]
        return RemovableHandle(remove)

    def register_forward_pre_hook(self, hook):
        """hook(module, args) before forward; may return replacement args."""
        return self._add_hook("_forward_pre_hooks", hook)

    def register_forward_hook(self, hook):
        """hook(module, args, output) after forward; may return a replacement output."""
        return self._add_hook("_forward_hooks", hook)

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) once the gradients of the
        module's tensor inputs are computed; may return replacement grad_input."""
        return self._add_hook("_backward_hooks", hook)

    def __call__(self, *args, **kwargs):
        """Runs the forward pre-hooks, ``forward`` and the forward hooks.

        Returns:
            the result of ``forward``.
        """
        pre = self.__dict__.get("_forward_pre_hooks")
        post = self.__dict__.get("_forward_hooks")
        back = self.__dict__.get("_backward_hooks")
        if not (pre or post or back):
            return self.forward(*args, **kwargs)
        for hook in list((pre or {}).values()):
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        if back:
            from ._backward_hooks import wrap_inputs, wrap_outputs
            state, args = wrap_inputs(self, list(back.values()), args)
        out = self.forward(*args, **kwargs)
        for hook in list((post or {}).values()):
            r = hook(self, args, out)
            if r is not None:
                out = r
        if back:
            out = wrap_outputs(state, out)
        return out

    # ---- traversal (as PyTorch's: shared modules and tied tensors once)
    def named_modules(self, memo: Optional[Set["Module"]] = None, prefix: str = "",
                      remove_duplicate: bool = True):
        """Returns an iterator over (name, module) pairs of the whole tree, self first.

        Args:
            memo (set, optional): modules already yielded (skipped).
            prefix (str): prepended to every name.
            remove_duplicate (bool): yield a module reachable by several paths once.
        """
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        """Returns an iterator over all modules in the tree, self first."""
        for _, m in self.named_modules():
            yield m

    def children(self):
        """Returns an iterator over the immediate child modules."""
        for _, m in self.named_children():
            yield m

    def named_children(self):
        """Returns an iterator over (name, module) pairs of the immediate children (each module once)."""
        seen = set()
        for n, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                yield n, m

    def _named_members(self, members, prefix, recurse, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for name, v in members(m):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield mprefix + ("." if mprefix else "") + name, v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[Tuple[str, "Parameter"]]:
        """Returns an iterator over (name, parameter) pairs.

        Args:
            prefix (str): prepended to every name.
            recurse (bool): include the submodules' parameters.
            remove_duplicate (bool): yield a tied parameter once (under its first name).
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator["Parameter"]:
        """Returns an iterator over the parameters (a tied one once).

        Args:
            recurse (bool): include the submodules' parameters.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[Tuple[str, Tensor]]:
        """Returns an iterator over (name, buffer) pairs (a buffer left None is skipped, as PyTorch).

        Args:
            prefix (str): prepended to every name.
            recurse (bool): include the submodules' buffers.
            remove_duplicate (bool): yield a shared buffer once.
        """
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Returns an iterator over the buffers.

        Args:
            recurse (bool): include the submodules' buffers.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def get_submodule(self, target: str) -> "Module":
        """Returns the submodule at the dotted path ``target`` ("" is self)."""
        mod = self
        if target == "":
            return mod
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(type(mod).__name__ + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> "Parameter":
        """Returns the parameter at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(type(mod).__name__ + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target: str) -> Tensor:
        """Returns the buffer at the dotted path ``target``."""
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    # ---- state dicts (every name of a tied tensor, as PyTorch)
    def _state_items(self, prefix=""):
        """(name, tensor) for every persistent entry of the state dict, tied
        tensors under each of their names, shared modules under each path."""
        for name, p in self._parameters.items():
            if p is not None:
                yield prefix + name, p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                yield prefix + name, b
        for name, m in self._modules.items():
            if m is not None:
                yield from m._state_items(prefix + name + ".")

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False) -> Dict[str, Tensor]:
        """name -> tensor for every parameter and persistent buffer, a tied
        tensor under each of its names (as PyTorch). Tensors are detached
        views sharing the module's data unless ``keep_vars``.

        Args:
            destination (dict, optional): filled and returned instead of a new OrderedDict.
            prefix (str): prepended to every key.
            keep_vars (bool): the Parameters themselves instead of detached views.
        """
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            destination = args[0]
            if len(args) > 1:
                prefix = args[1]
            if len(args) > 2:
                keep_vars = args[2]
        out = collections.OrderedDict() if destination is None else destination
        for name, t in self._state_items(prefix):
            out[name] = t if keep_vars else t.detach()
        return out

    def load_state_dict(self, state_dict, strict: bool = True):
        """Copies state_dict's tensors into the parameters and buffers in place
        (ties are kept: a tied tensor is written under each of its names), like
        PyTorch: returns _IncompatibleKeys(missing_keys, unexpected_keys); with
        strict=True, any missing or unexpected key raises RuntimeError (and
        nothing is copied), as does a shape mismatch in either mode."""
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError("Expected state_dict to be dict-like, got %s." % type(state_dict))
        own = collections.OrderedDict(self._state_items())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: %s. "
                              % ", ".join('"%s"' % k for k in unexpected))
            if missing:
                errors.append("Missing key(s) in state_dict: %s. " % ", ".join('"%s"' % k for k in missing))
        for k, v in state_dict.items():
            if k in own:
                if not isinstance(v, Tensor):
                    errors.append('While copying the parameter named "%s", expected torch.Tensor or Tensor-like '
                                  "object from checkpoint but received %s" % (k, type(v)))
                elif tuple(own[k].shape) != tuple(v.shape):
                    errors.append("size mismatch for %s: copying a param with shape %s from checkpoint, "
                                  "the shape in current model is %s." % (k, v.shape, own[k].shape))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for %s:\n\t%s"
                               % (type(self).__name__, "\n\t".join(errors)))
        with K.no_grad():
            for k, v in state_dict.items():
                if k in own:
                    own[k].detach().copy_(v)
        return _IncompatibleKeys(missing, unexpected)

    # ---- modes and gradients
    def train(self, mode: bool = True) -> "Module":
        """Sets training mode (affects dropout and batch norm) on the whole tree.

        Args:
            mode (bool): training (True) or evaluation (False).

        Returns:
            Module: self.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self) -> "Module":
        """Sets evaluation mode (``train(False)``) and returns self."""
        return self.train(False)

    def zero_grad(self, set_to_none: bool = False) -> None:
        """Resets the gradients of all parameters.

        Args:
            set_to_none (bool): set them to None (else, the default as in
                PyTorch 1.13, zero them in place).
        """
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g is not None:
                    g.zero_()

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        """Sets ``requires_grad`` on every parameter and returns self.

        Args:
            requires_grad (bool): the new value.
        """
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def apply(self, fn_: Callable[["Module"], None]) -> "Module":
        """Calls ``fn_`` on every submodule (children first) and on self.

        Args:
            fn_ (callable): takes a Module.

        Returns:
            Module: self.
        """
        for m in self.children():
            m.apply(fn_)
        fn_(self)
        return self

    # ---- conversions: parameters change in place (PyTorch's _apply)
    def _apply(self, fn_: Callable[[Tensor], Tensor]) -> "Module":
        """Applies ``fn_`` to every parameter, gradient and buffer of the tree.
        A parameter keeps its identity (``param.data = fn_(param)``), so ties,
        optimizers and hooks survive; its gradient is converted too; a buffer
        is replaced (a buffer shared by modules by the same new tensor). Every
        conversion is made before anything changes: a failure changes nothing."""
        mods = list(self.modules())
        params, seen = [], set()
        for m in mods:
            for p in m._parameters.values():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    params.append(p)
        new_buffers = {}
        with K.no_grad():
            converted = []
            for p in params:
                data = fn_(p)
                grad = p.grad
                new_grad = fn_(grad) if grad is not None else None
                converted.append((p, data, grad, new_grad))
            for m in mods:
                for b in m._buffers.values():
                    if b is not None and id(b) not in new_buffers:
                        new_buffers[id(b)] = (b, fn_(b))
        # Nothing below fails for a conversion fn_ could make.
        for p, data, grad, new_grad in converted:
            if data is not p:
                p.data = data
            if new_grad is not None and (new_grad is not grad or p.grad is None):
                p.grad = new_grad.detach() if new_grad.requires_grad else new_grad
        for m in mods:
            for name, b in list(m._buffers.items()):
                if b is not None:
                    nb = new_buffers[id(b)][1]
                    m._buffers[name] = nb
                    object.__setattr__(m, name, nb)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """Moves and/or converts the parameters and buffers in place, like
        :meth:`torch.nn.Module.to`: ``to(device)``, ``to(dtype)``,
        ``to(device, dtype)``, ``to(tensor)``, keyword forms. A dtype applies
        to floating-point tensors only (integer buffers keep theirs).

        Returns:
            Module: self.
        """
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            "dtype=%s" % dtype)

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None)
        return self._apply(convert)

    def cpu(self) -> "Module":
        """Moves every parameter and buffer to the CPU (in place) and returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None) -> "Module":
        """Moves every parameter and buffer to a CUDA device (in place) and returns self.

        Args:
            device (int or device, optional): the device (default: the current one).
        """
        return self._apply(lambda t: t.cuda() if device is None else t.cuda(device))

    def type(self, dst_type) -> "Module":
        """Casts every parameter and buffer (integer ones too) to ``dst_type`` and returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> "Module":
        """Casts floating-point parameters and buffers to float32 and returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> "Module":
        """Casts floating-point parameters and buffers to float64 and returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> "Module":
        """Casts floating-point parameters and buffers to float16 and returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> "Module":
        """Casts floating-point parameters and buffers to bfloat16 and returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def extra_repr(self):
        """Returns the module's settings as shown inside ``repr(module)``; override it."""
        return ""

    def __repr__(self):
        lines = []
        for name, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append("(%s): %s" % (name, sub))
        head = type(self).__name__ + "(" + self.extra_repr()
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


def _parse_to(args, kwargs):
    """(device, dtype) from the argument forms of Module.to, as torch._C._nn._parse_to."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError("to() got unexpected keyword arguments %s" % sorted(kwargs))
    for a in args:
        if isinstance(a, Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, K.dtype):
            dtype = a
        elif isinstance(a, bool):  # non_blocking positionally
            continue
        elif isinstance(a, (str, K.device, int)):
            device = a
        else:
            raise TypeError("to() received an invalid combination of arguments: %r" % (a,))
    if dtype is not None:
        dtype = K.to_dtype(dtype)
    return device, dtype
