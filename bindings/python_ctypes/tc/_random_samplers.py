"""Poisson and binomial sampling (torch.poisson, torch.binomial) from tc's
uniform draws, with PyTorch's algorithms: the product-of-uniforms method
for Poisson rates below 10 and Hormann's transformed rejection (PTRS) above;
geometric-jump inversion for binomials with count * min(p, 1 - p) < 10 and
BTRS above. Each algorithm runs vectorized: every round draws for the
elements still pending and settles those that accept. The samples carry no
gradient."""
import math

from . import _core as K

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _tc():
    import tc
    return tc


def _log_factorial(k):
    """log(k!) for a floating tensor of integers >= 0: a table below 20,
    Stirling's series (error < 1e-12) above."""
    tc = _tc()
    table = tc.tensor([math.lgamma(i + 1) for i in range(20)], dtype=k.dtype, device=k.device)
    small = table.gather(0, k.clamp(0, 19).to(K.int64))
    n = k.clamp(min=1) + 1  # log(k!) = lgamma(n), n = k + 1
    big = (n - 0.5) * n.log() - n + _HALF_LOG_2PI + 1 / (12 * n) - 1 / (360 * n ** 3) + 1 / (1260 * n ** 5)
    return tc.where(k < 20, small, big)


def _stirling_tail(k):
    """log(k!) - [(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2], as BTRS uses it."""
    tc = _tc()
    table = tc.tensor([math.lgamma(i + 1) - ((i + 0.5) * math.log(i + 1) - (i + 1) + _HALF_LOG_2PI)
                       for i in range(10)], dtype=k.dtype, device=k.device)
    small = table.gather(0, k.clamp(0, 9).to(K.int64))
    kp1sq = (k + 1) ** 2
    big = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    return tc.where(k <= 9, small, big)


def _uniform(like, generator):
    from ._factory_keywords import _with_generator
    tc = _tc()
    with _with_generator(generator):
        return tc.rand(*like.shape, dtype=like.dtype, device=like.device)


def _rounds(pending, step, limit=10000):
    """Runs step(pending) until nothing is pending; step returns the new pending mask."""
    for _ in range(limit):
        if not bool(pending.any()):
            return
        pending = step(pending)
    raise RuntimeError("sampler did not converge")


def poisson(input, generator=None):
    """Samples Poisson(rate) for each element of ``input`` (floating rates >= 0), like torch.poisson.

    Returns:
        Tensor: the counts, in input's dtype.
    """
    tc = _tc()
    if not input.dtype.is_floating_point:
        raise RuntimeError("\"poisson_cpu\" not implemented for '%s'" % input.dtype)
    lam = input.detach()
    if lam.numel() and bool((lam < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    if lam.numel() and bool(lam.isnan().any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = tc.zeros(*lam.shape, dtype=lam.dtype, device=lam.device)
    result = {"out": out}
    small = (lam < 10) & (lam > 0)
    # product of uniforms: the count of draws whose running product stays above exp(-rate)
    target = (-lam).exp()
    prod = tc.ones(*lam.shape, dtype=lam.dtype, device=lam.device)

    def small_step(pending):
        nonlocal prod
        prod = tc.where(pending, prod * _uniform(lam, generator), prod)
        still = pending & (prod > target)
        result["out"] = result["out"] + still.to(lam.dtype)
        return still
    _rounds(small, small_step)
    big = lam >= 10
    if bool(big.any()):
        safe = tc.where(big, lam, tc.full((), 10.0, dtype=lam.dtype, device=lam.device))
        slam, loglam = safe.sqrt(), safe.log()
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)

        def big_step(pending):
            u = _uniform(lam, generator) - 0.5
            v = _uniform(lam, generator)
            us = 0.5 - u.abs()
            k = ((2 * a / us + b) * u + safe + 0.43).floor()
            quick = (us >= 0.07) & (v <= vr)
            kk = k.clamp(min=0)
            lhs = v.log() + invalpha.log() - (a / (us * us) + b).log()
            rhs = -safe + kk * loglam - _log_factorial(kk)
            slow = (k >= 0) & ((us < 0.013) & (v > us)).logical_not() & (lhs <= rhs)
            accept = pending & (quick | slow)
            result["out"] = tc.where(accept, k, result["out"])
            return pending & accept.logical_not()
        _rounds(big, big_step)
    return result["out"]


def binomial(count, prob, generator=None):
    """Samples Binomial(count, prob) elementwise (floating count and prob of
    the same shape), like torch.binomial.

    Returns:
        Tensor: the numbers of successes, in count's dtype.
    """
    tc = _tc()
    if not count.dtype.is_floating_point or prob.dtype != count.dtype:
        raise RuntimeError("Found dtype %s but expected %s" % (prob.dtype if count.dtype.is_floating_point
                                                                else count.dtype, K.float32))
    n = count.detach()
    p = prob.detach().expand(*n.shape) if prob.shape != n.shape else prob.detach()
    out = tc.zeros(*n.shape, dtype=n.dtype, device=n.device)
    result = {"out": out}
    nan = tc.full((), float("nan"), dtype=n.dtype, device=n.device)
    degenerate = (n <= 0) | (p <= 0) | (p >= 1) | p.isnan() | n.isnan()
    # p >= 1 gives count; p <= 0 or count <= 0 gives 0; NaN stays NaN
    fixed = tc.where(p >= 1, n, tc.zeros((), dtype=n.dtype, device=n.device))
    fixed = tc.where(p.isnan() | n.isnan(), nan, fixed)
    flip = p > 0.5
    q = tc.where(flip, 1 - p, p)
    q = tc.where(degenerate, tc.full((), 0.25, dtype=n.dtype, device=n.device), q)
    nn = tc.where(degenerate, tc.ones((), dtype=n.dtype, device=n.device), n)
    use_btrs = (nn * q >= 10) & degenerate.logical_not()
    use_inv = use_btrs.logical_not() & degenerate.logical_not()
    # inversion: the number of geometric jumps that fit in count
    logq = (-q).log1p()
    geom_sum = tc.zeros(*n.shape, dtype=n.dtype, device=n.device)

    def inv_step(pending):
        nonlocal geom_sum
        geom = (_uniform(n, generator).log() / logq).ceil()
        geom_sum = tc.where(pending, geom_sum + geom, geom_sum)
        still = pending & (geom_sum <= nn)
        result["out"] = result["out"] + still.to(n.dtype)
        return still
    _rounds(use_inv, inv_step)
    if bool(use_btrs.any()):
        sd = (nn * q * (1 - q)).sqrt()
        b = 1.15 + 2.53 * sd
        a = -0.0873 + 0.0248 * b + 0.01 * q
        c = nn * q + 0.5
        vr = 0.92 - 4.2 / b
        r = q / (1 - q)
        alpha = (2.83 + 5.1 / b) * sd
        m = ((nn + 1) * q).floor()

        def btrs_step(pending):
            u = _uniform(n, generator) - 0.5
            v = _uniform(n, generator)
            us = 0.5 - u.abs()
            k = ((2 * a / us + b) * u + c).floor()
            inside = (k >= 0) & (k <= nn)
            quick = inside & (us >= 0.07) & (v <= vr)
            kk = tc.where(inside, k, tc.zeros((), dtype=n.dtype, device=n.device))
            lv = (v * alpha / (a / (us * us) + b)).log()
            bound = ((m + 0.5) * ((m + 1) / (r * (nn - m + 1))).log()
                     + (nn + 1) * ((nn - m + 1) / (nn - kk + 1)).log()
                     + (kk + 0.5) * (r * (nn - kk + 1) / (kk + 1)).log()
                     + _stirling_tail(m) + _stirling_tail(nn - m) - _stirling_tail(kk) - _stirling_tail(nn - kk))
            accept = pending & (quick | (inside & (lv <= bound)))
            result["out"] = tc.where(accept, k, result["out"])
            return pending & accept.logical_not()
        _rounds(use_btrs, btrs_step)
    out = tc.where(flip & degenerate.logical_not(), n - result["out"], result["out"])
    return tc.where(degenerate, fixed, out)


FUNCTIONS = {"poisson": poisson, "binomial": binomial}
