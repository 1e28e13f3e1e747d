"""The special functions (lgamma, digamma, polygamma, mvlgamma, the Bessel
functions, erfcx, ndtr, log_ndtr, entr, igamma/igammac, nextafter, gcd, lcm)
and the tc.special namespace against PyTorch: values on wide grids (poles,
negative non-integers, large arguments, infinities, NaN) in float32 and
float64, gradients in float64, errors, dtypes and integer promotion."""
import math

import pytest

import tc
import tc.special
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

GRID = np.concatenate([np.linspace(-30, 30, 601), -np.arange(0.0, 8.0), np.arange(-7.5, 0, 1.0),
                       [0.0, -0.0, 1e-300, 1e-8, 1e3, 1e10, 700, 710, -710, np.inf, -np.inf, np.nan]])
POSITIVE = np.concatenate([np.geomspace(1e-6, 1e4, 200), [np.inf, np.nan]])
SPECIAL = torch.special

# name, torch function, tc function, float64 rtol, float32 rtol, grid. The
# float64 tolerances are PyTorch's own accuracy where libtc's is better
# (digamma near its root, erfcx far out; see docs/ADDING_AN_OP.md).
UNARY = [
    ("lgamma", torch.lgamma, tc.lgamma, 1e-13, 1e-5, GRID),
    ("digamma", torch.digamma, tc.digamma, 1e-12, 1e-4, GRID),
    ("gammaln", SPECIAL.gammaln, tc.special.gammaln, 1e-13, 1e-5, GRID),
    ("psi", SPECIAL.psi, tc.special.psi, 1e-12, 1e-4, GRID),
    ("i0", torch.i0, tc.i0, 1e-13, 1e-5, GRID),
    ("special.i0", SPECIAL.i0, tc.special.i0, 1e-13, 1e-5, GRID),
    ("i0e", SPECIAL.i0e, tc.special.i0e, 1e-13, 1e-5, GRID),
    ("i1", SPECIAL.i1, tc.special.i1, 1e-13, 1e-5, GRID),
    ("i1e", SPECIAL.i1e, tc.special.i1e, 1e-13, 1e-5, GRID),
    ("erfcx", SPECIAL.erfcx, tc.special.erfcx, 1e-12, 1e-5, GRID),
    ("ndtr", SPECIAL.ndtr, tc.special.ndtr, 1e-14, 1e-6, GRID),
    ("log_ndtr", SPECIAL.log_ndtr, tc.special.log_ndtr, 1e-13, 1e-5, GRID),
    ("entr", SPECIAL.entr, tc.special.entr, 1e-15, 1e-6, GRID),
]


def compare(ours, ref, rtol, atol=0.0, keep=None):
    """Same NaN and infinity positions; finite values within tolerance (only
    the elements where keep is true, when given)."""
    a = np.asarray(ours.tolist(), dtype=np.float64)
    b = ref.detach().double().numpy()
    if keep is not None:
        a, b = a[keep], b[keep]
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
    np.testing.assert_array_equal(a[np.isinf(b)], b[np.isinf(b)])
    fin = np.isfinite(b)
    np.testing.assert_allclose(a[fin], b[fin], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,tf,cf,rtol64,rtol32,grid", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values(name, tf, cf, rtol64, rtol32, grid):
    need("tc_lgamma")
    # PyTorch's ndtr is (1 + erf(x / sqrt 2)) / 2: absolute accuracy only
    # (0 in the far left tail, where libtc keeps the value: test below).
    atol64, atol32 = (2e-16, 1e-7) if name == "ndtr" else (1e-300, 1e-30)
    compare(cf(tc.tensor(grid)), tf(torch.tensor(grid)), rtol64, atol=atol64)
    g32 = grid.astype(np.float32)
    t32 = tf(torch.tensor(g32))
    ours = cf(tc.tensor(g32))
    assert ours.dtype == tc.float32
    # float32: libtc computes in double and rounds, PyTorch in float; both are
    # near the true value, apart from where PyTorch's float loses it (the
    # neighbourhood of digamma's root, poles hit in float).
    keep = np.isfinite(t32.double().numpy()) | ~np.isfinite(g32)
    if name in ("digamma", "psi"):
        keep &= np.abs(t32.double().numpy()) > 1e-2
    compare(ours, t32, rtol32, atol=atol32, keep=keep)


def test_ndtr_left_tail_is_accurate():
    # PyTorch 1.13's ndtr is (1 + erf(x / sqrt 2)) / 2, 0 below -8.3; libtc
    # keeps the tail (erfc), which exp(log_ndtr) confirms.
    need("tc_ndtr")
    x = np.array([-10.0, -20.0, -30.0])
    ours = np.asarray(tc.special.ndtr(tc.tensor(x)).tolist())
    want = torch.special.log_ndtr(torch.tensor(x)).exp().numpy()
    np.testing.assert_allclose(ours, want, rtol=1e-13)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_values(n):
    need("tc_polygamma")
    grid = GRID[np.abs(GRID) < 100]
    compare(tc.polygamma(n, tc.tensor(grid)), torch.polygamma(n, torch.tensor(grid)), 1e-12, atol=1e-300)
    compare(tc.tensor(grid).polygamma(n), torch.tensor(grid).polygamma(n), 1e-12, atol=1e-300)
    compare(tc.special.polygamma(n, tc.tensor(grid)), SPECIAL.polygamma(n, torch.tensor(grid)), 1e-12, atol=1e-300)
    g = np.linspace(0.1, 20, 50).astype(np.float32)
    compare(tc.polygamma(n, tc.tensor(g)), torch.polygamma(n, torch.tensor(g)), 1e-5)


@pytest.mark.parametrize("p", [1, 2, 5])
def test_mvlgamma_values(p):
    need("tc_mvlgamma")
    x = np.linspace((p - 1) / 2 + 0.01, 30, 80)
    compare(tc.mvlgamma(tc.tensor(x), p), torch.mvlgamma(torch.tensor(x), p), 1e-13)
    compare(tc.tensor(x).mvlgamma(p=p), torch.tensor(x).mvlgamma(p=p), 1e-13)
    compare(tc.special.multigammaln(tc.tensor(x), p), SPECIAL.multigammaln(torch.tensor(x), p), 1e-13)
    compare(tc.mvlgamma(tc.tensor(x.astype(np.float32)), p), torch.mvlgamma(torch.tensor(x.astype(np.float32)), p),
            1e-5, atol=1e-5)


def test_incomplete_gamma_values():
    need("tc_igamma", "tc_igammac")
    r = np.random.default_rng(0)
    a = np.concatenate([r.uniform(0, 5, 300), r.uniform(0, 300, 200), [0, 0, -1, 1, np.inf, 1, np.inf, np.nan]])
    x = np.concatenate([r.uniform(0, 5, 300), r.uniform(0, 300, 200), [0, 1, 1, -1, 1, np.inf, np.inf, 1]])
    for ours, ref in ((tc.igamma, torch.igamma), (tc.special.gammainc, SPECIAL.gammainc),
                      (tc.igammac, torch.igammac), (tc.special.gammaincc, SPECIAL.gammaincc)):
        # PyTorch's own float64 error reaches 2e-9 for a > 20 near x = a (its
        # asymptotic series); libtc's Cephes recurrences are closer there.
        compare(ours(tc.tensor(a), tc.tensor(x)), ref(torch.tensor(a), torch.tensor(x)), 5e-9, atol=1e-300)
        a32, x32 = a.astype(np.float32), x.astype(np.float32)
        compare(ours(tc.tensor(a32), tc.tensor(x32)), ref(torch.tensor(a32), torch.tensor(x32)), 1e-3, atol=1e-6)
    assert tc.tensor(a).igamma(tc.tensor(x)).dtype == tc.float64


def test_nextafter_gcd_lcm():
    need("tc_nextafter", "tc_gcd", "tc_lcm")
    a = np.array([1.0, 0.0, -1.0, 1.0, np.inf, np.nan, 0.0])
    b = np.array([2.0, -1.0, -2.0, 1.0, 0.0, 1.0, np.nan])
    for dt in (np.float64, np.float32):
        compare(tc.nextafter(tc.tensor(a.astype(dt)), tc.tensor(b.astype(dt))),
                torch.nextafter(torch.tensor(a.astype(dt)), torch.tensor(b.astype(dt))), 0)
    r = np.random.default_rng(1)
    for dt in (np.int64, np.int32, np.int16, np.int8, np.uint8):
        lo = 0 if dt == np.uint8 else -100
        x = r.integers(lo, 100, 200).astype(dt)
        y = r.integers(lo, 100, 200).astype(dt)
        x[:5] = 0
        y[3:8] = 0
        for name in ("gcd", "lcm"):
            ours = getattr(tc, name)(tc.tensor(x), tc.tensor(y))
            ref = getattr(torch, name)(torch.tensor(x), torch.tensor(y))
            assert ours.dtype.name == str(ref.dtype).replace("torch.", "")
            assert ours.tolist() == ref.tolist()
    big = [-2**63, 2**62, 12]
    assert tc.tensor(big).gcd(tc.tensor([0, 3, 18])).tolist() == torch.tensor(big).gcd(torch.tensor([0, 3, 18])).tolist()
    assert tc.tensor(big).lcm(tc.tensor([1, 3, 18])).tolist() == torch.tensor(big).lcm(torch.tensor([1, 3, 18])).tolist()


def grads(f_tc, f_torch, *arrays, wrt=None):
    """float64 gradients of sum(f * w) for each input in wrt (default: all)."""
    wrt = range(len(arrays)) if wrt is None else wrt
    tcs = [tc.tensor(a) for a in arrays]
    ths = [torch.tensor(a) for a in arrays]
    for i in wrt:
        tcs[i].requires_grad = True
        ths[i].requires_grad_(True)
    out_tc, out_th = f_tc(*tcs), f_torch(*ths)
    w = np.random.default_rng(2).standard_normal(tuple(out_th.shape))
    out_tc.backward(tc.tensor(w))
    out_th.backward(torch.tensor(w))
    return [(tcs[i].grad, ths[i].grad) for i in wrt]


GRADS = [
    ("lgamma", lambda t: t.lgamma(), None), ("digamma", lambda t: t.digamma(), None),
    ("polygamma1", lambda t: t.polygamma(1), None), ("polygamma2", lambda t: t.polygamma(2), None),
    ("mvlgamma3", lambda t: t.mvlgamma(3), "above_one"), ("i0", lambda t: t.i0(), None),
    ("i0e", lambda t: SPECIAL.i0e(t) if isinstance(t, torch.Tensor) else tc.special.i0e(t), None),
    ("i1", lambda t: SPECIAL.i1(t) if isinstance(t, torch.Tensor) else tc.special.i1(t), None),
    ("i1e", lambda t: SPECIAL.i1e(t) if isinstance(t, torch.Tensor) else tc.special.i1e(t), None),
    ("erfcx", lambda t: SPECIAL.erfcx(t) if isinstance(t, torch.Tensor) else tc.special.erfcx(t), None),
    ("ndtr", lambda t: SPECIAL.ndtr(t) if isinstance(t, torch.Tensor) else tc.special.ndtr(t), None),
    ("log_ndtr", lambda t: SPECIAL.log_ndtr(t) if isinstance(t, torch.Tensor) else tc.special.log_ndtr(t), None),
    ("entr", lambda t: SPECIAL.entr(t) if isinstance(t, torch.Tensor) else tc.special.entr(t), "positive"),
]


@pytest.mark.parametrize("name,f,domain", GRADS, ids=[g[0] for g in GRADS])
def test_unary_gradients(name, f, domain):
    need("tc_lgamma")
    r = np.random.default_rng(3)
    if domain == "positive":
        x = r.uniform(0.05, 5, (3, 4))
    elif domain == "above_one":
        x = r.uniform(1.05, 8, (3, 4))
    else:  # negative non-integers, small and large positives
        x = np.concatenate([r.uniform(-4.9, 0, 4) + 0.013, r.uniform(0.05, 3, 4), r.uniform(5, 40, 4)]).reshape(3, 4)
    (gc, gt), = grads(f, f, x)
    compare(gc, gt, 1e-9, atol=1e-12)


def test_incomplete_gamma_gradients_and_not_implemented():
    need("tc_igamma", "tc_igammac", "tc_nextafter")
    r = np.random.default_rng(4)
    a, x = r.uniform(0.2, 6, (2, 3)), r.uniform(0.1, 8, (2, 3))
    for ours, ref in ((tc.igamma, torch.igamma), (tc.igammac, torch.igammac)):
        (gc, gt), = grads(ours, ref, a, x, wrt=[1])
        compare(gc, gt, 1e-12)
        ta, tx = tc.tensor(a, requires_grad=True), tc.tensor(x)
        out = ours(ta, tx)
        assert out.requires_grad
        with pytest.raises(NotImplementedError):  # as PyTorch: "the derivative for 'igamma: input' ..."
            out.sum().backward()
    ta = tc.tensor(a, requires_grad=True)
    out = tc.nextafter(ta, tc.tensor(x))
    assert out.requires_grad
    with pytest.raises(NotImplementedError):
        out.sum().backward()


def test_errors_and_dtypes():
    need("tc_polygamma", "tc_mvlgamma", "tc_igamma", "tc_gcd")
    x = tc.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="negative n"):
        tc.polygamma(-1, x)
    with pytest.raises(TypeError):
        tc.polygamma(1.0, x)
    with pytest.raises(TypeError):
        torch.polygamma(1.0, torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        tc.mvlgamma(x, 0)
    with pytest.raises(RuntimeError):
        torch.mvlgamma(torch.tensor([1.0]), 0)
    for name in ("igamma", "igammac", "nextafter"):
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.tensor([1, 2]), torch.tensor([1, 2]))
        with pytest.raises(RuntimeError):
            getattr(tc, name)(tc.tensor([1, 2]), tc.tensor([1, 2]))
        # a float and an integer operand give the float dtype
        ours = getattr(tc, name)(tc.tensor([1.5, 2.0]), tc.tensor([1, 2]))
        ref = getattr(torch, name)(torch.tensor([1.5, 2.0]), torch.tensor([1, 2]))
        assert ours.dtype == tc.float32 and ref.dtype == torch.float32
        compare(ours, ref, 1e-6)
    for name in ("gcd", "lcm"):
        with pytest.raises(RuntimeError):
            getattr(torch, name)(torch.tensor([1.0]), torch.tensor([1.0]))
        with pytest.raises(RuntimeError):
            getattr(tc, name)(tc.tensor([1.0]), tc.tensor([1.0]))
        with pytest.raises(RuntimeError):
            getattr(tc, name)(tc.tensor([True]), tc.tensor([True]))
    # Integer and bool inputs of the unary functions promote to the default float dtype.
    ints = np.array([1, 2, 3, 0, -1])
    for name, tf, cf, _, _, _ in UNARY:
        for arr in (ints, ints.astype(np.int32), np.array([True, False])):
            ours, ref = cf(tc.tensor(arr)), tf(torch.tensor(arr))
            assert ours.dtype == tc.float32 and ref.dtype == torch.float32, name
            compare(ours, ref, 1e-5)
    compare(tc.polygamma(2, tc.tensor(ints)), torch.polygamma(2, torch.tensor(ints)), 1e-5)
    compare(tc.mvlgamma(tc.tensor(np.array([3, 4])), 2), torch.mvlgamma(torch.tensor([3, 4]), 2), 1e-5)


def test_inplace_variants():
    need("tc_lgamma", "tc_polygamma", "tc_gcd")
    x = np.array([0.5, 1.5, 3.0])
    for name, args in (("lgamma_", ()), ("digamma_", ()), ("polygamma_", (1,)), ("mvlgamma_", (1,)), ("i0_", ())):
        t, u = tc.tensor(x), torch.tensor(x)
        assert getattr(t, name)(*args) is t
        getattr(u, name)(*args)
        compare(t, u, 1e-13)
    for name in ("igamma_", "igammac_", "nextafter_"):
        t, u = tc.tensor(x), torch.tensor(x)
        getattr(t, name)(tc.tensor([1.0, 2.0, 0.5]))
        getattr(u, name)(torch.tensor([1.0, 2.0, 0.5]))
        compare(t, u, 1e-13)
    for name in ("gcd_", "lcm_"):
        t, u = tc.tensor([6, 4, 0]), torch.tensor([6, 4, 0])
        getattr(t, name)(tc.tensor([4, 6, 5]))
        getattr(u, name)(torch.tensor([4, 6, 5]))
        assert t.tolist() == u.tolist()
    with pytest.raises(RuntimeError):  # a float result into an integer tensor, as PyTorch
        tc.tensor([3]).lgamma_()


def test_special_namespace_forwards():
    need("tc_lgamma")
    x = np.array([-0.5, 0.25, 2.0])
    compare(tc.special.xlog1py(tc.tensor([0.0, 1.0, 0.0]), tc.tensor([-1.0, 2.0, math.nan])),
            SPECIAL.xlog1py(torch.tensor([0.0, 1.0, 0.0]), torch.tensor([-1.0, 2.0, math.nan])), 1e-15)
    compare(tc.special.xlog1py(2.0, tc.tensor(x)), SPECIAL.xlog1py(2.0, torch.tensor(x)), 1e-6)
    for name in ("erf", "erfc", "expm1", "exp2", "log1p", "expit", "sinc"):
        compare(getattr(tc.special, name)(tc.tensor(x)), getattr(SPECIAL, name)(torch.tensor(x)), 1e-12)
    compare(tc.special.erfinv(tc.tensor(x / 3)), SPECIAL.erfinv(torch.tensor(x / 3)), 1e-12)
    compare(tc.special.logit(tc.tensor(x / 3 + 0.4)), SPECIAL.logit(torch.tensor(x / 3 + 0.4)), 1e-12)
    compare(tc.special.round(tc.tensor(x * 1.2345), decimals=2), SPECIAL.round(torch.tensor(x * 1.2345), decimals=2),
            1e-12)
    compare(tc.special.xlogy(tc.tensor(x), tc.tensor(x + 1)), SPECIAL.xlogy(torch.tensor(x), torch.tensor(x + 1)), 1e-12)
    m = np.arange(6.0).reshape(2, 3)
    compare(tc.special.logsumexp(tc.tensor(m), 1), SPECIAL.logsumexp(torch.tensor(m), 1), 1e-12)
    compare(tc.special.softmax(tc.tensor(m), 1), SPECIAL.softmax(torch.tensor(m), 1), 1e-12)
    compare(tc.special.log_softmax(tc.tensor(m), 0), SPECIAL.log_softmax(torch.tensor(m), 0), 1e-12)
    for name in tc.special.__all__:
        assert hasattr(SPECIAL, name), name


def test_frexp():
    need("tc_frexp")
    x = np.array([8.0, -0.3, 1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 5e-324, 1.7976931348623157e308, 0.75])
    for dt in (np.float64, np.float32):
        arr = x.astype(dt)
        ours, ref = tc.frexp(tc.tensor(arr)), torch.frexp(torch.tensor(arr))
        assert ours.mantissa.dtype.name == str(ref.mantissa.dtype).replace("torch.", "")
        assert ours.exponent.dtype == tc.int32 and ref.exponent.dtype == torch.int32
        np.testing.assert_array_equal(np.asarray(ours.mantissa.tolist()), ref.mantissa.numpy())
        np.testing.assert_array_equal(np.signbit(np.asarray(ours.mantissa.tolist())), np.signbit(ref.mantissa.numpy()))
        assert ours.exponent.tolist() == ref.exponent.tolist()
        m, e = tc.tensor(arr).frexp()
        assert e.tolist() == ref.exponent.tolist()
    # gradient of the mantissa: g / 2^exponent
    (gc, gt), = grads(lambda t: tc.frexp(t).mantissa, lambda t: torch.frexp(t).mantissa,
                      np.random.default_rng(5).uniform(-50, 50, (2, 3)))
    compare(gc, gt, 0)
    with pytest.raises(RuntimeError):
        torch.frexp(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError):
        tc.frexp(tc.tensor([1, 2]))
