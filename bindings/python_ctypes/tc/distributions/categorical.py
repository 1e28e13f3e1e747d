"""Categorical distribution over {0, ..., K - 1}."""
import tc
from . import constraints
from ._common import expand_params
from .distribution import Distribution
from .utils import finfo, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Categorical distribution given by ``probs`` (normalized over the last
    dim) or ``logits`` (unnormalized log-probabilities), not both.

    Args:
        probs (Tensor): event probabilities, at least 1-d.
        logits (Tensor): event log-probabilities (unnormalized), at least 1-d.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = tc.Size(tuple(self._param.shape[:-1])) if self._param.dim() > 1 else tc.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        expand_params(new, self, ("probs", "logits"), tc.Size(tuple(batch_shape) + (self._num_events,)))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """integer_interval(0, K - 1)."""
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        """Normalized log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        """Normalized probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._param.shape

    @property
    def mean(self):
        """NaN (a categorical's labels have no mean)."""
        return tc.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype,
                       device=self.probs.device)

    @property
    def mode(self):
        """The most probable class."""
        return self.probs.argmax(-1)

    @property
    def variance(self):
        """NaN (a categorical's labels have no variance)."""
        return tc.full(tuple(self._extended_shape()), float("nan"), dtype=self.probs.dtype,
                       device=self.probs.device)

    def sample(self, sample_shape=tc.Size()):
        """int64 class indices shaped sample_shape + batch_shape."""
        n = 1
        for s in sample_shape:
            n *= s
        with tc.no_grad():
            probs_2d = self.probs.detach().reshape(-1, self._num_events)
            samples_2d = probs_2d.multinomial(n, True).t() if n > 0 else tc.zeros(
                0, probs_2d.shape[0], dtype=tc.int64, device=probs_2d.device)
            return samples_2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        """The normalized logit of class ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        from .utils import broadcast_tensors
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        """-sum p log p."""
        logits = self.logits.clamp(min=finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """0 .. K - 1 along dim 0."""
        values = tc.arange(self._num_events, dtype=tc.int64, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
