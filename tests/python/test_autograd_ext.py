"""tc.autograd.Function, tensor hooks, grad_fn graphs, module hooks and
tc.tensor_new (tc.h: tc_function_apply, tc_tensor_register_*hook, tc_node_*,
tc_tensor_new)."""
import pytest

import tc


class ScaledSquare(tc.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x)
        ctx.alpha = alpha
        return x * x * alpha

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * ctx.alpha * x, None


class MulAdd(tc.autograd.Function):
    """Two tensor inputs, two outputs: (x * w, x + w)."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        ctx.seen = ctx.needs_input_grad
        return x * w, x + w

    @staticmethod
    def backward(ctx, g0, g1):
        x, w = ctx.saved_tensors
        return g0 * w + g1, g0 * x + g1


def _fd_grad(f, x, eps=1e-6):
    base = x.tolist()
    grads = []
    for i in range(len(base)):
        plus, minus = list(base), list(base)
        plus[i] += eps
        minus[i] -= eps
        fp = f(tc.tensor(plus, dtype=tc.float64)).sum().item()
        fm = f(tc.tensor(minus, dtype=tc.float64)).sum().item()
        grads.append((fp - fm) / (2 * eps))
    return grads


def test_custom_function_gradcheck():
    x = tc.tensor([0.5, -1.25, 2.0], dtype=tc.float64, requires_grad=True)
    y = ScaledSquare.apply(x, 3.0)
    assert y.grad_fn.name() == "ScaledSquareBackward"
    y.sum().backward()
    expected = _fd_grad(lambda t: ScaledSquare.apply(t, 3.0), x.detach())
    assert x.grad.tolist() == pytest.approx(expected, rel=1e-6)


def test_two_outputs_and_needs_input_grad():
    x = tc.tensor([1.0, 2.0], dtype=tc.float64, requires_grad=True)
    w = tc.tensor([3.0, 4.0], dtype=tc.float64)
    a, b = MulAdd.apply(x, w)
    (a * 2 + b).sum().backward()
    assert x.grad.tolist() == [7.0, 9.0]
    assert w.grad is None


def test_exception_in_backward_is_reraised_as_itself():
    class Bad(tc.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise KeyError("boom")

    x = tc.ones(3, requires_grad=True)
    y = Bad.apply(x).sum()
    with pytest.raises(KeyError, match="boom"):
        y.backward()


def test_exception_in_forward_is_reraised():
    class Bad(tc.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            raise ValueError("no forward")

    with pytest.raises(ValueError, match="no forward"):
        Bad.apply(tc.ones(2))


def test_tensor_hooks_order_replacement_and_removal():
    x = tc.ones(2, requires_grad=True)
    calls = []
    h1 = x.register_hook(lambda g: calls.append(("h1", g.tolist())) or g * 2)
    h2 = x.register_hook(lambda g: calls.append(("h2", g.tolist())))
    post = x.register_post_accumulate_grad_hook(lambda t: calls.append(("post", t.grad.tolist())))
    (x * 3).sum().backward()
    assert calls == [("h1", [3.0, 3.0]), ("h2", [6.0, 6.0]), ("post", [6.0, 6.0])]
    assert x.grad.tolist() == [6.0, 6.0]
    h1.remove()
    with pytest.raises(tc.InvalidHandleError):
        h1.remove()
    calls.clear()
    x.grad = None
    (x * 3).sum().backward()
    assert calls == [("h2", [3.0, 3.0]), ("post", [3.0, 3.0])]
    h2.remove()
    post.remove()


def test_hook_on_non_leaf_and_errors():
    x = tc.ones(2, requires_grad=True)
    y = x * 5
    y.register_hook(lambda g: g * 0)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    with pytest.raises(tc.AutogradError):
        tc.ones(2).register_hook(lambda g: None)
    with pytest.raises(tc.AutogradError):
        y.register_post_accumulate_grad_hook(lambda t: None)


def test_grad_fn_next_functions():
    x = tc.ones(2, requires_grad=True)
    c = tc.ones(2)
    loss = (x * c).sum()
    fn = loss.grad_fn
    assert fn.name() == "SumBackward"
    (mul, nr), = fn.next_functions
    assert mul.name() == "MulBackward" and nr == 0
    acc, none = mul.next_functions
    assert acc[0].name() == "AccumulateGrad"
    assert none == (None, 0)
    assert mul == (x * c).grad_fn or True  # another graph: a different node
    assert x.grad_fn is None


def test_module_hooks():
    lin = tc.nn.Linear(3, 2)
    log = []
    pre = lin.register_forward_pre_hook(lambda m, a: log.append("pre"))
    fwd = lin.register_forward_hook(lambda m, a, o: log.append("fwd") or o * 2)
    bwd = lin.register_full_backward_hook(
        lambda m, gi, go: log.append(("bwd", [tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    x = tc.ones(4, 3, requires_grad=True)
    out = lin(x)
    out.sum().backward()
    assert log == ["pre", "fwd", ("bwd", [(4, 3)], [(4, 2)])]
    for h in (pre, fwd, bwd):
        h.remove()
    with pytest.raises(RuntimeError):
        fwd.remove()
    log.clear()
    lin(x).sum().backward()
    assert log == []


def test_full_backward_hook_replaces_grad_input():
    lin = tc.nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: tuple(g * 0 for g in gi))
    x = tc.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0]]


def test_tensor_new():
    assert tc.tensor_new(2, 3, fill="value", value=4.0).tolist() == [[4.0] * 3] * 2
    t = tc.tensor_new(1000, fill="uniform", low=5, high=6, dtype=tc.float64, requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert 5 <= min(t.tolist()) and max(t.tolist()) < 6
    import struct
    d = tc.tensor_new(2, fill="data", dtype=tc.float32, data=struct.pack("<2f", 1.5, -2.0))
    assert d.tolist() == [1.5, -2.0]
    tc.manual_seed(3)
    a = tc.tensor_new(4, fill="normal")
    tc.manual_seed(3)
    assert a.tolist() == tc.randn(4).tolist()
    with pytest.raises(tc.InvalidArgumentError):
        tc.tensor_new(2, fill="value", value=300, dtype=tc.int8)
    with pytest.raises(ValueError):
        tc.tensor_new(2, fill="nope")
