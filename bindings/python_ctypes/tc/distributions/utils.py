"""Helpers shared by the distributions (torch.distributions.utils): broadcasting
of parameters, conversions between probabilities and logits, machine limits
of the floating dtypes, and the cached-property decorator."""
import numbers
from functools import update_wrapper

import tc

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
           "finfo", "broadcast_shapes", "broadcast_tensors", "tril_matrix_to_vec", "vec_to_tril_matrix"]


class _FInfo:
    """The limits torch.finfo reports for one floating dtype."""

    def __init__(self, eps, tiny, max_):
        self.eps = eps
        self.tiny = tiny
        self.max = max_
        self.min = -max_


_FINFO = {
    "float64": _FInfo(2.220446049250313e-16, 2.2250738585072014e-308, 1.7976931348623157e308),
    "float32": _FInfo(1.1920928955078125e-07, 1.1754943508222875e-38, 3.4028234663852886e38),
    "float16": _FInfo(0.0009765625, 6.103515625e-05, 65504.0),
    "bfloat16": _FInfo(0.0078125, 1.1754943508222875e-38, 3.3895313892515355e38),
}


def finfo(dtype):
    """Machine limits (eps, tiny, max, min) of a floating tc dtype, like torch.finfo."""
    return _FINFO[str(dtype).split(".")[-1]]


def broadcast_shapes(*shapes):
    """The shape that the given shapes broadcast to (ValueError if they do not)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != 1:
                if out[i] != 1 and out[i] != n:
                    raise RuntimeError("shape mismatch: objects cannot be broadcast to a single shape")
                out[i] = n
    return tc.Size(out)


def broadcast_tensors(*tensors):
    """The tensors expanded (views) to their common broadcast shape."""
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return [t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in tensors]


def broadcast_all(*values):
    """Broadcasts numbers and tensors together, like torch.distributions.utils.broadcast_all:
    numbers become tensors of the first tensor's dtype and device (the default dtype when
    every value is a number)."""
    if not all(isinstance(v, (tc.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, tc.Tensor) for v in values):
        like = next((v for v in values if isinstance(v, tc.Tensor)), None)
        dtype = like.dtype if like is not None else tc.get_default_dtype()
        device = like.device if like is not None else None
        values = [v if isinstance(v, tc.Tensor) else tc.tensor(v, dtype=dtype, device=device)
                  for v in values]
    return broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    """Standard normal draws of ``shape`` from tc's generator."""
    return tc.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sums out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:value.dim() - dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: sigmoid for binary, softmax over the last dim otherwise."""
    if is_binary:
        return tc.sigmoid(logits)
    return logits.softmax(-1)


def clamp_probs(probs):
    """Clamps probabilities into [eps, 1 - eps] of their dtype."""
    eps = finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities: log-odds for binary, log-probabilities otherwise."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return tc.log(ps_clamped) - tc.log1p(-ps_clamped)
    return tc.log(ps_clamped)


class lazy_property:
    """A property computed once, on first access, and stored on the instance
    (so that parameters given as probs or logits are derived only when used)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with tc.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    """What a lazy_property is when read from the class: also a property (for docs)."""

    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower-triangular entries (below diagonal ``diag``) of the last two dims, as a vector."""
    n = mat.shape[-1]
    rows, cols = [], []
    for i in range(n):
        for j in range(n):
            if j - i <= diag:
                rows.append(i)
                cols.append(j)
    flat = tc.tensor([r * n + c for r, c in zip(rows, cols)], dtype=tc.int64, device=mat.device)
    return mat.reshape(tuple(mat.shape[:-2]) + (n * n,)).index_select(-1, flat)


def vec_to_tril_matrix(vec, diag=0):
    """The inverse of tril_matrix_to_vec: a lower-triangular matrix from its entries."""
    m = vec.shape[-1]
    n = int(round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2))
    idx = [i * n + j for i in range(n) for j in range(n) if j - i <= diag]
    if len(idx) != m:
        raise ValueError("vec has an invalid size for a triangular matrix")
    out = tc.zeros(tuple(vec.shape[:-1]) + (n * n,), dtype=vec.dtype, device=vec.device)
    index = tc.tensor(idx, dtype=tc.int64, device=vec.device).expand(tuple(vec.shape[:-1]) + (m,))
    return out.scatter(-1, index, vec).reshape(tuple(vec.shape[:-1]) + (n, n))
