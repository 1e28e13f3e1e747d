"""Relaxed Bernoulli (binary Concrete) distributions."""
import math
import numbers

import tc
from . import constraints
from ._common import binary_logits_probs, expand_params, forwarded_property, probs_or_logits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _log(x):
    return math.log(x) if isinstance(x, numbers.Number) else x.log()


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample: (logistic noise + logits) / temperature.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Number or Tensor): the probability of 1.
        logits (Number or Tensor): the log-odds of 1.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._param, batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.temperature = self.temperature
        expand_params(new, self, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    logits, probs = binary_logits_probs("The log-odds.", "The probability of 1.")

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._param.shape

    def rsample(self, sample_shape=tc.Size()):
        """(logit(U) + logit(probs)) / temperature."""
        shape = tuple(self._extended_shape(sample_shape))
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(tc.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        """log t + d - 2 log(1 + exp(d)), d = logits - t value."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return _log(self.temperature) + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """The binary Concrete distribution on (0, 1): sigmoid of LogitRelaxedBernoulli.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Number or Tensor): the probability of 1.
        logits (Number or Tensor): the log-odds of 1.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    temperature = forwarded_property("base_dist", "temperature", "The relaxation temperature.")
    logits = forwarded_property("base_dist", "logits", "The log-odds.")
    probs = forwarded_property("base_dist", "probs", "The probability of 1.")
