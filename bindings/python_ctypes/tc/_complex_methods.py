"""Complex-number support of tc.Tensor and the tc namespace (tc/_complex.py
holds the functions): the Tensor properties and methods, the repr,
item/tolist (ComplexMethods, a mixin of tc.Tensor), the numpy names of the
complex dtypes and the tc.* names (install). Python complex operands and
tc.tensor of complex values are tc/_tensor_base.py's."""
import warnings

from . import _complex as Z
from . import _core as K
from ._tensor_base import TensorBase, tensor
from . import _interop


def _real_prop(self):
    """The real part (a view of a complex tensor; a real tensor itself)."""
    return Z.real(self)


def _imag_prop(self):
    """The imaginary part of a complex tensor, a view (RuntimeError for a real tensor)."""
    return Z.imag(self)


def _set_part(part):
    def setter(self, value):
        target = Z.real(self) if part == 0 else Z.imag(self)
        target.copy_(value if isinstance(value, TensorBase) else tensor(value, dtype=target.dtype))
    return setter


class ComplexMethods:
    """tc.Tensor's complex-number support: real/imag, conj, angle,
    is_complex, cfloat/cdouble, complex(t), and the complex forms of repr,
    item, tolist and to (each refining the real-valued method after it in
    Tensor's bases)."""

    __slots__ = ()

    real = property(_real_prop, _set_part(0), doc=_real_prop.__doc__)
    imag = property(_imag_prop, _set_part(1), doc=_imag_prop.__doc__)

    def conj(self):
        """The complex conjugate (a new tensor; a real tensor returns itself)."""
        return Z.conj(self)

    def conj_physical(self):
        """The complex conjugate, materialized (a real tensor returns itself)."""
        return Z.conj(self)

    def resolve_conj(self):
        """self: tc's conjugates are never lazy."""
        return self

    def is_conj(self):
        """False: tc's conj() materializes."""
        return False

    def angle(self):
        """See :func:`tc.angle`."""
        return Z.angle(self)

    def is_complex(self):
        """Whether the dtype is complex64 or complex128."""
        return Z.is_complex_dtype(self.dtype)

    def cfloat(self):
        """This tensor as complex64."""
        return self.to(K.complex64)

    def cdouble(self):
        """This tensor as complex128."""
        return self.to(K.complex128)

    def __repr__(self):
        if self._h is not None and Z.is_complex_dtype(self.dtype):
            return Z.complex_repr(self)
        return super().__repr__()

    __str__ = __repr__

    def item(self):
        """Returns the value of a one-element tensor as a Python number (complex for complex tensors)."""
        if Z.is_complex_dtype(self.dtype):
            if self.numel() != 1:
                raise RuntimeError("a Tensor with %d elements cannot be converted to Scalar" % self.numel())
            return Z.complex_values(self)[0]
        return super().item()

    def tolist(self):
        """Returns the elements as (nested) Python lists of numbers (complex ones for complex tensors)."""
        if not Z.is_complex_dtype(self.dtype):
            return super().tolist()
        values = Z.complex_values(self)
        shape = list(self.shape)
        if not shape:
            return values[0]

        def nest(vals, dims):
            if len(dims) == 1:
                return vals
            step = len(vals) // dims[0] if dims[0] else 0
            return [nest(vals[i * step:(i + 1) * step], dims[1:]) for i in range(dims[0])]

        return nest(values, shape)

    def __complex__(self):
        return complex(self.item())

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(device, dtype), to(other), keyword forms; a complex
        tensor converted to a real dtype keeps its real part, with PyTorch's warning."""
        out = super().to(*args, **kwargs)
        if out is not self and Z.is_complex_dtype(self.dtype) and not Z.is_complex_dtype(out.dtype):
            warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
        return out


def install(namespace):
    """Adds the complex dtypes to the tc namespace (and numpy's names of them
    to tc/_interop.py's tables).

    Args:
        namespace (dict): tc's globals.
    """

    _interop._NP_TO_TC.update({"complex64": K.complex64, "complex128": K.complex128})
    _interop._NP_TYPESTR.update({"complex64": "<c8", "complex128": "<c16"})
    namespace.update({
        "complex64": K.complex64, "complex128": K.complex128, "cfloat": K.complex64, "cdouble": K.complex128,
        "tensor": tensor, "complex": Z.complex, "polar": Z.polar, "view_as_real": Z.view_as_real,
        "view_as_complex": Z.view_as_complex, "real": Z.real, "imag": Z.imag, "conj": Z.conj,
        "conj_physical": Z.conj, "resolve_conj": Z.resolve_conj, "is_conj": Z.is_conj, "angle": Z.angle,
        "is_complex": Z.is_complex, "result_type": Z.result_type,
    })
