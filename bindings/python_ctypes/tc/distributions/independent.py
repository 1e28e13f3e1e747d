"""Independent: reinterprets batch dims of a distribution as event dims."""
import tc
from . import constraints
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Treats the rightmost ``reinterpreted_batch_ndims`` batch dims of
    ``base_distribution`` as event dims (log_prob and entropy sum over them).

    Args:
        base_distribution (Distribution): the base distribution.
        reinterpreted_batch_ndims (int): how many batch dims to reinterpret.
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                             "actual {} vs {}".format(reinterpreted_batch_ndims,
                                                      len(base_distribution.batch_shape)))
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        batch_shape = shape[:len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim:]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        """See Distribution.expand."""
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = tc.Size(tuple(batch_shape))
        new.base_dist = self.base_dist.expand(
            tuple(batch_shape) + tuple(self.event_shape[:self.reinterpreted_batch_ndims]))
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        super(Independent, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        """The base distribution's has_rsample."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        """False when batch dims are reinterpreted, else the base's."""
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        """The base support, independent over the reinterpreted dims."""
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self):
        """The base mean."""
        return self.base_dist.mean

    @property
    def mode(self):
        """The base mode."""
        return self.base_dist.mode

    @property
    def variance(self):
        """The base variance."""
        return self.base_dist.variance

    def sample(self, sample_shape=tc.Size()):
        """A base sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=tc.Size()):
        """A base rsample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base log_prob summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base entropy summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        """The base support (only without reinterpreted dims)."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return self.__class__.__name__ + "({}, {})".format(self.base_dist, self.reinterpreted_batch_ndims)
