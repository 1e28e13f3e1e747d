"""numpy and DLPack interop, zero-copy both ways.

- Tensor.numpy(): an ndarray over the tensor's memory whose .base keeps the
  Tensor (and so its handle) alive; not writeable when the tensor is
  read-only.
- tc.from_numpy(a): a tensor over a's memory (tc_from_blob); the array is
  kept in a table until libtc calls our deleter, which drops it. A
  non-writeable array gives a read-only tensor (tc_tensor_set_readonly): libtc
  refuses to write into it, as numpy does.
- DLPack: __dlpack__ exports a "dltensor_versioned" capsule (DLPack 1.x) when
  the consumer passes max_version >= (1, 0), else a legacy "dltensor" capsule
  (numpy < 2.1 and torch 1.13 only read those) wrapping the versioned one;
  tc.from_dlpack imports both kinds without copying.
"""
import ctypes as C
import itertools
import threading

from . import _core as K
from ._core import VP, byref, fn
from ._errors import MissingFunctionError, check, error_for
from ._tensor_base import _call, _wrap

# ---------------------------------------------------------------- numpy

def _requires_grad(t):
    try:
        return t.requires_grad
    except MissingFunctionError:  # a libtc without autograd: nothing requires grad
        return False


_NP_TYPESTR = {"float32": "<f4", "float64": "<f8", "float16": "<f2", "int8": "|i1", "int16": "<i2",
               "int32": "<i4", "int64": "<i8", "uint8": "|u1", "bool": "|b1"}


class _ArrayView:
    """Carries __array_interface__ for numpy and keeps the tensor alive
    (numpy stores this object as the array's base)."""

    __slots__ = ("tensor", "__array_interface__")

    def __init__(self, t, ptr, shape, strides, typestr, readonly=False):
        self.tensor = t
        self.__array_interface__ = {"version": 3, "data": (ptr, bool(readonly)), "shape": shape,
                                    "strides": strides, "typestr": typestr}


def to_numpy(t, for_array=False):
    import numpy as np

    if t.device.type != "cpu":
        raise TypeError("can't convert %s device tensor to numpy; use .cpu() first" % t.device)
    if not for_array and _requires_grad(t):
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                           "instead.")
    dt = t.dtype
    typestr = _NP_TYPESTR.get(dt.name)
    if typestr is None:
        if for_array:  # np.asarray(t) of bfloat16: a float32 copy
            return to_numpy(t.to(K.float32), True)
        raise TypeError("numpy has no %s; convert with .float() first" % dt.name)
    shape = tuple(t.shape)
    readonly = is_readonly(t)
    if t.numel() == 0:
        a = np.empty(shape, dtype=typestr)
        a.flags.writeable = not readonly
        return a
    item = dt.itemsize
    strides = tuple(s * item for s in t.stride())
    holder = _ArrayView(t.detach() if _requires_grad(t) else t, t.data_ptr(), shape, strides, typestr,
                        readonly)
    return np.asarray(holder)


_is_readonly_f = fn("tc_tensor_is_readonly")
_set_readonly_f = fn("tc_tensor_set_readonly")
_free_f = fn("tc_tensor_free")


def is_readonly(t):
    """Whether libtc refuses writes into t's memory (tc_tensor_is_readonly);
    False with a libtc that predates read-only tensors."""
    out = C.c_int32()
    try:
        check(_is_readonly_f(t._h, byref(out)))
    except MissingFunctionError:
        return False
    return bool(out.value)


def _mark_readonly(t):
    """Marks t read-only; on failure frees t's handle now (so libtc calls the
    deleter that returns the lent memory) and raises. t is never handed out
    writable over memory its owner made read-only."""
    rc = _set_readonly_f(t._h)
    if rc:
        error = error_for(rc)
        h, t._h = t._h, None
        _free_f(h)
        raise error
    return t


_NP_TO_TC = {"float32": K.float32, "float64": K.float64, "float16": K.float16, "int8": K.int8,
             "int16": K.int16, "int32": K.int32, "int64": K.int64, "uint8": K.uint8, "bool": K.bool_}

# Arrays lent to libtc, by a token passed as the deleter's context.
_lent = {}
_lent_lock = threading.Lock()
_tokens = itertools.count(1)


def _release(_data, context):
    with _lent_lock:
        _lent.pop(context, None)


# The one deleter: alive for the whole process, as libtc may call it late.
_DELETER = K.D.tc_deleter(_release)


def lent_count():
    """Arrays libtc still borrows (for tests)."""
    with _lent_lock:
        return len(_lent)


def from_numpy(a):
    """A tensor sharing a's memory (no copy); a stays alive while any tensor
    uses it. A non-writeable array (a read-only memmap, np.frombuffer of
    bytes) gives a read-only tensor: in-place ops on it raise tc.ReadOnlyError
    (PyTorch warns and lets them write; libtc refuses)."""
    import numpy as np

    if not isinstance(a, np.ndarray):
        raise TypeError("expected np.ndarray (got %s)" % type(a).__name__)
    dt = _NP_TO_TC.get(a.dtype.name)
    if dt is None or not a.dtype.isnative:
        raise TypeError("can't convert np.ndarray of type %s; the supported types are: %s"
                        % (a.dtype, ", ".join(sorted(_NP_TO_TC))))
    item = a.itemsize
    if any(s < 0 for s in a.strides):
        raise ValueError("At least one stride in the given numpy array is negative; make a copy "
                         "(np.ascontiguousarray) first")
    if any(s % item for s in a.strides):
        raise ValueError("numpy strides that are not a multiple of the element size are not supported")
    shape, n = K.int64_array(a.shape)
    strides, _ = K.int64_array([s // item for s in a.strides])
    if a.size == 0:  # libtc wants a non-NULL pointer; an empty tensor needs no memory
        t = _call(fn("tc_empty"), shape, n, dt.code, 0)
    else:
        token = next(_tokens)
        with _lent_lock:
            _lent[token] = a
        # tc_from_blob calls the deleter itself when it fails: nothing leaks.
        t = _call(fn("tc_from_blob"), a.ctypes.data, shape, strides, n, dt.code, _DELETER, token)
    if not a.flags.writeable:
        _mark_readonly(t)
    return t


def tensor_from_numpy_copy(a, dtype=None):
    import numpy as np

    a = np.asarray(a)
    if a.dtype.name not in _NP_TO_TC:
        if a.dtype.kind == "f":
            a = a.astype(np.float64)
        else:
            raise TypeError("can't convert np.ndarray of type %s" % a.dtype)
    copied = np.array(a, copy=True, order="C")  # writeable, even when a is not
    t = from_numpy(copied).clone() if a.size else from_numpy(copied)
    if dtype is not None:
        t = t.to(K.to_dtype(dtype))
    return t


# ---------------------------------------------------------------- DLPack structs

class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    pass


_LEGACY_DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p),
                            ("deleter", _LEGACY_DELETER)]


class DLPackVersion(C.Structure):
    _fields_ = [("major", C.c_uint32), ("minor", C.c_uint32)]


class DLManagedTensorVersioned(C.Structure):
    pass


_VERSIONED_DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", C.c_void_p),
                                     ("deleter", _VERSIONED_DELETER), ("flags", C.c_uint64),
                                     ("dl_tensor", DLTensor)]

kDLCPU, kDLCUDA = 1, 2
DLPACK_FLAG_BITMASK_READ_ONLY = 1 << 0

# ---------------------------------------------------------------- capsules

_api = C.pythonapi
_PyCapsule_New = _api.PyCapsule_New
_PyCapsule_New.restype = C.py_object
_PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
_PyCapsule_GetPointer = _api.PyCapsule_GetPointer
_PyCapsule_GetPointer.restype = C.c_void_p
_PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
_PyCapsule_IsValid = _api.PyCapsule_IsValid
_PyCapsule_IsValid.restype = C.c_int
_PyCapsule_IsValid.argtypes = [C.py_object, C.c_char_p]
_PyCapsule_SetName = _api.PyCapsule_SetName
_PyCapsule_SetName.restype = C.c_int
_PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
_PyCapsule_GetName = _api.PyCapsule_GetName
_PyCapsule_GetName.restype = C.c_char_p
_PyCapsule_GetName.argtypes = [C.py_object]

# The destructor sees the capsule while it is being destroyed: take it as a
# raw pointer (a py_object would resurrect it) and use the raw C API.
_PyCapsule_IsValid_raw = C.PYFUNCTYPE(C.c_int, C.c_void_p, C.c_char_p)(("PyCapsule_IsValid", _api))
_PyCapsule_GetPointer_raw = C.PYFUNCTYPE(C.c_void_p, C.c_void_p, C.c_char_p)(("PyCapsule_GetPointer", _api))

VERSIONED_NAME = b"dltensor_versioned"
LEGACY_NAME = b"dltensor"
USED_VERSIONED_NAME = b"used_dltensor_versioned"
USED_LEGACY_NAME = b"used_dltensor"


def _versioned_capsule_destructor(capsule):
    # Unconsumed: nobody took ownership, so the producer's deleter runs here.
    if _PyCapsule_IsValid_raw(capsule, VERSIONED_NAME):
        p = _PyCapsule_GetPointer_raw(capsule, VERSIONED_NAME)
        m = C.cast(p, C.POINTER(DLManagedTensorVersioned))
        if m.contents.deleter:
            m.contents.deleter(m)


def _legacy_capsule_destructor(capsule):
    if _PyCapsule_IsValid_raw(capsule, LEGACY_NAME):
        p = _PyCapsule_GetPointer_raw(capsule, LEGACY_NAME)
        m = C.cast(p, C.POINTER(DLManagedTensor))
        if m.contents.deleter:
            m.contents.deleter(m)


_DESTRUCTOR = C.PYFUNCTYPE(None, C.c_void_p)
_VERSIONED_DESTRUCTOR = _DESTRUCTOR(_versioned_capsule_destructor)
_LEGACY_DESTRUCTOR = _DESTRUCTOR(_legacy_capsule_destructor)

# Legacy wrappers alive until their consumer calls the deleter: address ->
# (DLManagedTensor struct, versioned pointer).
_legacy_live = {}
_legacy_lock = threading.Lock()


def _legacy_deleter(m):
    addr = C.cast(m, C.c_void_p).value
    with _legacy_lock:
        entry = _legacy_live.pop(addr, None)
    if entry is not None:
        versioned = entry[1]
        versioned.contents.deleter(versioned)


_LEGACY_DELETER_FN = _LEGACY_DELETER(_legacy_deleter)


def legacy_live_count():
    with _legacy_lock:
        return len(_legacy_live)


def dlpack_device(t):
    d = t.device
    return (kDLCUDA, d.index) if d.type == "cuda" else (kDLCPU, 0)


def _export_versioned(t):
    out = VP()
    check(fn("tc_to_dlpack")(t._h, byref(out)))
    return C.cast(out.value, C.POINTER(DLManagedTensorVersioned))


def to_dlpack_capsule(t, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of t: versioned (DLPack 1.x, with the read-only flag
    of a read-only tensor) for a consumer passing max_version >= (1, 0), else
    legacy. A read-only tensor has no legacy export (a legacy DLTensor cannot
    say read-only, and its consumer would write): BufferError, like numpy's,
    unless copy=True."""
    if copy:
        t = t.clone()
    if dl_device is not None and tuple(dl_device) != dlpack_device(t):
        raise BufferError("tc: cannot export to DLPack device %s (tensor is on %s)" % (dl_device, t.device))
    if _requires_grad(t):
        t = t.detach()
    readonly = is_readonly(t)
    wants_versioned = max_version is not None and tuple(max_version)[0] >= 1
    if readonly and not wants_versioned:
        raise BufferError("tc: cannot export a read-only tensor as a legacy DLPack capsule (it cannot "
                          "carry the read-only flag); ask for max_version=(1, 0), or pass copy=True")
    versioned = _export_versioned(t)
    if readonly:  # (libtc sets it too; a library that predates read-only tensors does not)
        versioned.contents.flags |= DLPACK_FLAG_BITMASK_READ_ONLY
    if wants_versioned:
        return _PyCapsule_New(C.cast(versioned, C.c_void_p), VERSIONED_NAME,
                              C.cast(_VERSIONED_DESTRUCTOR, C.c_void_p))
    # A legacy DLManagedTensor that shares the versioned one's DLTensor and
    # calls its deleter when its own consumer is done.
    legacy = DLManagedTensor()
    legacy.dl_tensor = versioned.contents.dl_tensor
    legacy.manager_ctx = None
    legacy.deleter = _LEGACY_DELETER_FN
    addr = C.addressof(legacy)
    with _legacy_lock:
        _legacy_live[addr] = (legacy, versioned)
    return _PyCapsule_New(addr, LEGACY_NAME, C.cast(_LEGACY_DESTRUCTOR, C.c_void_p))


def from_dlpack(obj):
    """A tensor sharing the memory of any DLPack producer (an object with
    __dlpack__, or a capsule), versioned or legacy, without copying. A
    versioned capsule flagged read-only gives a read-only tensor."""
    if hasattr(obj, "__dlpack__"):
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:  # a producer that predates DLPack 1.0's keyword
            capsule = obj.__dlpack__()
    else:
        capsule = obj
    name = _PyCapsule_GetName(capsule)
    if name == VERSIONED_NAME:
        versioned, used = 1, USED_VERSIONED_NAME
    elif name == LEGACY_NAME:
        versioned, used = 0, USED_LEGACY_NAME
    else:
        raise ValueError("expected a DLPack capsule named 'dltensor_versioned' or 'dltensor' "
                         "(an unused one), got %r" % (name,))
    ptr = capsule_ptr = _PyCapsule_GetPointer(capsule, name)
    if not versioned:
        with _legacy_lock:
            own = _legacy_live.get(capsule_ptr)
        if own is not None:
            # This package's own legacy wrapper of a libtc export: import the
            # export itself, which libtc takes back as a view of the tensor's
            # memory instead of a wrapper keeping the tensor alive (tc.h).
            ptr, versioned = C.cast(own[1], C.c_void_p).value, 1
    readonly = versioned and bool(C.cast(ptr, C.POINTER(DLManagedTensorVersioned)).contents.flags
                                  & DLPACK_FLAG_BITMASK_READ_ONLY)
    out = VP()
    rc = fn("tc_from_dlpack")(ptr, versioned, byref(out))
    if rc:
        raise error_for(rc)  # the capsule still owns the tensor: its destructor frees it
    with _legacy_lock:
        _legacy_live.pop(capsule_ptr, None)  # an own wrapper's export is libtc's now
    _PyCapsule_SetName(capsule, used)  # libtc owns it now
    t = _wrap(out.value)
    if readonly and not is_readonly(t):  # libtc marks it; one that predates read-only tensors does not
        _mark_readonly(t)
    return t


def to_dlpack(t):
    """A legacy DLPack capsule of t (like torch.utils.dlpack.to_dlpack)."""
    return to_dlpack_capsule(t)
