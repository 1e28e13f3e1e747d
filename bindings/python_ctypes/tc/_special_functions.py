"""PyTorch's special functions whose Python surface is not generated from the
op table: torch.polygamma(n, input) (n first, an int), torch.mvlgamma(input, p)
(p required), torch.frexp (two outputs), their Tensor methods, and the in-place variants (lgamma_,
digamma_, polygamma_, mvlgamma_, i0_, igamma_, igammac_, nextafter_, gcd_,
lcm_). The kernels are libtc's op-table rows (tc_polygamma, tc_mvlgamma,
...); tc/special.py is the torch.special namespace over them.

SpecialFunctionMethods holds the methods (a mixin of tc.Tensor); FUNCTIONS
holds the tc.* functions."""
import collections
import numbers

from ._core import VP, byref, fn
from ._errors import check
from ._tensor_base import _unary, _wrap
from ._tensor_inplace import _inplace

_polygamma = _unary("polygamma")  # tc_polygamma(a, double n, out)
_mvlgamma = _unary("mvlgamma")  # tc_mvlgamma(a, double p, out)


def _check_int(fname, argname, position, value):
    # PyTorch's argument parser: an int, not a float (nor a bool for "int" either way).
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s(): argument '%s' (position %d) must be int, not %s"
                        % (fname, argname, position, type(value).__name__))
    return int(value)


def polygamma(n, input):
    """The n-th derivative of the digamma function, elementwise (torch.polygamma).

    Args:
        n (int): the order, >= 0 (0 is digamma).
        input (Tensor): the values; integer and bool tensors promote to the
            default float dtype.

    Returns:
        Tensor: psi^(n)(input).

    Raises:
        TypeError: n is not an int.
        RuntimeError: n is negative.
    """
    return _polygamma(input, _check_int("polygamma", "n", 1, n))


def _polygamma_method(self, n):
    """self.polygamma(n): the n-th derivative of digamma (see tc.polygamma)."""
    return _polygamma(self, _check_int("polygamma", "n", 1, n))


def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension p, elementwise (torch.mvlgamma):
    ``sum_{j<p} lgamma(input - j/2) + p(p-1)/4 log(pi)``.

    Args:
        input (Tensor): the values (defined for input > (p-1)/2).
        p (int): the dimension, >= 1.

    Returns:
        Tensor: the result, of input's floating dtype (the default float dtype
        for integer inputs).

    Raises:
        RuntimeError: p < 1.
    """
    return _mvlgamma(input, _check_int("mvlgamma", "p", 2, p))


def _mvlgamma_method(self, p):
    """self.mvlgamma(p): the multivariate log-gamma function (see tc.mvlgamma)."""
    return _mvlgamma(self, _check_int("mvlgamma", "p", 1, p))


# torch.return_types.frexp
Frexp = collections.namedtuple("frexp", ["mantissa", "exponent"])


def frexp(input):
    """Splits input into mantissa and exponent (torch.frexp): input = mantissa * 2 ** exponent.

    Args:
        input (Tensor): a floating tensor.

    Returns:
        (mantissa, exponent): the mantissa (input's dtype, |mantissa| in [0.5, 1),
        0, inf and NaN kept) and the int32 exponent (0 for those); the mantissa
        is differentiable.

    Raises:
        RuntimeError: input is not floating.
    """
    m, e = VP(), VP()
    check(fn("tc_frexp")(input._h, byref(m), byref(e)))
    return Frexp(_wrap(m), _wrap(e))


# The Tensor methods (generated from the op table, or above) whose in-place
# forms PyTorch has.
INPLACE = ("lgamma", "digamma", "polygamma", "mvlgamma", "i0", "igamma", "igammac", "nextafter", "gcd", "lcm")

FUNCTIONS = {"polygamma": polygamma, "mvlgamma": mvlgamma, "frexp": frexp}


class SpecialFunctionMethods:
    """tc.Tensor's polygamma, mvlgamma, frexp and the in-place variants of
    the special functions (lgamma_, digamma_, ...)."""

    __slots__ = ()

    polygamma = _polygamma_method
    mvlgamma = _mvlgamma_method
    frexp = frexp
    lgamma_ = _inplace("lgamma")
    digamma_ = _inplace("digamma")
    polygamma_ = _inplace("polygamma")
    mvlgamma_ = _inplace("mvlgamma")
    i0_ = _inplace("i0")
    igamma_ = _inplace("igamma")
    igammac_ = _inplace("igammac")
    nextafter_ = _inplace("nextafter")
    gcd_ = _inplace("gcd")
    lcm_ = _inplace("lcm")
