"""tc.fft: PyTorch 1.13's torch.fft on libtc's one-dim transforms (tc_fft_c2c,
tc_fft_r2c, tc_fft_c2r), which the multi-dim functions chain over their dims.
Every function is differentiable (each one-dim transform records its
backward); real and integer inputs are promoted as in PyTorch."""
from . import _core as K
from ._core import fn
from ._tensor_base import _call, arange as _arange, cat as _cat

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn",
           "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_C2C = fn("tc_fft_c2c")
_R2C = fn("tc_fft_r2c")
_C2R = fn("tc_fft_c2r")

# tc.h's TC_FFT_NORM_*: the scale of the result.
_NONE, _SQRT_N, _N = 0, 1, 2


def _mode(norm, forward):
    """PyTorch's norm_from_string: the scaling of a forward or an inverse transform."""
    if norm is None or norm == "backward":
        return _NONE if forward else _N
    if norm == "forward":
        return _N if forward else _NONE
    if norm == "ortho":
        return _SQRT_N
    raise RuntimeError('Invalid normalization mode: "%s"' % (norm,))


def _no_out(out):
    if out is not None:
        raise NotImplementedError("tc.fft functions do not take out=")


def _n(n):
    return -1 if n is None else int(n)


def _c2c(x, dim, n, norm, forward):
    return _call(_C2C, x._h, int(dim), _n(n), _mode(norm, forward), 1 if forward else 0)


def _r2c(x, dim, n, mode, onesided=True):
    return _call(_R2C, x._h, int(dim), _n(n), mode, 1 if onesided else 0)


def _c2r(x, dim, n, mode):
    return _call(_C2R, x._h, int(dim), _n(n), mode)


def _check_real(x, name):
    if x.is_complex():
        raise RuntimeError("%s expects a real input tensor, but got %s" % (name, _torch_name(x.dtype)))


def _torch_name(dt):
    return {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}.get(dt.name, dt.name)


# ------------------------------------------------------------------ one dim
def fft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dim discrete Fourier transform (exponent -1) of input along dim.

    Args:
        input (Tensor): the signal (real input is promoted to complex).
        n (int, optional): the signal length (input is cut or zero-padded).
        dim (int): the dim to transform.
        norm (str, optional): "backward" (default, no scaling), "forward" (1/n) or "ortho" (1/sqrt(n)).

    Returns:
        Tensor: the complex spectrum.
    """
    _no_out(out)
    return _c2c(input, dim, n, norm, True)


def ifft(input, n=None, dim=-1, norm=None, *, out=None):
    """The one-dim inverse discrete Fourier transform (exponent +1; "backward" norm scales by 1/n).

    Args:
        input (Tensor): the spectrum.
        n (int, optional): the signal length.
        dim (int): the dim to transform.
        norm (str, optional): "backward" (default, 1/n), "forward" (none) or "ortho".

    Returns:
        Tensor: the complex signal.
    """
    _no_out(out)
    return _c2c(input, dim, n, norm, False)


def rfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The DFT of a real signal: its n // 2 + 1 non-negative frequencies.

    Args:
        input (Tensor): the real signal.
        n (int, optional): the signal length.
        dim (int): the dim to transform.
        norm (str, optional): as :func:`fft`.

    Returns:
        Tensor: the one-sided complex spectrum.
    """
    _no_out(out)
    _check_real(input, "rfft")
    return _r2c(input, dim, n, _mode(norm, True))


def irfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`rfft`: a real signal of length n (default 2 (m - 1)) from its one-sided spectrum.

    Args:
        input (Tensor): the one-sided spectrum (the imaginary parts of its zero and Nyquist entries are ignored).
        n (int, optional): the output length.
        dim (int): the dim to transform.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the real signal.
    """
    _no_out(out)
    return _c2r(input, dim, n, _mode(norm, False))


def hfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The DFT of a Hermitian-symmetric signal given by its first half: a real spectrum of length n.

    Args:
        input (Tensor): the half signal.
        n (int, optional): the output length (default 2 (m - 1)).
        dim (int): the dim to transform.
        norm (str, optional): as :func:`fft`.

    Returns:
        Tensor: the real spectrum.
    """
    _no_out(out)
    return _c2r(_conj(input), dim, n, _mode(norm, True))


def ihfft(input, n=None, dim=-1, norm=None, *, out=None):
    """The inverse of :func:`hfft`: the first half of the Hermitian-symmetric inverse DFT of a real signal.

    Args:
        input (Tensor): the real signal.
        n (int, optional): the signal length.
        dim (int): the dim to transform.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the one-sided complex result.
    """
    _no_out(out)
    _check_real(input, "ihfft")
    return _conj(_r2c(input, dim, n, _mode(norm, False)))


def _conj(x):
    from . import _complex
    return _complex.conj(x) if x.is_complex() else x


# ------------------------------------------------------------------ several dims
def _shape_dims(input, s, dim, default_all=True):
    """PyTorch's canonicalization of (s, dim): the dims (wrapped) and their lengths (None: keep)."""
    nd = input.ndim
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [d + nd if d < 0 else d for d in dims]
        if any(d < 0 or d >= nd for d in dims):
            raise IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %s)"
                             % (-nd, nd - 1, dim))
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > nd:
            raise RuntimeError("Got shape with %d values but input tensor only has %d dimensions."
                               % (len(s), nd))
        dims = list(range(nd - len(s), nd))
    else:
        dims = list(range(nd)) if default_all else [nd - 2, nd - 1]
    sizes = [None] * len(dims) if s is None else [None if v == -1 else int(v) for v in s]
    return dims, sizes


def fftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dim DFT over dims (default all, or the last len(s)).

    Args:
        input (Tensor): the signal.
        s (sequence of int, optional): the signal lengths in the dims (-1: keep).
        dim (sequence of int, optional): the dims.
        norm (str, optional): as :func:`fft` (over all the dims' sizes).

    Returns:
        Tensor: the complex spectrum.
    """
    _no_out(out)
    dims, sizes = _shape_dims(input, s, dim)
    x = input
    if not dims:
        return _promote_complex(x)
    for d, n in zip(dims, sizes):
        x = _c2c(x, d, n, norm, True)
    return x


def ifftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dim inverse DFT (see :func:`fftn`).

    Args:
        input (Tensor): the spectrum.
        s (sequence of int, optional): the signal lengths.
        dim (sequence of int, optional): the dims.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the complex signal.
    """
    _no_out(out)
    dims, sizes = _shape_dims(input, s, dim)
    x = input
    if not dims:
        return _promote_complex(x)
    for d, n in zip(dims, sizes):
        x = _c2c(x, d, n, norm, False)
    return x


def _promote_complex(x):
    from . import _complex
    if x.is_complex():
        return x
    dt = x.dtype if x.dtype.is_floating_point else K.get_default_dtype()
    return x.to(_complex.complex_dtype_for(dt))


def rfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The n-dim DFT of a real signal, one-sided in the last dim.

    Args:
        input (Tensor): the real signal.
        s (sequence of int, optional): the signal lengths.
        dim (sequence of int, optional): the dims (the last one is halved).
        norm (str, optional): as :func:`fft`.

    Returns:
        Tensor: the complex spectrum.
    """
    _no_out(out)
    _check_real(input, "rfftn")
    dims, sizes = _shape_dims(input, s, dim)
    if not dims:
        raise RuntimeError("rfftn must transform at least one axis")
    x = _r2c(input, dims[-1], sizes[-1], _mode(norm, True))
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _c2c(x, d, n, norm, True)
    return x


def irfftn(input, s=None, dim=None, norm=None, *, out=None):
    """The inverse of :func:`rfftn`: a real signal (last dim of length s[-1], default 2 (m - 1)).

    Args:
        input (Tensor): the one-sided spectrum.
        s (sequence of int, optional): the output lengths.
        dim (sequence of int, optional): the dims.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the real signal.
    """
    _no_out(out)
    dims, sizes = _shape_dims(input, s, dim)
    if not dims:
        raise RuntimeError("irfftn must transform at least one axis")
    x = input
    for d, n in zip(dims[:-1], sizes[:-1]):
        x = _c2c(x, d, n, norm, False)
    return _c2r(x, dims[-1], sizes[-1], _mode(norm, False))


def fft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-dim DFT (:func:`fftn` over the last two dims by default).

    Args:
        input (Tensor): the signal.
        s (sequence of int, optional): the signal lengths.
        dim (sequence of int): the dims.
        norm (str, optional): as :func:`fft`.

    Returns:
        Tensor: the complex spectrum.
    """
    return fftn(input, s, dim, norm, out=out)


def ifft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-dim inverse DFT (:func:`ifftn` over the last two dims by default).

    Args:
        input (Tensor): the spectrum.
        s (sequence of int, optional): the signal lengths.
        dim (sequence of int): the dims.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the complex signal.
    """
    return ifftn(input, s, dim, norm, out=out)


def rfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The 2-dim DFT of a real signal (:func:`rfftn` over the last two dims by default).

    Args:
        input (Tensor): the real signal.
        s (sequence of int, optional): the signal lengths.
        dim (sequence of int): the dims.
        norm (str, optional): as :func:`fft`.

    Returns:
        Tensor: the one-sided complex spectrum.
    """
    return rfftn(input, s, dim, norm, out=out)


def irfft2(input, s=None, dim=(-2, -1), norm=None, *, out=None):
    """The inverse of :func:`rfft2` (:func:`irfftn` over the last two dims by default).

    Args:
        input (Tensor): the one-sided spectrum.
        s (sequence of int, optional): the output lengths.
        dim (sequence of int): the dims.
        norm (str, optional): as :func:`ifft`.

    Returns:
        Tensor: the real signal.
    """
    return irfftn(input, s, dim, norm, out=out)


# ------------------------------------------------------------------ helpers
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point DFT: [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n).

    Args:
        n (int): the DFT length.
        d (float): the sample spacing.
        dtype (tc.dtype, optional): a floating dtype (default: the default one).
        device (tc.device, optional): the device.
        requires_grad (bool): whether the result requires gradients.

    Returns:
        Tensor: the frequencies.
    """
    _no_out(out)
    return _freqs(n, d, dtype, device, requires_grad, full=True)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of :func:`rfft` of an n-point signal: [0, 1, ..., n // 2] / (d n).

    Args:
        n (int): the signal length.
        d (float): the sample spacing.
        dtype (tc.dtype, optional): a floating dtype (default: the default one).
        device (tc.device, optional): the device.
        requires_grad (bool): whether the result requires gradients.

    Returns:
        Tensor: the frequencies.
    """
    _no_out(out)
    return _freqs(n, d, dtype, device, requires_grad, full=False)


def _freqs(n, d, dtype, device, requires_grad, full):
    dt = K.to_dtype(dtype) if dtype is not None else K.get_default_dtype()
    if not dt.is_floating_point:
        raise RuntimeError("fftfreq requires a floating point or complex dtype")
    if full:
        pos = _arange(0, (n - 1) // 2 + 1, dtype=K.int64)
        neg = _arange(-(n // 2), 0, dtype=K.int64)
        k = _cat([pos, neg])
    else:
        k = _arange(0, n // 2 + 1, dtype=K.int64)
    out = (k.to(dt) * (1.0 / (n * d))).detach()
    if device is not None:
        out = out.to(device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _roll(x, shifts, dims):
    """x rolled by shifts along dims, from narrows and a cat (works for every dtype, differentiable)."""
    for shift, d in zip(shifts, dims):
        size = x.shape[d]
        if size == 0:
            continue
        k = shift % size
        if k:
            x = _cat([x.narrow(d, size - k, k), x.narrow(d, 0, size - k)], d)
    return x


def _shift_dims(input, dim):
    if dim is None:
        return list(range(input.ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [d % input.ndim if input.ndim else 0 for d in dims]


def fftshift(input, dim=None):
    """Moves the zero frequency to the center: a roll by n // 2 in each dim (default all).

    Args:
        input (Tensor): the spectrum.
        dim (int or sequence of int, optional): the dims.

    Returns:
        Tensor: the shifted tensor.
    """
    dims = _shift_dims(input, dim)
    return _roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`: a roll by -(n // 2) in each dim (default all).

    Args:
        input (Tensor): the shifted spectrum.
        dim (int or sequence of int, optional): the dims.

    Returns:
        Tensor: the unshifted tensor.
    """
    dims = _shift_dims(input, dim)
    return _roll(input, [-(input.shape[d] // 2) for d in dims], dims)
