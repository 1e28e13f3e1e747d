"""The scatter family, take, masked_select and nonzero against PyTorch 1.13:
values and dtypes (float32, float64, integers), gradients (float64, with the
same upstream gradient), broadcasting, non-contiguous, 0-dim and empty
inputs, repeated indices and ties."""
import pytest

import tc

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not hasattr(tc._lib.lib, "tc_scatter_reduce"), reason="libtc lacks the scatter ops")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist()).reshape(tuple(t.shape))


def same(a, b, rtol=1e-12, atol=1e-12):
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    np.testing.assert_allclose(to_np(a).astype(np.float64), to_np(b).astype(np.float64), rtol=rtol, atol=atol)


def pair(arr):
    return tc.tensor(arr), torch.tensor(arr)


def run(f_tc, f_th, arrays, grad=True):
    """f on tc and torch tensors made from arrays; the float64 arrays require
    grad (when grad); checks values, then gradients under one upstream grad."""
    tcs, ths = zip(*[pair(a) for a in arrays])
    floats = [i for i, a in enumerate(arrays) if a.dtype == np.float64] if grad else []
    for i in floats:
        tcs[i].requires_grad = True
        ths[i].requires_grad_(True)
    r, tr = f_tc(*tcs), f_th(*ths)
    same(r, tr, rtol=1e-6 if r.dtype is tc.float32 else 1e-12)
    if not floats:
        return
    g = np.random.default_rng(42).standard_normal(tuple(tr.shape))
    r.backward(tc.tensor(g))
    tr.backward(torch.tensor(g))
    for i in floats:
        if ths[i].grad is None:
            assert tcs[i].grad is None or float(tcs[i].grad.abs().sum()) == 0
        else:
            same(tcs[i].grad, ths[i].grad, rtol=1e-10, atol=1e-12)


R = np.random.default_rng(0)
IDX = np.array([[0, 1, 2, 0], [2, 0, 0, 1]], dtype=np.int64)  # repeats in each column


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_and_scatter_add(dt, dim):
    a = (R.standard_normal((3, 4)) * 4).astype(dt)
    # src larger than index is only checked forward: torch 1.13's scatter_add
    # backward returns src's gradient in index's shape, which torch then refuses.
    big = (R.standard_normal((2, 5)) * 4).astype(dt)
    run(lambda x, i, s: x.scatter_add(dim, i, s), lambda x, i, s: x.scatter_add(dim, i, s),
        [a, IDX if dim == 0 else np.array([[0, 3, 1, 2], [1, 0, 3, 2]], dtype=np.int64), big], grad=False)
    src = big[:, :4].copy()
    idx = IDX if dim == 0 else np.array([[0, 3, 1, 2], [1, 0, 3, 2]], dtype=np.int64)
    run(lambda x, i, s: x.scatter_add(dim, i, s), lambda x, i, s: x.scatter_add(dim, i, s), [a, idx, src])
    # scatter with distinct targets (repeats have no order-independent answer).
    u = np.array([[0, 1, 2, 0], [2, 0, 1, 1]], dtype=np.int64) if dim == 0 else \
        np.array([[0, 3, 1, 2], [1, 0, 3, 2]], dtype=np.int64)
    run(lambda x, i, s: x.scatter(dim, i, s), lambda x, i, s: x.scatter(dim, i, s), [a, u, src])
    run(lambda x, i: x.scatter(dim, i, 2.5 if dt in (np.float64, np.float32) else 3),
        lambda x, i: x.scatter(dim, i, 2.5 if dt in (np.float64, np.float32) else 3), [a, u])


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64])
def test_scatter_reduce(reduce, include_self, dt):
    a = (R.standard_normal((3, 4)) * 3).astype(dt)
    src = (R.standard_normal((2, 4)) * 3).astype(dt)
    if dt != np.float64:
        a, src = np.round(a).astype(dt), np.round(src).astype(dt)
    run(lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
        lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), [a, IDX, src])


@pytest.mark.parametrize("reduce", ["amax", "amin", "prod", "mean"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties_and_zeros(reduce, include_self):
    # Ties: src equal to self and to each other (amax/amin split the gradient);
    # zeros: one and two zeros per target (prod's special cases).
    a = np.array([[1.0, 0.0, 2.0], [3.0, 3.0, 0.0]])
    src = np.array([[1.0, 0.0, 2.0], [1.0, 3.0, 0.0], [1.0, 0.0, 5.0]])
    idx = np.array([[0, 0, 1], [0, 1, 1], [0, 0, 1]], dtype=np.int64)
    run(lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
        lambda x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), [a, idx, src])


def test_scatter_reduce_nan_propagates():
    a = tc.tensor([0.0, 0.0])
    s = tc.tensor([float("nan"), 1.0, 2.0])
    i = tc.tensor([0, 0, 1])
    r = a.scatter_reduce(0, i, s, "amax").tolist()
    tr = torch.zeros(2).scatter_reduce(0, torch.tensor([0, 0, 1]), torch.tensor([float("nan"), 1.0, 2.0]), "amax")
    assert np.isnan(r[0]) and np.isnan(float(tr[0])) and r[1] == float(tr[1])


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_copy_fill(dt, dim):
    a = (R.standard_normal((4, 5)) * 4).astype(dt)
    n = 3
    src = (R.standard_normal((n, 5) if dim == 0 else (4, n)) * 4).astype(dt)
    rep = np.array([3, 0, 3], dtype=np.int64)
    uniq = np.array([3, 0, 1], dtype=np.int64)
    alpha = 2 if dt == np.int64 else 0.5
    run(lambda x, i, s: x.index_add(dim, i, s, alpha=alpha), lambda x, i, s: x.index_add(dim, i, s, alpha=alpha),
        [a, rep, src])
    run(lambda x, i, s: x.index_copy(dim, i, s), lambda x, i, s: x.index_copy(dim, i, s), [a, uniq, src])
    run(lambda x, i: x.index_fill(dim, i, -2), lambda x, i: x.index_fill(dim, i, -2),
        [a, np.array([-1, 0], dtype=np.int64)])


def test_index_add_int32_index():
    a = np.zeros((3, 2))
    s = np.ones((2, 2))
    r = tc.tensor(a).index_add(0, tc.tensor([2, 2], dtype=tc.int32), tc.tensor(s))
    same(r, torch.tensor(a).index_add(0, torch.tensor([2, 2], dtype=torch.int32), torch.tensor(s)))


@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64])
def test_take_and_masked_select(dt):
    a = (R.standard_normal((3, 4)) * 4).astype(dt)
    run(lambda x, i: x.take(i), lambda x, i: x.take(i), [a, np.array([[0, -1], [5, 5]], dtype=np.int64)])
    run(lambda x, i: x.t().take(i), lambda x, i: x.t().take(i), [a, np.array([1, 4, 11], dtype=np.int64)])
    mask = R.standard_normal((4,)) > 0  # broadcasts over the rows
    run(lambda x, m: x.masked_select(m), lambda x, m: x.masked_select(m), [a, mask])
    run(lambda x, m: x[:1].masked_select(m), lambda x, m: x[:1].masked_select(m),
        [a, R.standard_normal((3, 4)) > 0])  # a broadcasts to the mask
    # torch 1.13's masked_select backward scatters into a non-contiguous input
    # in memory order (wrong gradients): its reference gets a contiguous copy.
    run(lambda x, m: x.t().masked_select(m), lambda x, m: x.t().contiguous().masked_select(m),
        [a, R.standard_normal((4, 3)) > 0])


def test_zero_dim_and_empty():
    run(lambda x, i, s: x.scatter_add(0, i, s), lambda x, i, s: x.scatter_add(0, i, s),
        [np.array(1.5), np.array(0, dtype=np.int64), np.array(2.0)])
    run(lambda x, i: x.take(i), lambda x, i: x.take(i), [np.array(3.0), np.array([0, 0], dtype=np.int64)])
    run(lambda x, m: x.masked_select(m), lambda x, m: x.masked_select(m), [np.array(3.0), np.array(True)])
    run(lambda x, i, s: x.scatter(0, i, s), lambda x, i, s: x.scatter(0, i, s),
        [np.ones((3, 2)), np.zeros((0, 2), dtype=np.int64), np.ones((0, 2))])
    run(lambda x, i, s: x.index_add(1, i, s), lambda x, i, s: x.index_add(1, i, s),
        [np.ones((3, 2)), np.zeros((0,), dtype=np.int64), np.ones((3, 0))])
    run(lambda x, i: x.take(i), lambda x, i: x.take(i), [np.ones((2, 2)), np.zeros((0, 3), dtype=np.int64)])


@pytest.mark.parametrize("shape", [(5,), (3, 4), (2, 3, 4), (), (0, 3)])
@pytest.mark.parametrize("dt", [np.float64, np.float32, np.int64, np.bool_])
def test_nonzero(shape, dt):
    a = R.integers(-1, 2, shape).astype(dt)
    ta, tt = pair(a)
    same(ta.nonzero(), tt.nonzero())
    got, want = ta.nonzero(as_tuple=True), tt.nonzero(as_tuple=True)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)
    assert tc.nonzero(ta).tolist() == torch.nonzero(tt).tolist()


def test_nonzero_negative_zero_and_large():
    assert tc.tensor([-0.0, 1e-300, 0.0], dtype=tc.float64).nonzero().tolist() == [[1]]
    big = np.zeros(200000)
    big[[5, 70000, 199999]] = 1
    assert tc.tensor(big).nonzero().reshape(-1).tolist() == [5, 70000, 199999]


def test_functions_in_namespace():
    a, ta = pair(np.arange(6.0).reshape(2, 3))
    i, ti = pair(np.array([[1, 0, 1]], dtype=np.int64))
    same(tc.scatter_add(a, 0, i, a), torch.scatter_add(ta, 0, ti, ta))
    same(tc.scatter_reduce(a, 0, i, a, "amax"), torch.scatter_reduce(ta, 0, ti, ta, "amax"))
    same(tc.take(a, i), torch.take(ta, ti))
    same(tc.index_fill(a, 1, tc.tensor([0]), 7.0), torch.index_fill(ta, 1, torch.tensor([0]), 7.0))
    same(a.scatter(0, i, 1.0, reduce="add"), ta.scatter(0, ti, 1.0, reduce="add"))


@pytest.mark.parametrize("call,match", [
    (lambda a, i: a.scatter(0, i.neg(), a), "out of bounds"),
    (lambda a, i: a.scatter_add(0, i.to(tc.float32), a), "int64"),
    (lambda a, i: a.scatter_reduce(0, i, a, "median"), "reduce"),
    (lambda a, i: a.scatter_add(0, tc.zeros(3, 3, dtype=tc.int64), a), "smaller"),
    (lambda a, i: a.index_add(0, tc.tensor([0, 1, 2]), a), "number of indices"),
    (lambda a, i: a.index_copy(0, tc.tensor([5, 0]), a), "index 5 is out of bounds for dimension 0 with size 2"),
    (lambda a, i: a.take(tc.tensor([6])), "index 6 is out of bounds"),
    (lambda a, i: a.masked_select(tc.tensor([1, 0, 1])), "bool"),
])
def test_errors(call, match):
    a = tc.tensor(np.arange(6.0).reshape(2, 3))
    i = tc.tensor([[1, 0, 1]])
    with pytest.raises(Exception, match=match):
        call(a, i)


@pytest.mark.skipif(not tc.cuda.is_available(), reason="no CUDA device")
def test_cuda_matches_cpu():
    a = tc.tensor(np.random.default_rng(3).standard_normal((5, 6)))
    g = a.to("cuda")
    rows = tc.tensor([4, 0, 4, -1])
    assert g[rows].cpu().tolist() == a[rows].tolist()
    assert g[:, [5, 1]].cpu().tolist() == a[:, [5, 1]].tolist()
    assert g[g > 0].cpu().tolist() == a[a > 0].tolist()
    assert g.nonzero().cpu().tolist() == a.nonzero().tolist()
    idx = tc.tensor([[0, 1, 2, 0, 4, 4]])
    for r in ("sum", "prod", "mean", "amax", "amin"):
        want = a.scatter_reduce(0, idx, a, r, include_self=False)
        got = g.scatter_reduce(0, idx.to("cuda"), g, r, include_self=False).cpu()
        assert got.allclose(want)
    h = g.clone()
    h[[1, 1], [2, 2]] = tc.tensor([1.0, 2.0], dtype=tc.float64).to("cuda")
    assert h.cpu()[1, 2].item() == 2.0  # the last writer wins, as on the CPU


@pytest.mark.parametrize("a_shape,dim,i_shape", [((4, 1, 3), -1, (4, 1, 7)), ((2, 3), 1, (2, 1)),
                                                 ((1, 5), 0, (1, 3)), ((3, 1), 1, (3, 1))])
def test_size_one_dims_in_the_index_block(a_shape, dim, i_shape):
    # A size-1 dim among the indexed ones gets stride 0 when the values are
    # expanded: the index block must still merge (it used to crash).
    rng = np.random.default_rng(5)
    idx = rng.integers(0, a_shape[dim], size=i_shape)
    src = rng.standard_normal(i_shape)
    for name in ("scatter", "scatter_add"):
        want = getattr(torch.zeros(a_shape, dtype=torch.float64), name)(dim, torch.tensor(idx), torch.tensor(src))
        got = getattr(tc.zeros(*a_shape, dtype=tc.float64), name)(dim, tc.tensor(idx), tc.tensor(src))
        if name == "scatter_add":
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
        else:  # which duplicate wins is unspecified: compare where the index is unique
            assert got.shape == tuple(want.shape)
    a = tc.zeros(*a_shape, dtype=tc.float64)
    d = dim % len(a_shape)  # scatter's coordinates: the index at dim, the position elsewhere
    coords = tuple(tc.tensor(idx if j == d else np.arange(s).reshape([-1 if k == j else 1 for k in range(len(i_shape))]))
                   for j, s in enumerate(i_shape))
    got = a.index_put(coords, tc.tensor(src), accumulate=True)
    want = torch.zeros(a_shape, dtype=torch.float64).index_put(
        tuple(torch.tensor(c.numpy()) for c in coords), torch.tensor(src), accumulate=True)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
