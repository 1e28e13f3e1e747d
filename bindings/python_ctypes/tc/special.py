"""tc.special: PyTorch's torch.special namespace.

The gamma, Bessel, error and normal-distribution functions are libtc's
op-table rows (tc_lgamma, tc_digamma, tc_polygamma, tc_mvlgamma, tc_i0,
tc_i0e, tc_i1, tc_i1e, tc_erfcx, tc_ndtr, tc_log_ndtr, tc_entr, tc_igamma,
tc_igammac); the rest forward to the tc functions of the same meaning
(erf, expit = sigmoid, logsumexp, ...). Integer and bool inputs promote to
the default float dtype, as in PyTorch (igamma/igammac refuse integer
tensors, as PyTorch's gammainc/gammaincc do)."""
import tc as _tc

from ._special_functions import mvlgamma as _mvlgamma
from ._special_functions import polygamma


def _unary(name, torch_name, doc):
    def f(input):
        return getattr(_tc, name)(input)

    f.__name__ = f.__qualname__ = torch_name
    f.__doc__ = "%s\n\nArgs:\n    input (Tensor): the values.\n\nReturns:\n    Tensor: the result." % doc
    return f


gammaln = _unary("lgamma", "gammaln", "log|Gamma(input)|, elementwise (torch.special.gammaln).")
digamma = _unary("digamma", "digamma", "The digamma function psi = d/dx log Gamma, elementwise.")
psi = _unary("digamma", "psi", "The digamma function (alias of tc.special.digamma).")
i0 = _unary("i0", "i0", "The modified Bessel function of the first kind of order 0, I0.")
i0e = _unary("i0e", "i0e", "The exponentially scaled I0: exp(-|x|) I0(x).")
i1 = _unary("i1", "i1", "The modified Bessel function of the first kind of order 1, I1.")
i1e = _unary("i1e", "i1e", "The exponentially scaled I1: exp(-|x|) I1(x).")
erfcx = _unary("erfcx", "erfcx", "The scaled complementary error function exp(x^2) erfc(x).")
ndtr = _unary("ndtr", "ndtr", "The standard normal cumulative distribution function Phi(x).")
log_ndtr = _unary("log_ndtr", "log_ndtr", "log Phi(x), accurate in the left tail.")
entr = _unary("entr", "entr", "-x log x for x > 0, 0 at 0, -inf below 0.")
erf = _unary("erf", "erf", "The error function (tc.erf).")
erfc = _unary("erfc", "erfc", "The complementary error function (tc.erfc).")
erfinv = _unary("erfinv", "erfinv", "The inverse error function (tc.erfinv).")
expm1 = _unary("expm1", "expm1", "exp(x) - 1, accurate near 0 (tc.expm1).")
exp2 = _unary("exp2", "exp2", "2 ** x (tc.exp2).")
log1p = _unary("log1p", "log1p", "log(1 + x), accurate near 0 (tc.log1p).")
expit = _unary("sigmoid", "expit", "The logistic sigmoid 1 / (1 + exp(-x)) (tc.sigmoid).")
sinc = _unary("sinc", "sinc", "The normalized sinc sin(pi x) / (pi x), 1 at 0 (tc.sinc).")


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension p (tc.mvlgamma).

    Args:
        input (Tensor): the values.
        p (int): the dimension, >= 1.

    Returns:
        Tensor: sum_{j<p} lgamma(input - j/2) + p(p-1)/4 log(pi).
    """
    return _mvlgamma(input, p)


def gammainc(input, other):
    """The regularized lower incomplete gamma function P(input, other) (tc.igamma).

    Args:
        input (Tensor): the shape parameter a (>= 0).
        other (Tensor): the limit x (>= 0).

    Returns:
        Tensor: P(a, x); differentiable in other only, as in PyTorch.
    """
    return _tc.igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P (tc.igammac).

    Args:
        input (Tensor): the shape parameter a (>= 0).
        other (Tensor): the limit x (>= 0).

    Returns:
        Tensor: Q(a, x); differentiable in other only, as in PyTorch.
    """
    return _tc.igammac(input, other)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (tc.xlogy).

    Args:
        input (Tensor or Number): x.
        other (Tensor or Number): y.

    Returns:
        Tensor: the result.
    """
    return _tc.xlogy(input, other)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 unless other is NaN (torch.special.xlog1py).

    Args:
        input (Tensor or Number): x.
        other (Tensor or Number): y.

    Returns:
        Tensor: the result.
    """
    x = input if isinstance(input, _tc.Tensor) else None
    y = other if isinstance(other, _tc.Tensor) else None
    like = x if x is not None else y
    dt = like.dtype if like.dtype.is_floating_point else _tc.get_default_dtype()
    x = x if x is not None else _tc.tensor(float(input), dtype=dt)
    y = y if y is not None else _tc.tensor(float(other), dtype=dt)
    if not x.dtype.is_floating_point:
        x = x.to(_tc.get_default_dtype() if not y.dtype.is_floating_point else y.dtype)
    if not y.dtype.is_floating_point:
        y = y.to(x.dtype)
    return _tc.where((x == 0) & y.isnan().logical_not(), x.new_zeros(()), x * y.log1p())


def round(input, decimals=0):
    """Rounds half to even (tc.round), to `decimals` decimal places.

    Args:
        input (Tensor): the values.
        decimals (int): the number of decimal places (PyTorch scales by
            10**decimals, rounds and scales back, and so does this).

    Returns:
        Tensor: the rounded values.
    """
    if not decimals:
        return _tc.round(input)
    scale = 10.0 ** decimals
    return _tc.round(input * scale) / scale


def logit(input, eps=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given (tc.logit).

    Args:
        input (Tensor): the probabilities.
        eps (float, optional): the clamp.

    Returns:
        Tensor: the result.
    """
    return _tc.logit(input, eps)


def logsumexp(input, dim, keepdim=False):
    """log(sum(exp(input))) over dim, computed stably (tc.logsumexp).

    Args:
        input (Tensor): the values.
        dim (int or tuple of ints): the dimensions reduced.
        keepdim (bool): whether they stay as size 1.

    Returns:
        Tensor: the result.
    """
    return _tc.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    """Softmax over dim (tc.softmax).

    Args:
        input (Tensor): the values.
        dim (int): the dimension.
        dtype (tc.dtype, optional): input is cast to it first.

    Returns:
        Tensor: the result.
    """
    return _tc.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(input)) over dim (tc.log_softmax).

    Args:
        input (Tensor): the values.
        dim (int): the dimension.
        dtype (tc.dtype, optional): input is cast to it first.

    Returns:
        Tensor: the result.
    """
    return _tc.log_softmax(input if dtype is None else input.to(dtype), dim)


__all__ = ["gammaln", "digamma", "psi", "polygamma", "multigammaln", "i0", "i0e", "i1", "i1e", "erfcx", "ndtr",
           "log_ndtr", "entr", "gammainc", "gammaincc", "erf", "erfc", "erfinv", "expm1", "exp2", "log1p", "expit",
           "sinc", "xlogy", "xlog1py", "round", "logit", "logsumexp", "softmax", "log_softmax"]
