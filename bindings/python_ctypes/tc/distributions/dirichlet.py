"""Dirichlet distribution."""
import tc
from . import constraints
from ._sampling import standard_gamma_rsample
from ._special import digamma, lgamma
from .exp_family import ExponentialFamily
from .utils import finfo

__all__ = ["Dirichlet"]


def _dirichlet_rsample(concentration):
    """Normalized Gamma(concentration_i) draws. The gradient flows through
    each gamma draw's implicit reparameterization and the normalization; this
    is a valid pathwise gradient of the same expectations as torch's (which
    differentiates the Beta marginals instead), but per-sample values differ."""
    g = standard_gamma_rsample(concentration)
    tiny = finfo(g.dtype).tiny
    g = g + (g.detach().clamp(min=tiny) - g.detach())
    return g / g.sum(-1, keepdim=True)


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution over the simplex of the last dim.

    Args:
        concentration (Tensor): concentration parameters (> 0), at least 1-d.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape = tc.Size(tuple(concentration.shape[:-1]))
        event_shape = tc.Size(tuple(concentration.shape[-1:]))
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        """A reparameterized draw on the simplex."""
        shape = tuple(self._extended_shape(sample_shape))
        return _dirichlet_rsample(self.concentration.expand(shape))

    def log_prob(self, value):
        """sum (alpha_i - 1) log x_i + lgamma(sum alpha) - sum lgamma(alpha_i)."""
        if self._validate_args:
            self._validate_sample(value)
        return ((tc.log(value) * (self.concentration - 1.0)).sum(-1)
                + lgamma(self.concentration.sum(-1)) - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        """alpha / sum alpha."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        """(alpha - 1)+ normalized; where every alpha < 1, the one-hot of the largest."""
        cm1 = (self.concentration - 1).clamp(min=0.)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        mask = (self.concentration < 1).all(-1).unsqueeze(-1)
        hot = mode.argmax(-1).one_hot(cm1.shape[-1]).to(mode.dtype)
        return tc.where(mask, hot, mode)

    @property
    def variance(self):
        """alpha_i (a0 - alpha_i) / (a0^2 (a0 + 1))."""
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        """log B(alpha) + (a0 - k) digamma(a0) - sum (alpha_i - 1) digamma(alpha_i)."""
        k = self.concentration.shape[-1]
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))
