"""Laplace distribution."""
import tc
from . import constraints
from ._common import attribute_property
from ._loc_scale import LocScale
from .utils import finfo

__all__ = ["Laplace"]


class Laplace(LocScale):
    """Laplace distribution with location ``loc`` and scale ``scale``.

    Args:
        loc (float or Tensor): mean.
        scale (float or Tensor): scale (> 0).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    mean = attribute_property("loc", "loc.")
    mode = attribute_property("loc", "loc.")

    @property
    def variance(self):
        """2 scale^2."""
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        """sqrt(2) scale."""
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=tc.Size()):
        """loc - scale sign(u) log(1 - |u|), u uniform on [eps - 1, 1)."""
        shape = tuple(self._extended_shape(sample_shape))
        eps = finfo(self.loc.dtype).eps
        u = tc.rand(shape, dtype=self.loc.dtype, device=self.loc.device) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * tc.log1p(-u.abs())

    def log_prob(self, value):
        """-log(2 scale) - |value - loc| / scale."""
        if self._validate_args:
            self._validate_sample(value)
        return -tc.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        """1/2 - 1/2 sign(d) expm1(-|d| / scale), d = value - loc."""
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        return 0.5 - 0.5 * d.sign() * tc.expm1(-d.abs() / self.scale)

    def icdf(self, value):
        """loc - scale sign(p - 1/2) log(1 - 2 |p - 1/2|)."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * tc.log1p(-2 * term.abs())

    def entropy(self):
        """1 + log(2 scale)."""
        return 1 + tc.log(2 * self.scale)
