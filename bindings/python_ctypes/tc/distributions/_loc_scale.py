"""A base for the two-parameter (loc, scale) distributions: broadcasting, batch
shape and expand, shared by Laplace, Cauchy and Gumbel-free others."""
import numbers

import tc
from .distribution import Distribution
from .utils import broadcast_all


class LocScale(Distribution):
    """A distribution with tensors ``loc`` and ``scale`` broadcast together."""

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = tc.Size()
        else:
            batch_shape = tc.Size(tuple(self.loc.shape))
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
