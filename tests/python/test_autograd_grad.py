"""tc.autograd.grad, tc.autograd.backward and Tensor.backward with
retain_graph / create_graph / inputs, against PyTorch 1.13: values, what
lands in .grad, and the errors (types and messages)."""
import pytest

import tc
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

R = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def _need():
    need("tc_autograd_grad", "tc_backward_ex")


def to_np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def pair(*shapes, requires_grad=True):
    arrs = [R.standard_normal(s) for s in shapes]
    return ([tc.tensor(a, requires_grad=requires_grad) for a in arrs],
            [torch.tensor(a, requires_grad=requires_grad) for a in arrs])


def close(a, b, **kw):
    np.testing.assert_allclose(to_np(a), b.detach().numpy(), rtol=1e-9, atol=1e-12, **kw)


def test_grad_values_and_no_accumulation():
    (x, w), (tx, tw) = pair((3, 4), (4, 2))
    h = (x @ w).tanh()
    th = (tx @ tw).tanh()
    v = R.standard_normal((3, 2))
    gx, gw = tc.autograd.grad(h, (x, w), tc.tensor(v))
    tgx, tgw = torch.autograd.grad(th, (tx, tw), torch.tensor(v))
    close(gx, tgx)
    close(gw, tgw)
    assert x.grad is None and w.grad is None  # nothing accumulated, leaves included
    # several outputs at once, a non-leaf input
    (x,), (tx,) = pair((5,))
    m, tm = x * 2, tx * 2
    a, ta = m.sin(), tm.sin()
    b, tb = (m * m).sum(), (tm * tm).sum()
    (gm,) = tc.autograd.grad([a.sum(), b], [m])
    (tgm,) = torch.autograd.grad([ta.sum(), tb], [tm])
    close(gm, tgm)


def test_grad_retain_graph_and_freed_graph():
    (x,), _ = pair((3,))
    y = (x.exp() * x).sum()
    tc.autograd.grad(y, x, retain_graph=True)
    tc.autograd.grad(y, x)  # frees it
    with pytest.raises(RuntimeError, match="second time"):
        tc.autograd.grad(y, x)


def test_grad_errors_match_torch():
    (x, z), _ = pair((3,), (3,))
    c = tc.tensor([1.0, 2.0, 3.0])
    y = (x * x).sum()
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        tc.autograd.grad(y, c, retain_graph=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        tc.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = tc.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)
    assert gz is None and gx is not None
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        tc.autograd.grad(c.sum(), x)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        tc.autograd.grad(x * 2, x)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        tc.autograd.grad(x * 2, x, tc.ones(4))
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        tc.autograd.grad(x * 2, x, [1.0])
    # torch raises the same types
    tx = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.autograd.grad(torch.ones(3).sum(), tx)


def test_grad_is_grads_batched():
    (x,), (tx,) = pair((3,))
    v = R.standard_normal((4, 3))
    (g,) = tc.autograd.grad(x.sin(), x, tc.tensor(v), is_grads_batched=True)
    (tg,) = torch.autograd.grad(tx.sin(), tx, torch.tensor(v), is_grads_batched=True)
    close(g, tg)


def test_backward_inputs_only_accumulates_there():
    (x, w), (tx, tw) = pair((3, 4), (4, 2))
    h, th = x @ w, tx @ tw
    m, tm = h.relu(), th.relu()
    m.retain_grad()
    tm.retain_grad()
    loss, tloss = (m * m).sum(), (tm * tm).sum()
    loss.backward(inputs=[w])
    tloss.backward(inputs=[tw])
    close(w.grad, tw.grad)
    assert x.grad is None and tx.grad is None
    # a non-leaf input gets its .grad, as in torch
    (x,), (tx,) = pair((3,))
    m, tm = x * 3, tx * 3
    tc.autograd.backward([(m * m).sum()], inputs=[m])
    torch.autograd.backward([(tm * tm).sum()], inputs=[tm])
    close(m.grad, tm.grad)
    assert x.grad is None
    with pytest.raises(RuntimeError, match="cannot be empty"):
        tc.autograd.backward([(x * x).sum()], inputs=[])


def test_backward_several_roots_and_grad_variables():
    (x,), (tx,) = pair((3,))
    a, b = x.sin(), x.cos()
    ta, tb = tx.sin(), tx.cos()
    v = R.standard_normal(3)
    tc.autograd.backward([a, b.sum()], [tc.tensor(v), None])
    torch.autograd.backward([ta, tb.sum()], [torch.tensor(v), None])
    close(x.grad, tx.grad)
    with pytest.warns(UserWarning):
        tc.autograd.backward((x * x).sum(), grad_variables=None or [tc.tensor(1.0)])
    with pytest.raises(RuntimeError, match="both passed"):
        tc.autograd.backward((x * x).sum(), grad_tensors=[None], grad_variables=[None])


def test_backward_create_graph_keeps_grad_graph():
    (x,), (tx,) = pair((4,))
    y, ty = (x.exp() * x.sin()).sum(), (tx.exp() * tx.sin()).sum()
    y.backward(create_graph=True)
    ty.backward(create_graph=True)
    assert x.grad.grad_fn is not None
    (h,) = tc.autograd.grad(x.grad.sum(), x)
    (th,) = torch.autograd.grad(tx.grad.sum(), tx)
    close(h, th)


def test_second_derivative_through_a_mlp_matches_torch():
    (x, w1, w2), (tx, tw1, tw2) = pair((5, 3), (3, 4), (4, 2))
    f = lambda x, w1, w2, F: F.log_softmax(F.linear(x, w1.t()).tanh() @ w2, dim=1)  # noqa: E731
    out, tout = f(x, w1, w2, tc.nn.functional).sum(), f(tx, tw1, tw2, torch.nn.functional).sum()
    gs = tc.autograd.grad(out, (x, w1, w2), create_graph=True)
    tgs = torch.autograd.grad(tout, (tx, tw1, tw2), create_graph=True)
    pen = sum((g * g).sum() for g in gs)
    tpen = sum((g * g).sum() for g in tgs)
    for a, b in zip(tc.autograd.grad(pen, (x, w1, w2)), torch.autograd.grad(tpen, (tx, tw1, tw2))):
        np.testing.assert_allclose(to_np(a), b.numpy(), rtol=1e-8, atol=1e-10)


def test_create_graph_version_check_and_freed_graph():
    (x,), _ = pair((3,))
    y = x.exp().sum()
    (g,) = tc.autograd.grad(y, x, create_graph=True, retain_graph=False)
    # exp's backward reads its output through its node again: the first pass freed it
    with pytest.raises(RuntimeError, match="second time"):
        tc.autograd.grad(g.sum(), x)
    (x,), _ = pair((3,))
    m = x * 1.0
    y = (m * m).sum()
    (g,) = tc.autograd.grad(y, x, create_graph=True)
    with tc.no_grad():
        m.mul_(2.0)  # m was saved by the recorded backward
    with pytest.raises(RuntimeError, match="modified"):
        tc.autograd.grad(g.sum(), x)


def test_not_implemented_double_backward_is_named():
    # scatter_reduce "prod" with two zeros of src scattered to one element:
    # src's gradient is marked (PyTorch raises there too), not differentiable twice
    x = tc.tensor([[1.5, 2.0, -1.0]], requires_grad=True)
    v = tc.tensor([[0.0, 0.0, 3.0]], requires_grad=True)
    y = x.scatter_reduce(1, tc.tensor([[1, 1, 2]]), v, "prod")
    (g,) = tc.autograd.grad((y * y).sum(), v, create_graph=True)
    assert g.requires_grad  # the first derivative is computed, and marked
    with pytest.raises(NotImplementedError, match="the derivative of 'scatter_reduce_backward' is not implemented"):
        tc.autograd.grad((g * g).sum(), v)


def test_custom_function_double_backward():
    # the backward runs with grad mode on under create_graph, as in PyTorch:
    # its recorded ops are differentiated again
    def make(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        return Square

    (x,), (tx,) = pair((3,))
    (g,) = tc.autograd.grad((make(tc).apply(x) * x).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad((make(torch).apply(tx) * tx).sum(), tx, create_graph=True)
    close(tc.autograd.grad((g * g).sum(), x)[0], torch.autograd.grad((tg * tg).sum(), tx)[0])
