"""tc.Tensor's conversions: to Python values (item, tolist, float(t), ...), to
other dtypes and devices (to, float(), cuda(), ...), to text, pickles, numpy
and DLPack (a mixin of tc.Tensor, tc/_tensor/__init__.py)."""
import array
import ctypes as C
from typing import TYPE_CHECKING, Any, Union

from .. import _core as K
from .._tensor_base import (TensorBase, _ARRAY_CODES, _call, _copy_to_f, _item_f, _rebuild_tensor, _select_f,
                            _to_device_f, _to_dtype_f, byref, check, error_for, fn)
from .._interop import dlpack_device, to_dlpack_capsule, to_numpy

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class ConversionMethods:
    """tc.Tensor's conversions: to Python values (item, tolist, float(t), ...),
    to other dtypes and devices (to, float(), cuda(), ...), to text, pickles,
    numpy and DLPack."""

    __slots__ = ()

    def item(self) -> Union[int, float, bool]:
        """Returns the value of a one-element tensor as a Python number."""
        out = C.c_double()
        rc = _item_f(self._h, byref(out))
        if rc:
            raise error_for(rc)
        dt = self.dtype
        if dt is K.bool_:
            return bool(out.value)
        if not dt.is_floating_point:
            return int(out.value)
        return out.value

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.dtype is K.bool_:
            raise TypeError("only integer tensors of a single element can be used as an index")
        return int(self.item())

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def _flat_values(self):
        """Every element in row-major order as a Python list."""
        t = self
        dt = t.dtype
        if dt in (K.float16, K.bfloat16):
            t, dt = t.to(K.float32), K.float32
        n = t.numel()
        buf = array.array(_ARRAY_CODES[dt.name], bytes(n * dt.itemsize))
        if n:
            addr, _ = buf.buffer_info()
            check(_copy_to_f(t._h, addr, n * dt.itemsize))
        values = buf.tolist()
        if dt is K.bool_:
            values = [bool(v) for v in values]
        return values

    def tolist(self) -> Any:
        """Returns the elements as (nested) Python lists of numbers."""
        values = self._flat_values()
        shape = self.shape
        if not shape:
            return values[0]

        def nest(vals, dims):
            if len(dims) == 1:
                return vals
            step = len(vals) // dims[0] if dims[0] else 0
            return [nest(vals[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]

        return nest(values, list(shape))

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(device, dtype), to(other), keyword forms."""
        dt = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        if kwargs.pop("copy", False):
            raise NotImplementedError("to(copy=True) is not supported; use clone()")
        if kwargs:
            raise TypeError("to() got unexpected arguments %s" % sorted(kwargs))
        for a in args:
            if isinstance(a, TensorBase):
                dt, dev = a.dtype, a.device
            elif isinstance(a, K.dtype) or (isinstance(a, type) and a in (float, int, bool)):
                dt = a
            elif isinstance(a, (str, K.device, int)):
                dev = a
            else:
                dt = a  # a numpy dtype
        # As PyTorch: the tensor itself when nothing changes.
        t = self
        if dev is not None and K.device_code(dev) != self._device_code():
            t = _call(_to_device_f, t._h, K.device_code(dev))
        if dt is not None and K.to_dtype(dt) != t.dtype:
            t = _call(_to_dtype_f, t._h, K.to_dtype(dt).code)
        return t

    def type(self, dtype=None):
        """Returns the type name (no argument) or this tensor converted to ``dtype``.

        Args:
            dtype (tc.dtype or str, optional): the target type.

        Returns:
            str or Tensor.
        """
        if dtype is None:
            return "tc." + self.dtype.name
        return self.to(dtype)

    def float(self) -> "Tensor":
        """Returns this tensor converted to float32 (itself if it already is)."""
        return self.to(K.float32)

    def double(self) -> "Tensor":
        """Returns this tensor converted to float64 (itself if it already is)."""
        return self.to(K.float64)

    def half(self) -> "Tensor":
        """Returns this tensor converted to float16 (itself if it already is)."""
        return self.to(K.float16)

    def bfloat16(self) -> "Tensor":
        """Returns this tensor converted to bfloat16 (itself if it already is)."""
        return self.to(K.bfloat16)

    def long(self) -> "Tensor":
        """Returns this tensor converted to int64 (itself if it already is)."""
        return self.to(K.int64)

    def int(self) -> "Tensor":
        """Returns this tensor converted to int32 (itself if it already is)."""
        return self.to(K.int32)

    def bool(self) -> "Tensor":
        """Returns this tensor converted to bool (itself if it already is)."""
        return self.to(K.bool_)

    def cpu(self) -> "Tensor":
        """Returns this tensor on the CPU (itself if it already is)."""
        return self.to("cpu")

    def cuda(self, index=0) -> "Tensor":
        """Returns this tensor on a CUDA device.

        Args:
            index (int): the device index.

        Returns:
            Tensor: the copy (itself if already there).
        """
        return self.to(K.device("cuda", index))

    def __repr__(self):
        if self._h is None:
            return "tensor(<freed>)"
        return K.copy_string(fn("tc_tensor_to_string"), self._h)

    __str__ = __repr__

    def __format__(self, spec):
        if self.numel() == 1 and spec:
            return format(self.item(), spec)
        return repr(self)

    def __iter__(self):
        n = len(self)
        for i in range(n):
            yield _call(_select_f, self._h, 0, i)

    def __reduce__(self):
        # The raw bytes (not nested lists): exact for every dtype, compact,
        # and the dtype, shape, requires_grad and Parameter-ness come back.
        if self.requires_grad and not self.is_leaf:
            raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                               "since autograd does not support crossing process boundaries.  "
                               "If you just want to transfer the data, call detach() on the tensor "
                               "before serializing (e.g., putting it on the queue).")
        n = self.numel() * self.element_size()
        raw = bytearray(n)
        if n:
            buf = (C.c_char * n).from_buffer(raw)
            check(_copy_to_f(self._h, buf, n))
        device = str(self.device)
        return (_rebuild_tensor, (bytes(raw), self.dtype.name, tuple(self.shape), self.requires_grad,
                                  type(self).__name__ == "Parameter", device))

    # numpy and DLPack live in _interop; these forward to it.
    def numpy(self):
        """Returns a NumPy array sharing this CPU tensor's memory."""
        return to_numpy(self)

    def __array__(self, dtype=None):

        a = to_numpy(self, for_array=True)
        return a if dtype is None else a.astype(dtype, copy=False)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return to_dlpack_capsule(self, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return dlpack_device(self)

    def one_hot(self, num_classes=-1) -> "Tensor":
        """See :func:`tc.nn.functional.one_hot`."""
        return _call(fn("tc_one_hot"), self._h, num_classes)
