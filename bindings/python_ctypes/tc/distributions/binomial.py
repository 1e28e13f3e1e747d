"""Binomial distribution."""
import tc
from . import constraints
from ._common import binary_logits_probs, expand_params
from ._sampling import binomial as _binomial_draws
from ._special import lgamma
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    # x.clamp(min=0) with gradient 1/2 at 0, as torch's.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Binomial distribution: successes in ``total_count`` trials of probability
    ``probs`` (or log-odds ``logits``).

    Args:
        total_count (int or Tensor): number of trials.
        probs (Tensor): success probability.
        logits (Tensor): success log-odds.
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
            self._param = self.logits
        super().__init__(tc.Size(tuple(self._param.shape)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.total_count = self.total_count.expand(batch_shape)
        expand_params(new, self, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """integer_interval(0, total_count)."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        """total_count probs."""
        return self.total_count * self.probs

    @property
    def mode(self):
        """floor((total_count + 1) probs), at most total_count."""
        return tc.minimum(((self.total_count + 1) * self.probs).floor(), self.total_count)

    @property
    def variance(self):
        """total_count probs (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    logits, probs = binary_logits_probs("The success log-odds.", "The success probability.")

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._param.shape

    def sample(self, sample_shape=tc.Size()):
        """Counts of probs' dtype."""
        shape = tuple(self._extended_shape(sample_shape))
        with tc.no_grad():
            return _binomial_draws(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        """log C(n, k) + k logits - n log(1 + exp(logits)), computed stably."""
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * tc.log1p(tc.exp(-self.logits.abs()))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        """-sum p log p over the support (total_count must be the same everywhere)."""
        total_count = int(float(self.total_count.max()))
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(tc.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        """0 .. total_count along dim 0 (total_count must be the same everywhere)."""
        total_count = int(float(self.total_count.max()))
        if not float(self.total_count.min()) == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = tc.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
