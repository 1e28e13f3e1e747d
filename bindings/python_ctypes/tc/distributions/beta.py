"""Beta distribution, a two-component Dirichlet."""
import numbers

import tc
from . import constraints
from ._special import lgamma
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with ``concentration1`` (alpha) and ``concentration0`` (beta).

    Args:
        concentration1 (float or Tensor): alpha (> 0).
        concentration0 (float or Tensor): beta (> 0).
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            both = tc.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = tc.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        """alpha / (alpha + beta)."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        """The Dirichlet mode's first component."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        """alpha beta / ((alpha + beta)^2 (alpha + beta + 1))."""
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        """The first component of a Dirichlet([alpha, beta]) draw."""
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        """The Dirichlet log density of (value, 1 - value)."""
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = tc.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        """The Dirichlet entropy."""
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        """alpha."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        """beta."""
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)
