"""Gumbel distribution."""
import math
import numbers

import tc
from . import constraints
from ._common import attribute_property
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, finfo

__all__ = ["Gumbel"]

euler_constant = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Gumbel distribution with location ``loc`` and scale ``scale``: a
    Uniform(tiny, 1 - eps) pushed through x -> loc - scale log(-log x).

    Args:
        loc (float or Tensor): location.
        scale (float or Tensor): scale (> 0).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(fi.tiny, 1 - fi.eps)
        else:
            base_dist = Uniform(tc.full_like(self.loc, fi.tiny), tc.full_like(self.loc, 1 - fi.eps))
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-tc.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(tuple(batch_shape))
        new.scale = self.scale.expand(tuple(batch_shape))
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        """(y - exp(y)) - log(scale), y = (loc - value) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        """loc + scale * Euler's constant."""
        return self.loc + self.scale * euler_constant

    mode = attribute_property("loc", "loc.")

    @property
    def stddev(self):
        """pi / sqrt(6) * scale."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        """stddev^2."""
        return self.stddev.pow(2)

    def entropy(self):
        """log(scale) + 1 + Euler's constant."""
        return self.scale.log() + (1 + euler_constant)
