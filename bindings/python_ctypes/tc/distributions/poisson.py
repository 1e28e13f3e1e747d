"""Poisson distribution."""
import tc
from . import constraints
from ._common import batch_shape_of
from ._sampling import poisson as _poisson_draws
from ._special import lgamma, xlogy
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution with ``rate``.

    Args:
        rate (Number or Tensor): the rate (>= 0).
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        """rate."""
        return self.rate

    @property
    def mode(self):
        """floor(rate)."""
        return self.rate.floor()

    @property
    def variance(self):
        """rate."""
        return self.rate

    def __init__(self, rate, validate_args=None):
        self.rate, = broadcast_all(rate)
        super().__init__(batch_shape_of(self.rate, rate), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=tc.Size()):
        """Counts of rate's dtype."""
        shape = tuple(self._extended_shape(sample_shape))
        with tc.no_grad():
            return _poisson_draws(self.rate.expand(shape))

    def log_prob(self, value):
        """value log(rate) - rate - log(value!)."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)

    @property
    def _natural_params(self):
        return (tc.log(self.rate),)

    def _log_normalizer(self, x):
        return tc.exp(x)
