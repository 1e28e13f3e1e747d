"""Parity with PyTorch 1.13 of the reductions, scans, sort and search ops of
values and dtypes (float32, float64, integers and bool where PyTorch
allows them), dims (negative, several, keepdim), 0-d and empty inputs,
non-contiguous inputs, and float64 gradients against torch.autograd."""
import math

import pytest

import tc
from conftest import need
from test_parity import assert_same, parity

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

R = np.random.default_rng(12)


def randn(*s):
    return R.standard_normal(s)


def ints(*s, lo=-3, hi=4):
    return R.integers(lo, hi, s).astype(np.int64)


def ties(*s):
    """Floats with many repeats (ties for amax, mode, unique, sort)."""
    return R.integers(-2, 3, s).astype(np.float64)


def both(name):
    """f(x, *args) as tc.<name> / torch.<name>."""
    return (lambda *a, **k: getattr(tc, name)(*a, **k)), (lambda *a, **k: getattr(torch, name)(*a, **k))


# ---------------------------------------------------------------- reductions

DIMS = [None, 0, -1, (0, 2), (-1, 0, 1)]


@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_prod(dim, keepdim):
    need("tc_prod")
    x = randn(2, 3, 4)
    x[0, 1, 2] = 0.0  # one zero in some slices
    x[1, 2, 1] = x[1, 2, 3] = 0.0  # two zeros in others

    def th(t):
        if dim is None:
            r = torch.prod(t)
            return r.reshape((1, 1, 1)) if keepdim else r
        d = (dim,) if isinstance(dim, int) else dim
        r = t
        for k in sorted((k % 3 for k in d), reverse=True):
            r = r.prod(k, keepdim=keepdim)
        return r
    parity(lambda t: t.prod(dim, keepdim), th, [x])


def test_prod_dtypes_and_edges():
    need("tc_prod")
    for arr in (ints(3, 4), ints(3, 4).astype(np.int32), ints(3, 4) > 0):
        assert_same(tc.tensor(arr).prod(1), torch.tensor(arr).prod(1), {})
        assert_same(tc.tensor(arr).prod(), torch.tensor(arr).prod(), {})
    assert_same(tc.zeros(0, 3).prod(0), torch.zeros(0, 3).prod(0), {})
    assert_same(tc.zeros(0).prod(), torch.zeros(0).prod(), {})
    assert_same(tc.tensor(2.5).prod(0), torch.tensor(2.5).prod(0), {})
    nc = randn(4, 3)
    assert_same(tc.tensor(nc).t().prod(1), torch.tensor(nc).t().prod(1), dict(rtol=1e-12))


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_any(name):
    need("tc_" + name)
    for arr in (ints(3, 4, lo=0, hi=3), randn(3, 4) > 0, ints(3, 4, lo=0, hi=2).astype(np.uint8),
                ties(3, 4), np.zeros((0, 3))):
        a, t = tc.tensor(arr), torch.tensor(arr)
        assert_same(getattr(a, name)(), getattr(t, name)(), {})
        for d in (0, -1):
            for k in (False, True):
                assert_same(getattr(a, name)(d, k), getattr(t, name)(d, keepdim=k), {})
    assert_same(getattr(tc.tensor(arr), name)((0, 1)), getattr(torch.tensor(arr), name)(), {})


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("dim", [(), 1, -1, (0, 2), (2, 0, 1)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin(name, dim, keepdim):
    need("tc_" + name)
    ftc, fth = both(name)
    parity(lambda t: ftc(t, dim, keepdim), lambda t: fth(t, dim, keepdim), [ties(2, 3, 4)])
    parity(lambda t: ftc(t, dim, keepdim), lambda t: fth(t, dim, keepdim), [ints(2, 3, 4)])


@pytest.mark.parametrize("dim", [None, 0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_aminmax(dim, keepdim):
    need("tc_aminmax")
    kw = {} if dim is None else {"dim": dim}
    f_tc = lambda x: tuple(tc.aminmax(x, keepdim=keepdim, **kw))  # noqa: E731
    f_th = lambda x: tuple(torch.aminmax(x, keepdim=keepdim, **kw))  # noqa: E731
    parity(f_tc, f_th, [randn(3, 4, 5)], grad=False)
    # both results' gradients (min's and max's): torch 1.13 has no derivative for
    # aminmax, so the reference is amin's and amax's (the ops tc composes it of)
    dims = kw.get("dim", (0, 1, 2))
    amin_th = lambda x: torch.amin(x, dim=dims, keepdim=keepdim)  # noqa: E731
    amax_th = lambda x: torch.amax(x, dim=dims, keepdim=keepdim)  # noqa: E731
    parity(lambda x: (lambda r: r.min * 2 + r.max)(x.aminmax(keepdim=keepdim, **kw)),
           lambda x: amin_th(x) * 2 + amax_th(x), [randn(3, 4, 5)])
    parity(f_tc, f_th, [ints(3, 4)], grad=False, dtypes=(np.float64,))


def test_aminmax_result_and_errors():
    need("tc_aminmax")
    r = tc.aminmax(tc.tensor([1.0, -3.0, 5.0]))
    assert type(r).__name__ == "aminmax" and r.min.item() == -3.0 and r.max.item() == 5.0
    with pytest.raises(RuntimeError):
        tc.aminmax(tc.zeros(0, 3), dim=0)
    with pytest.raises(IndexError):
        tc.aminmax(tc.zeros(2, 3), dim=2)


def test_amax_edges():
    need("tc_amax")
    with pytest.raises(tc.ShapeError):
        tc.zeros(0, 3).amax(0)
    assert_same(tc.zeros(0, 3).amax(1), torch.zeros(0, 3).amax(1), {})
    assert_same(tc.tensor(3.0).amax(), torch.tensor(3.0).amax(), {})
    b = np.array([[True, False], [False, False]])
    assert_same(tc.tensor(b).amax(0), torch.tensor(b).amax(0), {})
    nc = ties(4, 5)
    parity(lambda t: t.t().amin(0), lambda t: t.t().amin(0), [nc])


P_VALUES = [2, 1, 3, 0.5, math.inf, -math.inf, 0, "fro", -1.5]


@pytest.mark.parametrize("p", P_VALUES, ids=str)
@pytest.mark.parametrize("dim", [None, 1, (0, -1)], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_norm(p, dim, keepdim):
    need("tc_norm")
    x = ties(3, 4, 2)  # zeros and ties: the subgradients at 0 and shared maxima
    x[0] = 0.0  # a whole zero slice: the norm is 0 there
    def th(t):
        if dim is None and keepdim:  # torch.norm ignores keepdim without dim
            return torch.norm(t, p).reshape(1, 1, 1)
        return torch.norm(t, p, dim, keepdim)
    if isinstance(p, float) and p < 1 and p != 0 and not math.isinf(p):
        x = x + (x == 0) * 0.5  # PyTorch's gradient for p < 1 is inf*0 at exact zeros of a whole slice
    parity(lambda t: t.norm(p, dim, keepdim), th, [x])


def test_count_nonzero():
    need("tc_count_nonzero")
    for arr in (ints(3, 4, 2), ties(3, 4, 2), randn(3, 4, 2) > 0, np.zeros((0, 2))):
        a, t = tc.tensor(arr), torch.tensor(arr)
        assert_same(tc.count_nonzero(a), torch.count_nonzero(t), {})
        assert_same(tc.count_nonzero(a, 1), torch.count_nonzero(t, 1), {})
        assert_same(tc.count_nonzero(a, (0, -1)), torch.count_nonzero(t, (0, -1)), {})


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)], ids=str)
@pytest.mark.parametrize("unbiased", [True, False])
def test_var_std_mean(name, dim, unbiased):
    need("tc_" + name)
    ftc, fth = both(name)
    parity(lambda t: ftc(t, dim, unbiased, True), lambda t: fth(t, dim, unbiased, keepdim=True), [randn(3, 4, 2)])
    parity(lambda t: ftc(t, dim, unbiased), lambda t: fth(t, dim, unbiased), [randn(3, 4, 2)])


def test_var_mean_correction():
    need("tc_var_mean")
    x = randn(5, 3)
    v, m = tc.var_mean(tc.tensor(x), 0, correction=2)
    tv, tm = torch.var_mean(torch.tensor(x), 0, correction=2)
    assert_same((v, m), (tv, tm), dict(rtol=1e-12))


# ---------------------------------------------------------------- order statistics

@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_median_kthvalue(dim, keepdim):
    need("tc_median_dim", "tc_kthvalue")
    x = randn(4, 5, 3)  # distinct values: indices are unique
    parity(lambda t: t.median(dim, keepdim), lambda t: t.median(dim, keepdim), [x])
    parity(lambda t: t.kthvalue(2, dim, keepdim), lambda t: t.kthvalue(2, dim, keepdim), [x])
    parity(lambda t: t.median(dim, keepdim), lambda t: t.median(dim, keepdim), [ints(4, 6, 3)])


def test_median_global_and_edges():
    need("tc_median")
    for arr in (randn(4, 6), randn(7), ints(3, 3)):
        parity(lambda t: t.median(), lambda t: t.median(), [arr])
    assert_same(tc.tensor(2.0).median(), torch.tensor(2.0).median(), {})
    assert_same(tc.tensor(2.0).median(0), torch.tensor(2.0).median(0), {})
    x = np.array([1.0, np.nan, 2.0, np.nan])
    assert_same(tc.tensor(x).median(0), torch.tensor(x).median(0), {})
    assert math.isnan(float(tc.tensor(x).median()))
    with pytest.raises(tc.ShapeError):
        tc.zeros(0).median()
    with pytest.raises(tc.ShapeError):
        tc.zeros(2, 0).median(1)
    with pytest.raises(tc.InvalidArgumentError):
        tc.zeros(2, 3).kthvalue(4, 1)
    nc = randn(5, 4)
    parity(lambda t: t.t().kthvalue(3, 1), lambda t: t.t().kthvalue(3, 1), [nc])


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_mode(dim, keepdim):
    need("tc_mode")
    parity(lambda t: t.mode(dim, keepdim), lambda t: t.mode(dim, keepdim), [ties(6, 7)])
    parity(lambda t: t.mode(dim, keepdim), lambda t: t.mode(dim, keepdim), [ints(6, 7)])


# ---------------------------------------------------------------- scans

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod(dim):
    need("tc_cumprod")
    x = randn(3, 4, 5)
    x[1, 2, 3] = 0.0
    x[2, 1, 1] = x[2, 1, 4] = 0.0
    x[0, 0, :] = 0.0
    parity(lambda t: t.cumprod(dim), lambda t: t.cumprod(dim), [x])
    for arr in (ints(3, 4), ints(3, 4) > 0, ints(3, 4).astype(np.int8)):
        assert_same(tc.tensor(arr).cumprod(-1), torch.tensor(arr).cumprod(-1), {})


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dim", [0, -1])
def test_cummax_cummin(name, dim):
    need("tc_" + name)
    ftc, fth = both(name)
    parity(lambda t: ftc(t, dim), lambda t: fth(t, dim), [ties(5, 6)])
    parity(lambda t: ftc(t, dim), lambda t: fth(t, dim), [ints(5, 6)])
    x = np.array([1.0, np.nan, 3.0, -1.0])
    assert_same(ftc(tc.tensor(x), 0), fth(torch.tensor(x), 0), {})
    b = randn(3, 4) > 0
    assert_same(ftc(tc.tensor(b), 1), fth(torch.tensor(b), 1), {})


@pytest.mark.parametrize("dim", [0, -1])
def test_logcumsumexp(dim):
    need("tc_logcumsumexp")
    parity(lambda t: t.logcumsumexp(dim), lambda t: t.logcumsumexp(dim), [randn(4, 6) * 30])
    x = np.array([-np.inf, -np.inf, 0.0, 800.0, 800.0])
    assert_same(tc.tensor(x).logcumsumexp(0), torch.tensor(x).logcumsumexp(0), dict(rtol=1e-12))


def test_scan_edges():
    need("tc_cumprod", "tc_cummax", "tc_logcumsumexp")
    for f in (lambda t: t.cumprod(0), lambda t: t.cummax(0), lambda t: t.logcumsumexp(-1)):
        assert_same(f(tc.tensor(2.0)), f(torch.tensor(2.0)), {})
        assert_same(f(tc.zeros(0, 3)), f(torch.zeros(0, 3)), {})
    nc = randn(4, 5)
    parity(lambda t: t.t().cumprod(1), lambda t: t.t().cumprod(1), [nc])


# ---------------------------------------------------------------- sort and search

@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_argsort(dim, descending):
    need("tc_sort", "tc_argsort")
    x = ties(4, 5, 6)  # ties: a stable sort's indices are determined
    parity(lambda t: t.sort(dim, descending), lambda t: t.sort(dim=dim, descending=descending, stable=True), [x])
    for arr in (ints(4, 5, 6), ints(4, 5, 6) > 0):
        assert_same(tc.tensor(arr).sort(dim, descending),
                    torch.tensor(arr).sort(dim=dim, descending=descending, stable=True), {})
        assert_same(tc.tensor(arr).argsort(dim, descending),
                    torch.sort(torch.tensor(arr), dim=dim, descending=descending, stable=True).indices, {})


def test_sort_edges():
    need("tc_sort")
    x = np.array([3.0, np.nan, 1.0, np.nan, -np.inf])
    for desc in (False, True):
        assert_same(tc.tensor(x).sort(0, desc), torch.tensor(x).sort(dim=0, descending=desc, stable=True), {})
    assert_same(tc.tensor(1.5).sort(), torch.tensor(1.5).sort(), {})
    assert_same(tc.zeros(0, 3).sort(0), torch.zeros(0, 3).sort(0), {})
    nc = ties(5, 4)
    parity(lambda t: t.t().sort(1), lambda t: t.t().sort(dim=1, stable=True), [nc])


@pytest.mark.parametrize("arr", [ties(4, 5), ints(17), np.array([True, False, True]), np.zeros((0,)),
                                 np.array(3.0)], ids=["float", "int", "bool", "empty", "0-d"])
def test_unique(arr):
    need("tc_unique")
    a, t = tc.tensor(arr), torch.tensor(arr)
    assert_same(tc.unique(a), torch.unique(t), {})
    assert_same(a.unique(return_inverse=True, return_counts=True),
                torch.unique(t, return_inverse=True, return_counts=True), {})
    assert_same(tc.unique(a, return_counts=True), torch.unique(t, return_counts=True), {})
    assert tuple(tc.unique(a, sorted=False, return_inverse=True)[1].shape) == tuple(t.shape)


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_searchsorted(right, out_int32):
    need("tc_searchsorted")
    seq = np.sort(ties(9))
    vals = np.array([[-3.0, -2.0, 0.0, 0.5], [2.0, 9.0, -2.5, 1.0]])
    k = dict(right=right, out_int32=out_int32)
    assert_same(tc.searchsorted(tc.tensor(seq), tc.tensor(vals), **k),
                torch.searchsorted(torch.tensor(seq), torch.tensor(vals), **k), {})
    seq2 = np.sort(ties(2, 7), axis=-1)
    assert_same(tc.searchsorted(tc.tensor(seq2), tc.tensor(vals), **k),
                torch.searchsorted(torch.tensor(seq2), torch.tensor(vals), **k), {})
    assert_same(tc.searchsorted(tc.tensor(seq), 0.0, **k), torch.searchsorted(torch.tensor(seq), 0.0, **k), {})
    iseq, ivals = np.sort(ints(8)), ints(5)
    assert_same(tc.searchsorted(tc.tensor(iseq), tc.tensor(ivals), **k),
                torch.searchsorted(torch.tensor(iseq), torch.tensor(ivals), **k), {})
    side = "right" if right else "left"
    assert_same(tc.searchsorted(tc.tensor(seq), tc.tensor(vals), side=side),
                torch.searchsorted(torch.tensor(seq), torch.tensor(vals), side=side), {})


def test_searchsorted_sorter_and_errors():
    need("tc_searchsorted")
    seq = randn(8)
    sorter = np.argsort(seq)
    vals = randn(5)
    assert_same(tc.searchsorted(tc.tensor(seq), tc.tensor(vals), sorter=tc.tensor(sorter)),
                torch.searchsorted(torch.tensor(seq), torch.tensor(vals), sorter=torch.tensor(sorter)), {})
    with pytest.raises(tc.ShapeError):
        tc.searchsorted(tc.zeros(2, 4), tc.zeros(3, 2))
    with pytest.raises(RuntimeError):
        tc.searchsorted(tc.zeros(4), tc.zeros(2), right=True, side="left")
