"""Histograms and counts composed from tc ops (searchsorted for the bins,
index_add for the counts): histc, histogram, histogramdd and bincount, like
PyTorch's. FUNCTIONS holds them; METHODS the Tensor methods torch has
(histc, histogram, bincount)."""
import collections
import math
import numbers

from . import _core as K

Histogram = collections.namedtuple("histogram", ["hist", "bin_edges"])
HistogramDD = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _tc():
    import tc
    return tc


def _edge_range(x, rng, name):
    """(lo, hi) of the bins: the given range, else the data's min and max."""
    if rng is not None:
        lo, hi = float(rng[0]), float(rng[1])
    elif x.numel() == 0:
        lo, hi = 0.0, 0.0
    else:
        lo, hi = float(x.min().item()), float(x.max().item())
    if lo > hi:
        raise RuntimeError("%s: max must be larger than min" % name)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError("%s: range of [%s, %s] is not finite" % (name, lo, hi))
    return lo, hi


def _bin_index(x, edges):
    """The bin of each element of 1-D x for sorted 1-D edges (values on the
    last edge fall in the last bin) and whether it lies inside the edges."""
    tc = _tc()
    nb = edges.shape[0] - 1
    idx = tc.searchsorted(edges, x, right=True) - 1
    inside = (x >= edges[0]) & (x <= edges[-1])
    idx = idx.clamp(0, max(nb - 1, 0))
    return idx, inside


def _count(idx, inside, nbins, weight, dtype, device):
    """Counts (or weight sums) of idx's bins over the elements inside."""
    tc = _tc()
    ones = weight if weight is not None else tc.ones(idx.shape[0], dtype=dtype, device=device)
    ones = tc.where(inside, ones, tc.zeros((), dtype=ones.dtype, device=device))
    return tc.zeros(nbins, dtype=ones.dtype, device=device).index_add(0, idx, ones)


def histc(input, bins=100, min=0, max=0):
    """A histogram of input's elements in ``bins`` equal bins over [min, max]
    (the data's range when min == max), like torch.histc; elements outside
    are ignored.

    Returns:
        Tensor: the counts, in input's dtype.
    """
    tc = _tc()
    if not input.dtype.is_floating_point:
        raise RuntimeError("\"histogram_cpu\" not implemented for '%s'" % _TORCH_NAMES.get(input.dtype.name,
                                                                                           input.dtype.name))
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got %d for dimension 0" % bins)
    x = input.reshape(-1).detach()
    lo, hi = float(min), float(max)
    if lo == hi and x.numel():
        lo, hi = float(x.min().item()), float(x.max().item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    edges = tc.linspace(lo, hi, bins + 1, dtype=input.dtype, device=input.device)
    idx, inside = _bin_index(x, edges)
    return _count(idx, inside, bins, None, input.dtype, input.device)


_TORCH_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def histogram(input, bins, *, range=None, weight=None, density=False):
    """A histogram of input's elements, like torch.histogram: ``bins`` equal
    bins over ``range`` (default: the data's min and max) or the given
    increasing bin edges. The last bin includes its right edge.

    Args:
        input (Tensor): a floating tensor.
        bins (int or Tensor): a bin count or 1-D edges.
        range (tuple of float, optional): (min, max) with an int ``bins``.
        weight (Tensor, optional): a weight per element (input's shape).
        density (bool): normalize to a probability density.

    Returns:
        histogram(hist, bin_edges).
    """
    tc = _tc()
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.histogram: input tensor and bins tensors should have the same dtype, "
                           "but got input %s and bins float" % input.dtype)
    x = input.reshape(-1).detach()
    if isinstance(bins, numbers.Integral):
        if bins <= 0:
            raise RuntimeError("torch.histogram(): bins must be > 0, but got %d for dimension 0" % bins)
        lo, hi = _edge_range(x, range, "torch.histogram()")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = tc.linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)
    else:
        if range is not None:
            raise TypeError("histogram(): range is only allowed with an integer number of bins")
        edges = bins
        if edges.dtype != input.dtype:
            raise RuntimeError("torch.histogram: input tensor and bins tensors should have the same dtype, but "
                               "got input %s and bins %s" % (input.dtype, edges.dtype))
    nb = edges.shape[0] - 1
    w = None
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError("torch.histogram: if weight tensor is provided it should have the same shape as "
                               "the input tensor excluding its innermost dimension")
        w = weight.reshape(-1).to(input.dtype)
    idx, inside = _bin_index(x, edges)
    hist = _count(idx, inside, nb, w, input.dtype, input.device)
    if density:
        widths = edges[1:] - edges[:-1]
        hist = hist / (hist.sum() * widths)
    return Histogram(hist, edges)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """A D-dimensional histogram of the points in input's last dimension,
    like torch.histogramdd.

    Args:
        input (Tensor): (..., D) floating points.
        bins (int, sequence of int, or sequence of Tensor): bin counts (one
            for all dims, or one per dim), or the edges per dim.
        range (sequence of float, optional): (min0, max0, min1, max1, ...) with counts.
        weight (Tensor, optional): a weight per point (input.shape[:-1]).
        density (bool): normalize to a probability density.

    Returns:
        histogramdd(hist, bin_edges): hist of shape (bins0, bins1, ...) and a list of edges.
    """
    tc = _tc()
    if input.ndim < 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 1 dimension, but got 0")
    D = input.shape[-1]
    pts = input.reshape(-1, D).detach()
    if isinstance(bins, numbers.Integral):
        bins = [int(bins)] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError("torch.histogramdd: expected %d sequences of bin edges for each dimension of the "
                           "input, but got %d" % (D, len(bins)))
    if range is not None and len(range) != 2 * D:
        raise RuntimeError("torch.histogramdd: for a %d-dimensional histogram range should have %d elements, "
                           "but got %d" % (D, 2 * D, len(range)))
    edges = []
    for d, b in enumerate(bins):
        if isinstance(b, numbers.Integral):
            col = pts[:, d]
            lo, hi = _edge_range(col, None if range is None else range[2 * d:2 * d + 2], "torch.histogramdd()")
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            edges.append(tc.linspace(lo, hi, int(b) + 1, dtype=input.dtype, device=input.device))
        else:
            edges.append(b)
    counts = [e.shape[0] - 1 for e in edges]
    flat = tc.zeros(pts.shape[0], dtype=K.int64, device=input.device)
    inside = tc.ones(pts.shape[0], dtype=K.bool_, device=input.device)
    for d, e in enumerate(edges):
        idx, ok = _bin_index(pts[:, d].contiguous(), e)
        flat = flat * counts[d] + idx
        inside = inside & ok
    w = weight.reshape(-1).to(input.dtype) if weight is not None else None
    total = 1
    for c in counts:
        total *= c
    hist = _count(flat, inside, total, w, input.dtype, input.device).reshape(*counts)
    if density:
        vol = None
        for d, e in enumerate(edges):
            wd = (e[1:] - e[:-1]).reshape(*[c if i == d else 1 for i, c in enumerate(counts)])
            vol = wd if vol is None else vol * wd
        hist = hist / (hist.sum() * vol)
    return HistogramDD(hist, edges)


def bincount(input, weights=None, minlength=0):
    """The count of each value 0..max of a 1-D non-negative integer tensor
    (or the sum of its weights), like torch.bincount.

    Args:
        input (Tensor): 1-D integers >= 0.
        weights (Tensor, optional): a weight per element.
        minlength (int): the least length of the result.

    Returns:
        Tensor: int64 counts, or the weight sums (weights' floating dtype; float64 for integer weights).
    """
    tc = _tc()
    if input.dtype.is_floating_point or input.dtype == K.bool_ or input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.numel() and bool((input < 0).any()):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(int(input.max().item()) + 1 if input.numel() else 0, minlength)
    idx = input.to(K.int64)
    if weights is None:
        src = tc.ones(idx.shape[0], dtype=K.int64, device=input.device)
    else:
        src = weights if weights.dtype.is_floating_point else weights.to(K.float64)
    return tc.zeros(n, dtype=src.dtype, device=input.device).index_add(0, idx, src)


FUNCTIONS = {f.__name__: f for f in (histc, histogram, histogramdd, bincount)}
METHODS = {n: FUNCTIONS[n] for n in ("histc", "histogram", "bincount")}
