"""Constraints (torch.distributions.constraints): objects whose check(value)
says, elementwise over batch dims, whether value lies in a region; the
distributions use them for arg_constraints and support, the transforms
registry maps them to bijections."""
import tc

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "multinomial", "nonnegative", "nonnegative_integer", "one_hot", "positive",
    "positive_semidefinite", "positive_definite", "positive_integer", "real", "real_vector",
    "simplex", "square", "stack", "symmetric", "unit_interval",
]


class Constraint:
    """Abstract base class for constraints: ``is_discrete``, ``event_dim`` and
    ``check(value)``, a bool tensor of shape value.shape[:value.dim() - event_dim]."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Returns a bool tensor saying where ``value`` satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """Placeholder for variables whose support depends on other variables
    (cannot be checked; ``is_dependent`` tells)."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether the constrained space is discrete, when given statically."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        """The constraint's event dims, when given statically."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A dependent constraint with ``is_discrete`` and ``event_dim`` given."""
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        """Always raises: a dependent constraint cannot be checked."""
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent (uncheckable) constraint."""
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is also a dependent constraint, for a support that
    depends on the distribution's parameters (Uniform's interval)."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        super().__init__(fn)
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def __call__(self, fn):
        """Decorates ``fn`` as a dependent property."""
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Aggregates a constraint over ``reinterpreted_batch_ndims`` dims: an
    event is valid only if all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        assert isinstance(base_constraint, Constraint)
        assert isinstance(reinterpreted_batch_ndims, int) and reinterpreted_batch_ndims >= 0
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        """The base constraint's is_discrete."""
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        """The base constraint's event_dim plus the reinterpreted dims."""
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        """The base check, all-reduced over the reinterpreted dims."""
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        result = result.reshape(tuple(result.shape[:result.dim() - self.reinterpreted_batch_ndims]) + (-1,))
        return result.all(-1)

    def __repr__(self):
        return "{}({}, {})".format(self.__class__.__name__[1:], repr(self.base_constraint),
                                   self.reinterpreted_batch_ndims)


class _Boolean(Constraint):
    """The two values {0, 1}."""

    is_discrete = True

    def check(self, value):
        """value is 0 or 1."""
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    """One-hot vectors."""

    is_discrete = True
    event_dim = 1

    def check(self, value):
        """Every entry is 0 or 1 and they sum to 1."""
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & (value.sum(-1) == 1)


def _is_integer(value):
    return value.remainder(1) == 0


class _LowerBounded(Constraint):
    """Base of the constraints with a ``lower_bound`` (kept as given, shown by repr)."""

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def __repr__(self):
        return self.__class__.__name__[1:] + "(lower_bound={})".format(self.lower_bound)


class _UpperBounded(Constraint):
    """Base of the constraints with an ``upper_bound`` (kept as given, shown by repr)."""

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self):
        return self.__class__.__name__[1:] + "(upper_bound={})".format(self.upper_bound)


class _TwoBounded(Constraint):
    """Base of the constraints with a ``lower_bound`` and an ``upper_bound``
    (kept as given, shown by repr)."""

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def __repr__(self):
        return self.__class__.__name__[1:] + "(lower_bound={}, upper_bound={})".format(
            self.lower_bound, self.upper_bound)


class _IntegerInterval(_TwoBounded):
    """Integers in [lower_bound, upper_bound]."""

    is_discrete = True

    def check(self, value):
        """value is an integer within the bounds."""
        return _is_integer(value) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerLessThan(_UpperBounded):
    """Integers at most upper_bound."""

    is_discrete = True

    def check(self, value):
        """value is an integer <= upper_bound."""
        return _is_integer(value) & (value <= self.upper_bound)


class _IntegerGreaterThan(_LowerBounded):
    """Integers at least lower_bound."""

    is_discrete = True

    def check(self, value):
        """value is an integer >= lower_bound."""
        return _is_integer(value) & (value >= self.lower_bound)


class _Real(Constraint):
    """The extended real line (anything but NaN)."""

    def check(self, value):
        """value is not NaN."""
        return value == value


class _GreaterThan(_LowerBounded):
    """Reals strictly above lower_bound."""

    def check(self, value):
        """lower_bound < value."""
        return value > self.lower_bound


class _GreaterThanEq(_LowerBounded):
    """Reals at least lower_bound."""

    def check(self, value):
        """lower_bound <= value."""
        return value >= self.lower_bound


class _LessThan(_UpperBounded):
    """Reals strictly below upper_bound."""

    def check(self, value):
        """value < upper_bound."""
        return value < self.upper_bound


class _Interval(_TwoBounded):
    """Reals in the closed interval [lower_bound, upper_bound]."""

    def check(self, value):
        """lower_bound <= value <= upper_bound."""
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_TwoBounded):
    """Reals in [lower_bound, upper_bound)."""

    def check(self, value):
        """lower_bound <= value < upper_bound."""
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """The unit simplex of the last dim: nonnegative entries summing to 1."""

    event_dim = 1

    def check(self, value):
        """All entries >= 0 and |sum - 1| < 1e-6."""
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative vectors whose sum is at most upper_bound (sample counts)."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        """All entries >= 0 and the sum <= upper_bound."""
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _lower_triangular(value):
    return (value.tril() == value).reshape(tuple(value.shape[:-2]) + (-1,)).all(-1)


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def check(self, value):
        """value equals its lower triangle."""
        return _lower_triangular(value)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        """Lower triangular with diagonal > 0."""
        diag = tc.diagonal(value, dim1=-2, dim2=-1)
        return _lower_triangular(value) & (diag > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with unit rows."""

    event_dim = 2

    def check(self, value):
        """Lower Cholesky with every row of norm 1 (to a small tolerance)."""
        from .utils import finfo
        tol = finfo(value.dtype).eps * value.shape[-1] * 10
        v = value.detach()
        row_norm = (v * v).sum(-1).sqrt()
        return _LowerCholesky().check(value) & ((row_norm - 1.0).abs() <= tol).all(-1)


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def check(self, value):
        """Whether the last two dims are equal, over the batch dims."""
        return tc.full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype=tc.bool,
                       device=value.device)


class _Symmetric(_Square):
    """Symmetric square matrices."""

    def check(self, value):
        """Square and close to its transpose (atol 1e-6)."""
        square_check = super().check(value)
        if not bool(square_check.all()):
            return square_check
        return tc.isclose(value, value.transpose(-1, -2), atol=1e-6).all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Positive semidefinite matrices."""

    def check(self, value):
        """Symmetric, and a tiny diagonal shift has a Cholesky factor (libtc has
        no eigvalsh yet, so the check is relative to the matrix's scale)."""
        from ._linalg import cholesky_ex
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        n = value.shape[-1]
        scale = value.abs().amax(-1).amax(-1).clamp(min=1e-300)
        eye = tc.eye(n, dtype=value.dtype, device=value.device)
        shift = (scale * 1e-10).unsqueeze(-1).unsqueeze(-1) * eye
        return cholesky_ex(value.detach() + shift)[1]


class _PositiveDefinite(_Symmetric):
    """Positive definite matrices."""

    def check(self, value):
        """Symmetric, with a Cholesky factorization."""
        from ._linalg import cholesky_ex
        sym_check = super().check(value)
        if not bool(sym_check.all()):
            return sym_check
        return cholesky_ex(value.detach())[1]


class _Cat(Constraint):
    """Applies a sequence of constraints to consecutive slices along ``dim``
    (each ``lengths[i]`` long), like tc.cat."""

    def __init__(self, cseq, dim=0, lengths=None):
        assert all(isinstance(c, Constraint) for c in cseq)
        self.cseq = list(cseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        assert len(self.lengths) == len(self.cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether any part is discrete."""
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The largest event_dim of the parts."""
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        """The parts' checks, concatenated along ``dim``."""
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start = start + length
        return tc.cat(checks, self.dim)


class _Stack(Constraint):
    """Applies a sequence of constraints to the slices along ``dim``, like tc.stack."""

    def __init__(self, cseq, dim=0):
        assert all(isinstance(c, Constraint) for c in cseq)
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        """Whether any part is discrete."""
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        """The largest event_dim of the parts (one less when dim counts from the end past it)."""
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        """The parts' checks, stacked along ``dim``."""
        vs = [value.select(self.dim, i) for i in range(value.shape[self.dim])]
        return tc.stack([c.check(v) for v, c in zip(vs, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.)
nonnegative = _GreaterThanEq(0.)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0., 1.)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
