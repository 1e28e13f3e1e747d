"""Distribution, the base class of every distribution (torch.distributions.Distribution):
shapes, argument and sample validation, and the interface subclasses fill in."""
import warnings

import tc
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _as_size(shape):
    return shape if isinstance(shape, tc.Size) else tc.Size(tuple(shape))


class Distribution:
    """Abstract base class for probability distributions."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Sets whether validation is enabled or disabled by default (on unless
        Python runs with -O, like ``assert``).

        Args:
            value (bool): whether to enable validation.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=tc.Size(), event_shape=tc.Size(), validate_args=None):
        self._batch_shape = _as_size(batch_shape)
        self._event_shape = _as_size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                              "Please set `arg_constraints = {}` or initialize the distribution "
                              "with `validate_args=False` to turn off validation.")
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # lazily derived parameters (probs from logits) are not checked
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {repr(self)} "
                        f"to satisfy the constraint {repr(constraint)}, "
                        f"but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """Returns a new distribution with batch dimensions expanded to
        ``batch_shape`` (parameters are expanded views; no argument checks).

        Args:
            batch_shape (tc.Size): the desired expanded size.
            _instance: a new instance provided by subclasses that override expand.
        """
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from argument names to the Constraint each must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint of the distribution's support."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=tc.Size()):
        """Draws a ``sample_shape`` shaped sample (batch of samples), without gradient."""
        with tc.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=tc.Size()):
        """Draws a ``sample_shape`` shaped reparameterized sample (differentiable
        with respect to the parameters)."""
        raise NotImplementedError

    def sample_n(self, n):
        """Draws n samples (deprecated: use sample((n,)))."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(tc.Size((n,)))

    def log_prob(self, value):
        """The log of the probability density/mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete distribution's support along dim 0, shaped
        (cardinality,) + batch_shape + event_shape (singleton batch dims when
        ``expand`` is False)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, batched over batch_shape."""
        raise NotImplementedError

    def perplexity(self):
        """exp(entropy), batched over batch_shape."""
        return tc.exp(self.entropy())

    def _extended_shape(self, sample_shape=tc.Size()):
        """sample_shape + batch_shape + event_shape."""
        return tc.Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """Checks that ``value`` is a tensor broadcastable with batch_shape +
        event_shape and within the support (ValueError otherwise)."""
        if not isinstance(value, tc.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError("The right-most size of value must match event_shape: {} vs {}.".format(
                value.shape, self._event_shape))
        actual_shape = tuple(value.shape)
        expected_shape = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: {} vs {}.".format(
                    tc.Size(actual_shape), tc.Size(expected_shape)))
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable "
                          "sample validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.")
            return
        assert support is not None
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({repr(support)}) "
                f"of the distribution {repr(self)}, "
                f"but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        """A blank instance for expand(); subclasses with their own __init__ must override expand."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError("Subclass {} of {} that defines a custom __init__ method "
                                      "must also define a custom .expand() method.".format(
                                          self.__class__.__name__, cls.__name__))
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]

        def show(v):
            # torch formats a one-element parameter through Tensor.__format__,
            # which prints a 0-d tensor as its number
            if v.numel() != 1:
                return v.shape
            return v.item() if v.dim() == 0 else v

        args_string = ", ".join("{}: {}".format(p, show(self.__dict__[p])) for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"
