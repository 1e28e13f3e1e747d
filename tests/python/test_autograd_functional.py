"""tc.autograd.functional against torch.autograd.functional (PyTorch 1.13):
values, result structures (Tensor vs tuple nesting), strict-mode errors and
create_graph. jvp, hvp, vhp and hessian need gradients of gradients
(tc_autograd_grad with create_graph): skipped on a libtc without it."""
import numpy as np
import pytest

import tc
import tc.autograd.functional as AF
from conftest import need

torch = pytest.importorskip("torch")
TF = torch.autograd.functional


def _pair(shape, seed):
    a = np.random.RandomState(seed).randn(*shape)
    return tc.tensor(a, dtype=tc.float64), torch.tensor(a, dtype=torch.float64)


def _close(a, b, tol=1e-10):
    """Same nesting (tuples) and values."""
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y, tol)
        return
    assert isinstance(a, tc.Tensor) and isinstance(b, torch.Tensor)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _f_two(lib):
    def f(x, y):
        return (x.exp() * y.sum()).tanh(), (x * x).sum(1)
    return f


def _scalar(x, y):
    return (x.sin() * y.cos()).sum() + (x * x * y).sum()


def test_vjp_single_and_tuple():
    x, tx = _pair((3, 2), 0)
    y, ty = _pair((3, 2), 1)
    v, tv = _pair((3,), 2)
    _close(AF.vjp(lambda a: (a * a).sum(1), x, v), TF.vjp(lambda a: (a * a).sum(1), tx, tv))
    f = _f_two(tc)
    v1, tv1 = _pair((3, 2), 3)
    _close(AF.vjp(f, (x, y), (v1, v)), TF.vjp(f, (tx, ty), (tv1, tv)))
    # a scalar output: v may be omitted
    _close(AF.vjp(lambda a: a.pow(3).sum(), x), TF.vjp(lambda a: a.pow(3).sum(), tx))


def test_vjp_results_detached_and_inputs_untouched():
    x, _ = _pair((4,), 0)
    x.requires_grad_(True)
    out, g = AF.vjp(lambda a: (a * 2).sum(), x)
    assert not out.requires_grad and not g.requires_grad
    assert x.grad is None


def test_jacobian_structures():
    x, tx = _pair((3, 2), 0)
    y, ty = _pair((3, 2), 1)
    _close(AF.jacobian(lambda a: a.exp() * a, x), TF.jacobian(lambda a: a.exp() * a, tx))
    f = _f_two(tc)
    _close(AF.jacobian(f, (x, y)), TF.jacobian(f, (tx, ty)))
    # tuple of one input keeps the tuple; one output stays unwrapped
    _close(AF.jacobian(lambda a: a.sum(0), (x,)), TF.jacobian(lambda a: a.sum(0), (tx,)))
    _close(AF.jacobian(lambda a: a.sum(0), x, vectorize=True), TF.jacobian(lambda a: a.sum(0), tx, vectorize=True))


def test_jacobian_independent_input_zero_or_strict_error():
    x, tx = _pair((2,), 0)
    y, ty = _pair((2,), 1)

    def f(a, b):
        return a * 2

    _close(AF.jacobian(f, (x, y)), TF.jacobian(f, (tx, ty)))
    with pytest.raises(RuntimeError) as ours:
        AF.jacobian(f, (x, y), strict=True)
    with pytest.raises(RuntimeError) as theirs:
        TF.jacobian(f, (tx, ty), strict=True)
    assert str(ours.value) == str(theirs.value)


def test_input_validation_errors_match_torch():
    x, tx = _pair((2,), 0)
    for ours_call, torch_call, exc in [
        (lambda: AF.vjp(lambda a: a, (x, 3)), lambda: TF.vjp(lambda a: a, (tx, 3)), TypeError),
        (lambda: AF.vjp(lambda a: a * 2, x), lambda: TF.vjp(lambda a: a * 2, tx), RuntimeError),
        (lambda: AF.vjp(lambda a: a * 2, x, tc.ones(3, dtype=tc.float64)),
         lambda: TF.vjp(lambda a: a * 2, tx, torch.ones(3, dtype=torch.float64)), RuntimeError),
    ]:
        with pytest.raises(exc) as ours:
            ours_call()
        with pytest.raises(exc) as theirs:
            torch_call()
        assert str(ours.value).replace("tc.Size", "torch.Size").replace("tc.", "torch.") == \
            str(theirs.value).replace("<class 'int'>", "<class 'int'>")


def test_hvp_vhp_hessian_jvp():
    need("tc_autograd_grad")
    x, tx = _pair((3,), 0)
    y, ty = _pair((3,), 1)
    vx, tvx = _pair((3,), 2)
    vy, tvy = _pair((3,), 3)
    _close(AF.hvp(_scalar, (x, y), (vx, vy)), TF.hvp(_scalar, (tx, ty), (tvx, tvy)))
    _close(AF.vhp(_scalar, (x, y), (vx, vy)), TF.vhp(_scalar, (tx, ty), (tvx, tvy)))
    _close(AF.hessian(_scalar, (x, y)), TF.hessian(_scalar, (tx, ty)))
    _close(AF.hessian(lambda a: a.pow(3).sum(), x), TF.hessian(lambda a: a.pow(3).sum(), tx))

    def f(a, b):
        return (a.exp() * b.sum()).tanh(), (a * a * b).sum()
    _close(AF.jvp(f, (x, y), (vx, vy)), TF.jvp(f, (tx, ty), (tvx, tvy)))
    _close(AF.jvp(lambda a: a.sin() * a, x, vx), TF.jvp(lambda a: a.sin() * a, tx, tvx))


def test_create_graph_results_are_differentiable():
    need("tc_autograd_grad")
    x, tx = _pair((3,), 0)
    x.requires_grad_(True)
    tx.requires_grad_(True)
    v, tv = _pair((3,), 1)
    _, h = AF.hvp(lambda a: a.pow(4).sum(), x, v, create_graph=True)
    _, th = TF.hvp(lambda a: a.pow(4).sum(), tx, tv, create_graph=True)
    assert h.requires_grad
    h.sum().backward()
    th.sum().backward()
    _close(x.grad, tx.grad)


def test_hvp_strict_linear_function_raises_like_torch():
    need("tc_autograd_grad")
    x, tx = _pair((3,), 0)
    with pytest.raises(RuntimeError) as ours:
        AF.hvp(lambda a: (a * 2).sum(), x, x, strict=True)
    with pytest.raises(RuntimeError) as theirs:
        TF.hvp(lambda a: (a * 2).sum(), tx, tx, strict=True)
    assert str(ours.value) == str(theirs.value)
