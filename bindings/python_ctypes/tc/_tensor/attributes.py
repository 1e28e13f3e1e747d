"""tc.Tensor's attributes: dtype, device, shape, size, stride, numel, ... (a
mixin of tc.Tensor, tc/_tensor/__init__.py)."""
from .. import _core as K
from .. import _decls as D
from .._tensor_base import (Size, VP, _I32, _I64, _dtype_f, _ndim_f, _set_data_epoch, _shape_f, byref, check,
                            fn, lib_tc_tensor_device)
from .._interop import is_readonly


class AttributeMethods:
    """tc.Tensor's attributes: dtype, device, shape, size, stride, numel, ...."""

    __slots__ = ()

    @property
    def handle(self):
        """The raw tc_tensor handle as an int (owned by this object)."""
        return self._h.value

    @property
    def dtype(self):
        """The tensor's element type."""
        dt = self._dt
        # The cache is (dtype, set_data epoch): `.data =` may change the dtype
        # of a tensor that other Python objects also wrap.
        if dt is None or dt[1] != _set_data_epoch[0]:
            out = _I32()
            check(_dtype_f(self._h, byref(out)))
            dt = self._dt = (K.BY_CODE[out.value], _set_data_epoch[0])
        return dt[0]

    @property
    def device(self):
        """The device the tensor lives on."""
        return K.device.from_code(self._device_code())

    def _device_code(self):
        out = _I32()
        check(lib_tc_tensor_device(self._h, byref(out)))
        return out.value

    @property
    def is_cuda(self):
        """True if the tensor lives on a CUDA device."""
        return self.device.type == "cuda"

    @property
    def ndim(self):
        """The number of dimensions."""
        out = _I64()
        check(_ndim_f(self._h, byref(out)))
        return out.value

    def dim(self) -> int:
        """Returns the number of dimensions."""
        return self.ndim

    @property
    def shape(self):
        """The tensor's sizes, as a tuple-like ``tc.Size``."""
        buf = (_I64 * D.TC_MAX_DIMS)()
        n = _I64()
        check(_ndim_f(self._h, byref(n)))
        check(_shape_f(self._h, buf, D.TC_MAX_DIMS))
        return Size(buf[: n.value])

    def size(self, dim=None):
        """Returns the sizes, or the size of one dimension.

        Args:
            dim (int, optional): the dimension.

        Returns:
            tc.Size, or int when ``dim`` is given.
        """
        s = self.shape
        return s if dim is None else s[dim]

    def stride(self, dim=None):
        """Returns the strides in elements, or the stride of one dimension.

        Args:
            dim (int, optional): the dimension.

        Returns:
            tuple of int, or int when ``dim`` is given.
        """
        buf = (_I64 * D.TC_MAX_DIMS)()
        check(fn("tc_tensor_strides")(self._h, buf, D.TC_MAX_DIMS))
        s = tuple(buf[: self.ndim])
        return s if dim is None else s[dim]

    @property
    def strides(self):
        """The strides in elements, as a tuple."""
        return self.stride()

    def numel(self) -> int:
        """Returns the number of elements."""
        out = _I64()
        check(fn("tc_tensor_numel")(self._h, byref(out)))
        return out.value

    def nelement(self) -> int:
        """Returns the number of elements (same as :meth:`numel`)."""
        return self.numel()

    def element_size(self) -> int:
        """Returns the size of one element in bytes."""
        out = _I64()
        check(fn("tc_tensor_element_size")(self._h, byref(out)))
        return out.value

    def storage_offset(self) -> int:
        """Returns the offset of the first element in the storage, in elements."""
        out = _I64()
        check(fn("tc_tensor_storage_offset")(self._h, byref(out)))
        return out.value

    def is_contiguous(self) -> bool:
        """Returns True if the tensor is laid out contiguously in row-major order."""
        out = _I32()
        check(fn("tc_tensor_is_contiguous")(self._h, byref(out)))
        return bool(out.value)

    def data_ptr(self) -> int:
        """Returns the address of the tensor's first element."""
        out = VP()
        check(fn("tc_tensor_data_ptr")(self._h, byref(out)))
        return out.value or 0

    @property
    def _version(self):
        out = _I64()
        check(fn("tc_tensor_version")(self._h, byref(out)))
        return out.value

    def is_same(self, other):
        """True when both are handles of the same libtc tensor."""
        out = _I32()
        check(fn("tc_tensor_same")(self._h, other._h, byref(out)))
        return bool(out.value)

    def is_floating_point(self) -> bool:
        """Returns True if the dtype is a floating-point type."""
        return self.dtype.is_floating_point

    @property
    def is_readonly(self):
        """True when libtc refuses writes into this tensor's memory (a libtc
        extension; PyTorch has no such flag): a tensor from tc.from_numpy of
        a non-writeable array or from a read-only DLPack capsule, and every
        view of it. In-place ops on it raise tc.ReadOnlyError; out-of-place
        ops and clone() (which is writable) work as usual."""
        return is_readonly(self)

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]
