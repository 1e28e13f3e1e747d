"""The rest of torch.nn.ModuleList's list interface (PyTorch 1.13's
container.py), added to tc's ModuleList: ``+=`` / extend (a flow's
``self.layers += [...]``), ``+``, insert, pop, slicing, item assignment
and deletion (which renumbers the modules "0".."n-1", as PyTorch does, so
that state_dict keys stay the same)."""
import collections.abc
import itertools
import operator

from .modules import ModuleList


def _abs_index(self, idx):
    """The key ("0", "1", ...) of position idx (negative counts from the end)."""
    idx = operator.index(idx)
    if not (-len(self) <= idx < len(self)):
        raise IndexError("index {} is out of range".format(idx))
    if idx < 0:
        idx += len(self)
    return str(idx)


def __getitem__(self, idx):
    """The module at position idx, or a ModuleList of a slice's modules."""
    if isinstance(idx, slice):
        return self.__class__(list(self._modules.values())[idx])
    return self._modules[_abs_index(self, idx)]


def __setitem__(self, idx, module):
    """Replaces the module at position idx."""
    setattr(self, _abs_index(self, idx), module)


def __delitem__(self, idx):
    """Removes the module(s) at idx (an int or a slice) and renumbers the rest."""
    if isinstance(idx, slice):
        for k in range(len(self._modules))[idx]:
            delattr(self, str(k))
    else:
        delattr(self, _abs_index(self, idx))
    remaining = list(self._modules.values())
    self._modules.clear()
    for i, module in enumerate(remaining):
        self._modules[str(i)] = module


def __iadd__(self, modules):
    """``self += modules``: extend."""
    return self.extend(modules)


def __add__(self, other):
    """A new ModuleList holding this list's modules, then other's."""
    combined = ModuleList()
    for i, module in enumerate(itertools.chain(self, other)):
        combined.add_module(str(i), module)
    return combined


def __dir__(self):
    """Module's dir() without the numeric keys."""
    return [key for key in super(ModuleList, self).__dir__() if not key.isdigit()]


def insert(self, index, module):
    """Inserts module before position index.

    Args:
        index (int): where to insert.
        module (Module): the module.
    """
    for i in range(len(self._modules), index, -1):
        self._modules[str(i)] = self._modules[str(i - 1)]
    self._modules[str(index)] = module


def pop(self, key):
    """Removes and returns the module(s) at key (an int or a slice).

    Args:
        key (int or slice): the position(s).
    """
    value = self[key]
    del self[key]
    return value


def extend(self, modules):
    """Appends the modules of an iterable; returns self.

    Args:
        modules (iterable of Module): the modules to append.
    """
    if not isinstance(modules, collections.abc.Iterable):
        raise TypeError("ModuleList.extend should be called with an iterable, but got "
                        + type(modules).__name__)
    offset = len(self)
    for i, module in enumerate(modules):
        self.add_module(str(offset + i), module)
    return self


def install():
    """Adds the methods above to tc.nn.ModuleList (once tc.nn is imported)."""
    for fn in (__getitem__, __setitem__, __delitem__, __iadd__, __add__, __dir__, insert, pop, extend):
        fn.__qualname__ = "ModuleList." + fn.__name__
        setattr(ModuleList, fn.__name__, fn)
