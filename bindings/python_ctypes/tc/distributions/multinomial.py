"""Multinomial distribution: counts of ``total_count`` categorical draws."""
import tc
from . import constraints
from ._special import lgamma
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distribution over count vectors.

    Args:
        total_count (int): number of trials (one for the whole batch).
        probs (Tensor): event probabilities.
        logits (Tensor): event log-probabilities (unnormalized).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        """total_count probs."""
        return self.probs * self.total_count

    @property
    def variance(self):
        """total_count probs (1 - probs)."""
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = tc.Size(tuple(self._categorical.param_shape[-1:]))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        """multinomial(total_count)."""
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        """Normalized log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self):
        """Normalized probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self):
        """The shape of the parameter given."""
        return self._categorical.param_shape

    def sample(self, sample_shape=tc.Size()):
        """Count vectors of probs' dtype."""
        sample_shape = tuple(sample_shape)
        shape = tuple(self._extended_shape(sample_shape))
        if self.total_count == 0:
            return tc.zeros(shape, dtype=self.probs.dtype, device=self.probs.device)
        samples = self._categorical.sample((self.total_count,) + sample_shape)
        # Counts by summing one-hot draws over the draws' dim (scatter_add of
        # a longer index segfaults in libtc when self has a size-1 dim).
        hot = samples.one_hot(self._categorical._num_events)
        return hot.sum(0).to(self.probs.dtype).reshape(shape)

    def entropy(self):
        """The exact entropy (a sum over the binomial marginals' supports)."""
        n = tc.tensor(float(self.total_count), dtype=self.probs.dtype, device=self.probs.device)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = tc.exp(self._binomial.log_prob(support))
        weights = lgamma(support + 1)
        term2 = (binomial_probs * weights).sum(0).sum(-1)
        return term1 + term2

    def log_prob(self, value):
        """log n! - sum log x_i! + sum x_i log p_i (0 where x_i = 0 and p_i = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits = tc.where((value == 0) & (logits == float("-inf")), tc.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
