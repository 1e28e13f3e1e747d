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
