"""tc.nn.init: in-place initializers from libtc's default generator."""
import math

from .._core import fn, no_grad
from .._errors import check


def _no_grad_call(name, t, *args):
    check(fn(name)(t._h, *args))
    return t


def uniform_(t, a=0.0, b=1.0):
    return _no_grad_call("tc_uniform_", t, float(a), float(b))


def normal_(t, mean=0.0, std=1.0):
    return _no_grad_call("tc_normal_", t, float(mean), float(std))


def kaiming_uniform_(t, a=0.0):
    return _no_grad_call("tc_kaiming_uniform_", t, float(a))


def xavier_uniform_(t, gain=1.0):
    return _no_grad_call("tc_xavier_uniform_", t, float(gain))


def zeros_(t):
    """In place, outside autograd (a Parameter may be filled), like torch.nn.init."""
    with no_grad():
        check(fn("tc_zero_")(t._h))
    return t


def ones_(t):
    with no_grad():
        check(fn("tc_fill_")(t._h, 1.0))
    return t


def constant_(t, value):
    with no_grad():
        check(fn("tc_fill_")(t._h, float(value)))
    return t


def calculate_gain(nonlinearity, param=None):
    if nonlinearity in ("linear", "conv2d", "sigmoid"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError("unsupported nonlinearity %s" % nonlinearity)
