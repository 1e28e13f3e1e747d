"""The import hook behind tc.compat: a sys.meta_path finder that answers
imports of ``torch`` and ``torch.*`` with proxy modules over tc's.

The mapping is generic: ``torch.a.b`` is ``tc.a.b`` when tc has that module
(or its parent has an attribute ``b``), so a module added to tc later shows up
under its PyTorch name with no change here. A PyTorch module tc lacks (one of
the names in _torch_modules) imports as an empty placeholder; any attribute
of a proxy that tc lacks raises MissingAttribute, a NotImplementedError that
names the PyTorch name ("torch.fft.hfft2 is not implemented in tc")."""
import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from ._torch_modules import TORCH_MODULES


def _not_implemented(name):
    return "%s is not implemented in tc" % name


class MissingAttribute(NotImplementedError, AttributeError):
    """A PyTorch attribute tc does not have. A NotImplementedError, so that a
    program fails with a clear message; an AttributeError too, so that
    feature probes (``hasattr(torch.backends, "mps")``, ``getattr(m, n,
    default)``) behave as with a PyTorch that lacks the name."""

    def __init__(self, torch_name):
        NotImplementedError.__init__(self, _not_implemented(torch_name))
        self.torch_name = torch_name


class MissingModule(NotImplementedError, ImportError):
    """A PyTorch module (or a name imported from one) tc does not have. An
    ImportError too, so that ``try: import torch.x except ImportError`` keeps
    working."""

    def __init__(self, torch_name):
        NotImplementedError.__init__(self, _not_implemented(torch_name))
        self.torch_name = torch_name
        self.name = None  # not the module's name: the import system must not swallow it


def _tc_name(torch_name):
    """"torch.a.b" -> "tc.a.b"."""
    return "tc" + torch_name[len("torch"):]


def _torch_name(tc_name):
    """"tc.a.b" -> "torch.a.b"."""
    return "torch" + tc_name[len("tc"):]


class TorchProxy(types.ModuleType):
    """A module named ``torch...`` whose attributes are its tc target's (a
    tc module, or any object tc keeps under that name), or, for a module tc
    lacks, a placeholder (target None). Attributes set on the proxy itself
    (``torch.backends.cudnn.benchmark = True``) stay on the proxy."""

    def __init__(self, name, target):
        super().__init__(name)
        object.__setattr__(self, "_tc_target", target)
        if target is not None and getattr(target, "__doc__", None):
            self.__doc__ = target.__doc__

    def __getattr__(self, attr):
        # Only reached when the proxy's own __dict__ lacks attr.
        target = self.__dict__.get("_tc_target")
        full = "%s.%s" % (self.__name__, attr)
        if target is not None:
            try:
                value = getattr(target, attr)
            except AttributeError:
                pass
            else:
                if isinstance(value, types.ModuleType) and value.__name__.startswith("tc."):
                    # A tc submodule reached as an attribute: hand out its proxy,
                    # so that what tc lacks inside it is reported too.
                    return importlib.import_module(_torch_name(value.__name__))
                return value
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError("module %r has no attribute %r" % (self.__name__, attr))
        if full in TORCH_MODULES:
            return importlib.import_module(full)
        raise MissingAttribute(full)

    def __dir__(self):
        names = set(self.__dict__)
        target = self.__dict__.get("_tc_target")
        if target is not None:
            names.update(dir(target))
        return sorted(names)

    def __repr__(self):
        target = self.__dict__.get("_tc_target")
        if target is None:
            return "<module %r (not implemented in tc)>" % self.__name__
        return "<module %r (tc: %r)>" % (self.__name__, getattr(target, "__name__", target))


def _import_tc_module(tc_name):
    """The tc module tc_name, or None when tc has no such module (an import
    error inside an existing tc module still propagates)."""
    try:
        return importlib.import_module(tc_name)
    except ModuleNotFoundError as e:
        missing = e.name or ""
        if missing == tc_name or tc_name.startswith(missing + "."):
            return None
        raise


def resolve(torch_name):
    """(found, target) for a PyTorch module name: target is the tc module or
    object it maps to, or None for a PyTorch module tc lacks; found is False
    when the name is neither in tc nor a PyTorch module."""
    target = _import_tc_module(_tc_name(torch_name))
    if target is not None:
        return True, target
    parent_name, _, last = torch_name.rpartition(".")
    parent = sys.modules.get(parent_name)
    parent_target = parent.__dict__.get("_tc_target") if isinstance(parent, TorchProxy) else None
    if parent_target is not None:
        value = getattr(parent_target, last, None)
        if value is not None:
            return True, value
    if torch_name in TORCH_MODULES:
        return True, None
    return False, None


class _ProxyLoader(importlib.abc.Loader):
    """Makes the proxy module for a spec found by TorchFinder."""

    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return TorchProxy(spec.name, self.target)

    def exec_module(self, module):
        pass


class TorchFinder(importlib.abc.MetaPathFinder):
    """Finds ``torch`` and ``torch.*`` (not ``torchvision`` nor ``torchtext``,
    which are separate packages and are left to fail as usual)."""

    def find_spec(self, fullname, path=None, target=None):
        """A spec whose loader builds the proxy; raises MissingModule for a
        name neither tc nor PyTorch has as a module (the form ``from
        torch.fft import rfft`` takes when torch.fft lacks rfft)."""
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        found, obj = resolve(fullname)
        if not found:
            raise MissingModule(fullname)
        # is_package: every proxy has a __path__, so that "from torch.x import
        # name" asks this finder for a missing name instead of failing with a
        # bare "cannot import name".
        return importlib.machinery.ModuleSpec(fullname, _ProxyLoader(obj), is_package=True)
