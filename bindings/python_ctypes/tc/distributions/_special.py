"""Special functions the distributions need and libtc has no kernel for yet:
log-gamma, digamma, multivariate log-gamma and xlogy, composed from tc's
elementwise ops so that autograd (and any device) comes for free.

Both gamma functions shift small arguments up by 8 with the recurrence
Gamma(x + 1) = x Gamma(x) and evaluate the asymptotic (Stirling) series at
z >= 8, where the terms kept leave an error near 1e-15; arguments below 1/2
go through the reflection formula. These should become C kernels (with
exact derivative formulas) when libtc grows them."""
import math

import tc

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
_LOG_PI = math.log(math.pi)
_SHIFT = 8
# Stirling's series for log Gamma: coefficients of z^-1, z^-3, ..., z^-13.
_LGAMMA_SERIES = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
# The asymptotic series of digamma: coefficients of z^-2, z^-4, ..., z^-14.
_DIGAMMA_SERIES = (-1 / 12, 1 / 120, -1 / 252, 1 / 240, -1 / 132, 691 / 32760, -1 / 12)


def _as_float(x):
    if not isinstance(x, tc.Tensor):
        return tc.tensor(float(x))
    return x if x.is_floating_point() else x.to(tc.get_default_dtype())


def _poly(w, coefs):
    """coefs[0] + coefs[1] w + coefs[2] w^2 + ... (Horner)."""
    acc = None
    for c in reversed(coefs):
        acc = c if acc is None else acc * w + c
    return acc


def _shifted(y):
    """(z, small, y_small): z = y + 8 where y < 8 (else y), the mask of those
    entries and y there (1 elsewhere, so that the shift's terms stay finite and
    carry no gradient where unused)."""
    small = y < _SHIFT
    y_small = tc.where(small, y, tc.ones_like(y))
    z = tc.where(small, y + _SHIFT, y)
    return z, small, y_small


def _lgamma_positive(y):
    """log Gamma(y) for y >= 1/2."""
    z, small, y_small = _shifted(y)
    r = 1.0 / z
    stirling = (z - 0.5) * tc.log(z) - z + _HALF_LOG_2PI + r * _poly(r * r, _LGAMMA_SERIES)
    prod = y_small
    for k in range(1, _SHIFT):
        prod = prod * (y_small + k)
    return stirling - tc.where(small, tc.log(prod), tc.zeros_like(y))


def _digamma_positive(y):
    """digamma(y) for y >= 1/2."""
    z, small, y_small = _shifted(y)
    r = 1.0 / z
    r2 = r * r
    series = tc.log(z) - 0.5 * r + r2 * _poly(r2, _DIGAMMA_SERIES)
    recip = 1.0 / y_small
    for k in range(1, _SHIFT):
        recip = recip + 1.0 / (y_small + k)
    return series - tc.where(small, recip, tc.zeros_like(y))


def lgamma(x):
    """log |Gamma(x)| elementwise (torch.lgamma), differentiable."""
    x = _as_float(x)
    low = x < 0.5
    if not bool(low.any()):
        return _lgamma_positive(x)
    pos = _lgamma_positive(tc.where(low, 1 - x, x))
    # The reflection's sine is taken on a safe stand-in where unused, so that
    # its infinite log (at integers) never meets a zero gradient (0 * inf = NaN).
    xs = tc.where(low, x, tc.full_like(x, 0.25))
    reflected = _LOG_PI - tc.log(tc.sin(math.pi * xs).abs()) - pos
    # the poles (0, -1, -2, ...): sin(pi x) rounds to a tiny nonzero number there
    reflected = tc.where(xs == tc.floor(xs), tc.full_like(x, float("inf")), reflected)
    return tc.where(low, reflected, pos)


def digamma(x):
    """The digamma function (torch.digamma), differentiable; -inf at 0, NaN at negative integers."""
    x = _as_float(x)
    low = x < 0.5
    if not bool(low.any()):
        return _digamma_positive(x)
    pos = _digamma_positive(tc.where(low, 1 - x, x))
    xs = tc.where(low, x, tc.full_like(x, 0.25))
    reflected = pos - math.pi / tc.tan(math.pi * xs)
    bad = xs == tc.floor(xs)
    reflected = tc.where(bad, tc.full_like(x, float("nan")), reflected)
    zero = tc.where(xs == 0, tc.full_like(x, float("-inf")), reflected)
    return tc.where(low, zero, pos)


def mvlgamma(x, p):
    """The multivariate log-gamma of dimension p (torch.mvlgamma)."""
    out = p * (p - 1) / 4 * _LOG_PI
    for i in range(p):
        out = out + lgamma(x - i / 2)
    return out


def xlogy(x, y):
    """x * log(y), with 0 where x == 0 (torch.xlogy)."""
    if not isinstance(y, tc.Tensor):
        y = tc.full_like(x, float(y))
    if not isinstance(x, tc.Tensor):
        x = tc.full_like(y, float(x))
    zero = x == 0
    safe_y = tc.where(zero, tc.ones_like(y), y)
    return tc.where(zero & tc.logical_not(tc.isnan(y)), tc.zeros_like(x * safe_y), x * tc.log(safe_y))
