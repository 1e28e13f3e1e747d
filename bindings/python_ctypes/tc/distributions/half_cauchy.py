"""Half-Cauchy distribution: |X|, X ~ Cauchy(0, scale)."""
import math

import tc
from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """|X|, X ~ Cauchy(0, scale).

    Args:
        scale (float or Tensor): scale of the full Cauchy (> 0).
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The base Cauchy's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """inf."""
        return tc.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def mode(self):
        """0."""
        return tc.zeros_like(self.scale)

    @property
    def variance(self):
        """The Cauchy variance (inf)."""
        return self.base_dist.variance

    def log_prob(self, value):
        """The Cauchy log density + log 2 for value >= 0, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        if not isinstance(value, tc.Tensor):
            value = tc.tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return tc.where(value >= 0, log_prob, tc.full_like(log_prob, float("-inf")))

    def cdf(self, value):
        """2 F(value) - 1."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The Cauchy icdf at (prob + 1) / 2."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The Cauchy entropy - log 2."""
        return self.base_dist.entropy() - math.log(2)
