"""Bernoulli distribution."""

import tc
from . import constraints
from ._common import bce_with_logits, binary_logits_probs, expand_params, probs_or_logits
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """Bernoulli distribution over {0, 1}, given by ``probs`` or ``logits`` (not both).

    Args:
        probs (Number or Tensor): the probability of 1.
        logits (Number or Tensor): the log-odds of 1.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._param, batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        expand_params(new, self, ("probs", "logits"), batch_shape)
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """probs."""
        return self.probs

    @property
    def mode(self):
        """1 where probs > 1/2, 0 where below, NaN at exactly 1/2."""
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return tc.where(self.probs == 0.5, tc.full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        """probs (1 - probs)."""
        return self.probs * (1 - self.probs)

    logits, probs = binary_logits_probs("The log-odds (derived from probs when given those).",
                                        "The probability of 1 (derived from logits when given those).")

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._param.shape

    def sample(self, sample_shape=tc.Size()):
        """0/1 draws of probs' dtype."""
        shape = self._extended_shape(sample_shape)
        with tc.no_grad():
            p = self.probs.detach().expand(shape)
            return (tc.rand(tuple(shape), dtype=p.dtype, device=p.device) < p).to(p.dtype)

    def log_prob(self, value):
        """-BCE(logits, value)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce_with_logits(logits, value)

    def entropy(self):
        """BCE(logits, probs)."""
        return bce_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        """[0, 1] along dim 0."""
        values = tc.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (tc.log(self.probs / (1 - self.probs)),)

    def _log_normalizer(self, x):
        return tc.log(1 + tc.exp(x))
