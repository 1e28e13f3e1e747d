"""ModuleDict, ParameterList and ParameterDict, as torch.nn's: their entries
are registered under their keys (or indices), so parameters(),
named_parameters() and state_dict() name them as PyTorch does."""
import collections
from typing import Any, Iterable, Iterator, Mapping, Optional, Tuple

from .modules import Module, Parameter
from .._tensor import Tensor


def _as_parameter(value: Any) -> Any:
    # PyTorch wraps plain tensors put into Parameter containers.
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ModuleDict(Module):
    """Holds submodules in a dict, registered under their keys.

    Args:
        modules: an optional mapping or iterable of (name, module) pairs.
    """

    def __init__(self, modules: Optional[Any] = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]
        object.__delattr__(self, key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Removes every module."""
        for k in list(self._modules):
            del self[k]

    def pop(self, key: str) -> Module:
        """Removes the module under key and returns it."""
        m = self[key]
        del self[key]
        return m

    def keys(self):
        """The names."""
        return self._modules.keys()

    def items(self):
        """(name, module) pairs."""
        return self._modules.items()

    def values(self):
        """The modules."""
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Adds (or replaces) modules from a mapping or an iterable of (name, module) pairs."""
        pairs = modules.items() if isinstance(modules, (Mapping, ModuleDict)) else modules
        for k, m in pairs:
            self[k] = m


class ParameterList(Module):
    """Holds parameters in a list, registered as "0", "1", ...

    Args:
        values: an optional iterable of parameters (plain tensors become Parameters).
    """

    def __init__(self, values: Optional[Iterable[Any]] = None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([getattr(self, str(i)) for i in range(self._size)[idx]])
        if idx < 0:
            idx += self._size
        if not 0 <= idx < self._size:
            raise IndexError("index %d is out of range" % idx)
        return getattr(self, str(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        if idx < 0:
            idx += self._size
        setattr(self, str(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(self._size))

    def append(self, value: Any) -> "ParameterList":
        """Adds a parameter at the end."""
        i = self._size
        object.__setattr__(self, "_size", i + 1)
        setattr(self, str(i), _as_parameter(value))
        return self

    def extend(self, values: Iterable[Any]) -> "ParameterList":
        """Adds parameters at the end."""
        for v in values:
            self.append(v)
        return self


class ParameterDict(Module):
    """Holds parameters in a dict, registered under their keys.

    Args:
        parameters: an optional mapping or iterable of (name, parameter) pairs.
    """

    def __init__(self, parameters: Optional[Any] = None):
        super().__init__()
        object.__setattr__(self, "_keys", collections.OrderedDict())
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        self._parameters.pop(key, None)
        object.__delattr__(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self):
        """The names."""
        return self._keys.keys()

    def items(self) -> Iterator[Tuple[str, Any]]:
        """(name, parameter) pairs."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The parameters."""
        return (self[k] for k in self._keys)

    def pop(self, key: str) -> Any:
        """Removes the parameter under key and returns it."""
        v = self[key]
        del self[key]
        return v

    def update(self, parameters: Any) -> None:
        """Adds (or replaces) parameters from a mapping or an iterable of (name, parameter) pairs."""
        pairs = parameters.items() if isinstance(parameters, (Mapping, ParameterDict)) else parameters
        for k, v in pairs:
            self[k] = v
