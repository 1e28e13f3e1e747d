"""Student's t distribution."""
import math

import tc
from . import constraints
from ._common import attribute_property
from ._special import digamma, lgamma
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, ``loc`` and ``scale``.

    Args:
        df (float or Tensor): degrees of freedom (> 0).
        loc (float or Tensor): location.
        scale (float or Tensor): scale (> 0).
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        """loc where df > 1, NaN elsewhere."""
        return tc.where(self.df <= 1, tc.full_like(self.loc, float("nan")), self.loc)

    mode = attribute_property("loc", "loc.")

    @property
    def variance(self):
        """scale^2 df / (df - 2) where df > 2, inf for 1 < df <= 2, NaN for df <= 1."""
        df = self.df
        safe = tc.where(df > 2, df, tc.full_like(df, 3.0))
        m = self.scale.pow(2) * safe / (safe - 2)
        m = tc.where((df <= 2) & (df > 1), tc.full_like(m, float("inf")), m)
        return tc.where(df <= 1, tc.full_like(m, float("nan")), m)

    def __init__(self, df, loc=0., scale=1., validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(tc.Size(tuple(self.df.shape)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=tc.Size()):
        """loc + scale X / sqrt(Z / df), X ~ N(0, 1), Z ~ Chi2(df)."""
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * tc.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        """The Student t log density."""
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.)))
        return -0.5 * (self.df + 1.) * tc.log1p(y ** 2. / self.df) - Z

    def entropy(self):
        """The Student t entropy."""
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
