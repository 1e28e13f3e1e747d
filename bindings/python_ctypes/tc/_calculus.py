"""Numerical integration and differentiation of sampled functions, composed
from tc ops (differentiable): trapezoid, trapz, cumulative_trapezoid and
gradient, like PyTorch's. FUNCTIONS holds them by name."""
import numbers

from . import _core as K
from ._tensor_base import TensorBase


def _tc():
    import tc
    return tc


def _float(t):
    return t if t.dtype.is_floating_point else t.to(K.get_default_dtype())


def _spacings(y, x, dx, dim):
    """The step between consecutive samples along dim: a number, or a tensor
    broadcastable against y.narrow(dim, 0, n - 1)."""
    if x is None:
        return 1 if dx is None else dx
    if dx is not None:
        raise TypeError("trapezoid() received both x and dx")
    d = dim % y.ndim
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        steps = x[1:] - x[:-1]
        return steps.reshape(*[steps.shape[0] if i == d else 1 for i in range(y.ndim)])
    return x.narrow(dim, 1, x.shape[dim] - 1) - x.narrow(dim, 0, x.shape[dim] - 1)


def _pair_means(y, dim):
    n = y.shape[dim]
    return (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) / 2


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule integral of y along dim, with sample points x (a
    1-D tensor or one shaped like y) or a constant spacing dx (default 1),
    like torch.trapezoid.

    Returns:
        Tensor: y's shape without dim.
    """
    tc = _tc()
    if y.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got %d)" % dim)
    yf = _float(y)
    if yf.shape[dim] == 0:
        shape = [s for i, s in enumerate(yf.shape) if i != dim % yf.ndim]
        return tc.zeros(*shape, dtype=yf.dtype, device=yf.device)
    step = _spacings(yf, x, dx, dim)
    return (_pair_means(yf, dim) * step).sum(dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """The older name of :func:`trapezoid` (trapz(y, x, dim=) or trapz(y, dx=, dim=)).

    Returns:
        Tensor: y's shape without dim.
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal integral of y along dim (one element shorter
    there), like torch.cumulative_trapezoid.

    Returns:
        Tensor: y's shape, dim one shorter.
    """
    tc = _tc()
    yf = _float(y)
    if yf.shape[dim] == 0:
        return yf
    step = _spacings(yf, x, dx, dim)
    return tc.cumsum(_pair_means(yf, dim) * step, dim)


def _dims(input, dim):
    if dim is None:
        return list(range(input.ndim))
    if isinstance(dim, numbers.Integral):
        return [dim % input.ndim]
    return [d % input.ndim for d in dim]


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of a sampled function along each of the dims by central
    differences inside and one-sided ones (first or second order) at the
    ends, like torch.gradient.

    Args:
        input (Tensor): the samples.
        spacing (number, sequence of numbers or sequence of Tensors): a
            constant step for all dims, a step per dim, or the 1-D
            coordinates of the samples per dim.
        dim (int or sequence of int, optional): the dims (default: all).
        edge_order (int): 1 or 2.

    Returns:
        tuple of Tensor: one derivative per dim.
    """
    tc = _tc()
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = _dims(input, dim)
    if isinstance(spacing, (numbers.Number, TensorBase)):
        if isinstance(spacing, TensorBase) and spacing.ndim != 0:
            spacing = [spacing]
        else:
            spacing = [spacing] * len(dims)
    spacing = list(spacing)
    if len(spacing) == 1 and len(dims) > 1 and isinstance(spacing[0], numbers.Number):
        spacing = spacing * len(dims)
    if len(spacing) != len(dims):
        raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           "arguments to have the same length, but got a spacing argument of length %d and a dim "
                           "argument of length %d." % (len(spacing), len(dims)))
    x = _float(input)
    out = []
    for d, h in zip(dims, spacing):
        n = x.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")

        def sl(a, b, t=x, d=d):
            return t.narrow(d, a, b - a)
        if isinstance(h, TensorBase) and h.ndim == 1:
            out.append(_uneven(x, d, h.to(x.dtype), edge_order, sl))
            continue
        h = float(h.item()) if isinstance(h, TensorBase) else float(h)
        inner = (sl(2, n) - sl(0, n - 2)) / (2 * h)
        if edge_order == 1:
            first = (sl(1, 2) - sl(0, 1)) / h
            last = (sl(n - 1, n) - sl(n - 2, n - 1)) / h
        else:
            first = (sl(0, 1) * -1.5 + sl(1, 2) * 2 - sl(2, 3) * 0.5) / h
            last = (sl(n - 3, n - 2) * 0.5 - sl(n - 2, n - 1) * 2 + sl(n - 1, n) * 1.5) / h
        out.append(tc.cat([first, inner, last], d))
    return tuple(out)


def _uneven(x, d, coords, edge_order, sl):
    """gradient along d for samples at the 1-D coordinates (numpy's formulas)."""
    tc = _tc()
    n = x.shape[d]
    if coords.shape[0] != n:
        raise RuntimeError("torch.gradient expected each tensor to be on the same device and of size %d" % n)

    def shaped(v):
        return v.reshape(*[v.shape[0] if i == d else 1 for i in range(x.ndim)])
    h = coords[1:] - coords[:-1]
    h1, h2 = shaped(h[:-1]), shaped(h[1:])
    a = -h2 / (h1 * (h1 + h2))
    b = (h2 - h1) / (h1 * h2)
    c = h1 / (h2 * (h1 + h2))
    inner = a * sl(0, n - 2) + b * sl(1, n - 1) + c * sl(2, n)
    if edge_order == 1:
        first = (sl(1, 2) - sl(0, 1)) / shaped(h[0:1])
        last = (sl(n - 1, n) - sl(n - 2, n - 1)) / shaped(h[-1:])
    else:
        p1, p2 = shaped(h[0:1]), shaped(h[1:2])
        first = (-(2 * p1 + p2) / (p1 * (p1 + p2)) * sl(0, 1) + (p1 + p2) / (p1 * p2) * sl(1, 2)
                 - p1 / (p2 * (p1 + p2)) * sl(2, 3))
        q1, q2 = shaped(h[-1:]), shaped(h[-2:-1])
        last = (q1 / (q2 * (q1 + q2)) * sl(n - 3, n - 2) - (q2 + q1) / (q2 * q1) * sl(n - 2, n - 1)
                + (2 * q1 + q2) / (q1 * (q2 + q1)) * sl(n - 1, n))
    return tc.cat([first, inner, last], d)


FUNCTIONS = {f.__name__: f for f in (trapezoid, trapz, cumulative_trapezoid, gradient)}
