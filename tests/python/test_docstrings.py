"""Every public function, class, method and property of the `tc` package has a
docstring: walks the public namespaces, every Tensor method and
property, and the methods of every tc.nn / tc.optim / tc.utils.data class
defined in tc, and fails listing whatever lacks one."""
import inspect
import types

import tc
import tc.autograd
import tc.cuda
import tc.distributed
import tc.nn
import tc.nn.functional
import tc.nn.init
import tc.nn.utils
import tc.optim
import tc.optim.lr_scheduler
import tc.serialization
import tc.utils.data

NAMESPACES = [tc, tc.autograd, tc.cuda, tc.distributed, tc.nn, tc.nn.functional,
              tc.nn.init, tc.nn.utils, tc.optim, tc.optim.lr_scheduler,
              tc.serialization, tc.utils.data]


def _ours(obj):
    mod = getattr(obj, "__module__", None) or ""
    return mod == "tc" or mod.startswith("tc.")


def _public_names(ns):
    names = getattr(ns, "__all__", None)
    if names is None:
        names = [n for n in vars(ns) if not n.startswith("_")]
    return [n for n in names if not n.startswith("_")]


def _has_doc(obj):
    doc = inspect.getdoc(obj) if not isinstance(obj, property) else obj.__doc__
    return bool(doc and doc.strip())


def _class_members(cls, where, missing):
    """The public methods/properties that `cls` itself defines (inherited ones
    are checked on the class that defines them)."""
    for name, attr in vars(cls).items():
        if name.startswith("_") and name not in ("__init__", "__call__"):
            continue
        if name == "__init__":
            continue  # the class docstring documents construction
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if isinstance(attr, property):
            if not _has_doc(attr):
                missing.append(f"{where}.{name} (property)")
        elif inspect.isfunction(attr) and _ours(attr):
            if not (attr.__doc__ and attr.__doc__.strip()):
                missing.append(f"{where}.{name}")


def _collect():
    missing = []
    seen = set()
    classes = []
    for ns in NAMESPACES:
        for name in _public_names(ns):
            obj = getattr(ns, name, None)
            if obj is None or isinstance(obj, types.ModuleType) or not _ours(obj):
                continue
            if not (inspect.isclass(obj) or callable(obj)):
                continue
            where = f"{ns.__name__}.{name}"
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if not (obj.__doc__ and obj.__doc__.strip()):
                missing.append(where)
            if inspect.isclass(obj):
                classes.append((obj, f"{obj.__module__}.{obj.__qualname__}"))
    # every tc class reachable from those (base classes too, e.g. Module, Optimizer)
    done = set()
    while classes:
        cls, where = classes.pop()
        if cls in done:
            continue
        done.add(cls)
        _class_members(cls, where, missing)
        for base in cls.__mro__[1:]:
            if _ours(base) and base not in done:
                if not (base.__doc__ and base.__doc__.strip()):
                    missing.append(f"{base.__module__}.{base.__qualname__}")
                classes.append((base, f"{base.__module__}.{base.__qualname__}"))
    # Tensor: every method and property, wherever it was installed from
    for name in dir(tc.Tensor):
        if name.startswith("_"):
            continue
        attr = inspect.getattr_static(tc.Tensor, name)
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if isinstance(attr, property):
            if not _has_doc(attr):
                missing.append(f"tc.Tensor.{name} (property)")
        elif callable(attr) and not (getattr(attr, "__doc__", None) or "").strip():
            missing.append(f"tc.Tensor.{name}")
    return sorted(set(missing))


def test_every_public_api_has_a_docstring():
    missing = _collect()
    assert not missing, f"{len(missing)} public APIs lack a docstring:\n  " + "\n  ".join(missing)


if __name__ == "__main__":
    print("\n".join(_collect()))
