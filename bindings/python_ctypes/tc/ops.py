"""Custom op libraries (torch.ops): tc.ops.load_library(path) loads a shared
library that registers ops through libtc's registrar (include/tc.h, "Custom
op libraries"); each registered op is then callable as
tc.ops.<namespace>.<name>(*args), its arguments in the order of its schema
("myops::scaled_square(Tensor x, float alpha) -> Tensor"), and records
autograd when the op has a backward."""
import ctypes as C
import re

from . import _decls as D
from ._core import VP, byref, copy_string, fn
from ._errors import check
from ._tensor_base import TensorBase, _wrap

_I64 = C.c_int64
_ARG = re.compile(r"(Tensor|float|int) (\w+)")


class Library:
    """A loaded op library: unload() (or garbage collection) frees its handle;
    the library's ops stay registered while another handle holds it."""

    __slots__ = ("_h", "path")

    def __init__(self, h, path):
        self._h = h
        self.path = path

    def library_path(self):
        """The path libtc loaded the library from."""
        return copy_string(fn("tc_library_path"), self._h)

    def unload(self):
        h, self._h = self._h, None
        if h:
            check(fn("tc_library_unload")(h))

    def __repr__(self):
        return "tc.ops.Library(%r)" % self.path


# Libraries loaded through this module, by path, kept loaded until exit (as
# torch.ops.load_library does); loading a path again returns the same object.
_loaded = {}


def load_library(path):
    """Loads the op library at path and registers its ops (all or none: a
    broken library raises with libtc's message and registers nothing)."""
    import os
    path = os.fspath(path)
    lib = _loaded.get(path)
    if lib is not None and lib._h:
        return lib
    out = VP()
    check(fn("tc_load_library")(path.encode(), byref(out)))
    lib = Library(out, path)
    _loaded[path] = lib
    return lib


def op_names():
    """Every registered op's full name ("myops::scaled_square"), sorted."""
    n = _I64()
    check(fn("tc_op_count")(byref(n)))
    return [copy_string(fn("tc_op_name_at"), _I64(i)) for i in range(n.value)]


class Op:
    """One registered op (a tc_op handle): call it with its schema's arguments."""

    __slots__ = ("_h", "name", "schema", "_args", "_n_outputs")

    def __init__(self, name):
        h = VP()
        check(fn("tc_op_find")(name.encode(), byref(h)))
        self._h = h
        self.name = name
        self.schema = copy_string(fn("tc_op_schema"), h)
        inside = self.schema[self.schema.index("(") + 1:self.schema.index(")")]
        self._args = _ARG.findall(inside)
        ret = self.schema.split("->", 1)[1].strip()
        self._n_outputs = ret.count("Tensor")

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            try:
                fn("tc_op_free")(h)
            except Exception:
                pass

    def __call__(self, *args, **kwargs):
        if len(args) > len(self._args):
            raise TypeError("%s takes %d arguments (%d given)" % (self.name, len(self._args), len(args)))
        values = list(args)
        for kind, name in self._args[len(args):]:
            if name not in kwargs:
                raise TypeError("%s missing argument '%s' (%s)" % (self.name, name, self.schema))
            values.append(kwargs.pop(name))
        if kwargs:
            raise TypeError("%s got unexpected arguments %s" % (self.name, sorted(kwargs)))
        tensors, scalars = [], []
        for (kind, name), v in zip(self._args, values):
            if kind == "Tensor":
                if not isinstance(v, TensorBase):
                    raise TypeError("%s: argument '%s' must be a Tensor, not %s" % (self.name, name, type(v).__name__))
                tensors.append(v._h)
            elif kind == "int":
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError("%s: argument '%s' must be an int, not %s" % (self.name, name, type(v).__name__))
                scalars.append(float(v))
            else:
                if not isinstance(v, (int, float)) or isinstance(v, bool):
                    raise TypeError("%s: argument '%s' must be a float, not %s" % (self.name, name, type(v).__name__))
                scalars.append(float(v))
        ins = (D.tc_tensor * max(1, len(tensors)))(*tensors)
        sc = (C.c_double * max(1, len(scalars)))(*scalars)
        outs = (D.tc_tensor * max(1, self._n_outputs))()
        count = _I64()
        check(fn("tc_op_call")(self._h, ins, _I64(len(tensors)), sc, _I64(len(scalars)), outs,
                               _I64(self._n_outputs), byref(count)))
        result = tuple(_wrap(outs[k]) for k in range(count.value))
        return result[0] if self._n_outputs == 1 else result

    @property
    def library_path(self):
        """The path of the library that registered the op."""
        return copy_string(fn("tc_op_library_path"), self._h)

    def __repr__(self):
        return "tc.ops.Op(%r)" % self.schema


def call(name, tensors, scalars=()):
    """Calls the op `name` ("myops::scaled_square") with its Tensor arguments
    and its float/int arguments as two lists, each in schema order (no
    argument checks here beyond libtc's); returns a tuple of its outputs."""
    ins = (D.tc_tensor * max(1, len(tensors)))(*[t._h for t in tensors])
    sc = (C.c_double * max(1, len(scalars)))(*[float(v) for v in scalars])
    outs = (D.tc_tensor * D.TC_FUNCTION_MAX_OUTPUTS)()
    count = _I64()
    check(fn("tc_op_call_by_name")(name.encode(), ins, _I64(len(tensors)), sc, _I64(len(scalars)), outs,
                                   _I64(D.TC_FUNCTION_MAX_OUTPUTS), byref(count)))
    return tuple(_wrap(outs[k]) for k in range(count.value))


class _Namespace:
    """tc.ops.<namespace>: its ops as attributes, found when first used."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        op = Op("%s::%s" % (self._name, name))
        return op

    def __repr__(self):
        return "tc.ops.%s" % self._name


def __getattr__(name):
    """tc.ops.<namespace> (module __getattr__, PEP 562)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return _Namespace(name)
