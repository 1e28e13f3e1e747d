"""Half-normal distribution: |X|, X ~ Normal(0, scale)."""
import math

import tc
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """|X|, X ~ Normal(0, scale).

    Args:
        scale (float or Tensor): scale of the full Normal (> 0).
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self):
        """The base Normal's scale."""
        return self.base_dist.scale

    @property
    def mean(self):
        """scale sqrt(2 / pi)."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        """0."""
        return tc.zeros_like(self.scale)

    @property
    def variance(self):
        """scale^2 (1 - 2 / pi)."""
        return self.scale.pow(2) * (1 - 2 / math.pi)

    def log_prob(self, value):
        """The Normal log density + log 2 for value >= 0, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return tc.where(value >= 0, log_prob, tc.full_like(log_prob, float("-inf")))

    def cdf(self, value):
        """2 Phi(value / scale) - 1."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The Normal icdf at (prob + 1) / 2."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The Normal entropy - log 2."""
        return self.base_dist.entropy() - math.log(2)
