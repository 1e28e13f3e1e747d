"""Statistics and set ops composed from tc ops (differentiable where
torch's are): cov, corrcoef, quantile, nanquantile, nanmedian, bucketize,
isin, unique_consecutive, combinations, and angle/imag of real tensors
(histograms and bincount are in _histograms.py). FUNCTIONS holds the torch
functions, METHODS the Tensor methods of the same names."""
import collections
import itertools
import math
import numbers

from . import _core as K
from ._tensor_base import TensorBase

NanMedian = collections.namedtuple("nanmedian", ["values", "indices"])


def _tc():
    import tc
    return tc


def _floating(t):
    """t, or t in the default dtype when it is not floating."""
    return t if t.dtype.is_floating_point else t.to(K.get_default_dtype())


# ------------------------------------------------------------------ covariance
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the rows of ``input`` (variables) over its
    columns (observations), like torch.cov.

    Args:
        input (Tensor): 1-D (one variable) or 2-D.
        correction (int): subtracted from the (weighted) observation count (1: Bessel).
        fweights (Tensor, optional): integer frequency weights per observation.
        aweights (Tensor, optional): importance weights per observation.

    Returns:
        Tensor: (variables, variables), or a scalar for one variable.
    """
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an input with %d "
                           "dimensions" % input.ndim)
    x = _floating(input)
    x = x.reshape(1, -1) if x.ndim < 2 else x
    n_obs = x.shape[1]
    w = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        if wt.ndim > 1:
            raise RuntimeError("cov(): expected %s to have one or fewer dimensions but got %s with %d dimensions"
                               % (name, name, wt.ndim))
        if wt.numel() != n_obs:
            raise RuntimeError("cov(): expected %s to have the same numel as there are observations in the input "
                               "but got %d != %d" % (name, wt.numel(), n_obs))
        if name == "fweights" and wt.dtype.is_floating_point:
            raise RuntimeError("cov(): expected fweights to have integral dtype but got fweights with %s dtype"
                               % wt.dtype)
        if bool((wt < 0).any()):
            raise RuntimeError("cov(): %s cannot be negative" % name)
        wt = wt.to(x.dtype)
        w = wt if w is None else w * wt
    w_sum = w.sum() if w is not None else n_obs
    avg = ((x * w) if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    else:
        norm = w_sum - correction
    norm = norm.clamp(min=0) if isinstance(norm, TensorBase) else max(norm, 0)
    xm = x - avg.unsqueeze(1)
    c = xm.matmul(((xm * w) if w is not None else xm).t())
    return (c / norm).squeeze()


def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``, like
    torch.corrcoef (cov normalized by the standard deviations, clipped to [-1, 1]).

    Returns:
        Tensor: (variables, variables), or a scalar for one variable.
    """
    c = cov(input)
    if c.ndim == 0:
        return c / c
    sd = c.diagonal().sqrt()
    c = c / sd.unsqueeze(1) / sd.unsqueeze(0)
    return c.clamp(-1, 1)


# ------------------------------------------------------------------- quantiles
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, name):
    tc = _tc()
    if not input.dtype.is_floating_point:
        raise RuntimeError("%s() input tensor must be either float or double dtype" % name)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("%s() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           "Got %s" % (name, interpolation))
    scalar_q = isinstance(q, numbers.Number)
    qt = tc.tensor([float(q)], dtype=input.dtype, device=input.device) if scalar_q else q
    if not scalar_q:
        scalar_q = qt.ndim == 0  # a 0-dim q gives a result without the q dim, like a number
        if qt.ndim > 1:
            raise RuntimeError("%s() q must be a scalar or 1D tensor" % name)
        if qt.dtype != input.dtype:
            raise RuntimeError("%s() q tensor must be same dtype as the input tensor" % name)
        qt = qt.reshape(-1)
    if input.numel() == 0 and dim is None:
        raise RuntimeError("%s() input tensor must be non-empty" % name)
    if bool(((qt < 0) | (qt > 1)).any()):
        raise RuntimeError("%s() q values must be in the range [0, 1]" % name)
    if dim is None:
        x = input.reshape(-1)
    else:
        x = input.movedim(dim % input.ndim, -1) if input.ndim else input.reshape(1)
    s = x.sort(-1).values  # NaN sorts last
    n = s.shape[-1]
    nan = s.isnan()
    if ignore_nan:
        count = nan.logical_not().sum(-1, keepdim=True).to(s.dtype)
    else:
        count = tc.full(tuple(s.shape[:-1]) + (1,), float(n), dtype=s.dtype, device=s.device)
    # ranks: (..., len(q)); rows of all NaN (or with a NaN, for quantile) give NaN
    last = (count - 1).clamp(min=0)
    ranks = qt * last
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    lo = ranks.floor().to(K.int64).clamp(0, max(n - 1, 0))
    hi = ranks.ceil().to(K.int64).clamp(0, max(n - 1, 0))
    below, above = s.gather(-1, lo), s.gather(-1, hi)
    if interpolation == "midpoint":
        out = below + (above - below) * 0.5
    elif interpolation == "linear":
        out = below + (above - below) * (ranks - lo.to(s.dtype))
    else:
        out = below
    invalid = (count == 0) if ignore_nan else nan.any(-1, keepdim=True)
    out = tc.where(invalid.expand(*out.shape), tc.full((), float("nan"), dtype=s.dtype, device=s.device), out)
    out = out.movedim(-1, 0)  # (len(q), ...)
    if keepdim:
        if dim is None:
            out = out.reshape(out.shape[0], *([1] * input.ndim))
        else:
            out = out.unsqueeze(dim % input.ndim + 1 if input.ndim else 1)
    return out[0] if scalar_q else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The q-th quantiles of input (flattened, or along dim), like torch.quantile:
    a row holding NaN gives NaN.

    Args:
        input (Tensor): a floating tensor.
        q (float or Tensor): quantile(s) in [0, 1] (a 1-D tensor adds a leading dim).
        dim (int, optional): the dimension reduced (None: all elements).
        keepdim (bool): keep the reduced dim(s) with size 1.
        interpolation (str): linear, lower, higher, midpoint or nearest.

    Returns:
        Tensor: the quantiles.
    """
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` ignoring NaN (a row of only NaN gives NaN).

    Returns:
        Tensor: the quantiles.
    """
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def nanmedian(input, dim=None, keepdim=False):
    """The lower median ignoring NaN, like torch.nanmedian: of all elements
    (a scalar), or along dim as (values, indices).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dimension.
        keepdim (bool): keep dim with size 1.

    Returns:
        Tensor, or nanmedian(values, indices) with dim.
    """
    tc = _tc()
    if dim is None:
        x = input.reshape(-1)
        if x.numel() == 0:
            if x.dtype.is_floating_point:
                return tc.full((), float("nan"), dtype=x.dtype, device=x.device)
            raise IndexError("nanmedian(): an empty integer tensor has no median")
        if x.dtype.is_floating_point:
            keep = x.isnan().logical_not()
            if not bool(keep.any()):
                return x[0]
            x = x.masked_select(keep) if not bool(keep.all()) else x
        s = x.sort().values
        return s[(s.shape[0] - 1) // 2]
    ndim = max(input.ndim, 1)
    d = dim % ndim
    x = input.reshape(1) if input.ndim == 0 else input
    s = x.sort(d)
    if x.dtype.is_floating_point:
        count = x.isnan().logical_not().sum(d, keepdim=True)
    else:
        count = tc.full([1] * x.ndim, x.shape[d], dtype=K.int64, device=x.device).expand(
            *[1 if i == d else n for i, n in enumerate(x.shape)])
    pos = ((count - 1).clamp(min=0)) // 2
    values, indices = s.values.gather(d, pos), s.indices.gather(d, pos)
    if not keepdim:
        values, indices = values.squeeze(d), indices.squeeze(d)
    if input.ndim == 0:
        values, indices = values.reshape(()), indices.reshape(())
    return NanMedian(values, indices)


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The index of the bucket of each element of input among the sorted 1-D
    ``boundaries`` (right=False: boundaries[i-1] < x <= boundaries[i]), like
    torch.bucketize.

    Returns:
        Tensor: int64 (int32 with out_int32) indices, input's shape.
    """
    tc = _tc()
    if boundaries.ndim != 1:
        raise RuntimeError("boundaries tensor must be 1 dimension, but got dim(%d)" % boundaries.ndim)
    if not isinstance(input, TensorBase):
        input = tc.tensor(input, device=boundaries.device)
    return tc.searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements``, like torch.isin.

    Args:
        elements (Tensor or Number): the values tested.
        test_elements (Tensor or Number): the values looked for.
        assume_unique (bool): a hint (the result is the same either way).
        invert (bool): return "not in".

    Returns:
        Tensor: bool, of elements' shape.
    """
    tc = _tc()
    T = TensorBase
    if not isinstance(elements, T) and not isinstance(test_elements, T):
        raise TypeError("isin() received an invalid combination of arguments: at least one tensor is needed")
    device = elements.device if isinstance(elements, T) else test_elements.device
    e = elements if isinstance(elements, T) else tc.tensor(elements, device=device)
    t = test_elements if isinstance(test_elements, T) else tc.tensor(test_elements, device=device)
    dtype = tc.promote_types(e.dtype, t.dtype)
    e, t = e.detach().to(dtype), t.detach().to(dtype).reshape(-1)
    if t.numel() == 0:
        found = tc.zeros(*e.shape, dtype=K.bool_, device=device)
    else:
        s = t.sort().values
        pos = tc.searchsorted(s, e.reshape(-1)).clamp(max=s.shape[0] - 1)
        found = (s.gather(0, pos) == e.reshape(-1)).reshape(*e.shape)
    return found.logical_not() if invert else found


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses each run of equal consecutive elements (of the flattened
    input, or slices along dim) into one, like torch.unique_consecutive.

    Args:
        input (Tensor): the input.
        return_inverse (bool): also return, per element (slice), the index of its run.
        return_counts (bool): also return the length of each run.
        dim (int, optional): compare whole slices along this dimension.

    Returns:
        Tensor, or a tuple (output, inverse_indices?, counts?).
    """
    tc = _tc()
    x = input.detach()
    if dim is None:
        flat = x.reshape(-1)
        rows = flat
        n = flat.shape[0]
    else:
        d = dim % max(x.ndim, 1)
        rows = x.movedim(d, 0)
        n = rows.shape[0]
        flat = rows.reshape(n, -1) if n else rows
    if n == 0:
        new = tc.zeros(0, dtype=K.bool_, device=x.device)
    else:
        diff = flat[1:] != flat[:-1]
        if dim is not None and diff.ndim > 1:
            diff = diff.any(1) if diff.shape[1] else tc.zeros(n - 1, dtype=K.bool_, device=x.device)
        new = tc.cat([tc.ones(1, dtype=K.bool_, device=x.device), diff])
    starts = new.nonzero().reshape(-1)
    out = rows.index_select(0, starts) if n else rows
    if dim is not None:
        out = out.movedim(0, d)
    result = [out]
    if return_inverse:
        inv = new.to(K.int64).cumsum(0) - 1
        result.append(inv.reshape(*input.shape) if dim is None else inv)
    if return_counts:
        ends = tc.cat([starts[1:], tc.tensor([n], dtype=K.int64, device=x.device)])
        result.append(ends - starts)
    return result[0] if len(result) == 1 else tuple(result)


def combinations(input, r=2, with_replacement=False):
    """The r-length combinations of a 1-D tensor's elements, like
    torch.combinations (itertools.combinations order).

    Returns:
        Tensor: (number of combinations, r); 1-D empty when r == 0.
    """
    tc = _tc()
    if input.ndim != 1:
        raise RuntimeError("Expect a 1D vector, but got shape %s" % (list(input.shape),))
    if r < 0:
        raise RuntimeError("Expect a non-negative number, but got %d" % r)
    if r == 0:
        return tc.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = list(pick(range(input.shape[0]), r))
    if not combos:
        return tc.empty(0, r, dtype=input.dtype, device=input.device)
    idx = tc.tensor(combos, dtype=K.int64, device=input.device)
    return input.index_select(0, idx.reshape(-1)).reshape(len(combos), r)


# ------------------------------------------------------------- complex parts
def angle(input):
    """The angle of each element as a complex number: pi for negative reals,
    0 otherwise (NaN stays NaN), like torch.angle on real tensors; integers
    give the default floating dtype. The result stays in the graph (through
    the NaN pass-through), with a zero gradient at every non-NaN element.

    Returns:
        Tensor: the angles.
    """
    tc = _tc()
    x = _floating(input)
    zero = tc.zeros((), dtype=x.dtype, device=x.device)
    a = tc.where(x < 0, tc.full((), math.pi, dtype=x.dtype, device=x.device), zero)
    return tc.where(x.isnan(), x, a)


def imag(input):
    """The imaginary part: tc tensors are real, and torch.imag raises on real
    tensors the same way."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


FUNCTIONS = {f.__name__: f for f in (
    cov, corrcoef, quantile, nanquantile, nanmedian, bucketize, isin, unique_consecutive, combinations, angle,
    imag)}

# Tensor methods: torch has all of these but bucketize, combinations and isin as methods.
METHODS = {n: FUNCTIONS[n] for n in ("cov", "corrcoef", "quantile", "nanquantile", "nanmedian",
                                     "unique_consecutive", "angle")}
