"""Reductions, scans, sorting and searching with PyTorch's
signatures: each is a Tensor method (SortReduceMethods, a mixin of tc.Tensor) and a
tc.<name> function. Ops that return values and indices return namedtuples
with PyTorch's field names."""
from __future__ import annotations

import collections
import math
from typing import TYPE_CHECKING, Optional, Sequence, Tuple, Union

from . import _core as K
from . import _decls as D
from ._core import VP, byref, fn
from ._errors import check
from ._tensor_base import TensorBase, _call, _dims, _scalar_tensor, _wrap
if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this module's mixin
    from ._tensor import Tensor

Dims = Union[None, int, Sequence[int]]

Sort = collections.namedtuple("Sort", ["values", "indices"])
KthValue = collections.namedtuple("KthValue", ["values", "indices"])
Median = collections.namedtuple("Median", ["values", "indices"])
Mode = collections.namedtuple("Mode", ["values", "indices"])
CumMax = collections.namedtuple("CumMax", ["values", "indices"])
CumMin = collections.namedtuple("CumMin", ["values", "indices"])
AMinMax = collections.namedtuple("aminmax", ["min", "max"])


def _two(f, *args):
    """Calls f(*args, &first, &second) and wraps both handles."""
    a, b = VP(), VP()
    check(f(*args, byref(a), byref(b)))
    return _wrap(a), _wrap(b)


def _reduce(name, t, dim, keepdim):
    dims, n = _dims(dim)
    return _call(fn(name), t._h, dims, n, 1 if keepdim else 0)


def _correction(unbiased, correction):
    if correction is not None:
        return int(correction)
    return 1 if unbiased else 0


# ------------------------------------------------------------------ reductions

def prod(input: Tensor, dim: Dims = None, keepdim: bool = False, dtype=None) -> Tensor:
    """Product of the elements over dim (an int, a tuple, or None for all).

    Args:
        dim: the dims to reduce; None reduces every dim.
        keepdim: keep reduced dims as size 1.
        dtype: cast the result to this dtype.

    Returns:
        The product; integer and bool inputs give int64, like PyTorch.
    """
    out = _reduce("tc_prod", input, dim, keepdim)
    return out if dtype is None else out.to(dtype)


def all(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:  # noqa: A001 (PyTorch's name)
    """Whether every element over dim is non-zero.

    Returns:
        A bool tensor (uint8 for a uint8 input, like PyTorch).
    """
    return _reduce("tc_all", input, dim, keepdim)


def any(input: Tensor, dim: Dims = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether some element over dim is non-zero.

    Returns:
        A bool tensor (uint8 for a uint8 input, like PyTorch).
    """
    return _reduce("tc_any", input, dim, keepdim)


def amax(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Maximum over dim (an int or tuple; () or None: every dim). Tied
    maxima share the gradient evenly.

    Returns:
        The maxima, input's dtype.
    """
    return _reduce("tc_amax", input, None if dim == () else dim, keepdim)


def amin(input: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    """Minimum over dim (an int or tuple; () or None: every dim). Tied
    minima share the gradient evenly.

    Returns:
        The minima, input's dtype.
    """
    return _reduce("tc_amin", input, None if dim == () else dim, keepdim)


def aminmax(input: Tensor, *, dim: Optional[int] = None, keepdim: bool = False) -> AMinMax:
    """The minimum and maximum over dim (None: every element).

    Returns:
        A namedtuple (min, max), both of input's dtype; tied extremes share
        the gradient evenly, as in amin/amax.
    """
    return AMinMax(*_two(fn("tc_aminmax"), input._h, D.TC_DIM_ALL if dim is None else int(dim),
                         1 if keepdim else 0))


def norm(input: Tensor, p: Union[float, str, None] = "fro", dim: Dims = None, keepdim: bool = False,
         dtype=None) -> Tensor:
    """Vector p-norm over dim (torch.norm with a vector p).

    Args:
        p: a number, math.inf, -math.inf, or "fro" (2); None means 2.
        dim: the dims to reduce; None reduces every dim.
        keepdim: keep reduced dims as size 1.
        dtype: cast the input to this dtype first.

    Returns:
        The norm; its gradient at 0 is 0, like PyTorch's.
    """
    if p is None or p == "fro":
        p = 2.0
    elif isinstance(p, str):
        raise NotImplementedError("norm: p = %r (matrix norms) is not supported" % p)
    x = input if dtype is None else input.to(dtype)
    dims, n = _dims(dim)
    return _call(fn("tc_norm"), x._h, float(p), dims, n, 1 if keepdim else 0)


def count_nonzero(input: Tensor, dim: Dims = None) -> Tensor:
    """int64 count of the non-zero elements over dim (None: every dim)."""
    dims, n = _dims(dim)
    return _call(fn("tc_count_nonzero"), input._h, dims, n)


def var_mean(input: Tensor, dim: Dims = None, unbiased: bool = True, keepdim: bool = False,
             correction: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """Variance and mean over dim.

    Args:
        unbiased: Bessel's correction (correction = 1) when correction is None.
        correction: the difference between the sample size and the divisor.

    Returns:
        (var, mean).
    """
    dims, n = _dims(dim)
    return _two(fn("tc_var_mean"), input._h, dims, n, _correction(unbiased, correction), 1 if keepdim else 0)


def std_mean(input: Tensor, dim: Dims = None, unbiased: bool = True, keepdim: bool = False,
             correction: Optional[int] = None) -> Tuple[Tensor, Tensor]:
    """Standard deviation and mean over dim (see var_mean).

    Returns:
        (std, mean).
    """
    dims, n = _dims(dim)
    return _two(fn("tc_std_mean"), input._h, dims, n, _correction(unbiased, correction), 1 if keepdim else 0)


def median(input: Tensor, dim: Optional[int] = None, keepdim: bool = False):
    """The lower median (rank (n-1)/2; NaN when there is a NaN).

    Args:
        dim: None: of every element (a 0-dim tensor); else along dim.
        keepdim: keep dim as size 1.

    Returns:
        A tensor (dim None), else (values, indices).
    """
    if dim is None:
        return _call(fn("tc_median"), input._h)
    return Median(*_two(fn("tc_median_dim"), input._h, int(dim), 1 if keepdim else 0))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> KthValue:
    """The k-th smallest element along dim (k counts from 1).

    Returns:
        (values, indices).
    """
    return KthValue(*_two(fn("tc_kthvalue"), input._h, int(k), int(dim), 1 if keepdim else 0))


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Mode:
    """The most frequent value along dim (the smallest of equally frequent
    ones) and the index of its last occurrence.

    Returns:
        (values, indices).
    """
    return Mode(*_two(fn("tc_mode"), input._h, int(dim), 1 if keepdim else 0))


# ------------------------------------------------------------------ scans

def cumprod(input: Tensor, dim: int, dtype=None) -> Tensor:
    """Cumulative product along dim (integers and bools give int64); the
    gradient handles zeros exactly."""
    x = input if dtype is None else input.to(dtype)
    return _call(fn("tc_cumprod"), x._h, int(dim))


def cummax(input: Tensor, dim: int) -> CumMax:
    """Running maximum along dim and where it was reached (the last index of
    equal values; a NaN sticks).

    Returns:
        (values, indices).
    """
    return CumMax(*_two(fn("tc_cummax"), input._h, int(dim)))


def cummin(input: Tensor, dim: int) -> CumMin:
    """Running minimum along dim and where it was reached.

    Returns:
        (values, indices).
    """
    return CumMin(*_two(fn("tc_cummin"), input._h, int(dim)))


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """log(cumsum(exp(input))) along dim, computed stably."""
    return _call(fn("tc_logcumsumexp"), input._h, int(dim))


# ------------------------------------------------------------------ sort and search

def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Sort:
    """Sorts along dim. libtc's sort is always stable (equal elements keep
    their order), so stable=False gives what stable=True gives; NaN sorts as
    larger than every number.

    Returns:
        (values, indices).
    """
    return Sort(*_two(fn("tc_sort"), input._h, int(dim), 1 if descending else 0))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """int64 indices that sort input along dim (always stable, see sort)."""
    return _call(fn("tc_argsort"), input._h, int(dim), 1 if descending else 0)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: Optional[int] = None):
    """The distinct elements of the flattened input, sorted (also when
    sorted=False, which allows any order).

    Args:
        return_inverse: also return each element's index among the values.
        return_counts: also return how often each value occurs.
        dim: only None (unique rows/slices are not supported).

    Returns:
        values, or a tuple (values[, inverse][, counts]).
    """
    if dim is not None:
        raise NotImplementedError("unique: dim is not supported (only the flattened form, dim=None)")
    v, i, c = VP(), VP(), VP()
    check(fn("tc_unique")(input._h, byref(v), byref(i), byref(c)))
    values, inverse, counts = _wrap(v), _wrap(i), _wrap(c)
    if not return_inverse and not return_counts:
        return values
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: Optional[str] = None, sorter: Optional[Tensor] = None) -> Tensor:
    """Indices where the elements of input would be inserted into
    sorted_sequence's last dim to keep it sorted.

    Args:
        sorted_sequence: 1-D, or N-D with input's leading dims.
        input: a tensor or a Python number (a 0-dim result).
        out_int32: int32 indices instead of int64.
        right / side: the rightmost ("right") instead of the leftmost ("left") position.
        sorter: indices that sort an unsorted sorted_sequence along its last dim.

    Returns:
        The insertion indices, input's shape.
    """
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError("searchsorted: side must be 'left' or 'right' but is %r" % (side,))
        if right and side == "left":
            raise RuntimeError("searchsorted: side='left' and right=True contradict each other")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
    if not isinstance(input, TensorBase):
        input = _scalar_tensor(input, sorted_sequence)
    return _call(fn("tc_searchsorted"), sorted_sequence._h, input._h, 1 if right else 0, 1 if out_int32 else 0)


METHODS = ("prod", "all", "any", "amax", "amin", "aminmax", "norm", "count_nonzero", "median", "kthvalue", "mode",
           "cumprod", "cummax", "cummin", "logcumsumexp", "sort", "argsort", "unique")
FUNCTIONS = METHODS + ("var_mean", "std_mean", "searchsorted")



class SortReduceMethods:
    """tc.Tensor's methods of the reductions, scans and sorts above."""

    __slots__ = ()

    prod = prod
    all = all
    any = any
    amax = amax
    amin = amin
    aminmax = aminmax
    norm = norm
    count_nonzero = count_nonzero
    median = median
    kthvalue = kthvalue
    mode = mode
    cumprod = cumprod
    cummax = cummax
    cummin = cummin
    logcumsumexp = logcumsumexp
    sort = sort
    argsort = argsort
    unique = unique
