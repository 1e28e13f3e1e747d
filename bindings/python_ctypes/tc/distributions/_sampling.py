"""Samplers libtc has no kernel for yet (torch's _standard_gamma, poisson,
binomial), written as vectorized rejection or inversion loops over tc
tensors, drawing from tc's generator (tc.manual_seed governs them). Each loop
works on the flat list of elements still pending, which it shrinks after
every pass (rejection: the accepted ones; inversion: the finished ones), so
the total work stays near one pass over all elements; the bounds on the
number of passes make the chance of an unfinished element far below 1e-30.
They should become C kernels on the Philox generator, as torch's are.

standard_gamma_grad is torch's implicit reparameterization gradient of a
Gamma(alpha) draw x (d x / d alpha = -(dF/dalpha)/f at x), with the same
three approximations ATen uses (small-x series, Rice saddle point for large
alpha, a bivariate rational fit elsewhere)."""

import tc
from ._special import digamma, lgamma

_MAX_PASSES = 64


def _rejection(params, propose, dtype=tc.float64):
    """Rejection sampling over flat parameter tensors (all of one length n):
    propose(sub_params) -> (candidates, accepted) for the pending elements;
    each element keeps its first accepted candidate."""
    n = params[0].numel()
    device = params[0].device
    out = tc.zeros(n, dtype=dtype, device=device)
    pending = tc.arange(n, device=device)
    for _ in range(_MAX_PASSES):
        if pending.numel() == 0:
            break
        sub = [p.index_select(0, pending) for p in params]
        cand, accept = propose(sub)
        out = out.index_copy(0, pending[accept], cand[accept])
        pending = pending[tc.logical_not(accept)]
    return out


def _flat(t):
    return t.detach().to(tc.float64).reshape(-1)


def _marsaglia_tsang(sub):
    (d,) = sub
    c = 1.0 / tc.sqrt(9 * d)
    shape = tuple(d.shape)
    x = tc.randn(shape, dtype=tc.float64, device=d.device)
    v = 1 + c * x
    v = v * v * v
    u = tc.rand(shape, dtype=tc.float64, device=d.device)
    vpos = tc.where(v > 0, v, tc.ones_like(v))
    accept = (v > 0) & (tc.log(u) < 0.5 * x * x + d - d * vpos + d * tc.log(vpos))
    return d * vpos, accept


def standard_gamma(alpha):
    """Gamma(alpha, 1) draws of alpha's shape (Marsaglia and Tsang; alpha < 1
    is boosted: Gamma(alpha) = Gamma(alpha + 1) U^(1/alpha)). No gradient."""
    with tc.no_grad():
        a = _flat(alpha)
        boost = a < 1
        d = tc.where(boost, a + 1, a) - 1.0 / 3
        out = _rejection([d], _marsaglia_tsang)
        u = tc.rand(tuple(a.shape), dtype=tc.float64, device=a.device)
        out = tc.where(boost, out * tc.pow(u, 1.0 / a), out)
        return out.reshape(tuple(alpha.shape)).to(alpha.dtype)


def _gamma_grad_small_x(a, x):
    """Taylor series of the CDF and of its alpha-derivative (x < 0.8)."""
    numer = tc.ones_like(a)
    denom = a.clone()
    s1 = numer / denom
    s2 = numer / (denom * denom)
    for i in range(1, 6):
        numer = numer * (-x / i)
        denom = denom + 1
        s1 = s1 + numer / denom
        s2 = s2 + numer / (denom * denom)
    pow_xa = tc.pow(x, a)
    pdf = tc.pow(x, a - 1) * tc.exp(-x)
    cdf_alpha = (tc.log(x) - digamma(a)) * pow_xa * s1 - pow_xa * s2
    out = -cdf_alpha / pdf
    return tc.where(tc.isnan(out), tc.zeros_like(out), out)


def _gamma_grad_large_alpha(a, x):
    """Rice's saddle point expansion (alpha > 8), a polynomial near the mean."""
    near = (0.9 * a <= x) & (x <= 1.1 * a)
    n1 = 1 + 24 * a * (1 + 12 * a)
    n2 = 1440 * a * a + 6 * x * (53 - 120 * x) - 65 * x * x / a + a * (107 + 3600 * x)
    poly = n1 * n2 / (1244160 * a * a * a * a)
    xa = tc.where(near, a * 0.5, x)  # keeps the far formula finite where unused
    den = tc.sqrt(8 * a)
    t2 = den / (a - xa)
    t3 = tc.pow(xa - a - a * tc.log(xa / a), -1.5)
    t23 = tc.where(xa < a, t2 - t3, t2 + t3)
    t1 = tc.log(xa / a) * t23 - tc.sqrt(2 / a) * (a + xa) / ((a - xa) * (a - xa))
    stirling = 1 + 1 / (12 * a) * (1 + 1 / (24 * a))
    return tc.where(near, poly, -stirling * xa * t1 / den)


def _gamma_grad_rational(a, x):
    """A bivariate rational approximation in log(x / alpha) and log(alpha)."""
    u = tc.log(x / a)
    v = tc.log(a)
    cv = [c0 + u * (c1 + u * c2) for c0, c1, c2 in zip(*_GAMMA_GRAD_COEFS)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return tc.exp(p / q)


def standard_gamma_grad(alpha, x):
    """d x / d alpha for standard Gamma(alpha) draws x (torch._standard_gamma_grad),
    each element by the one of ATen's three approximations its (alpha, x)
    selects, computed only on those elements. No gradient."""
    with tc.no_grad():
        a, xf = _flat(alpha), _flat(x)
        out = tc.zeros(a.numel(), dtype=tc.float64, device=a.device)
        every = tc.arange(a.numel(), device=a.device)
        small = xf < 0.8
        large = tc.logical_not(small) & (a > 8.0)
        mid = tc.logical_not(small) & tc.logical_not(large)
        for mask, branch in ((small, _gamma_grad_small_x), (large, _gamma_grad_large_alpha),
                             (mid, _gamma_grad_rational)):
            idx = every[mask]
            if idx.numel():
                out = out.index_copy(0, idx, branch(a[idx], xf[idx]))
        return out.reshape(tuple(alpha.shape)).to(alpha.dtype)


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


def _poisson_small(lam):
    """Poisson draws by inversion (sequential search) for flat rates below 10,
    each iteration on the elements whose search goes on."""
    n = lam.numel()
    u = tc.rand(n, dtype=tc.float64, device=lam.device)
    out = tc.zeros(n, dtype=tc.float64, device=lam.device)
    p = tc.exp(-lam)
    s = p.clone()
    idx = tc.arange(n, device=lam.device)
    k = 0
    limit = int(float(lam.max())) * 4 + 40 if n else 0
    while k < limit:
        more = u > s
        done = tc.logical_not(more)
        out = out.index_copy(0, idx[done], tc.full((int(done.sum()),), float(k), dtype=tc.float64,
                                                    device=lam.device))
        idx, u, s, p, lam = idx[more], u[more], s[more], p[more], lam[more]
        if idx.numel() == 0:
            break
        k += 1
        p = p * lam / k
        s = s + p
    return out


def _ptrs(sub):
    (lam,) = sub
    shape = tuple(lam.shape)
    slam = tc.sqrt(lam)
    loglam = tc.log(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2)
    U = tc.rand(shape, dtype=tc.float64, device=lam.device) - 0.5
    V = tc.rand(shape, dtype=tc.float64, device=lam.device)
    us = 0.5 - U.abs()
    k = tc.floor((2 * a / us + b) * U + lam + 0.43)
    squeeze = (us >= 0.07) & (V <= vr)
    ok = (k >= 0) & tc.logical_not((us < 0.013) & (V > us))
    ks = k.clamp(min=0)
    lhs = tc.log(V) + tc.log(inv_alpha) - tc.log(a / (us * us) + b)
    rhs = -lam + ks * loglam - lgamma(ks + 1)
    return ks, squeeze | (ok & (lhs <= rhs))


def poisson(rate):
    """Poisson(rate) draws of rate's shape, as rate's dtype: inversion below
    rate 10, Hormann's transformed rejection with squeeze (PTRS, torch's
    sampler too) from 10 on. No gradient."""
    with tc.no_grad():
        lam = _flat(rate)
        big = lam >= 10
        out = tc.zeros(lam.numel(), dtype=tc.float64, device=lam.device)
        small_idx = tc.arange(lam.numel(), device=lam.device)[tc.logical_not(big)]
        if small_idx.numel():
            out = out.index_copy(0, small_idx, _poisson_small(lam[small_idx]))
        big_idx = tc.arange(lam.numel(), device=lam.device)[big]
        if big_idx.numel():
            out = out.index_copy(0, big_idx, _rejection([lam[big_idx]], _ptrs))
        return out.reshape(tuple(rate.shape)).to(rate.dtype)


def _binomial_inversion(n, p):
    """Binomial draws by inversion for flat n, p with small n p: counts the
    geometric gaps between successes until they pass n, each iteration on
    the elements still counting."""
    m = n.numel()
    logq = tc.log1p(-p)
    out = tc.zeros(m, dtype=tc.float64, device=n.device)
    total = tc.zeros(m, dtype=tc.float64, device=n.device)
    idx = tc.arange(m, device=n.device)
    k = 0
    limit = int(float(n.max())) + 1 if m else 0
    while k < limit:
        u = tc.rand(idx.numel(), dtype=tc.float64, device=n.device).clamp(min=1e-300)
        total = total + tc.floor(tc.log(u) / logq) + 1
        done = total > n
        out = out.index_copy(0, idx[done], tc.full((int(done.sum()),), float(k), dtype=tc.float64,
                                                    device=n.device))
        more = tc.logical_not(done)
        idx, total, n, logq = idx[more], total[more], n[more], logq[more]
        if idx.numel() == 0:
            break
        k += 1
    return out


def _btrs(sub):
    n, p, m, h = sub
    shape = tuple(n.shape)
    spq = tc.sqrt(n * p * (1 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = tc.log(p / (1 - p))
    U = tc.rand(shape, dtype=tc.float64, device=n.device) - 0.5
    V = tc.rand(shape, dtype=tc.float64, device=n.device)
    us = 0.5 - U.abs()
    k = tc.floor((2 * a / us + b) * U + c)
    inside = (k >= 0) & (k <= n)
    squeeze = inside & (us >= 0.07) & (V <= vr)
    ks = tc.minimum(k.clamp(min=0), n)
    lhs = tc.log(V * alpha / (a / (us * us) + b))
    rhs = h - lgamma(ks + 1) - lgamma(n - ks + 1) + (ks - m) * lpq
    return ks, squeeze | (inside & (lhs <= rhs))


def binomial(count, prob):
    """Binomial(count, prob) draws (count and prob of one shape), as prob's
    dtype: inversion where n min(p, 1 - p) < 10, Hormann's BTRS transformed
    rejection (torch's sampler too) elsewhere. No gradient."""
    with tc.no_grad():
        n, p = _flat(count), _flat(prob)
        flip = p > 0.5
        q = tc.where(flip, 1 - p, p)
        big = n * q >= 10
        out = tc.zeros(n.numel(), dtype=tc.float64, device=n.device)
        every = tc.arange(n.numel(), device=n.device)
        small_idx = every[tc.logical_not(big) & (q > 0) & (n > 0)]
        if small_idx.numel():
            out = out.index_copy(0, small_idx, _binomial_inversion(n[small_idx], q[small_idx]))
        big_idx = every[big]
        if big_idx.numel():
            nb, qb = n[big_idx], q[big_idx]
            mode = tc.floor((nb + 1) * qb)
            h = lgamma(mode + 1) + lgamma(nb - mode + 1)
            out = out.index_copy(0, big_idx, _rejection([nb, qb, mode, h], _btrs))
        out = tc.where(flip, n - out, out)
        return out.reshape(tuple(prob.shape)).to(prob.dtype)
