"""Saving and loading through libtc's safetensors support (tc.h's tensor dict
section): safetensors.torch-style save_file/load_file/save/load_bytes for
flat dicts of tensors, tc.save/tc.load for state dicts (nested dicts, lists
and numbers too, as a PyTorch checkpoint holds), and the generator's state."""
import base64
import ctypes as C
import io
import json
import os
import pickle

from . import _core as K
from ._core import VP, byref, copy_string, fn
from ._errors import check
from ._tensor import Tensor, _call

_STRUCTURE_KEY = "tc.structure"  # metadata key tc.save uses for non-flat objects


class TensorDict:
    """An owned tc_tensor_dict handle (freed once, when this object dies)."""

    __slots__ = ("_h",)

    def __init__(self, handle=None):
        if handle is None:
            out = VP()
            check(fn("tc_tensor_dict_create")(byref(out)))
            handle = out
        self._h = handle if isinstance(handle, VP) else VP(handle)

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._h = None
            try:
                fn("tc_tensor_dict_free")(h)
            except Exception:  # interpreter teardown
                pass

    @classmethod
    def from_mapping(cls, tensors, metadata=None):
        """Builds a TensorDict from a name -> Tensor mapping.

        Args:
            tensors (Mapping[str, Tensor]): the tensors.
            metadata (dict, optional): string metadata.

        Returns:
            TensorDict: the new dict.
        """
        d = cls()
        for name, t in tensors.items():
            if not isinstance(name, str):
                raise TypeError("tensor names must be str, got %r" % (name,))
            if not isinstance(t, Tensor):
                raise TypeError("%r is a %s, not a tc.Tensor" % (name, type(t).__name__))
            d[name] = t
        for k, v in (metadata or {}).items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("metadata must map str to str, got %r: %r" % (k, v))
            check(fn("tc_tensor_dict_set_metadata")(d._h, k.encode(), v.encode()))
        return d

    def __setitem__(self, name, t):
        check(fn("tc_tensor_dict_set")(self._h, name.encode(), t._h))

    def __getitem__(self, name):
        return _call(fn("tc_tensor_dict_get"), self._h, name.encode())

    def __contains__(self, name):
        out = C.c_int32()
        check(fn("tc_tensor_dict_contains")(self._h, name.encode(), byref(out)))
        return out.value == 1

    def __len__(self):
        out = C.c_int64()
        check(fn("tc_tensor_dict_count")(self._h, byref(out)))
        return out.value

    def keys(self):
        """Returns the tensor names."""
        return [copy_string(fn("tc_tensor_dict_name_at"), self._h, i) for i in range(len(self))]

    def items(self):
        """Returns the (name, tensor) pairs."""
        return [(k, self[k]) for k in self.keys()]

    def metadata(self):
        """Returns the string metadata as a dict."""
        n = C.c_int64()
        check(fn("tc_tensor_dict_metadata_count")(self._h, byref(n)))
        keys = [copy_string(fn("tc_tensor_dict_metadata_key_at"), self._h, i) for i in range(n.value)]
        return {k: copy_string(fn("tc_tensor_dict_get_metadata"), self._h, k.encode()) for k in keys}

    def to_dict(self):
        """Returns a plain dict of name -> Tensor."""
        return {k: v for k, v in self.items()}


def _to_device(tensors, device):
    if device is None or K.device(device).type == "cpu":
        return tensors
    return {k: v.to(device) for k, v in tensors.items()}


def save_file(tensors, filename, metadata=None):
    """Like safetensors.torch.save_file: writes a dict name -> tensor (and a
    str -> str metadata dict) to filename, atomically."""
    d = TensorDict.from_mapping(tensors, metadata)
    check(fn("tc_save_safetensors")(d._h, os.fsencode(filename)))


def load_file(filename, device="cpu", mmap=True):
    """Like safetensors.torch.load_file: a dict name -> tensor (file order).
    mmap=True maps the file (tensors are zero-copy, copy-on-write views);
    mmap=False reads it into memory."""
    return _to_device(_load(filename, mmap).to_dict(), device)


def _load(filename, mmap=True):
    out = VP()
    check(fn("tc_load_safetensors")(os.fsencode(filename), 0 if mmap else K.D.TC_LOAD_COPY, byref(out)))
    return TensorDict(out)


def save_bytes(tensors, metadata=None):
    """Like safetensors.torch.save: the file's bytes."""
    d = TensorDict.from_mapping(tensors, metadata)
    b = _call(fn("tc_save_safetensors_bytes"), d._h)
    n = b.numel()
    return C.string_at(b.data_ptr(), n) if n else b""


def load_bytes(data):
    """Like safetensors.torch.load: a dict name -> tensor from bytes."""
    data = bytes(data)
    out = VP()
    check(fn("tc_load_safetensors_buffer")(data, len(data), byref(out)))
    return TensorDict(out).to_dict()


def metadata_of(filename):
    """The "__metadata__" map of a safetensors file."""
    return _load(filename).metadata()


# ---- tc.save / tc.load: state dicts and checkpoints --------------------------


def _encode(obj, path, tensors):
    if isinstance(obj, Tensor):
        name = path or "tensor"
        if name in tensors:
            raise ValueError("two objects would be saved under the name %r" % name)
        tensors[name] = obj
        return {"__tensor__": name}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                raise TypeError("tc.save: dict keys must be str, int, float, bool or None, got %r" % (k,))
            items.append([k, _encode(v, "%s.%s" % (path, k) if path else str(k), tensors)])
        return {"__dict__": items}
    if isinstance(obj, (list, tuple)):
        kind = "__list__" if isinstance(obj, list) else "__tuple__"
        return {kind: [_encode(v, "%s.%d" % (path, i) if path else str(i), tensors) for i, v in enumerate(obj)]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return {"__pickle__": _pickle(obj, path, tensors)}


def _pickle(obj, path, tensors):
    """Any other object (a whole Module, as torch.save(model, f) stores it):
    pickled, its tensors stored in the file under names of their own (a tensor
    reached twice, a tied weight, is stored once and comes back shared)."""
    names = {}

    class Pickler(pickle.Pickler):
        def persistent_id(self, o):
            if not isinstance(o, Tensor):
                return None
            name = names.get(id(o))
            if name is None:
                name = names[id(o)] = "%s.__pickled__.%d" % (path or "obj", len(names))
                tensors[name] = o.detach()
            from .nn.module import Parameter
            return (name, isinstance(o, Parameter), o.requires_grad)

    buf = io.BytesIO()
    Pickler(buf, protocol=4).dump(obj)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _unpickle(text, tensors):
    """The object _pickle stored (pickle: load only files you trust, as with torch.load)."""
    loaded = {}

    class Unpickler(pickle.Unpickler):
        def persistent_load(self, pid):
            name, is_param, requires_grad = pid
            if name not in loaded:
                t = tensors[name]
                if is_param:
                    from .nn.module import Parameter
                    t = Parameter(t, requires_grad)
                elif requires_grad:
                    t = t.detach().requires_grad_(True)
                loaded[name] = t
            return loaded[name]

    return Unpickler(io.BytesIO(base64.b64decode(text))).load()


def _decode(node, tensors):
    if isinstance(node, dict):
        if "__tensor__" in node:
            return tensors[node["__tensor__"]]
        if "__dict__" in node:
            return {k: _decode(v, tensors) for k, v in node["__dict__"]}
        if "__list__" in node:
            return [_decode(v, tensors) for v in node["__list__"]]
        if "__tuple__" in node:
            return tuple(_decode(v, tensors) for v in node["__tuple__"])
        if "__pickle__" in node:
            return _unpickle(node["__pickle__"], tensors)
        raise ValueError("tc.load: a malformed %s entry" % _STRUCTURE_KEY)
    return node


def save(obj, f):
    """Saves obj to the path f as a safetensors file. A dict str -> tensor
    (a Module's state_dict) is saved as is, readable by any safetensors
    reader; other objects (an optimizer's state_dict, a checkpoint dict
    holding several) are flattened into dotted tensor names, their structure
    and plain values kept in the file's metadata under "tc.structure"; any
    other object (a whole Module) is pickled there, its tensors stored as
    tensors (loading it runs pickle: load only files you trust, as torch.load)."""
    if isinstance(obj, dict) and all(isinstance(k, str) and isinstance(v, Tensor) for k, v in obj.items()):
        tensors, metadata = obj, None
    else:
        tensors = {}
        metadata = {_STRUCTURE_KEY: json.dumps(_encode(obj, "", tensors))}
    if hasattr(f, "write"):  # a file object, as torch.save takes
        f.write(save_bytes(tensors, metadata))
        return
    save_file(tensors, f, metadata)


def load(f, map_location=None, mmap=True):
    """Loads what tc.save wrote (or any safetensors file: a dict) from a path
    or a file object."""
    if hasattr(f, "read"):
        data = bytes(f.read())
        out = VP()
        check(fn("tc_load_safetensors_buffer")(data, len(data), byref(out)))
        d = TensorDict(out)
    else:
        d = _load(f, mmap)
    tensors = _to_device(d.to_dict(), map_location)
    meta = d.metadata()
    if _STRUCTURE_KEY not in meta:
        return tensors
    return _decode(json.loads(meta[_STRUCTURE_KEY]), tensors)


# ---- the generator's state ---------------------------------------------------


def get_rng_state():
    """The default generator's state (uint8 tensor), like torch.get_rng_state."""
    return _call(fn("tc_get_rng_state"))


def set_rng_state(new_state):
    """Restores a state from get_rng_state, like torch.set_rng_state."""
    if not isinstance(new_state, Tensor):
        raise TypeError("set_rng_state expects a tc.Tensor, got %s" % type(new_state).__name__)
    check(fn("tc_set_rng_state")(new_state._h))
