"""Geometric distribution: failures before the first success."""
import tc
from . import constraints
from ._common import bce_with_logits, binary_logits_probs, expand_params, probs_or_logits
from .distribution import Distribution
from .utils import broadcast_all, finfo

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric distribution on {0, 1, ...} with success probability ``probs``
    (or log-odds ``logits``).

    Args:
        probs (Number or Tensor): success probability, in (0, 1].
        logits (Number or Tensor): success log-odds.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        _, batch_shape = probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                invalid_value = value.detach()[tc.logical_not(valid)]
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {repr(self)} "
                    f"to be positive but found invalid values:\n{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        expand_params(new, self, ("probs", "logits"), batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """1 / probs - 1."""
        return 1. / self.probs - 1.

    @property
    def mode(self):
        """0."""
        return tc.zeros_like(self.probs)

    @property
    def variance(self):
        """(1 / probs - 1) / probs."""
        return (1. / self.probs - 1.) / self.probs

    logits, probs = binary_logits_probs("The success log-odds.", "The success probability.")

    def sample(self, sample_shape=tc.Size()):
        """floor(log U / log(1 - probs)), U uniform on [tiny, 1)."""
        shape = tuple(self._extended_shape(sample_shape))
        tiny = finfo(self.probs.dtype).tiny
        with tc.no_grad():
            u = tc.rand(shape, dtype=self.probs.dtype, device=self.probs.device).clamp(min=tiny)
            return (u.log() / (-self.probs.detach()).log1p()).floor()

    def log_prob(self, value):
        """value log(1 - probs) + log probs (0 log 0 taken as 0)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = tc.where((probs == 1) & (value == 0), tc.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        """BCE(logits, probs) / probs."""
        return bce_with_logits(self.logits, self.probs) / self.probs
