"""Relaxed one-hot categorical (Concrete / Gumbel-softmax) distributions."""
import math
import numbers

import tc
from . import constraints
from ._common import forwarded_property
from ._special import lgamma
from .categorical import Categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample (log-softmax of
    (logits + Gumbel noise) / temperature).

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalized).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # really a submanifold of it
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = tc.Size(tuple(self._categorical.param_shape[-1:]))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    param_shape = forwarded_property("_categorical", "param_shape", "The shape of the parameter given.")
    logits = forwarded_property("_categorical", "logits", "Normalized log-probabilities.")
    probs = forwarded_property("_categorical", "probs", "Normalized probabilities.")

    def rsample(self, sample_shape=tc.Size()):
        """log_softmax((logits + Gumbel noise) / temperature)."""
        shape = tuple(self._extended_shape(sample_shape))
        uniforms = clamp_probs(tc.rand(shape, dtype=self.logits.dtype, device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        """The Concrete log density of the log-simplex point ``value``."""
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        t = self.temperature
        if isinstance(t, numbers.Number):
            log_scale = math.lgamma(K) + (K - 1) * math.log(t)
        else:
            log_scale = lgamma(tc.full_like(t, float(K))) + t.log() * (K - 1)
        score = logits - value * t
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """The Concrete (Gumbel-softmax) distribution on the simplex: exp of ExpRelaxedCategorical.

    Args:
        temperature (Tensor): relaxation temperature.
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalized).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)

    temperature = forwarded_property("base_dist", "temperature", "The relaxation temperature.")
    logits = forwarded_property("base_dist", "logits", "Normalized log-probabilities.")
    probs = forwarded_property("base_dist", "probs", "Normalized probabilities.")
