"""OneHotCategorical: a Categorical whose samples are one-hot vectors."""
import tc
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot categorical distribution given by ``probs`` or ``logits``.

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalized).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = tc.Size(tuple(self._categorical.param_shape[-1:]))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        """Normalized probabilities."""
        return self._categorical.probs

    @property
    def logits(self):
        """Normalized log-probabilities."""
        return self._categorical.logits

    @property
    def mean(self):
        """probs."""
        return self._categorical.probs

    @property
    def mode(self):
        """The one-hot vector of the most probable class."""
        probs = self._categorical.probs
        return probs.argmax(-1).one_hot(probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        """probs (1 - probs)."""
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._categorical.param_shape

    def sample(self, sample_shape=tc.Size()):
        """One-hot draws of probs' dtype."""
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return indices.one_hot(self._categorical._num_events).to(probs.dtype)

    def log_prob(self, value):
        """The categorical log-probability of the hot index."""
        if self._validate_args:
            self._validate_sample(value)
        indices = value.argmax(-1)
        return self._categorical.log_prob(indices)

    def entropy(self):
        """The categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        """The K one-hot vectors along dim 0."""
        n = self.event_shape[0]
        values = tc.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with a straight-through gradient estimator in rsample."""

    has_rsample = True

    def rsample(self, sample_shape=tc.Size()):
        """A one-hot draw whose gradient is that of probs."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
