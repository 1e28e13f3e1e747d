"""tc.nn.init: in-place initializers from libtc's default generator, with
torch.nn.init's names, arguments and errors (they change values outside
autograd, so parameters may be filled)."""
import math
import warnings

from .._core import fn, no_grad
from .._errors import check


def _no_grad_call(name, t, *args):
    check(fn(name)(t._h, *args))
    return t


def _assign(t, values):
    """Copies ``values`` into ``t`` in place, outside autograd; returns t."""
    with no_grad():
        t.detach().copy_(values.to(t.dtype).reshape(tuple(t.shape)))
    return t


def uniform_(tensor, a=0.0, b=1.0):
    """Fills ``tensor`` in place with samples of U(a, b).

    Args:
        tensor (Tensor): the tensor.
        a (float): the lower bound.
        b (float): the upper bound.

    Returns:
        Tensor: tensor.
    """
    return _no_grad_call("tc_uniform_", tensor, float(a), float(b))


def normal_(tensor, mean=0.0, std=1.0):
    """Fills ``tensor`` in place with samples of N(mean, std^2).

    Args:
        tensor (Tensor): the tensor.
        mean (float): the mean.
        std (float): the standard deviation.

    Returns:
        Tensor: tensor.
    """
    return _no_grad_call("tc_normal_", tensor, float(mean), float(std))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0):
    """Fills ``tensor`` in place with samples of N(mean, std^2) truncated to [a, b]
    (inverse-CDF sampling, as torch's).

    Args:
        tensor (Tensor): the tensor.
        mean (float): the mean of the normal distribution.
        std (float): its standard deviation.
        a (float): the lower cut-off.
        b (float): the upper cut-off.

    Returns:
        Tensor: tensor.
    """
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    lo, hi = norm_cdf((a - mean) / std), norm_cdf((b - mean) / std)
    uniform_(tensor, 2 * lo - 1, 2 * hi - 1)
    with no_grad():
        values = (tensor.detach().erfinv() * (std * math.sqrt(2.0)) + mean).clamp(a, b)
    return _assign(tensor, values)


def zeros_(tensor):
    """Fills ``tensor`` with zeros in place and returns it."""
    with no_grad():
        check(fn("tc_zero_")(tensor._h))
    return tensor


def ones_(tensor):
    """Fills ``tensor`` with ones in place and returns it."""
    with no_grad():
        check(fn("tc_fill_")(tensor._h, 1.0))
    return tensor


def constant_(tensor, val):
    """Fills ``tensor`` with ``val`` in place.

    Args:
        tensor (Tensor): the tensor.
        val (Number): the value.

    Returns:
        Tensor: tensor.
    """
    with no_grad():
        check(fn("tc_fill_")(tensor._h, float(val)))
    return tensor


def eye_(tensor):
    """Fills the 2-D ``tensor`` with the identity matrix (ones on the main diagonal).

    Args:
        tensor (Tensor): a 2-D tensor.

    Returns:
        Tensor: tensor.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._shape_ops import eye
    return _assign(tensor, eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor, groups=1):
    """Fills a 3-, 4- or 5-D convolution weight with the Dirac delta, so that
    the convolution keeps its input channels (per group).

    Args:
        tensor (Tensor): [out_channels, in_channels, *kernel].
        groups (int): the convolution's groups.

    Returns:
        Tensor: tensor.
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    zeros_(tensor)
    with no_grad():
        target = tensor.detach()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                target[(g * per_group + d, d) + centre] = 1
    return tensor


def _calculate_fan_in_and_fan_out(tensor):
    """(fan_in, fan_out) of a weight: its dims 1 and 0 times the receptive field."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tuple(tensor.shape)[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError("Mode {} not supported, please use one of {}".format(mode, valid))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def calculate_gain(nonlinearity, param=None):
    """Returns the recommended gain for a nonlinearity, as torch's.

    Args:
        nonlinearity (str): 'linear', 'conv1d'/'conv2d'/'conv3d',
            'conv_transpose1d'/2d/3d, 'sigmoid', 'tanh', 'relu', 'leaky_relu' or 'selu'.
        param (float, optional): the negative slope of leaky_relu (0.01 when None).

    Returns:
        float: the gain.
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError("negative_slope {} not a valid number".format(param))
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4  # torch's empirical value
    raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def xavier_uniform_(tensor, gain=1.0):
    """Fills ``tensor`` in place with Glorot (Xavier) uniform values:
    U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)).

    Args:
        tensor (Tensor): the tensor (fans from its shape).
        gain (float): the scaling factor.

    Returns:
        Tensor: tensor.
    """
    _calculate_fan_in_and_fan_out(tensor)  # the error for tensors under 2-D
    return _no_grad_call("tc_xavier_uniform_", tensor, float(gain))


def xavier_normal_(tensor, gain=1.0):
    """Fills ``tensor`` in place with Glorot (Xavier) normal values:
    N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)).

    Args:
        tensor (Tensor): the tensor (fans from its shape).
        gain (float): the scaling factor.

    Returns:
        Tensor: tensor.
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def _warn_if_empty(tensor):
    """True, after torch's warning, for a zero-element tensor (the Kaiming initializers leave it alone)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return True
    return False


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Fills ``tensor`` in place with He (Kaiming) uniform values:
    U(-b, b), b = gain * sqrt(3 / fan).

    Args:
        tensor (Tensor): the tensor.
        a (float): the negative slope of the following leaky ReLU.
        mode (str): 'fan_in' (keeps the forward pass's variance) or 'fan_out' (the backward's).
        nonlinearity (str): the nonlinearity whose gain to use.

    Returns:
        Tensor: tensor.
    """
    if _warn_if_empty(tensor):
        return tensor
    if mode == "fan_in" and nonlinearity == "leaky_relu" and not isinstance(a, bool):
        _kaiming_std(tensor, a, mode, nonlinearity)  # torch's errors
        return _no_grad_call("tc_kaiming_uniform_", tensor, float(a))
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    """Fills ``tensor`` in place with He (Kaiming) normal values:
    N(0, std^2), std = gain / sqrt(fan).

    Args:
        tensor (Tensor): the tensor.
        a (float): the negative slope of the following leaky ReLU.
        mode (str): 'fan_in' or 'fan_out'.
        nonlinearity (str): the nonlinearity whose gain to use.

    Returns:
        Tensor: tensor.
    """
    if _warn_if_empty(tensor):
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


def orthogonal_(tensor, gain=1):
    """Fills ``tensor`` with a (semi-)orthogonal matrix: the Q factor of a
    Gaussian matrix, rows x (the other dims flattened), scaled by gain.

    Q is computed in float64 by Gram-Schmidt orthogonalization repeated once
    (numerically orthogonal), with R's diagonal positive, the convention torch
    applies to its QR.

    Args:
        tensor (Tensor): at least 2-D.
        gain (float): the scaling factor.

    Returns:
        Tensor: tensor.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from .._tensor import empty
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    gaussian = normal_(empty(rows, cols, dtype="float64", device=tensor.device))
    wide = rows < cols
    q = _orthonormal_columns(gaussian.t().contiguous() if wide else gaussian)
    if wide:
        q = q.t()
    return _assign(tensor, q * gain)


def _orthonormal_columns(a):
    """The Q of a's thin QR (a: [m, n], m >= n, full rank), R's diagonal positive."""
    from .._tensor import zeros
    m, n = a.shape
    basis = zeros(n, m, dtype=a.dtype, device=a.device)  # row j: the j-th column of Q (rows past j still 0)
    for j in range(n):
        v = a[:, j]
        for _ in range(2):  # the second pass restores the orthogonality the first loses to rounding
            v = v - basis.t().matmul(basis.matmul(v))
        basis[j] = v / v.norm()
    return basis.t()


def sparse_(tensor, sparsity, std=0.01):
    """Fills the 2-D ``tensor`` with N(0, std^2) values, then zeroes
    ceil(sparsity * rows) randomly chosen rows of each column.

    Args:
        tensor (Tensor): a 2-D tensor.
        sparsity (float): the fraction of each column to zero.
        std (float): the standard deviation of the nonzero values.

    Returns:
        Tensor: tensor.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    from .._shape_ops import randperm
    from .._tensor import tensor as as_tensor
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    normal_(tensor, 0.0, std)
    keep = [[1.0] * cols for _ in range(rows)]
    for col in range(cols):
        for row in randperm(rows).tolist()[:num_zeros]:
            keep[row][col] = 0.0
    with no_grad():
        values = tensor.detach() * as_tensor(keep, dtype=tensor.dtype, device=tensor.device)
    return _assign(tensor, values)


def _make_deprecate(meth):
    """The deprecated name without the trailing underscore (torch keeps them): warns, then calls meth."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn("nn.init.{} is now deprecated in favor of nn.init.{}.".format(old_name, new_name),
                      stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = "{old_name}(...)\n\n.. warning::\n    This method is now deprecated in favor of " \
        ":func:`tc.nn.init.{new_name}`.\n\nSee :func:`~tc.nn.init.{new_name}` for details.".format(
            old_name=old_name, new_name=new_name)
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)
