"""Half-normal distribution: |X|, X ~ Normal(0, scale)."""
import math

from ._half import _HalfDistribution
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(_HalfDistribution):
    """|X|, X ~ Normal(0, scale).

    Args:
        scale (float or Tensor): scale of the full Normal (> 0).
    """

    _full = Normal

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        """scale sqrt(2 / pi)."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        """scale^2 (1 - 2 / pi)."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
