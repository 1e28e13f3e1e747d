"""The signal window factories of PyTorch (bartlett, blackman, hamming,
hann and kaiser), same formulas and periodic/symmetric convention: a
periodic window of length N is the symmetric one of length N + 1 without its
last sample. Values are computed in float64 and rounded to the dtype."""
import math

from . import _core as K
from ._tensor_base import tensor


def _window(name, window_length, periodic, dtype, device, requires_grad, value):
    dtype = dtype if dtype is not None else K.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError("%s expects floating point dtypes, got: %s" % (name, dtype))
    if window_length < 0:
        raise RuntimeError("%s requires non-negative window_length, got window_length=%d" % (name, window_length))
    if window_length == 0:
        values = []
    elif window_length == 1:
        values = [1.0]
    else:
        n = window_length + 1 if periodic else window_length
        values = [value(i, n) for i in range(window_length)]
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """The Hann window 0.5 - 0.5 cos(2 pi n / (N - 1)), like torch.hann_window.

    Returns:
        Tensor: 1-D of window_length.
    """
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, n: 0.5 - 0.5 * math.cos(2 * math.pi * i / (n - 1)))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """The Hamming window alpha - beta cos(2 pi n / (N - 1)), like torch.hamming_window.

    Returns:
        Tensor: 1-D of window_length.
    """
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, n: alpha - beta * math.cos(2 * math.pi * i / (n - 1)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """The Blackman window 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)).

    Returns:
        Tensor: 1-D of window_length.
    """
    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, n: 0.42 - 0.5 * math.cos(2 * math.pi * i / (n - 1))
                   + 0.08 * math.cos(4 * math.pi * i / (n - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                    requires_grad=False):
    """The Bartlett (triangular) window 1 - |2n / (N - 1) - 1|.

    Returns:
        Tensor: 1-D of window_length.
    """
    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad,
                   lambda i, n: 1 - abs(2.0 * i / (n - 1) - 1))


def _i0(x):
    """The modified Bessel function of the first kind, order 0 (power series)."""
    term, total, k = 1.0, 1.0, 0
    while term > 1e-17 * total:
        k += 1
        term *= (x / (2 * k)) ** 2
        total += term
    return total


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """The Kaiser window I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2.

    Returns:
        Tensor: 1-D of window_length.
    """
    def value(i, n):
        a = (n - 1) / 2.0
        r = (i - a) / a
        return _i0(beta * math.sqrt(max(0.0, 1 - r * r))) / _i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, value)


FUNCTIONS = {f.__name__: f for f in (hann_window, hamming_window, blackman_window, bartlett_window,
                                     kaiser_window)}
