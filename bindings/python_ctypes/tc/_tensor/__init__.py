"""tc.Tensor: one libtc tensor handle, freed exactly once when the Python
object dies, with PyTorch's methods, operators and indexing.

The class is assembled here from topic mixins, each a plain class whose
methods are defined in its own body; the layer they all stand on
(wrapping handles, shared helpers, the factories tc.tensor, tc.zeros, ...)
is tc/_tensor_base.py, re-exported from this module."""
from .._matrix_products import MatrixProductMethods
from .elementwise import ElementwiseMethods
from .._tensor_flags import TensorFlags
from .._torch_namespace_extras import NamespaceExtraMethods
from .._tensor_inplace import InplaceVariants
from .._tensor_misc_methods import MiscTensorMethods
from .._tensor_base import (Any, C, Callable, D, GradFn, INT64_MAX, INT64_MIN, IntOverflowError, K, MinMax, Optional,
                   Size, TYPE_CHECKING, TensorBase, TopK, Union, VP, _ARRAY_CODES, _CREATION_DOC,
                   _CREATION_WHAT, _EXACT_DOUBLE, _FILLS, _I32, _I32_0, _I32_1, _I64, _I64_0, _LIKE_DOC,
                   _NUMBER_TYPES, _Operand, _arrays_to_lists, _as_tensor, _backward_f, _binary, _call,
                   _clear_grad_fast, _copy_to_f, _creation, _dims, _double, _dtype_f, _exact_int64_scalar,
                   _flatten_nested, _float_scalar_dtype, _free, _from_data_f, _from_flat, _full, _inplace,
                   _is_array, _item_f, _large_int, _like, _ndim_f, _new, _rbinary, _rebuild_tensor, _retain,
                   _scalar_tensor, _scalar_value, _select_f, _set_data_epoch, _shape_args, _shape_f, _slice_f,
                   _split_call, _sum_f, _sum_fast, _tensor_list, _to_device_f, _to_dtype_f, _unary,
                   _unsqueeze_f, _wrap, arange, array, as_tensor, bind_tensor_class, byref, cat, check,
                   check_int64_scalar, chunk, collections, concat, concatenate, empty, empty_like, error_for,
                   fast, fn, full, full_like, gather, index_select, initial_seed, lib_tc_tensor_device,
                   manual_seed, math, matmul, maximum, minimum, numbers, ones, ones_like, operator, rand,
                   rand_like, randn, randn_like, split, stack, tensor, tensor_new, to_int64, where, zeros,
                   zeros_like)  # noqa: F401  (the names tc._tensor has always offered)
from .. import _tensor_base as _base


class Tensor(ElementwiseMethods, MatrixProductMethods, TensorFlags, NamespaceExtraMethods, InplaceVariants, MiscTensorMethods, TensorBase):
    """A libtc tensor. Make one with tc.tensor, tc.zeros, ...; ``Tensor(*sizes)``
    and ``Tensor(data)`` are PyTorch's legacy float32 constructors
    (tc/_legacy_tensors.py)."""

    __slots__ = ()  # TensorBase's
    __array_priority__ = 1000  # numpy defers to our reflected operators
    __hash__ = object.__hash__

    def __new__(cls, *args, **kwargs):
        from .._legacy_tensors import legacy_new
        return legacy_new(args, dict(kwargs), K.float32)

    def __init__(self, *args, **kwargs):
        pass  # __new__ built it

    def __del__(self):
        try:
            h = self._h
        except AttributeError:  # never got a handle (a failed constructor)
            return
        if h:
            self._h = None
            try:
                _free(h)  # after tc_shutdown the handle is stale: an ignored error, never a crash
            except Exception:  # interpreter teardown
                pass

    # ------------------------------------------------------------ properties
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
        from .._interop import is_readonly
        return is_readonly(self)

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    # ------------------------------------------------------------ autograd
    @property
    def requires_grad(self):
        """Whether autograd records operations on this tensor (settable on leaves)."""
        out = _I32()
        check(fn("tc_tensor_requires_grad")(self._h, byref(out)))
        return bool(out.value)

    @requires_grad.setter
    def requires_grad(self, value):
        check(fn("tc_tensor_set_requires_grad")(self._h, 1 if value else 0))

    def requires_grad_(self, requires_grad=True) -> "Tensor":
        """Sets ``requires_grad`` in place and returns the tensor.

        Args:
            requires_grad (bool): the new value.

        Returns:
            Tensor: self.
        """
        self.requires_grad = requires_grad
        return self

    @property
    def data(self) -> "Tensor":
        """The tensor's data cut from the graph (a detached view); assigning a
        tensor replaces this tensor's data in place, keeping its identity
        (PyTorch's ``t.data = x``, how ``Module.to`` converts parameters):
        optimizers, tied modules and hooks holding it see the new data."""
        return self.detach()

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(value).__name__)
        check(fn("tc_tensor_set_data")(self._h, value._h))
        _set_data_epoch[0] += 1

    @property
    def is_leaf(self):
        """True for tensors not produced by a differentiable op (gradients accumulate in leaves)."""
        out = _I32()
        check(fn("tc_tensor_is_leaf")(self._h, byref(out)))
        return bool(out.value)

    @property
    def grad(self):
        """The gradient accumulated by backward (None until one reaches this tensor)."""
        out = VP()
        check(fn("tc_tensor_grad")(self._h, byref(out)))
        return _wrap(out) if out.value else None

    @grad.setter
    def grad(self, value: Optional["Tensor"]) -> None:
        """Sets the gradient: None clears it; a tensor (same shape, dtype and
        device, not requiring grad) becomes .grad itself, not a copy, and later
        backward passes accumulate into it in place."""
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got %s" % type(value).__name__)
            check(fn("tc_tensor_set_grad")(self._h, value._h))
            return
        rc = _clear_grad_fast(self._h)
        if rc:
            raise error_for(rc)

    @property
    def grad_fn(self):
        """The node that made this tensor (tc.autograd.Node: name(),
        next_functions), or None for a leaf."""
        from .. import autograd
        return autograd.grad_fn(self)

    def grad_fn_name(self):
        """The name of grad_fn ("" for a leaf), without making a node handle."""
        return K.copy_string(fn("tc_tensor_grad_fn_name"), self._h)

    def register_hook(self, hook):
        """hook(grad) runs when this tensor's gradient is computed and may
        return a replacement; returns a RemovableHandle."""
        from .. import autograd
        return autograd.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after a leaf's .grad was accumulated."""
        from .. import autograd
        return autograd.register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self) -> None:
        """Makes this non-leaf tensor keep its ``.grad`` after backward."""
        check(fn("tc_tensor_retain_grad")(self._h))

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        """Computes the gradient of this tensor with respect to the graph leaves, accumulated into their ``.grad``.

        Args:
            gradient (Tensor, optional): the gradient of this tensor; required unless it has one element.
            retain_graph (bool, optional): keep the graph for another backward (default: ``create_graph``).
            create_graph (bool): record the derivative's graph, for higher order derivatives.
            inputs (sequence of Tensor, optional): accumulate only into these tensors' ``.grad``.
        """
        if create_graph or inputs is not None:
            from .._autograd_grad import backward
            if gradient is not None and not isinstance(gradient, Tensor):
                gradient = tensor(gradient, dtype=self.dtype)
            backward(self, gradient, retain_graph, create_graph, inputs=inputs)
            return
        if gradient is None:
            g = None
        else:
            g = gradient if isinstance(gradient, Tensor) else tensor(gradient, dtype=self.dtype)
            g = g._h
        rc = _backward_f(self._h, g, _I32_1 if retain_graph else _I32_0)
        if rc:
            raise error_for(rc)

    def detach(self) -> "Tensor":
        """Returns a view of the same data cut from the autograd graph."""
        return _call(fn("tc_detach"), self._h)

    def detach_(self) -> "Tensor":
        """Cuts this tensor from the autograd graph in place and returns it."""
        raise NotImplementedError("detach_ is not supported; use detach()")

    # ------------------------------------------------------------ conversions
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
            if isinstance(a, Tensor):
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
        from .._interop import to_numpy
        return to_numpy(self)

    def __array__(self, dtype=None):
        from .._interop import to_numpy

        a = to_numpy(self, for_array=True)
        return a if dtype is None else a.astype(dtype, copy=False)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from .._interop import to_dlpack_capsule
        return to_dlpack_capsule(self, max_version, dl_device, copy)

    def __dlpack_device__(self):
        from .._interop import dlpack_device
        return dlpack_device(self)

    # ------------------------------------------------------------ arithmetic
    # The elementwise families' methods and operators (add, __add__, exp, ...)
    # are ElementwiseMethods (tc/_tensor/elementwise.py, generated).
    matmul = _binary("matmul")
    matmul.__doc__ = "See :func:`tc.matmul`."
    __rsub__ = _rbinary("sub", "rsub_scalar")
    __rtruediv__ = _rbinary("div", "rdiv_scalar")
    __rpow__ = _rbinary("pow")
    __matmul__ = matmul
    __rmatmul__ = _rbinary("matmul")

    def __pos__(self):
        return self

    # clamp, clip, clamp_min, clamp_max (tensor bounds too), isclose, allclose,
    # lerp, addcmul, addcdiv, div(rounding_mode=) and the in-place forms of the
    # binary ops (//=, %=, &=, ...): tc/_binary_ext.py installs them.

    def where(self, condition, other) -> "Tensor":
        """Returns ``self`` where ``condition`` is True, else ``other``.

        Args:
            condition (Tensor): a bool tensor.
            other (Tensor or Number): the alternative.

        Returns:
            Tensor: the result.
        """
        return where(condition, self, other)

    # in place
    add_ = _inplace("add_")
    sub_ = _inplace("sub_")
    mul_ = _inplace("mul_")
    div_ = _inplace("div_")
    __iadd__ = add_
    __isub__ = sub_
    __imul__ = mul_
    __itruediv__ = div_

    def zero_(self) -> "Tensor":
        """Fills the tensor with zeros in place and returns it."""
        check(fn("tc_zero_")(self._h))
        return self

    def fill_(self, value) -> "Tensor":
        """Fills the tensor with ``value`` in place.

        Args:
            value (Number): the value.

        Returns:
            Tensor: self.
        """
        exact = _large_int(value)
        if exact is not None and self.dtype is K.int64:  # tc_fill_'s double would round it
            return self.copy_(_exact_int64_scalar(exact, self.device.code))
        check(fn("tc_fill_")(self._h, float(value)))
        return self

    def copy_(self, src) -> "Tensor":
        """Copies ``src`` into this tensor in place, broadcasting and converting its dtype.

        Args:
            src (Tensor): the source.

        Returns:
            Tensor: self.
        """
        if not isinstance(src, Tensor):
            src = tensor(src, dtype=self.dtype)
        check(fn("tc_copy_")(self._h, src._h))
        return self

    def uniform_(self, a=0.0, b=1.0) -> "Tensor":
        """Fills the tensor in place with samples of U(a, b).

        Args:
            a (float): the lower bound.
            b (float): the upper bound.

        Returns:
            Tensor: self.
        """
        check(fn("tc_uniform_")(self._h, float(a), float(b)))
        return self

    def normal_(self, mean=0.0, std=1.0) -> "Tensor":
        """Fills the tensor in place with samples of N(mean, std^2).

        Args:
            mean (float): the mean.
            std (float): the standard deviation.

        Returns:
            Tensor: self.
        """
        check(fn("tc_normal_")(self._h, float(mean), float(std)))
        return self

    # ------------------------------------------------------------ reductions
    def sum(self, dim=None, keepdim=False, dtype=None) -> "Tensor":
        """Returns the sum of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            keepdim (bool): keep them with size 1.
            dtype (tc.dtype, optional): the accumulation and result dtype.

        Returns:
            Tensor: the sum.
        """
        if dim is None and dtype is None:  # the common full reduction: no argument packing
            out = VP()
            rc = _sum_fast(self._h, None, _I64_0, _I32_1 if keepdim else _I32_0, byref(out))
            if rc:
                raise error_for(rc)
            t = _new(Tensor)
            t._h = out
            t._dt = None
            return t
        dims, n = _dims(dim)
        out = _call(_sum_f, self._h, dims, n, 1 if keepdim else 0)
        return out if dtype is None else out.to(dtype)

    def mean(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the mean of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            keepdim (bool): keep them with size 1.

        Returns:
            Tensor: the mean.
        """
        dims, n = _dims(dim)
        return _call(fn("tc_mean"), self._h, dims, n, 1 if keepdim else 0)

    def var(self, dim=None, unbiased=True, keepdim=False, correction=None) -> "Tensor":
        """Returns the variance of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            unbiased (bool): divide by N - 1 rather than N.
            keepdim (bool): keep the reduced dimensions with size 1.
            correction (int, optional): the divisor is N - correction (overrides ``unbiased``).

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        c = (1 if unbiased else 0) if correction is None else int(correction)
        return _call(fn("tc_var"), self._h, dims, n, c, 1 if keepdim else 0)

    def std(self, dim=None, unbiased=True, keepdim=False, correction=None) -> "Tensor":
        """Returns the standard deviation of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            unbiased (bool): divide by N - 1 rather than N.
            keepdim (bool): keep the reduced dimensions with size 1.
            correction (int, optional): the divisor is N - correction (overrides ``unbiased``).

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        c = (1 if unbiased else 0) if correction is None else int(correction)
        return _call(fn("tc_std"), self._h, dims, n, c, 1 if keepdim else 0)

    def logsumexp(self, dim, keepdim=False) -> "Tensor":
        """Returns ``log(sum(exp(self), dim))``, computed stably.

        Args:
            dim (int or tuple of int): the dimensions to reduce.
            keepdim (bool): keep them with size 1.

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        return _call(fn("tc_logsumexp"), self._h, dims, n, 1 if keepdim else 0)

    def _minmax(self, name, dim, keepdim, other):
        if isinstance(dim, Tensor) or other is not None:
            return (maximum if name == "max" else minimum)(self, dim if other is None else other)
        if dim is None:
            return _call(fn("tc_max") if name == "max" else fn("tc_min"), self._h)
        values, indices = VP(), VP()
        f = fn("tc_max_dim") if name == "max" else fn("tc_min_dim")
        check(f(self._h, dim, 1 if keepdim else 0, byref(values), byref(indices)))
        return MinMax(_wrap(values), _wrap(indices))

    def max(self, dim=None, keepdim=False, other=None):
        """Returns the maximum: of all elements, along ``dim`` (values and indices), or elementwise with ``other``.

        Args:
            dim (int, optional): the dimension to reduce.
            keepdim (bool): keep it with size 1.
            other (Tensor, optional): elementwise maximum with this tensor.

        Returns:
            Tensor, or (values, indices) when ``dim`` is given.
        """
        return self._minmax("max", dim, keepdim, other)

    def min(self, dim=None, keepdim=False, other=None):
        """Returns the minimum: of all elements, along ``dim`` (values and indices), or elementwise with ``other``.

        Args:
            dim (int, optional): the dimension to reduce.
            keepdim (bool): keep it with size 1.
            other (Tensor, optional): elementwise minimum with this tensor.

        Returns:
            Tensor, or (values, indices) when ``dim`` is given.
        """
        return self._minmax("min", dim, keepdim, other)

    def argmax(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the indices of the maximum values.

        Args:
            dim (int, optional): the dimension to reduce; all elements when None.
            keepdim (bool): keep the reduced dimension with size 1.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_argmax"), self._h, D.TC_DIM_ALL if dim is None else dim, 1 if keepdim else 0)

    def argmin(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the indices of the minimum values.

        Args:
            dim (int, optional): the dimension to reduce; all elements when None.
            keepdim (bool): keep the reduced dimension with size 1.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_argmin"), self._h, D.TC_DIM_ALL if dim is None else dim, 1 if keepdim else 0)

    # ------------------------------------------------------------ nn ops
    def softmax(self, dim) -> "Tensor":
        """Returns the softmax along ``dim``.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_softmax"), self._h, dim)

    def log_softmax(self, dim) -> "Tensor":
        """Returns ``log(softmax(self, dim))``, computed stably.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_log_softmax"), self._h, dim)

    # ------------------------------------------------------------ transformer ops
    def tril(self, diagonal=0) -> "Tensor":
        """Returns the lower triangle of the last two dimensions, the rest zeroed.

        Args:
            diagonal (int): which diagonal to keep up to.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_tril"), self._h, int(diagonal))

    def triu(self, diagonal=0) -> "Tensor":
        """Returns the upper triangle of the last two dimensions, the rest zeroed.

        Args:
            diagonal (int): which diagonal to keep from.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_triu"), self._h, int(diagonal))

    def masked_fill(self, mask, value) -> "Tensor":
        """Returns a copy with ``value`` where ``mask`` is True.

        Args:
            mask (Tensor): a bool tensor broadcastable to self.
            value (Number or Tensor): the fill value.

        Returns:
            Tensor: the result.
        """
        if isinstance(value, Tensor):
            value = value.item()
        return _call(fn("tc_masked_fill"), self._h, mask._h, float(value))

    def cumsum(self, dim) -> "Tensor":
        """Returns the cumulative sum along ``dim``.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the running sums.
        """
        return _call(fn("tc_cumsum"), self._h, int(dim))

    def bmm(self, other) -> "Tensor":
        """Batched matrix product.

        Args:
            other (Tensor): (b, m, p) matrices (self is (b, n, m)).

        Returns:
            Tensor: the (b, n, p) result.
        """
        return _call(fn("tc_bmm"), self._h, other._h)

    def addmm(self, mat1, mat2, beta=1, alpha=1):
        """beta * self + alpha * (mat1 @ mat2), like torch.addmm(self, ...)."""
        return _call(fn("tc_addmm"), self._h, mat1._h, mat2._h, float(beta), float(alpha))

    def baddbmm(self, batch1, batch2, beta=1, alpha=1) -> "Tensor":
        """Returns ``beta * self + alpha * (batch1 @ batch2)``.

        Args:
            batch1 (Tensor): (b, n, m) matrices.
            batch2 (Tensor): (b, m, p) matrices.
            beta (Number): the factor of ``self``.
            alpha (Number): the factor of the product.

        Returns:
            Tensor: the (b, n, p) result.
        """
        return _call(fn("tc_baddbmm"), self._h, batch1._h, batch2._h, float(beta), float(alpha))

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """Returns the ``k`` largest (or smallest) values along ``dim`` and their indices.

        Args:
            k (int): how many.
            dim (int): the dimension.
            largest (bool): largest rather than smallest.
            sorted (bool): return them in sorted order.

        Returns:
            (Tensor, Tensor): values and int64 indices.
        """
        values, indices = VP(), VP()
        check(fn("tc_topk")(self._h, int(k), int(dim), 1 if largest else 0, 1 if sorted else 0,
                            byref(values), byref(indices)))
        return TopK(_wrap(values), _wrap(indices))

    def multinomial(self, num_samples, replacement=False) -> "Tensor":
        """Samples indices from the (unnormalized) probabilities in each row.

        Args:
            num_samples (int): samples per row.
            replacement (bool): sample with replacement.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_multinomial"), self._h, int(num_samples), 1 if replacement else 0)

    # ------------------------------------------------------------ shape ops
    def reshape(self, *shape) -> "Tensor":
        """Returns a tensor of the same data with a new shape (a view when possible).

        Args:
            *shape (int): the new sizes; one may be -1.

        Returns:
            Tensor: the result.
        """
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_reshape"), self._h, arr, n)

    def view(self, *shape) -> "Tensor":
        """Returns a view of the same data with a new shape (the strides must allow it).

        Args:
            *shape (int): the new sizes; one may be -1.

        Returns:
            Tensor: the view.
        """
        if len(shape) == 1 and isinstance(shape[0], (K.dtype, str)):
            raise NotImplementedError("view(dtype) is not supported")
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_view"), self._h, arr, n)

    def view_as(self, other) -> "Tensor":
        """Returns ``self.view(other.shape)``."""
        return self.view(other.shape)

    def reshape_as(self, other) -> "Tensor":
        """Returns ``self.reshape(other.shape)``."""
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        s = list(self.shape)
        if not s:
            return self.reshape(1)
        nd = len(s)
        start, end = start_dim % nd, end_dim % nd
        n = 1
        for d in s[start:end + 1]:
            n *= d
        return self.reshape(s[:start] + [n] + s[end + 1:])

    def transpose(self, dim0, dim1) -> "Tensor":
        """Returns a view with dimensions ``dim0`` and ``dim1`` swapped.

        Args:
            dim0 (int): the first dimension.
            dim1 (int): the second dimension.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_transpose"), self._h, dim0, dim1)

    swapaxes = transpose

    def t(self) -> "Tensor":
        """Returns the transpose of a tensor of at most 2 dimensions."""
        if self.ndim < 2:
            return _call(_retain, self._h)
        return self.transpose(0, 1)

    @property
    def T(self):
        """The tensor with all its dimensions reversed (a transpose for 2-D tensors)."""
        nd = self.ndim
        return self.permute(*reversed(range(nd))) if nd > 1 else self.t()

    @property
    def mT(self):
        """The tensor with its last two dimensions swapped (batched matrix transpose)."""
        return self.transpose(-2, -1)

    def permute(self, *dims) -> "Tensor":
        """Returns a view with the dimensions reordered.

        Args:
            *dims (int): the new order of the dimensions.

        Returns:
            Tensor: the view.
        """
        arr, n = K.int64_array(_shape_args(dims))
        return _call(fn("tc_permute"), self._h, arr, n)

    def narrow(self, dim, start, length) -> "Tensor":
        """Returns a view of ``length`` entries from ``start`` along ``dim``.

        Args:
            dim (int): the dimension.
            start (int): the first index.
            length (int): how many entries.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_narrow"), self._h, dim, start, length)

    def select(self, dim, index) -> "Tensor":
        """Returns the view at ``index`` along ``dim``, which is removed.

        Args:
            dim (int): the dimension.
            index (int): the index.

        Returns:
            Tensor: the view.
        """
        return _call(_select_f, self._h, dim, index)

    def squeeze(self, dim=None) -> "Tensor":
        """Returns a view without dimensions of size 1 (only ``dim`` if given).

        Args:
            dim (int, optional): the dimension.

        Returns:
            Tensor: the view.
        """
        return _call(fn("tc_squeeze"), self._h, D.TC_DIM_ALL if dim is None else dim)

    def unsqueeze(self, dim) -> "Tensor":
        """Returns a view with a dimension of size 1 inserted at ``dim``.

        Args:
            dim (int): the position.

        Returns:
            Tensor: the view.
        """
        return _call(_unsqueeze_f, self._h, dim)

    def expand(self, *shape) -> "Tensor":
        """Returns a view broadcast to ``shape`` (-1 keeps a size) without copying.

        Args:
            *shape (int): the new sizes.

        Returns:
            Tensor: the view.
        """
        arr, n = K.int64_array(_shape_args(shape))
        return _call(fn("tc_expand"), self._h, arr, n)

    def expand_as(self, other) -> "Tensor":
        """Returns ``self.expand(other.shape)``.

        Args:
            other (Tensor): the tensor whose shape to take.

        Returns:
            Tensor: the view.
        """
        return self.expand(other.shape)

    def contiguous(self) -> "Tensor":
        """Returns a contiguous tensor with the same data (itself if already contiguous)."""
        return _call(fn("tc_contiguous"), self._h)

    def clone(self) -> "Tensor":
        """Returns a copy of the tensor with its own memory (differentiable)."""
        return _call(fn("tc_clone"), self._h)

    def split(self, split_size, dim=0):
        """Splits the tensor into views along ``dim``.

        Args:
            split_size (int or list of int): the size of each piece, or the list of sizes.
            dim (int): the dimension.

        Returns:
            tuple of Tensor: the pieces.
        """
        if not hasattr(split_size, "__index__"):
            sizes = list(split_size)
            out, start = [], 0
            for s in sizes:
                out.append(self.narrow(dim, start, s))
                start += s
            return tuple(out)
        return _split_call(fn("tc_split"), self, split_size, dim)

    def chunk(self, chunks, dim=0):
        """Splits the tensor into ``chunks`` views along ``dim``.

        Args:
            chunks (int): the number of chunks (the last may be smaller).
            dim (int): the dimension to split.

        Returns:
            tuple of Tensor: the chunks.
        """
        return _split_call(fn("tc_chunk"), self, chunks, dim)

    def unbind(self, dim=0):
        return tuple(self.select(dim, i) for i in range(self.shape[dim]))

    def gather(self, dim, index) -> "Tensor":
        """Gathers values along ``dim`` at ``index``.

        Args:
            dim (int): the dimension to index.
            index (Tensor): int64 indices.

        Returns:
            Tensor: a tensor shaped like ``index``.
        """
        return _call(fn("tc_gather"), self._h, dim, index._h)

    def index_select(self, dim, index) -> "Tensor":
        """Selects the entries at ``index`` along ``dim``.

        Args:
            dim (int): the dimension.
            index (Tensor): 1-D int64 indices.

        Returns:
            Tensor: a new tensor.
        """
        if not isinstance(index, Tensor):
            index = tensor(index, dtype=K.int64)
        return _call(fn("tc_index_select"), self._h, dim, index._h)

    # ------------------------------------------------------------ indexing
    def __getitem__(self, key):
        if type(key) is int:
            return _call(_select_f, self._h, 0, key)
        return _indexing.getitem(self, key)

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)

    # ------------------------------------------------------------ misc
    def new_tensor(self, data) -> "Tensor":
        """Returns a new tensor from ``data`` with this tensor's dtype and device."""
        return tensor(data, dtype=self.dtype)

    def new_zeros(self, *size) -> "Tensor":
        """Returns a tensor of zeros of ``size`` with this tensor's dtype and device."""
        return zeros(*size, dtype=self.dtype, device=self.device)

    def new_ones(self, *size) -> "Tensor":
        """Returns a tensor of ones of ``size`` with this tensor's dtype and device."""
        return ones(*size, dtype=self.dtype, device=self.device)

    def new_full(self, size, value) -> "Tensor":
        """Returns a tensor of ``size`` filled with ``value``, with this tensor's dtype and device."""
        return full(size, value, dtype=self.dtype, device=self.device)

    def new_empty(self, *size) -> "Tensor":
        """Returns an uninitialized tensor of ``size`` with this tensor's dtype and device."""
        return empty(*size, dtype=self.dtype, device=self.device)

    def equal(self, other) -> bool:
        """Returns True if ``other`` has the same shape and elements.

        Args:
            other (Tensor): the tensor to compare with.

        Returns:
            bool: whether they are equal.
        """
        return self.shape == other.shape and bool((self == other).to(K.int64).sum().item() == self.numel())

    def one_hot(self, num_classes=-1) -> "Tensor":
        """See :func:`tc.nn.functional.one_hot`."""
        return _call(fn("tc_one_hot"), self._h, num_classes)



_base.bind_tensor_class(Tensor)
from .. import _indexing  # noqa: E402
from .. import _binary_ext  # noqa: E402  (div's rounding_mode, tensor clamp bounds, isclose, lerp, ...)

_binary_ext.install(Tensor)
_indexing.install(Tensor, globals())

from .. import _shape_ops as _shape_ops  # noqa: E402

_shape_ops.install(Tensor)
from .. import _inplace_autograd as _inplace_autograd  # noqa: E402

_inplace_autograd.install(Tensor)
