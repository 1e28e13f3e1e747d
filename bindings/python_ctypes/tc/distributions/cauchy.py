"""Cauchy (Lorentz) distribution."""
import math

import tc
from . import constraints
from ._common import attribute_property
from ._loc_scale import LocScale

__all__ = ["Cauchy"]


class Cauchy(LocScale):
    """Cauchy distribution with median ``loc`` and half width ``scale``.

    Args:
        loc (float or Tensor): mode or median.
        scale (float or Tensor): half width at half maximum (> 0).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        """NaN (undefined)."""
        return tc.full(tuple(self._extended_shape()), float("nan"), dtype=self.loc.dtype,
                       device=self.loc.device)

    mode = attribute_property("loc", "loc.")

    @property
    def variance(self):
        """inf."""
        return tc.full(tuple(self._extended_shape()), float("inf"), dtype=self.loc.dtype,
                       device=self.loc.device)

    def rsample(self, sample_shape=tc.Size()):
        """loc + scale tan(pi (U - 1/2))."""
        shape = tuple(self._extended_shape(sample_shape))
        u = tc.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + tc.tan(math.pi * (u - 0.5)) * self.scale

    def log_prob(self, value):
        """-log(pi) - log(scale) - log(1 + ((value - loc) / scale)^2)."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (1 + ((value - self.loc) / self.scale) ** 2).log()

    def cdf(self, value):
        """atan((value - loc) / scale) / pi + 1/2."""
        if self._validate_args:
            self._validate_sample(value)
        return tc.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        """loc + scale tan(pi (value - 1/2))."""
        return tc.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        """log(4 pi) + log(scale)."""
        return math.log(4 * math.pi) + self.scale.log()
