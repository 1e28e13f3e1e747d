"""Multivariate normal distribution, parameterized by a covariance matrix, a
precision matrix or a lower-triangular scale factor."""
import math

import tc
from . import constraints
from ._common import attribute_property
from ._linalg import (batch_mahalanobis, batch_mv, cholesky, precision_to_scale_tril, tril_inverse,
                      transpose)
from .distribution import Distribution
from .utils import _standard_normal, broadcast_shapes, lazy_property

__all__ = ["MultivariateNormal"]


class MultivariateNormal(Distribution):
    """Multivariate normal with mean ``loc`` and exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (batch dims broadcast).

    Args:
        loc (Tensor): mean, (..., n).
        covariance_matrix (Tensor): positive-definite covariance, (..., n, n).
        precision_matrix (Tensor): positive-definite inverse covariance, (..., n, n).
        scale_tril (Tensor): lower-triangular factor of the covariance with positive diagonal.
    """

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        loc_batch = tuple(loc.shape[:-1])
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = tuple(broadcast_shapes(tuple(scale_tril.shape[:-2]), loc_batch))
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = tuple(broadcast_shapes(tuple(covariance_matrix.shape[:-2]), loc_batch))
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, "
                                 "with optional leading batch dimensions")
            batch_shape = tuple(broadcast_shapes(tuple(precision_matrix.shape[:-2]), loc_batch))
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = tuple(self.loc.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        loc_shape = batch_shape + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        """L L^T."""
        L = self._unbroadcasted_scale_tril
        return tc.matmul(L, transpose(L)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """(L L^T)^-1 = L^-T L^-1."""
        L_inv = tril_inverse(self._unbroadcasted_scale_tril)
        return tc.matmul(transpose(L_inv), L_inv).expand(self._matrix_shape())

    mean = attribute_property("loc", "loc.")
    mode = attribute_property("loc", "loc.")

    @property
    def variance(self):
        """The covariance diagonal."""
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=tc.Size()):
        """loc + L eps, eps ~ N(0, I)."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        """-(n log(2 pi) + Mahalanobis distance) / 2 - log det L."""
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = tc.diagonal(self._unbroadcasted_scale_tril, dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        """n (1 + log(2 pi)) / 2 + log det L."""
        half_log_det = tc.diagonal(self._unbroadcasted_scale_tril, dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))
