"""Exponential distribution."""
import tc
from . import constraints
from ._common import batch_shape_of
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with ``rate``.

    Args:
        rate (float or Tensor): rate = 1 / scale (> 0).
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        """1 / rate."""
        return self.rate.reciprocal()

    @property
    def mode(self):
        """0."""
        return tc.zeros_like(self.rate)

    @property
    def stddev(self):
        """1 / rate."""
        return self.rate.reciprocal()

    @property
    def variance(self):
        """rate^-2."""
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None):
        self.rate, = broadcast_all(rate)
        super().__init__(batch_shape_of(self.rate, rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.rate = self.rate.expand(batch_shape)
        super(Exponential, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=tc.Size()):
        """-log(1 - U) / rate."""
        shape = tuple(self._extended_shape(sample_shape))
        u = tc.rand(shape, dtype=self.rate.dtype, device=self.rate.device)
        return -(-u).log1p() / self.rate

    def log_prob(self, value):
        """log(rate) - rate value."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        """1 - exp(-rate value)."""
        if self._validate_args:
            self._validate_sample(value)
        return 1 - tc.exp(-self.rate * value)

    def icdf(self, value):
        """-log(1 - value) / rate."""
        return -tc.log(1 - value) / self.rate

    def entropy(self):
        """1 - log(rate)."""
        return 1.0 - tc.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -tc.log(-x)
