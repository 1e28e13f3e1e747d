"""PyTorch 1.13 surface added for unchanged PyTorch programs, checked against
torch: the legacy constructors (tc.Tensor(2, 3), tc.FloatTensor([...])), the
factories' size=/out=/layout= keywords, the matrix products (values and
float64 gradients), the Tensor flags, and list/range indexing."""
import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

RNG = np.random.RandomState(0)


def _pair(*shape):
    a = RNG.standard_normal(shape)
    return (tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True))


def _close(x, y, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(x.detach().numpy()), y.detach().numpy(), rtol=rtol, atol=atol)


# ------------------------------------------------------------ legacy constructors

def test_legacy_tensor_sizes_and_data():
    t = tc.Tensor(2, 3)
    assert t.shape == (2, 3) and t.dtype == tc.float32
    assert tc.Tensor(tc.Size([4, 1])).shape == (4, 1)
    d = tc.Tensor([1, 2])
    assert d.dtype == tc.float32 and d.tolist() == torch.Tensor([1, 2]).tolist()
    assert tc.Tensor((2, 3)).tolist() == torch.Tensor((2, 3)).tolist()  # a tuple is data, as in torch
    assert tc.Tensor().shape == torch.Tensor().shape == (0,)
    assert tc.Tensor(np.array([[1.5, 2.5]])).tolist() == [[1.5, 2.5]]
    assert isinstance(t, tc.Tensor)


@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor",
                                  "ByteTensor", "ShortTensor", "CharTensor"])
def test_typed_legacy_classes(name):
    ours, theirs = getattr(tc, name)([1, 0, 3]), getattr(torch, name)([1, 0, 3])
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    assert ours.tolist() == theirs.tolist()
    assert getattr(tc, name)(2, 2).shape == (2, 2)
    assert isinstance(ours, getattr(tc, name))
    assert not isinstance(tc.zeros(1, dtype=tc.float16), getattr(tc, name))
    assert ours.type(getattr(tc, name)).dtype == ours.dtype


def test_legacy_tensor_errors_like_torch():
    with pytest.raises(TypeError):
        torch.Tensor(2.5)
    with pytest.raises(TypeError):
        tc.Tensor(2.5)
    with pytest.raises(TypeError):
        tc.Tensor(tc.zeros(2, dtype=tc.int64))


# ------------------------------------------------------------ factory keywords

def test_factory_size_and_out_keywords():
    assert tc.empty(size=(2, 3)).shape == torch.empty(size=(2, 3)).shape
    assert tc.zeros(size=[4]).shape == (4,)
    r = tc.randint(0, 10, size=(3,))
    assert r.shape == (3,) and r.dtype == tc.int64 and 0 <= r.min().item() and r.max().item() < 10
    assert tc.full(size=(2,), fill_value=3.0).tolist() == torch.full(size=(2,), fill_value=3.0).tolist()
    out = tc.empty(2, 3)
    res = tc.zeros(2, 3, out=out)
    assert res is out and out.tolist() == [[0.0] * 3] * 2
    o = tc.empty(3, dtype=tc.float64)
    tc.arange(3, out=o)
    assert o.dtype == tc.float64 and o.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(RuntimeError):
        tc.ones(4, out=tc.empty(2))
    assert tc.ones(2, layout=tc.strided, pin_memory=False).tolist() == [1.0, 1.0]
    assert tc.zeros_like(tc.ones(2), memory_format=tc.preserve_format).tolist() == [0.0, 0.0]
    g = tc.Generator().manual_seed(5)
    a = tc.rand(3, generator=g)
    b = tc.rand(3, generator=tc.Generator().manual_seed(5))
    assert a.tolist() == b.tolist()


# ------------------------------------------------------------ matrix products

def _check_grad(f_tc, f_torch, tc_inputs, torch_inputs):
    out_tc, out_torch = f_tc(*tc_inputs), f_torch(*torch_inputs)
    _close(out_tc, out_torch)
    w = RNG.standard_normal(tuple(out_torch.shape))
    (out_tc * tc.tensor(w)).sum().backward()
    (out_torch * torch.tensor(w)).sum().backward()
    for a, b in zip(tc_inputs, torch_inputs):
        _close(a.grad, b.grad)


@pytest.mark.parametrize("case", ["mm", "mv", "addmv", "addr", "addbmm", "baddbmm", "addmm", "bmm", "kron",
                                  "tensordot", "tensordot_lists", "cross", "trace", "inner", "outer", "dot",
                                  "vdot", "cdist", "cdist_p1", "cdist_p3", "cdist_inf"])
def test_products_values_and_gradients(case):
    shapes, f = {
        "mm": ([(3, 4), (4, 2)], lambda m, a, b: m.mm(a, b)),
        "mv": ([(3, 4), (4,)], lambda m, a, b: m.mv(a, b)),
        "addmv": ([(3,), (3, 4), (4,)], lambda m, i, a, b: m.addmv(i, a, b, beta=0.5, alpha=2.0)),
        "addr": ([(3, 2), (3,), (2,)], lambda m, i, a, b: m.addr(i, a, b, beta=2.0, alpha=-1.0)),
        "addbmm": ([(3, 2), (4, 3, 5), (4, 5, 2)], lambda m, i, a, b: m.addbmm(i, a, b, beta=0.5, alpha=3.0)),
        "baddbmm": ([(4, 3, 2), (4, 3, 5), (4, 5, 2)], lambda m, i, a, b: m.baddbmm(i, a, b, beta=0.5, alpha=3.0)),
        "addmm": ([(3, 2), (3, 5), (5, 2)], lambda m, i, a, b: m.addmm(i, a, b, beta=0.5, alpha=3.0)),
        "bmm": ([(2, 3, 4), (2, 4, 5)], lambda m, a, b: m.bmm(a, b)),
        "kron": ([(2, 3), (3, 1, 2)], lambda m, a, b: m.kron(a, b)),
        "tensordot": ([(2, 3, 4), (3, 4, 5)], lambda m, a, b: m.tensordot(a, b, dims=2)),
        "tensordot_lists": ([(2, 3, 4), (4, 2, 5)], lambda m, a, b: m.tensordot(a, b, dims=([0, 2], [1, 0]))),
        "cross": ([(4, 3), (4, 3)], lambda m, a, b: m.cross(a, b, dim=1)),
        "trace": ([(3, 4)], lambda m, a: m.trace(a)),
        "inner": ([(2, 3), (4, 3)], lambda m, a, b: m.inner(a, b)),
        "outer": ([(3,), (4,)], lambda m, a, b: m.outer(a, b)),
        "dot": ([(3,), (3,)], lambda m, a, b: m.dot(a, b)),
        "vdot": ([(3,), (3,)], lambda m, a, b: m.vdot(a, b)),
        "cdist": ([(2, 3, 4), (2, 5, 4)], lambda m, a, b: m.cdist(a, b)),
        "cdist_p1": ([(3, 4), (5, 4)], lambda m, a, b: m.cdist(a, b, p=1.0)),
        "cdist_p3": ([(3, 4), (5, 4)], lambda m, a, b: m.cdist(a, b, p=3.0)),
        "cdist_inf": ([(3, 4), (5, 4)], lambda m, a, b: m.cdist(a, b, p=float("inf"))),
    }[case]
    pairs = [_pair(*s) for s in shapes]
    _check_grad(lambda *xs: f(tc, *xs), lambda *xs: f(torch, *xs), [p[0] for p in pairs], [p[1] for p in pairs])


def test_product_methods_match_functions():
    (a, pa), (b, pb) = _pair(3, 4), _pair(4, 2)
    _close(a.mm(b), pa.mm(pb))
    (v, pv) = _pair(4)
    _close(a.mv(v), pa.mv(pv))
    (i, pi) = _pair(3, 2)
    _close(i.detach().clone().addmm_(a.detach(), b.detach(), beta=2, alpha=0.5),
           pi.detach().clone().addmm_(pa.detach(), pb.detach(), beta=2, alpha=0.5))
    _close(a.detach().trace(), pa.detach().trace())


def test_cdist_zero_distance_has_zero_gradient():
    x = tc.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tc.float64, requires_grad=True)
    px = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)
    tc.cdist(x, x).sum().backward()
    torch.cdist(px, px).sum().backward()
    _close(x.grad, px.grad)


def test_addmv_beta_zero_ignores_nan_input():
    m, v = tc.ones(2, 3), tc.ones(3)
    out = tc.addmv(tc.tensor([float("nan"), 1.0]), m, v, beta=0)
    assert out.tolist() == torch.addmv(torch.tensor([float("nan"), 1.0]), torch.ones(2, 3), torch.ones(3),
                                       beta=0).tolist()


def test_product_errors_like_torch():
    for f in (lambda m: m.mm(m.ones(3), m.ones(3, 2)), lambda m: m.mv(m.ones(3, 2), m.ones(3, 2)),
              lambda m: m.trace(m.ones(3)), lambda m: m.cross(m.ones(2, 2), m.ones(2, 2)),
              lambda m: m.tensordot(m.ones(2, 3), m.ones(2, 3), dims=([0], [1]))):
        with pytest.raises(RuntimeError):
            f(torch)
        with pytest.raises(RuntimeError):
            f(tc)


# ------------------------------------------------------------ flags

@pytest.mark.parametrize("name", ["is_cuda", "is_xpu", "is_sparse", "is_quantized", "is_meta", "is_mkldnn",
                                  "is_mps", "is_nested", "is_sparse_csr"])
def test_flag_properties(name):
    assert getattr(tc.ones(2), name) == getattr(torch.ones(2), name)


@pytest.mark.parametrize("name", ["is_complex", "is_floating_point", "is_signed", "is_conj", "is_neg",
                                  "is_inference", "get_device", "ndimension", "is_pinned"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "bool"])
def test_flag_methods(name, dtype):
    t, p = tc.ones(2, 2, dtype=getattr(tc, dtype if dtype != "bool" else "bool")), \
        torch.ones(2, 2, dtype=getattr(torch, dtype))
    assert getattr(t, name)() == getattr(p, name)()


def test_misc_queries():
    t, p = tc.ones(2, 3), torch.ones(2, 3)
    assert t.is_same_size(tc.zeros(2, 3)) and not t.is_same_size(tc.zeros(3, 2))
    assert tc.tensor([2.0]).is_nonzero() and not tc.tensor([0.0]).is_nonzero()
    with pytest.raises(RuntimeError):
        tc.ones(2).is_nonzero()
    assert t.type_as(tc.ones(1, dtype=tc.float64)).dtype == tc.float64
    assert repr(t.layout) == "tc.strided"


# ------------------------------------------------------------ indexing

@pytest.mark.parametrize("key", [
    [0, 2], range(1, 3), [[0, 1], [2, 0]], (slice(None), [0, 2]), (range(2), [1, 0]),
    (Ellipsis, [1]), ([True, False, True, False],), (1, [0, 0, 2]), [-1, 0],
    [slice(None), [0, 1]], [[0, 3], slice(1, None)], ([[0], [2]], [1, 2]),
])
def test_getitem_and_setitem_with_lists_and_ranges(key):
    a = np.arange(12.0).reshape(4, 3)
    t, p = tc.tensor(a), torch.tensor(a)
    assert t[key].tolist() == p[key].tolist()
    t[key] = -1.0
    p[key] = -1.0
    assert t.tolist() == p.tolist()


# ------------------------------------------------------------ namespace helpers, in-place variants, misc methods

_X = np.array([[0.5, -1.5, 0.0, 2.0], [3.0, -0.25, 1.0, -4.0], [0.0, 0.75, -2.5, 1.5]])


@pytest.mark.parametrize("expr", [
    "m.hstack([x, x])", "m.vstack([x[0], x[1]])", "m.dstack([x, x])", "m.column_stack([x[0], x[1]])",
    "m.atleast_3d(x[0])", "m.fliplr(x)", "m.flipud(x)", "m.rot90(x, 1, [0, 1])", "m.rot90(x, -1, [0, 1])",
    "m.rot90(x, 2, [1, 0])", "m.ravel(x.t())", "m.swapaxes(x, 0, 1)", "m.tensor_split(x, 3, dim=1)",
    "m.tensor_split(x, [1, 3], dim=1)", "m.hsplit(x, 2)", "m.vsplit(x, [1])",
    "m.take_along_dim(x, m.tensor([[0], [3], [1]]), dim=1)", "m.take_along_dim(x, m.tensor([5, 0]))",
    "m.tril_indices(3, 4, 1)", "m.triu_indices(4, 3, -1)", "m.vander(x[0], 3)",
    "m.vander(x[0], increasing=True)", "m.block_diag(x[:2, :2], x[0, :3])", "m.cartesian_prod(x[0], x[1, :2])",
    "m.diagflat(x[0], 1)", "m.deg2rad(x)", "m.rad2deg(x)", "m.xlogy(x, x.abs())", "m.heaviside(x, x[0])",
    "m.fmax(x, x.flip(0))", "m.nan_to_num(x / 0.0)", "m.isposinf(x / 0.0)", "m.isneginf(x / 0.0)",
    "m.isclose(x, x + 1e-9)", "m.count_nonzero(x, dim=0)", "m.signbit(x)", "m.float_power(x, 2)",
    "m.ldexp(x, m.tensor([1.0, 2.0, 0.0, -1.0]))", "m.logit(x.sigmoid())", "m.rsub(x, 2.0)", "m.diff(x, dim=1)",
    "m.diff(x, n=2, dim=0, append=x[:1])", "m.dist(x[0], x[1], 3)", "m.msort(x)", "m.sinc(x)",
    "m.broadcast_tensors(x[:1], x[:, :1])", "m.nansum(x / x)", "m.nanmean(x / x, 0)", "m.aminmax(x, dim=1)",
    "m.argwhere(x)", "m.greater(x, 0.5)", "m.arccos(x / 5)", "m.absolute(x)",
    "x.unfold(1, 2, 1)", "x.sum_to_size(1, 4)", "x.new([1, 2]).to(m.float64)", "x.mH", "x.H", "x.adjoint()",
    "x.abs().byte()", "x.clone().exp_()", "x.clone().clamp_min_(0.0)", "x.clone().pow_(2)", "x.clone().eq_(0.0)",
    "x.clone().masked_fill_(x > 0, 7.0)", "x.clone().index_add_(0, m.tensor([0, 0]), x[:2])",
    "x.clone().fill_diagonal_(9.0)", "x.clone().t().fill_diagonal_(5.0, wrap=True)",
    "x.clone().put_(m.tensor([0, -1]), m.tensor([8.0, 9.0], dtype=m.float64))", "x.clone().apply_(lambda v: v * 2 + 1)",
    "x.clone().map_(x[0], lambda a, b: a - b)", "x.clone().tril_(1)", "x.clone().xlogy_(2.0)",
])
def test_helpers_match_torch(expr):
    got = eval(expr, {"m": tc, "x": tc.tensor(_X)})
    want = eval(expr, {"m": torch, "x": torch.tensor(_X)})
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            np.testing.assert_allclose(np.asarray(a.tolist(), dtype=float), np.asarray(b.tolist(), dtype=float),
                                       rtol=1e-12, atol=1e-12)
    else:
        assert tuple(got.shape) == tuple(want.shape)
        assert got.dtype.name == str(want.dtype).replace("torch.", "")
        np.testing.assert_allclose(np.asarray(got.tolist(), dtype=float), np.asarray(want.tolist(), dtype=float),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("expr", ["m.result_type(m.ones(2, dtype=m.int32), 2.5)",
                                  "m.result_type(m.ones(2, dtype=m.int32), m.tensor(1, dtype=m.int64))",
                                  "m.result_type(m.ones(2, dtype=m.float32), m.tensor(1.0, dtype=m.float64))",
                                  "m.result_type(m.ones(2, dtype=m.uint8), True)",
                                  "m.can_cast(m.float32, m.int32)", "m.can_cast(m.int32, m.float16)",
                                  "m.broadcast_shapes((2, 1), (3,))", "m.is_signed(m.ones(1, dtype=m.uint8))",
                                  "m.is_floating_point(m.ones(1))", "m.scalar_tensor(3).dtype"])
def test_type_helpers_match_torch(expr):
    got, want = eval(expr, {"m": tc}), eval(expr, {"m": torch})
    assert str(got).replace("tc.", "").replace("Size", "torch.Size") == str(want).replace("torch.", "").replace(
        "Size", "torch.Size")


def test_inplace_variant_refuses_a_higher_category_like_torch():
    with pytest.raises(RuntimeError):
        torch.ones(2, dtype=torch.int64).sqrt_()
    with pytest.raises(RuntimeError):
        tc.ones(2, dtype=tc.int64).sqrt_()


def test_helpers_keep_gradients():
    a = np.array([0.3, -1.2, 0.0, 2.0])
    t, p = tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for m, x in ((tc, t), (torch, p)):
        (m.sinc(x) + m.xlogy(x * x + 1, x.exp()) + m.logit(x.sigmoid()) + m.rot90(m.stack([x, x * 2]), 1, [0, 1]).sum(1)
         .sum()).sum().backward()
    np.testing.assert_allclose(np.asarray(t.grad.tolist()), p.grad.numpy(), rtol=1e-10, atol=1e-12)
