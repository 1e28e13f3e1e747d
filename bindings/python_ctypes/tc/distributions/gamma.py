"""Gamma distribution."""
import numbers

import tc
from . import constraints
from ._sampling import standard_gamma_rsample
from ._special import digamma, lgamma, xlogy
from .exp_family import ExponentialFamily
from .utils import broadcast_all, finfo

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and ``rate``.

    rsample is reparameterized: its gradient with respect to concentration is
    torch's implicit one (see tc.distributions._sampling.standard_gamma_grad).

    Args:
        concentration (float or Tensor): shape alpha (> 0).
        rate (float or Tensor): rate = 1 / scale (> 0).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """concentration / rate."""
        return self.concentration / self.rate

    @property
    def mode(self):
        """(concentration - 1) / rate, at least 0."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        """concentration / rate^2."""
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = tc.Size()
        else:
            batch_shape = tc.Size(tuple(self.concentration.shape))
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=tc.Size()):
        """Standard gamma draws / rate, at least the dtype's tiny."""
        shape = tuple(self._extended_shape(sample_shape))
        value = standard_gamma_rsample(self.concentration.expand(shape)) / self.rate.expand(shape)
        # Raise zero draws (underflow at tiny concentration) to tiny, off the graph as torch does.
        tiny = finfo(value.dtype).tiny
        return value + (value.detach().clamp(min=tiny) - value.detach())

    def log_prob(self, value):
        """alpha log(rate) + (alpha - 1) log(value) - rate value - lgamma(alpha)."""
        if not isinstance(value, tc.Tensor):
            value = tc.tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        """alpha - log(rate) + lgamma(alpha) + (1 - alpha) digamma(alpha)."""
        return (self.concentration - tc.log(self.rate) + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * tc.log(-y.reciprocal())
