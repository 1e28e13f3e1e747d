"""The Python binding's hot paths (per-call overhead) behave like
the generic paths they shortcut and like PyTorch 1.13: Tensor.sum() without
dim (called unprototyped), `grad = None`, backward(retain_graph=...), and
libtc's fill of small and large tensors (serial below the OpenMP threshold).
Values are checked against torch; gradients against torch and finite
differences in float64."""
import pytest

import tc

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def as_np(t):
    return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (1,), (8,), (3, 4), (2, 3, 5)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_full_sum_matches_torch(dtype, shape, keepdim):
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    got = tc.tensor(a).sum(keepdim=keepdim)
    want = torch.from_numpy(a).sum(dim=tuple(range(a.ndim)), keepdim=keepdim) if keepdim else \
        torch.from_numpy(a).sum()
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == dtype
    np.testing.assert_allclose(as_np(got), want.numpy().astype(np.float64), **TOL[dtype])


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
def test_full_sum_of_integers_and_bools_is_int64_like_torch(dtype):
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    got = tc.tensor(a).sum()
    want = torch.from_numpy(a).sum()
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    assert got.item() == want.item()


def test_full_sum_of_a_non_contiguous_view():
    a = np.random.default_rng(2).standard_normal((4, 6))
    got = tc.tensor(a).t()[1:, ::2].sum()
    want = torch.from_numpy(a).t()[1:, ::2].sum()
    np.testing.assert_allclose(got.item(), want.item(), **TOL["float64"])


def test_sum_with_dim_or_dtype_still_takes_the_general_path():
    a = np.random.default_rng(3).standard_normal((2, 3))
    t = tc.tensor(a)
    np.testing.assert_allclose(as_np(t.sum(1)), a.sum(1), **TOL["float64"])
    assert t.sum(dtype=tc.float32).dtype is tc.float32


def test_full_sum_error_names_the_function():
    with pytest.raises(Exception, match="sum"):
        tc.ones(2, dtype=tc.float16).sum()  # float16 arithmetic is refused on the CPU


def tiny_tc(x, w, b):
    return (x * w + b).relu().sum()


def tiny_torch(x, w, b):
    return (x * w + b).relu().sum()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tiny_graph_gradients_match_torch(dtype):
    r = np.random.default_rng(4)
    xs, ws, bs = (r.standard_normal(8).astype(dtype) for _ in range(3))
    x, w, b = tc.tensor(xs), tc.tensor(ws, requires_grad=True), tc.tensor(bs, requires_grad=True)
    tx, tw, tb = torch.from_numpy(xs), torch.from_numpy(ws).requires_grad_(), torch.from_numpy(bs).requires_grad_()
    for _ in range(3):  # grad = None between steps: each step's gradient is fresh, not accumulated
        w.grad = None
        b.grad = None
        tw.grad = None
        tb.grad = None
        loss = tiny_tc(x, w, b)
        tloss = tiny_torch(tx, tw, tb)
        np.testing.assert_allclose(loss.item(), tloss.item(), **TOL[dtype])
        loss.backward()
        tloss.backward()
        np.testing.assert_allclose(as_np(w.grad), tw.grad.numpy().astype(np.float64), **TOL[dtype])
        np.testing.assert_allclose(as_np(b.grad), tb.grad.numpy().astype(np.float64), **TOL[dtype])


def test_tiny_graph_gradient_matches_finite_differences():
    r = np.random.default_rng(5)
    xs, ws, bs = r.standard_normal(8), r.standard_normal(8), r.standard_normal(8)
    w = tc.tensor(ws, requires_grad=True)
    tiny_tc(tc.tensor(xs), w, tc.tensor(bs)).backward()
    eps = 1e-6
    for i in range(8):
        up, down = ws.copy(), ws.copy()
        up[i] += eps
        down[i] -= eps
        f = lambda v: np.maximum(xs * v + bs, 0).sum()
        assert abs(w.grad.tolist()[i] - (f(up) - f(down)) / (2 * eps)) < 1e-6


def test_backward_retain_graph_and_accumulation_like_torch():
    w = tc.tensor([1.0, -2.0, 3.0], requires_grad=True)
    tw = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    loss, tloss = (w * w).sum(), (tw * tw).sum()
    loss.backward(retain_graph=True)
    tloss.backward(retain_graph=True)
    loss.backward()  # the retained graph runs again; gradients accumulate
    tloss.backward()
    assert w.grad.tolist() == tw.grad.tolist()
    with pytest.raises(Exception):
        loss.backward()  # freed after a backward without retain_graph, as in PyTorch
    with pytest.raises(RuntimeError):
        tloss.backward()


def test_backward_with_an_explicit_gradient_like_torch():
    w = tc.tensor([1.0, 2.0], requires_grad=True)
    tw = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * 3).backward(tc.tensor([0.5, -1.0]))
    (tw * 3).backward(torch.tensor([0.5, -1.0]))
    assert w.grad.tolist() == tw.grad.tolist()


def test_grad_none_on_a_tensor_without_grad_is_a_no_op():
    w = tc.ones(2, requires_grad=True)
    w.grad = None
    assert w.grad is None
    w.grad = tc.ones(2)  # a tensor is assigned as is (tests/python/test_grad_assign.py)
    assert w.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("n", [1, 5, 262144, 262145, 300001])
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.int64])
def test_full_fills_every_element_on_both_sides_of_the_parallel_threshold(n, dtype):
    t = tc.full((n,), 3, dtype=dtype)
    want = torch.full((n,), 3, dtype=getattr(torch, dtype.name))
    assert t.numel() == n
    assert (as_np(t) == want.numpy()).all()


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("scalar", [2, 2.5, -3.0, True])
def test_reflected_ops_with_a_scalar_match_torch(dtype, scalar):
    a = np.array([[1, 2, 4], [5, 8, 10]], dtype=dtype)
    t, tt = tc.tensor(a), torch.from_numpy(a)
    for name in ("__rsub__", "__rtruediv__", "__rpow__", "__radd__", "__rmul__"):
        if name == "__rsub__" and scalar is True:
            continue  # torch refuses bool - tensor too: not a fast-path question
        got, want = getattr(t, name)(scalar), getattr(tt, name)(scalar)
        assert got.dtype.name == str(want.dtype).replace("torch.", ""), name
        np.testing.assert_allclose(as_np(got), want.numpy().astype(np.float64), rtol=1e-6, err_msg=name)


def test_reflected_op_gradient_matches_torch():
    w = tc.tensor([0.5, 2.0], dtype=tc.float64, requires_grad=True)
    tw = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
    (3.0 / w - 1.5 - w).sum().backward()
    (3.0 / tw - 1.5 - tw).sum().backward()
    np.testing.assert_allclose(w.grad.tolist(), tw.grad.tolist(), rtol=1e-12)


@pytest.mark.parametrize("other", [2, 0.5, "tensor"])
def test_in_place_ops_match_torch_and_refuse_bad_shapes(other):
    a = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    t, tt = tc.tensor(a), torch.from_numpy(a.copy())
    o = tc.tensor([2.0, 4.0, 8.0]) if other == "tensor" else other
    to = torch.tensor([2.0, 4.0, 8.0]) if other == "tensor" else other
    for name in ("add_", "sub_", "mul_", "div_"):
        assert getattr(t, name)(o) is t
        getattr(tt, name)(to)
    np.testing.assert_allclose(as_np(t), tt.numpy(), rtol=1e-6)
    with pytest.raises(tc.ShapeError, match="add_"):
        t.add_(tc.ones(4))
    assert as_np(t).tolist() == tt.numpy().tolist()  # the failed call changed nothing
