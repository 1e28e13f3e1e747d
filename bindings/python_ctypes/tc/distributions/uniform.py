"""Uniform distribution on the half-open interval [low, high)."""
import numbers

import tc
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on [low, high).

    Args:
        low (float or Tensor): lower bound (inclusive).
        high (float or Tensor): upper bound (exclusive).
    """

    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True

    @property
    def mean(self):
        """(low + high) / 2."""
        return (self.high + self.low) / 2

    @property
    def mode(self):
        """NaN (every point is a mode)."""
        return float("nan") * self.high

    @property
    def stddev(self):
        """(high - low) / sqrt(12)."""
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        """(high - low)^2 / 12."""
        return (self.high - self.low).pow(2) / 12

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
            batch_shape = tc.Size()
        else:
            batch_shape = tc.Size(tuple(self.low.shape))
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and not bool((self.low < self.high).all()):
            raise ValueError("Uniform is not defined when low>= high")

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        super(Uniform, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """interval(low, high)."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape=tc.Size()):
        """low + U (high - low)."""
        shape = tuple(self._extended_shape(sample_shape))
        rand = tc.rand(shape, dtype=self.low.dtype, device=self.low.device)
        return self.low + rand * (self.high - self.low)

    def log_prob(self, value):
        """-log(high - low) inside [low, high), -inf outside."""
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).to(self.low.dtype)
        ub = (self.high > value).to(self.low.dtype)
        return tc.log(lb * ub) - tc.log(self.high - self.low)

    def cdf(self, value):
        """(value - low) / (high - low), clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        """low + value (high - low)."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """log(high - low)."""
        return tc.log(self.high - self.low)
