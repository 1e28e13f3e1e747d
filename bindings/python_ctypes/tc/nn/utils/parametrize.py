"""torch.nn.utils.parametrize: a parameter or buffer computed by modules
(a parametrization) from the tensors they keep, the "original(s)".

As in torch, register_parametrization moves ``module.<name>`` to
``module.parametrizations.<name>.original`` (state-dict key
``parametrizations.<name>.original``), swaps the module's class for a
subclass "Parametrized<Class>" and puts a property ``<name>`` on it that
runs the parametrization; assigning to it runs ``right_inverse``.

One difference: torch replaces an original's data with Tensor.set_, keeping
the object; tc copies values in place when the shape stays and otherwise
registers a new tensor (a new Parameter object)."""
import collections
import copyreg
from contextlib import contextmanager
from copy import deepcopy
from typing import Dict, Optional, Sequence, Tuple, Union

from ..._core import no_grad
from ..._tensor import Tensor
from ..containers import ModuleDict
from ..modules import Module, ModuleList, Parameter
from ._module_attrs import delete_attr

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache: Dict[Tuple[int, str], Optional[Tensor]] = {}


@contextmanager
def cached():
    """A context in which each parametrized tensor is computed once (the
    first time it is read) and then reused, as torch's."""
    global _cache
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _set(original: Tensor, value: Tensor) -> Tensor:
    """original holding value's data (torch's original.set_(value)): the same
    object when the shapes agree, else a new tensor of original's kind."""
    if value is original:
        return original
    with no_grad():
        if tuple(value.shape) == tuple(original.shape):
            original.detach().copy_(value)
            return original
        if isinstance(original, Parameter):
            return Parameter(value.detach().clone(), original.requires_grad)
        return value.detach().clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to the original(s)
    they keep (``original``, or ``original0``, ``original1``, ... when the first
    one's right_inverse returns a sequence).

    Args:
        modules (sequence of Module): the parametrizations (at least one).
        original (Tensor): the tensor parametrized (a Parameter or a buffer).
        unsafe (bool): skip the checks that the result keeps original's shape and dtype.
    """

    def __init__(self, modules: Sequence[Module], original: Union[Tensor, Parameter], unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = tuple(original.shape)
        original_dtype = original.dtype
        with no_grad():
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            _register_parameter_or_buffer(self, "original", _set(original, new))
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     "(list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)
        if not self.unsafe:
            z = self()
            if not isinstance(z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(z).__name__}.")
            if z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {z.dtype}")
            if tuple(z.shape) != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "`unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {tuple(z.shape)}")

    def right_inverse(self, value: Tensor) -> None:
        """Sets the original(s) so that the parametrization gives ``value``
        (each parametrization's right_inverse, last to first)."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                                     f"while `original` has dtype {self.original.dtype}")
                new = _set(self.original, value)
                if new is not self.original:
                    _register_parameter_or_buffer(self, "original", new)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(f"`right_inverse` must return a sequence of tensors. "
                                         f"Got element {i} of type {type(tensor).__name__}")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                                         f"while `original{i}` has dtype {original_i.dtype}")
                    new = _set(original_i, tensor)
                    if new is not original_i:
                        _register_parameter_or_buffer(self, f"original{i}", new)

    def forward(self) -> Tensor:
        """Returns the parametrized tensor: the parametrizations applied in turn to the original(s)."""
        mods = list(self)
        if self.is_tensor:
            x = mods[0](self.original)
        else:
            x = mods[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for m in mods[1:]:
            x = m(x)
        return x


def _property_names(cls) -> set:
    return cls.__dict__.get("_parametrized_names", set())


def _inject_new_class(module: Module) -> None:
    """Gives module a class of its own, "Parametrized<Class>", that the
    parametrized properties can be set on (as torch does)."""
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        # (object's setattr: the class's own __setattr__ needs the dicts it is copying)
        object.__setattr__(replica, "__dict__", deepcopy(self.__dict__, memo))
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                           "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                           "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    def setattr_(self, name, value):
        # Assigning a parametrized name runs right_inverse (the property),
        # even for a Parameter, which tc's Module.__setattr__ would register.
        if name in _property_names(type(self)):
            object.__setattr__(self, name, value)
        else:
            cls.__setattr__(self, name, value)

    dct = {"__getstate__": getstate, "__setattr__": setattr_, "_parametrized_names": set()}
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Puts the property ``tensor_name`` on module's Parametrized class."""
    assert not hasattr(module, tensor_name)

    def get_cached_parametrization(parametrization) -> Tensor:
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            return get_cached_parametrization(parametrization)
        return parametrization()

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name,
            property(get_parametrized, set_original, doc="The parametrized tensor %r." % tensor_name))
    module.__class__._parametrized_names.add(tensor_name)


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Makes ``module.<tensor_name>`` the output of ``parametrization`` (a
    module) applied to the tensor it keeps; a second registration on the same
    name chains after the first.

    Args:
        module (Module): the module.
        tensor_name (str): a parameter or buffer of module (or a name already parametrized).
        parametrization (Module): maps the original to the tensor used; may
            define ``right_inverse`` (the original for a given tensor).
        unsafe (bool): allow a parametrization that changes the shape or dtype.

    Returns:
        Module: module.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(x).__name__}.")
            if x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {x.dtype}")
            if tuple(x.shape) != tuple(y.shape):
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 "the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {tuple(y.shape)}\n"
                                 f"parametrization(module.{tensor_name}).shape: {tuple(x.shape)}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: "
                                         f"{type(z).__name__}")
                    if z.dtype != y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"dtype as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {y.dtype}\n"
                                         f"returned dtype: {z.dtype}")
                    if tuple(z.shape) != tuple(y.shape):
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"shape as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {tuple(y.shape)}\n"
                                         f"returned shape: {tuple(z.shape)}")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delete_attr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: Optional[str] = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    Args:
        module (Module): the module.
        tensor_name (str, optional): the name to look for.

    Returns:
        bool
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Removes the parametrizations of ``module.<tensor_name>``, which becomes
    a plain parameter or buffer again.

    Args:
        module (Module): the module.
        tensor_name (str): the parametrized name.
        leave_parametrized (bool): keep the current parametrized value (True)
            or the original (False; only for a single original).

    Returns:
        Module: module.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            original = _set(original, t)
    else:
        if leave_parametrized:
            t = getattr(module, tensor_name)
            original = Parameter(t) if t.requires_grad else t
        else:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
    delattr(module.__class__, tensor_name)
    module.__class__._parametrized_names.discard(tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delete_attr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations were registered (its own class otherwise)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: Optional[str] = None) -> Module:
    """Registers from_module's parametrizations (of ``tensor_name``, or all)
    on to_module too, sharing the same originals.

    Args:
        from_module (Module): the parametrized module.
        to_module (Module): the module that gets them.
        tensor_name (str, optional): one parametrized name (all when None).

    Returns:
        Module: to_module.
    """
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            source = from_module.parametrizations[name]
            target = to_module.parametrizations[name]
            # The same tensor objects: both modules then train one original.
            if hasattr(source, "original"):
                _register_parameter_or_buffer(target, "original", source.original)
            else:
                num = 0
                while hasattr(source, "original%d" % num):
                    _register_parameter_or_buffer(target, "original%d" % num, getattr(source, "original%d" % num))
                    num += 1
    return to_module
