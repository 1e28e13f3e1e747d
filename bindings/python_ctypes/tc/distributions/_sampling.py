"""Samplers libtc has no kernel for yet (torch's _standard_gamma, poisson,
binomial), written as vectorized rejection or inversion loops over tc
tensors, drawing from tc's generator (tc.manual_seed governs them). Each loop
redraws for every element and keeps the first accepted draw, so its cost is
a few full passes; the bounds on the number of passes make the chance of an
unfinished element far below 1e-30. They should become C kernels on the
Philox generator, as torch's are.

standard_gamma_grad is torch's implicit reparameterization gradient of a
Gamma(alpha) draw x (d x / d alpha = -(dF/dalpha)/f at x), with the same
three approximations ATen uses (small-x series, Rice saddle point for large
alpha, a bivariate rational fit elsewhere)."""

import tc
from ._special import digamma, lgamma

_MAX_PASSES = 64


def _fill(done, out, cand, accept):
    """Stores cand where accept holds and nothing was stored yet; returns (done, out)."""
    take = accept & tc.logical_not(done)
    return done | take, tc.where(take, cand, out)


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape (Marsaglia and Tsang; alpha < 1
    is boosted: Gamma(alpha) = Gamma(alpha + 1) U^(1/alpha)). No gradient."""
    with tc.no_grad():
        a = alpha.detach().to(tc.float64)
        boost = a < 1
        ab = tc.where(boost, a + 1, a)
        d = ab - 1.0 / 3
        c = 1.0 / tc.sqrt(9 * d)
        done = tc.zeros(tuple(a.shape), dtype=tc.bool, device=a.device)
        out = tc.ones_like(a)
        for _ in range(_MAX_PASSES):
            x = tc.randn(tuple(a.shape), dtype=tc.float64, device=a.device)
            v = 1 + c * x
            v = v * v * v
            u = tc.rand(tuple(a.shape), dtype=tc.float64, device=a.device)
            vpos = tc.where(v > 0, v, tc.ones_like(v))
            accept = (v > 0) & (tc.log(u) < 0.5 * x * x + d - d * vpos + d * tc.log(vpos))
            done, out = _fill(done, out, d * vpos, accept)
            if bool(done.all()):
                break
        u = tc.rand(tuple(a.shape), dtype=tc.float64, device=a.device)
        out = tc.where(boost, out * tc.pow(u, 1.0 / a), out)
        return out.to(alpha.dtype)


def standard_gamma_grad(alpha, x):
    """d x / d alpha for standard Gamma(alpha) draws x (torch._standard_gamma_grad). No gradient."""
    with tc.no_grad():
        dt = alpha.dtype
        a = alpha.detach().to(tc.float64)
        x = x.detach().to(tc.float64)
        # Small x: a Taylor series of the CDF and of its alpha-derivative.
        xs = x.clamp(min=1e-300)
        numer = tc.ones_like(a)
        denom = a.clone()
        s1 = numer / denom
        s2 = numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-xs / i)
            denom = denom + 1
            s1 = s1 + numer / denom
            s2 = s2 + numer / (denom * denom)
        pow_xa = tc.pow(xs, a)
        pdf = tc.pow(xs, a - 1) * tc.exp(-xs)
        cdf_alpha = (tc.log(xs) - digamma(a)) * pow_xa * s1 - pow_xa * s2
        small = -cdf_alpha / pdf
        small = tc.where(tc.isnan(small), tc.zeros_like(small), small)
        # Large alpha: Rice's saddle point expansion (a polynomial near the mean).
        near = (0.9 * a <= x) & (x <= 1.1 * a)
        n1 = 1 + 24 * a * (1 + 12 * a)
        n2 = 1440 * a * a + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
        poly = n1 * n2 / (1244160 * a * a * a * a)
        xa = tc.where(near, a * 0.5, x).clamp(min=1e-300)  # keeps the far formula finite where unused
        den = tc.sqrt(8 * a)
        t2 = den / (a - xa)
        t3 = tc.pow(xa - a - a * tc.log(xa / a), -1.5)
        t23 = tc.where(xa < a, t2 - t3, t2 + t3)
        t1 = tc.log(xa / a) * t23 - tc.sqrt(2 / a) * (a + xa) / ((a - xa) * (a - xa))
        stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
        far = -stirling * xa * t1 / den
        large = tc.where(near, poly, far)
        # Elsewhere: a bivariate rational approximation in log(x / alpha), log(alpha).
        u = tc.log(xs / a)
        v = tc.log(a)
        cv = [c0 + u * (c1 + u * c2) for c0, c1, c2 in zip(*_GAMMA_GRAD_COEFS)]
        p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
        q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
        mid = tc.exp(p / q)
        out = tc.where(x < 0.8, small, tc.where(a > 8.0, large, mid))
        return out.to(dt)


# ATen's coefficients of the rational fit (coef_uv in Distributions.h).
_GAMMA_GRAD_COEFS = (
    (0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084),
    (0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915,
     -0.00058392623),
    (0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326,
     0.00085092367, -1.5247877e-07),
)


def standard_gamma_rsample(alpha):
    """Gamma(alpha, 1) draws whose gradient with respect to alpha is the
    implicit reparameterization one: the value is the detached draw x, plus
    (alpha - alpha.detach()) * dx/dalpha, exactly zero in value but carrying
    dx/dalpha into the graph."""
    x = standard_gamma(alpha)
    if not alpha.requires_grad:
        return x
    grad = standard_gamma_grad(alpha, x)
    return x + (alpha - alpha.detach()) * grad


def _poisson_small(lam, shape):
    """Poisson draws by inversion (sequential search), for rates below 10."""
    u = tc.rand(shape, dtype=tc.float64, device=lam.device)
    k = tc.zeros(shape, dtype=tc.float64, device=lam.device)
    p = tc.exp(-lam)
    s = p.clone()
    limit = int(float(lam.max())) * 4 + 40 if lam.numel() else 0
    for i in range(1, limit + 1):
        more = u > s
        if not bool(more.any()):
            break
        k = k + more.to(tc.float64)
        p = p * lam / i
        s = s + p
    return k


def _poisson_ptrs(lam, shape):
    """Poisson draws by Hormann's transformed rejection with squeeze (PTRS),
    for rates of 10 and more (torch's sampler too)."""
    slam = tc.sqrt(lam)
    loglam = tc.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    done = tc.zeros(shape, dtype=tc.bool, device=lam.device)
    out = tc.zeros(shape, dtype=tc.float64, device=lam.device)
    for _ in range(_MAX_PASSES):
        U = tc.rand(shape, dtype=tc.float64, device=lam.device) - 0.5
        V = tc.rand(shape, dtype=tc.float64, device=lam.device)
        us = 0.5 - U.abs()
        k = tc.floor((2 * a / us + b) * U + lam + 0.43)
        squeeze = (us >= 0.07) & (V <= vr)
        ok = (k >= 0) & tc.logical_not((us < 0.013) & (V > us))
        ks = k.clamp(min=0)
        lhs = tc.log(V) + tc.log(inv_alpha) - tc.log(a / (us * us) + b)
        rhs = -lam + ks * loglam - lgamma(ks + 1)
        accept = squeeze | (ok & (lhs <= rhs))
        done, out = _fill(done, out, ks, accept)
        if bool(done.all()):
            break
    return out


def poisson(rate):
    """Poisson(rate) draws of rate's shape, as rate's dtype. No gradient."""
    with tc.no_grad():
        lam = rate.detach().to(tc.float64)
        shape = tuple(lam.shape)
        big = lam >= 10
        out = _poisson_small(tc.where(big, tc.zeros_like(lam), lam), shape)
        if bool(big.any()):
            out = tc.where(big, _poisson_ptrs(tc.where(big, lam, tc.full_like(lam, 10.0)), shape), out)
        return out.to(rate.dtype)


def _binomial_inversion(n, p, shape):
    """Binomial draws by inversion: count geometric gaps until they pass n (small n p)."""
    logq = tc.log1p(-p)
    k = tc.zeros(shape, dtype=tc.float64, device=n.device)
    total = tc.zeros(shape, dtype=tc.float64, device=n.device)
    active = n > 0
    limit = int(float(n.max())) + 1 if n.numel() else 0
    for _ in range(limit):
        if not bool(active.any()):
            break
        u = tc.rand(shape, dtype=tc.float64, device=n.device).clamp(min=1e-300)
        gap = tc.floor(tc.log(u) / logq) + 1
        total = total + gap
        still = active & (total <= n)
        k = k + still.to(tc.float64)
        active = still
    return k


def _binomial_btrs(n, p, shape):
    """Binomial draws by Hormann's BTRS transformed rejection (n p >= 10), as torch's sampler."""
    spq = tc.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = tc.log(p / (1 - p))
    m = tc.floor((n + 1) * p)
    h = lgamma(m + 1) + lgamma(n - m + 1)
    done = tc.zeros(shape, dtype=tc.bool, device=n.device)
    out = tc.zeros(shape, dtype=tc.float64, device=n.device)
    for _ in range(_MAX_PASSES):
        U = tc.rand(shape, dtype=tc.float64, device=n.device) - 0.5
        V = tc.rand(shape, dtype=tc.float64, device=n.device)
        us = 0.5 - U.abs()
        k = tc.floor((2 * a / us + b) * U + c)
        inside = (k >= 0) & (k <= n)
        squeeze = inside & (us >= 0.07) & (V <= vr)
        ks = tc.minimum(k.clamp(min=0), n)
        lhs = tc.log(V * alpha / (a / (us * us) + b))
        rhs = h - lgamma(ks + 1) - lgamma(n - ks + 1) + (ks - m) * lpq
        accept = squeeze | (inside & (lhs <= rhs))
        done, out = _fill(done, out, ks, accept)
        if bool(done.all()):
            break
    return out


def binomial(count, prob):
    """Binomial(count, prob) draws (count and prob broadcast), as prob's dtype. No gradient."""
    with tc.no_grad():
        n = count.detach().to(tc.float64)
        p = prob.detach().to(tc.float64)
        shape = tuple(n.shape)
        flip = p > 0.5
        q = tc.where(flip, 1 - p, p)
        big = n * q >= 10
        qs = tc.where(big, tc.full_like(q, 0.25), q).clamp(min=1e-300)
        out = _binomial_inversion(tc.where(big, tc.zeros_like(n), n), qs, shape)
        out = tc.where(q == 0, tc.zeros_like(out), out)
        if bool(big.any()):
            nb = tc.where(big, n, tc.full_like(n, 100.0))
            qb = tc.where(big, q, tc.full_like(q, 0.25))
            out = tc.where(big, _binomial_btrs(nb, qb, shape), out)
        out = tc.where(flip, n - out, out)
        return out.to(prob.dtype)
