"""Normal (Gaussian) distribution."""
import math
import numbers

import tc
from . import constraints
from ._common import attribute_property
from .exp_family import ExponentialFamily
from .utils import _standard_normal, broadcast_all

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """Normal distribution with mean ``loc`` and standard deviation ``scale``.

    Args:
        loc (float or Tensor): mean.
        scale (float or Tensor): standard deviation (> 0).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    mean = attribute_property("loc", "loc.")
    mode = attribute_property("loc", "loc.")

    @property
    def stddev(self):
        """scale."""
        return self.scale

    @property
    def variance(self):
        """scale ** 2."""
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = tc.Size()
        else:
            batch_shape = self.loc.shape
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Normal, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Normal, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=tc.Size()):
        """Draws without gradient."""
        shape = self._extended_shape(sample_shape)
        with tc.no_grad():
            eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
            return self.loc.expand(shape) + eps * self.scale.expand(shape)

    def rsample(self, sample_shape=tc.Size()):
        """loc + scale * eps, eps ~ N(0, 1)."""
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-((x - loc)^2) / (2 scale^2) - log(scale) - log(sqrt(2 pi))."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """0.5 (1 + erf((x - loc) / (scale sqrt 2)))."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + tc.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """loc + scale sqrt(2) erfinv(2 p - 1)."""
        return self.loc + self.scale * tc.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """0.5 + 0.5 log(2 pi) + log(scale)."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + tc.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * tc.log(-math.pi / y)
