"""Half-Cauchy distribution: |X|, X ~ Cauchy(0, scale)."""
import math

import tc
from ._half import _HalfDistribution
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    """|X|, X ~ Cauchy(0, scale).

    Args:
        scale (float or Tensor): scale of the full Cauchy (> 0).
    """

    _full = Cauchy

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """inf."""
        return tc.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        """The Cauchy variance (inf)."""
        return self.base_dist.variance
