"""tc.nn.init: in-place initializers from libtc's default generator."""
import math

from .._core import fn, no_grad
from .._errors import check


def _no_grad_call(name, t, *args):
    check(fn(name)(t._h, *args))
    return t


def uniform_(t, a=0.0, b=1.0):
    """Fills ``t`` in place with samples of U(a, b).

    Args:
        t (Tensor): the tensor.
        a (float): the lower bound.
        b (float): the upper bound.

    Returns:
        Tensor: t.
    """
    return _no_grad_call("tc_uniform_", t, float(a), float(b))


def normal_(t, mean=0.0, std=1.0):
    """Fills ``t`` in place with samples of N(mean, std^2).

    Args:
        t (Tensor): the tensor.
        mean (float): the mean.
        std (float): the standard deviation.

    Returns:
        Tensor: t.
    """
    return _no_grad_call("tc_normal_", t, float(mean), float(std))


def kaiming_uniform_(t, a=0.0):
    """Fills ``t`` in place with He (Kaiming) uniform values.

    Args:
        t (Tensor): the tensor (fan_in from its shape).
        a (float): the negative slope of the following leaky ReLU.

    Returns:
        Tensor: t.
    """
    return _no_grad_call("tc_kaiming_uniform_", t, float(a))


def xavier_uniform_(t, gain=1.0):
    """Fills ``t`` in place with Glorot (Xavier) uniform values.

    Args:
        t (Tensor): the tensor (fans from its shape).
        gain (float): the scaling factor.

    Returns:
        Tensor: t.
    """
    return _no_grad_call("tc_xavier_uniform_", t, float(gain))


def zeros_(t):
    """In place, outside autograd (a Parameter may be filled), like torch.nn.init."""
    with no_grad():
        check(fn("tc_zero_")(t._h))
    return t


def ones_(t):
    """Fills ``t`` with ones in place and returns it."""
    with no_grad():
        check(fn("tc_fill_")(t._h, 1.0))
    return t


def constant_(t, value):
    """Fills ``t`` with ``value`` in place.

    Args:
        t (Tensor): the tensor.
        value (Number): the value.

    Returns:
        Tensor: t.
    """
    with no_grad():
        check(fn("tc_fill_")(t._h, float(value)))
    return t


def calculate_gain(nonlinearity, param=None):
    """Returns the recommended gain for a nonlinearity, as PyTorch's.

    Args:
        nonlinearity (str): e.g. ``'relu'``, ``'tanh'``, ``'leaky_relu'``.
        param (float, optional): the negative slope of leaky_relu.

    Returns:
        float: the gain.
    """
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
