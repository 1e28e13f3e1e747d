"""tc.Tensor's reductions and scans along dims: sum, mean, var, std, max, min,
argmax, logsumexp, softmax, cumsum, topk (a mixin of tc.Tensor,
tc/_tensor/__init__.py)."""
from typing import TYPE_CHECKING

from .. import _decls as D
from .. import _tensor_base as _base
from .._tensor_base import (MinMax, TensorBase, TopK, VP, _I32_0, _I32_1, _I64_0, _call, _dims, _new, _sum_f,
                            _sum_fast, _wrap, byref, check, error_for, fn, maximum, minimum)

if TYPE_CHECKING:  # annotations only: tc.Tensor is built from this mixin
    from . import Tensor


class ReductionMethods:
    """tc.Tensor's reductions and scans along dims: sum, mean, var, std, max,
    min, argmax, logsumexp, softmax, cumsum, topk."""

    __slots__ = ()

    def sum(self, dim=None, keepdim=False, dtype=None) -> "Tensor":
        """Returns the sum of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            keepdim (bool): keep them with size 1.
            dtype (tc.dtype, optional): the accumulation and result dtype.

        Returns:
            Tensor: the sum.
        """
        if dim is None and dtype is None:  # the common full reduction: no argument packing
            out = VP()
            rc = _sum_fast(self._h, None, _I64_0, _I32_1 if keepdim else _I32_0, byref(out))
            if rc:
                raise error_for(rc)
            t = _new(_base.Tensor)
            t._h = out
            t._dt = None
            return t
        dims, n = _dims(dim)
        out = _call(_sum_f, self._h, dims, n, 1 if keepdim else 0)
        return out if dtype is None else out.to(dtype)

    def mean(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the mean of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            keepdim (bool): keep them with size 1.

        Returns:
            Tensor: the mean.
        """
        dims, n = _dims(dim)
        return _call(fn("tc_mean"), self._h, dims, n, 1 if keepdim else 0)

    def var(self, dim=None, unbiased=True, keepdim=False, correction=None) -> "Tensor":
        """Returns the variance of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            unbiased (bool): divide by N - 1 rather than N.
            keepdim (bool): keep the reduced dimensions with size 1.
            correction (int, optional): the divisor is N - correction (overrides ``unbiased``).

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        c = (1 if unbiased else 0) if correction is None else int(correction)
        return _call(fn("tc_var"), self._h, dims, n, c, 1 if keepdim else 0)

    def std(self, dim=None, unbiased=True, keepdim=False, correction=None) -> "Tensor":
        """Returns the standard deviation of all elements or along ``dim``.

        Args:
            dim (int or tuple of int, optional): the dimensions to reduce.
            unbiased (bool): divide by N - 1 rather than N.
            keepdim (bool): keep the reduced dimensions with size 1.
            correction (int, optional): the divisor is N - correction (overrides ``unbiased``).

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        c = (1 if unbiased else 0) if correction is None else int(correction)
        return _call(fn("tc_std"), self._h, dims, n, c, 1 if keepdim else 0)

    def logsumexp(self, dim, keepdim=False) -> "Tensor":
        """Returns ``log(sum(exp(self), dim))``, computed stably.

        Args:
            dim (int or tuple of int): the dimensions to reduce.
            keepdim (bool): keep them with size 1.

        Returns:
            Tensor: the result.
        """
        dims, n = _dims(dim)
        return _call(fn("tc_logsumexp"), self._h, dims, n, 1 if keepdim else 0)

    def _minmax(self, name, dim, keepdim, other):
        if isinstance(dim, TensorBase) or other is not None:
            return (maximum if name == "max" else minimum)(self, dim if other is None else other)
        if dim is None:
            return _call(fn("tc_max") if name == "max" else fn("tc_min"), self._h)
        values, indices = VP(), VP()
        f = fn("tc_max_dim") if name == "max" else fn("tc_min_dim")
        check(f(self._h, dim, 1 if keepdim else 0, byref(values), byref(indices)))
        return MinMax(_wrap(values), _wrap(indices))

    def max(self, dim=None, keepdim=False, other=None):
        """Returns the maximum: of all elements, along ``dim`` (values and indices), or elementwise with ``other``.

        Args:
            dim (int, optional): the dimension to reduce.
            keepdim (bool): keep it with size 1.
            other (Tensor, optional): elementwise maximum with this tensor.

        Returns:
            Tensor, or (values, indices) when ``dim`` is given.
        """
        return self._minmax("max", dim, keepdim, other)

    def min(self, dim=None, keepdim=False, other=None):
        """Returns the minimum: of all elements, along ``dim`` (values and indices), or elementwise with ``other``.

        Args:
            dim (int, optional): the dimension to reduce.
            keepdim (bool): keep it with size 1.
            other (Tensor, optional): elementwise minimum with this tensor.

        Returns:
            Tensor, or (values, indices) when ``dim`` is given.
        """
        return self._minmax("min", dim, keepdim, other)

    def argmax(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the indices of the maximum values.

        Args:
            dim (int, optional): the dimension to reduce; all elements when None.
            keepdim (bool): keep the reduced dimension with size 1.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_argmax"), self._h, D.TC_DIM_ALL if dim is None else dim, 1 if keepdim else 0)

    def argmin(self, dim=None, keepdim=False) -> "Tensor":
        """Returns the indices of the minimum values.

        Args:
            dim (int, optional): the dimension to reduce; all elements when None.
            keepdim (bool): keep the reduced dimension with size 1.

        Returns:
            Tensor: int64 indices.
        """
        return _call(fn("tc_argmin"), self._h, D.TC_DIM_ALL if dim is None else dim, 1 if keepdim else 0)

    def softmax(self, dim) -> "Tensor":
        """Returns the softmax along ``dim``.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_softmax"), self._h, dim)

    def log_softmax(self, dim) -> "Tensor":
        """Returns ``log(softmax(self, dim))``, computed stably.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the result.
        """
        return _call(fn("tc_log_softmax"), self._h, dim)

    def cumsum(self, dim) -> "Tensor":
        """Returns the cumulative sum along ``dim``.

        Args:
            dim (int): the dimension.

        Returns:
            Tensor: the running sums.
        """
        return _call(fn("tc_cumsum"), self._h, int(dim))

    def topk(self, k, dim=-1, largest=True, sorted=True):
        """Returns the ``k`` largest (or smallest) values along ``dim`` and their indices.

        Args:
            k (int): how many.
            dim (int): the dimension.
            largest (bool): largest rather than smallest.
            sorted (bool): return them in sorted order.

        Returns:
            (Tensor, Tensor): values and int64 indices.
        """
        values, indices = VP(), VP()
        check(fn("tc_topk")(self._h, int(k), int(dim), 1 if largest else 0, 1 if sorted else 0,
                            byref(values), byref(indices)))
        return TopK(_wrap(values), _wrap(indices))
