"""ExponentialFamily, the base class torch gives its exponential-family
distributions (Normal, Gamma, Beta, ...). Each concrete class here defines
its own closed-form entropy; the generic Bregman-divergence entropy torch
falls back on needs torch.autograd.grad(create_graph=True), which tc does not
offer yet."""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Distributions of the form exp(<t(x), theta> - F(theta) + k(x)), with
    natural parameters theta, sufficient statistic t and log normalizer F."""

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer F at the given natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """The expected carrier measure E[k(x)]."""
        raise NotImplementedError
