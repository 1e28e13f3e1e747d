"""Complex tensors (tc.complex64 / tc.cfloat, tc.complex128 / tc.cdouble) in the
Python package: the dtypes' numpy names, tc.tensor and Python-number operands
of complex values, item/tolist/repr, the Tensor methods and properties
(.real, .imag, .conj(), .angle(), .is_complex(), ...) and tc.complex,
tc.polar, tc.view_as_real, tc.view_as_complex, tc.result_type.

libtc stores complex numbers as interleaved (real, imaginary) pairs and
computes with them only in the functions tc.h lists (creation, copies, views
and shape ops, add/sub/mul/div/neg, eq/ne, abs, angle, conj, sum/mean and the
FFTs); every other op raises tc.DTypeError naming itself.
"""
import builtins
import math
import numbers

from . import _core as K
from ._core import fn

_VIEW_AS_REAL = fn("tc_view_as_real")
_VIEW_AS_COMPLEX = fn("tc_view_as_complex")
_COMPLEX = fn("tc_complex")
_POLAR = fn("tc_polar")
_REAL = fn("tc_real")
_IMAG = fn("tc_imag")
_CONJ = fn("tc_conj")
_ANGLE = fn("tc_angle")

COMPLEX_DTYPES = (K.complex64, K.complex128)


def _tensor_module():
    from . import _tensor
    return _tensor


def _call(f, *args):
    return _tensor_module()._call(f, *args)


def is_complex_dtype(dt):
    """Whether dt is tc.complex64 or tc.complex128."""
    return dt in COMPLEX_DTYPES


def default_complex_dtype():
    """complex64 when the default float dtype is float32, else complex128 (PyTorch's rule)."""
    return K.complex128 if K.get_default_dtype() is K.float64 else K.complex64


def complex_dtype_for(dt):
    """The complex dtype of a float dtype's width (float64 -> complex128, else complex64)."""
    if is_complex_dtype(dt):
        return dt
    return K.complex128 if dt is K.float64 else K.complex64


def part_dtype(dt):
    """The dtype of a complex dtype's parts (complex64 -> float32, complex128 -> float64)."""
    return K.float64 if dt is K.complex128 else K.float32


# ------------------------------------------------------------------- functions
def view_as_real(input):
    """A view of a complex tensor as a real one with a last dim of 2 (real, imaginary).

    Args:
        input (Tensor): a complex tensor.

    Returns:
        Tensor: the view (it shares input's storage).
    """
    return _call(_VIEW_AS_REAL, input._h)


def view_as_complex(input):
    """A view of a float32/float64 tensor whose last dim is 2 (stride 1) as a complex one.

    Args:
        input (Tensor): the real tensor [..., 2].

    Returns:
        Tensor: the complex view (it shares input's storage).
    """
    return _call(_VIEW_AS_COMPLEX, input._h)


def complex(real, imag, *, out=None):
    """The complex tensor real + i imag (float32 parts give complex64, float64 complex128).

    Args:
        real (Tensor): the real parts.
        imag (Tensor): the imaginary parts (same dtype; broadcast).

    Returns:
        Tensor: the complex tensor.
    """
    if out is not None:
        raise NotImplementedError("complex(out=) is not supported")
    return _call(_COMPLEX, real._h, imag._h)


def polar(abs, angle, *, out=None):
    """The complex tensor abs * (cos(angle) + i sin(angle)).

    Args:
        abs (Tensor): the magnitudes.
        angle (Tensor): the angles (same dtype).

    Returns:
        Tensor: the complex tensor.
    """
    if out is not None:
        raise NotImplementedError("polar(out=) is not supported")
    return _call(_POLAR, abs._h, angle._h)


def real(input):
    """The real part: a view of a complex tensor, a real tensor itself.

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: the real part.
    """
    return _call(_REAL, input._h)


def imag(input):
    """The imaginary part of a complex tensor, a view (RuntimeError for a real one, as PyTorch).

    Args:
        input (Tensor): a complex tensor.

    Returns:
        Tensor: the imaginary part.
    """
    if not is_complex_dtype(input.dtype):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _call(_IMAG, input._h)


def conj(input):
    """The complex conjugate (a new tensor; a real tensor itself).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: the conjugate.
    """
    return _call(_CONJ, input._h)


def angle(input):
    """The argument of each element: atan2(imag, real); pi for negative reals, else 0.

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: the angles (real).
    """
    return _call(_ANGLE, input._h)


def is_complex(input):
    """Whether input's dtype is complex.

    Args:
        input (Tensor): the tensor.

    Returns:
        bool.
    """
    return is_complex_dtype(input.dtype)


def is_conj(input):
    """False: tc's conj() materializes (no lazy conjugate bit).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool.
    """
    return False


def resolve_conj(input):
    """input itself (conjugation is never lazy in tc).

    Args:
        input (Tensor): the tensor.

    Returns:
        Tensor: input.
    """
    return input


def _category(dt):
    if dt is K.bool_:
        return 0
    if is_complex_dtype(dt):
        return 3
    return 2 if dt.is_floating_point else 1


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on the two gives, with PyTorch's rules: a
    dimensioned tensor decides over a 0-D tensor, which decides over a Python
    number, unless the weaker one is of a higher category (bool < integer <
    floating < complex); a complex one lifts a floating one to the complex
    dtype of its width.

    Args:
        tensor1 (Tensor or Number): an operand.
        tensor2 (Tensor or Number): an operand.

    Returns:
        tc.dtype.
    """
    T = _tensor_module().Tensor

    def describe(x):
        if isinstance(x, T):
            return (2 if x.ndim > 0 else 1), x.dtype
        if isinstance(x, bool):
            return 0, K.bool_
        if isinstance(x, numbers.Integral):
            return 0, K.int64
        if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
            return 0, default_complex_dtype()
        return 0, K.get_default_dtype()

    # c10's ResultTypeState: promote within each priority, then combine the categories.
    states = [None, None, None]  # wrapped numbers, 0-dim tensors, tensors with dims
    for x in (tensor1, tensor2):
        p, d = describe(x)
        states[p] = d if states[p] is None else K.promote_types(states[p], d)
    return _combine(states[2], _combine(states[1], states[0]))


def _combine(higher, lower):
    """c10's combine_categories: the stronger operand's dtype unless the weaker one's category is higher."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if is_complex_dtype(higher):
        return higher
    if is_complex_dtype(lower):
        return complex_dtype_for(higher) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is K.bool_ or lower.is_floating_point:
        return K.promote_types(higher, lower)
    return higher


# ------------------------------------------------------------------- Python values
def _has_complex(data):
    if isinstance(data, (list, tuple)):
        return any(_has_complex(x) for x in data)
    return isinstance(data, numbers.Complex) and not isinstance(data, numbers.Real)


def complex_tensor(data, dtype=None):
    """A tensor copied from nested lists holding complex numbers (default complex dtype).

    Args:
        data: nested lists/tuples of numbers, some complex.
        dtype (tc.dtype, optional): the dtype (default: the default complex dtype).

    Returns:
        Tensor: the tensor.
    """
    import numpy as np

    from ._interop import tensor_from_numpy_copy

    arr = np.array(data, dtype=np.complex128)
    t = tensor_from_numpy_copy(arr)
    return t.to(K.to_dtype(dtype) if dtype is not None else default_complex_dtype())


def scalar_complex_tensor(value, like):
    """A 0-dim complex tensor for a Python complex operand next to like (its width, device).

    Args:
        value (complex): the number.
        like (Tensor or None): the other operand.

    Returns:
        Tensor: the 0-dim tensor.
    """
    dt = default_complex_dtype()
    if like is not None and (like.dtype is K.float64 or like.dtype is K.complex128):
        dt = K.complex128
    t = complex_tensor([value], dt).reshape(())
    if like is not None and like.device.type != "cpu":
        t = t.to(like.device)
    return t


def complex_values(t):
    """The elements of a complex tensor, row-major, as Python complex numbers.

    Args:
        t (Tensor): a complex tensor.

    Returns:
        list of complex.
    """
    pairs = view_as_real(t.detach()).to(K.float64).reshape(-1).tolist()
    return [builtins.complex(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)] if pairs else []


# ------------------------------------------------------------------- printing
def _float_formatter(values):
    """PyTorch's _Formatter for one part: integer, fixed (4 decimals) or scientific mode, one width."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    int_mode = all(v == math.floor(v) for v in finite)
    sci = False
    if finite:
        nonzero = [v for v in finite if v != 0]
        if int_mode:
            sci = max(finite) > 1e8
        elif nonzero:
            mx, mn = max(nonzero), min(nonzero)
            sci = mx / mn > 1000.0 or mx > 1e8 or mn < 1e-4

    def fmt(v):
        if not math.isfinite(v):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        if sci:
            return "%.4e" % v
        if int_mode:
            return "%.0f." % v
        return "%.4f" % v

    width = max((len(fmt(v)) for v in values), default=0)
    return lambda v: fmt(v).rjust(width)


def complex_repr(t):
    """PyTorch's repr of a complex tensor (real and imaginary parts formatted apart).

    Args:
        t (Tensor): a complex tensor.

    Returns:
        str.
    """
    values = complex_values(t)
    real_fmt = _float_formatter([v.real for v in values])
    imag_fmt = _float_formatter([v.imag for v in values])

    def element(v):
        r = real_fmt(v.real)
        i = (imag_fmt(v.imag) + "j").lstrip()
        return r + i if i[0] in "+-" else r + "+" + i

    prefix = "tensor("
    shape = list(t.shape)

    def nest(flat, dims, indent):
        if not dims:
            return element(flat[0])
        if len(dims) == 1:
            return "[" + ", ".join(element(v) for v in flat) + "]"
        step = len(flat) // dims[0] if dims[0] else 0
        rows = [nest(flat[i * step:(i + 1) * step], dims[1:], indent + 1) for i in range(dims[0])]
        sep = "," + "\n" * (len(dims) - 1) + " " * (indent + 1)
        return "[" + sep.join(rows) + "]"

    body = nest(values, shape, len(prefix)) if values or not shape else "[]"
    extras = []
    if t.numel() == 0 and len(shape) != 1:
        extras.append("size=(%s)" % ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    if t.dtype is not default_complex_dtype():
        extras.append("dtype=%s" % t.dtype.name)
    if t.grad_fn is not None:
        extras.append("grad_fn=<%s>" % t.grad_fn.name())
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return prefix + body + "".join(", " + e for e in extras) + ")"
