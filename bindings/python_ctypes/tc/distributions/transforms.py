"""Transforms (torch.distributions.transforms): invertible (or not) maps with
log |det J|, used by TransformedDistribution and the constraint registry."""
import functools
import math
import numbers
import operator
import weakref

import tc
from . import constraints
from .utils import _sum_rightmost, broadcast_all, broadcast_shapes, finfo, lazy_property

__all__ = [
    "AbsTransform", "AffineTransform", "ComposeTransform", "CumulativeDistributionTransform",
    "ExpTransform", "IndependentTransform", "LowerCholeskyTransform", "PowerTransform",
    "ReshapeTransform", "SigmoidTransform", "SoftplusTransform", "TanhTransform",
    "SoftmaxTransform", "StickBreakingTransform", "Transform", "identity_transform",
]


def _softplus(x):
    return tc.softplus(x)


class Transform:
    """Abstract base class of invertible transformations with computable
    log |det Jacobian|; ``cache_size=1`` remembers the last (x, y) pair so that
    inverting a freshly drawn sample returns the very x it came from."""

    bijective = False

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        """The event dims of domain and codomain (ValueError when they differ)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (held weakly, so that the pair does not cycle)."""
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian determinant, where meaningful."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError("{}.with_cache is not implemented".format(type(self)))

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self)

    def __call__(self, x):
        """y = f(x) (the cached y when x is the last input)."""
        return self._through_cache(x, self._call, 0)

    def _inv_call(self, y):
        return self._through_cache(y, self._inverse, 1)

    def _through_cache(self, arg, compute, side):
        # side 0: arg is an x and compute gives its y; side 1: the other way round.
        # The cache holds the last (x, y) pair either direction produced.
        if self._cache_size == 0:
            return compute(arg)
        cached = self._cached_x_y
        if arg is cached[side]:
            return cached[1 - side]
        out = compute(arg)
        self._cached_x_y = (arg, out) if side == 0 else (out, arg)
        return out

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """log |dy/dx| given input x and output y."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform (what Transform.inv returns)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The inverted transform's codomain."""
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The inverted transform's domain."""
        return self._inv.domain

    @property
    def bijective(self):
        """The inverted transform's bijective."""
        return self._inv.bijective

    @property
    def sign(self):
        """The inverted transform's sign."""
        return self._inv.sign

    @property
    def inv(self):
        """The transform this inverts."""
        return self._inv

    def with_cache(self, cache_size=1):
        """The inverse of the inverted transform with the given cache size."""
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __hash__(self):
        return id(self)

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self._inv)})"

    def __call__(self, x):
        """The inverted transform's inverse at x."""
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        """Minus the inverted transform's log |det J| at (y, x)."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        """The inverted transform's inverse_shape."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        """The inverted transform's forward_shape."""
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Applies ``parts`` in order.

    Args:
        parts (list of Transform): the transforms to compose.
        cache_size (int): 0 or 1.
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    def __hash__(self):
        return id(self)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, made independent over the event dims the composition needs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, made independent over the event dims the composition needs."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether every part is bijective."""
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The product of the parts' signs."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The composition of the parts' inverses, in reverse order."""
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        """This composition with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        """The parts applied in order."""
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """The parts' log |det J| summed, each over the event dims it does not cover."""
        if not self.parts:
            return tc.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, xi, yi in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(xi, yi), event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return functools.reduce(operator.add, terms)

    def forward_shape(self, shape):
        """The shape after every part."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape before every part."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return self.__class__.__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Wraps a transform so that ``reinterpreted_batch_ndims`` more dims count as event dims."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base domain, independent over the reinterpreted dims."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base codomain, independent over the reinterpreted dims."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """The base transform's bijective."""
        return self.base_transform.bijective

    @property
    def sign(self):
        """The base transform's sign."""
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """The base log |det J| summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self.base_transform)}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        """The base transform's forward_shape."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The base transform's inverse_shape."""
        return self.base_transform.inverse_shape(shape)


def _replace_event_shape(shape, old, new):
    """shape with its trailing ``old`` replaced by ``new`` (ValueError as torch where it does not end so)."""
    if len(shape) < len(old):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(old)
    if tuple(shape[cut:]) != tuple(old):
        raise ValueError("Shape mismatch: expected {} but got {}".format(shape[cut:], old))
    return tc.Size(tuple(shape[:cut]) + tuple(new))


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` dims to ``out_shape`` (volume preserving)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = tc.Size(tuple(in_shape))
        self.out_shape = tc.Size(tuple(out_shape))
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        """Reals over len(in_shape) event dims."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        """Reals over len(out_shape) event dims."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        """Zeros over the batch dims."""
        batch_shape = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return tc.zeros(batch_shape, dtype=x.dtype, device=x.device)

    def forward_shape(self, shape):
        """shape with in_shape replaced by out_shape."""
        return _replace_event_shape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        """shape with out_shape replaced by in_shape."""
        return _replace_event_shape(shape, self.out_shape, self.in_shape)


class _ParameterFreeTransform(Transform):
    """A transform without parameters: all instances of a class are equal
    (and hash alike), as in torch, so that caches and registries match them."""

    def __eq__(self, other):
        return isinstance(other, type(self))

    def __hash__(self):
        return hash(type(self))


class _MonotoneRealTransform(_ParameterFreeTransform):
    """An increasing bijection of the real line onto its ``codomain``."""

    domain = constraints.real
    bijective = True
    sign = +1


def _check_at_least_1d(shape):
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


class ExpTransform(_MonotoneRealTransform):
    """y = exp(x)."""

    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        """x."""
        return x


class PowerTransform(Transform):
    """y = x ** exponent (on the positive reals)."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent, = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool((self.exponent == other.exponent).all())

    def __hash__(self):
        return id(self)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """log |exponent y / x|."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        """shape broadcast with the exponent's."""
        return broadcast_shapes(tuple(shape), tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        """shape broadcast with the exponent's."""
        return broadcast_shapes(tuple(shape), tuple(self.exponent.shape))


def _clipped_sigmoid(x):
    fi = finfo(x.dtype)
    return tc.sigmoid(x).clamp(min=fi.tiny, max=1. - fi.eps)


class SigmoidTransform(_MonotoneRealTransform):
    """y = sigmoid(x), clipped into (0, 1)."""

    codomain = constraints.unit_interval

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        fi = finfo(y.dtype)
        y = y.clamp(min=fi.tiny, max=1. - fi.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """-softplus(-x) - softplus(x)."""
        return -_softplus(-x) - _softplus(x)


class SoftplusTransform(_MonotoneRealTransform):
    """y = log(1 + exp(x))."""

    codomain = constraints.positive

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        """-softplus(-x)."""
        return -_softplus(-x)


class TanhTransform(_MonotoneRealTransform):
    """y = tanh(x)."""

    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return tc.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """2 (log 2 - x - softplus(-2 x)), stable for large |x|."""
        return 2. * (math.log(2.) - x - _softplus(-2. * x))


class AbsTransform(_ParameterFreeTransform):
    """y = |x| (not bijective; the inverse picks the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale x, pointwise, over ``event_dim`` event dims.

    Args:
        loc (Tensor or float): location.
        scale (Tensor or float): scale.
        event_dim (int): the event dims of x (log |det J| sums over them).
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The event dims given."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """Reals over event_dim dims."""
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """Reals over event_dim dims."""
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((a == b).all()):
                return False
        return True

    def __hash__(self):
        return id(self)

    @property
    def sign(self):
        """The sign of scale."""
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """log |scale|, summed over the event dims, expanded to x's batch shape."""
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = tc.full_like(x, math.log(abs(scale)))
        else:
            result = tc.abs(scale).log()
        if self.event_dim:
            result = result.reshape(tuple(result.shape[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """shape broadcast with loc's and scale's."""
        return broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        """shape broadcast with loc's and scale's."""
        return self.forward_shape(shape)


class SoftmaxTransform(_ParameterFreeTransform):
    """y = softmax(x) over the last dim (not bijective: the inverse is log)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        probs = (x - x.amax(-1, keepdim=True)).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        """shape (at least 1-d)."""
        _check_at_least_1d(shape)
        return shape

    def inverse_shape(self, shape):
        """shape (at least 1-d)."""
        _check_at_least_1d(shape)
        return shape


def _offset(n, like):
    """n, n - 1, ..., 1 of like's dtype: the stick-breaking offsets' logs center the sigmoids."""
    return tc.arange(n, 0, -1, dtype=like.dtype, device=like.device)


class StickBreakingTransform(_ParameterFreeTransform):
    """Maps R^(K-1) onto the K-simplex by stick breaking (bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        offset = _offset(x.shape[-1], x)
        z = _clipped_sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        ones = tc.ones(tuple(x.shape[:-1]) + (1,), dtype=x.dtype, device=x.device)
        return tc.cat([z, ones], -1) * tc.cat([ones, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _offset(y_crop.shape[-1], y)
        sf = (1 - y_crop.cumsum(-1)).clamp(min=finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset.log()

    def log_abs_det_jacobian(self, x, y):
        """sum(-x' + logsigmoid(x') + log y_i), x' = x - log offset."""
        x = x - _offset(x.shape[-1], x).log()
        return (-x + tc.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        """The last dim one longer."""
        _check_at_least_1d(shape)
        return tc.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        """The last dim one shorter."""
        _check_at_least_1d(shape)
        return tc.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


def _diag_embed(v):
    n = v.shape[-1]
    return v.unsqueeze(-1) * tc.eye(n, dtype=v.dtype, device=v.device)


class LowerCholeskyTransform(_ParameterFreeTransform):
    """Maps square matrices to lower-triangular ones with a positive diagonal
    (strict lower part kept, diagonal exponentiated)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + _diag_embed(tc.diagonal(x, dim1=-2, dim2=-1).exp())

    def _inverse(self, y):
        return y.tril(-1) + _diag_embed(tc.diagonal(y, dim1=-2, dim2=-1).log())


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        """The distribution's log density at x."""
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
