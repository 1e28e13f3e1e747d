"""The base of HalfCauchy and HalfNormal: |X| for X drawn from a
distribution symmetric about 0 (a location-0, ``scale`` one), whose density,
cdf, icdf and entropy follow from the full one's by folding."""
import math

import tc
from . import constraints
from ._common import forwarded_property
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class _HalfDistribution(TransformedDistribution):
    """|X|, X ~ ``_full``(0, scale); subclasses name ``_full`` and give mean and variance."""

    _full = None  # the symmetric distribution that is folded (Cauchy, Normal)
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = self._full(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    scale = forwarded_property("base_dist", "scale", "The base (full) distribution's scale.")

    @property
    def mode(self):
        """0."""
        return tc.zeros_like(self.scale)

    def log_prob(self, value):
        """The full distribution's log density + log 2 for value >= 0, -inf below."""
        if self._validate_args:
            self._validate_sample(value)
        if not isinstance(value, tc.Tensor):
            value = tc.tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return tc.where(value >= 0, log_prob, tc.full_like(log_prob, float("-inf")))

    def cdf(self, value):
        """2 F(value) - 1, F the full distribution's cdf."""
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        """The full distribution's icdf at (prob + 1) / 2."""
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        """The full distribution's entropy - log 2."""
        return self.base_dist.entropy() - math.log(2)
