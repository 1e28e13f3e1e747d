"""In-place writes recorded by autograd (tc/_inplace_autograd.py): values
and float64 gradients against PyTorch 1.13 for the forms public programs
use (``loss += ...``, ``scores.masked_fill_(...)``, ``buf[i] = layer(x)``
into ``torch.empty``), and the errors where libtc cannot rebase."""
import pytest

import tc

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

A = np.arange(12, dtype=np.float64).reshape(3, 4) / 11 + 0.25
B = np.linspace(0.5, 2.0, 4)


def _grads(m, program):
    a = m.tensor(A, requires_grad=True)
    b = m.tensor(B, requires_grad=True)
    out = program(m, a, b)
    out.backward()
    return out.item(), a.grad.numpy().copy(), b.grad.numpy().copy()


def _check(program):
    want, got = _grads(torch, program), _grads(tc, program)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-12, atol=1e-12)


def test_accumulated_loss():
    def program(m, a, b):
        loss = 0
        for i in range(3):
            loss += ((a[i] * b) ** 2).sum()
        loss -= a.sum()
        loss *= 0.5
        loss /= b.sum()
        return loss
    _check(program)


@pytest.mark.parametrize("name,op", [("add_", "__iadd__"), ("sub_", "__isub__"), ("mul_", "__imul__"),
                                     ("div_", "__itruediv__")])
def test_arithmetic_in_place(name, op):
    def program(m, a, b):
        x = a * 2.0
        y = a + 1.0
        getattr(x, name)(b)
        y = getattr(y, op)(b)
        return (x * y).sum() + (x ** 2).sum()
    _check(program)


def test_add_alpha_and_other_requiring_grad():
    def program(m, a, b):
        x = m.ones(3, 4, dtype=m.float64)  # requires no grad: the write makes it
        x.add_(b, alpha=-2.5)
        z = a * 3.0
        z.sub_(b, alpha=0.5)
        return (x * a).sum() + (z ** 2).sum()
    _check(program)


def test_masked_fill_and_other_variants():
    mask = np.array([[True, False, False, True], [False] * 4, [False, True, False, False]])

    def program(m, a, b):
        scores = m.matmul(a, a.t()) / 3.0
        scores2 = a * b
        scores2.masked_fill_(m.tensor(mask), -1e9)
        attn = m.softmax(scores2, dim=-1)
        e = a + b
        e.exp_()
        t = a * 0.5
        t.tanh_()
        return (attn * b).sum() + scores.sum() + e.sum() + (t * b).sum()
    _check(program)


def test_copy_into_buffer():
    def program(m, a, b):
        c = m.zeros(3, 4, dtype=m.float32)
        c.copy_(a * b)  # converted to c's dtype, gradient flows back as float64
        d = a + 0.0
        d.copy_(b)  # broadcast
        return (c.double() ** 2).sum() + (d * a).sum()
    _check(program)


def test_setitem_into_empty_buffer():
    def program(m, a, b):
        out = m.empty([3, 1, 4], dtype=m.float64)
        for i in range(3):
            out[i] = (a[i] * b).unsqueeze(0)
        scores = m.zeros(4, dtype=m.float64)
        for i in range(4):
            scores[i] = m.dot(a[:, i], a[:, (i + 1) % 4])
        return (out ** 2).sum() + (m.softmax(scores, dim=0) * b).sum()
    _check(program)


def test_setitem_basic_keys():
    def program(m, a, b):
        x = m.zeros(3, 4, 2, dtype=m.float64)
        x[1:, ::2, 0] = a[1:, :2] * 3
        x[..., 1] = b
        x[0, None, 1:3] = a[0, :2].unsqueeze(1)
        y = a * 1.0
        y[2] = 7.0  # a number into a tensor that requires grad
        y[0, 1:3] = b[:2] * b[2:]
        return (x ** 2).sum() + (y * b).sum()
    _check(program)


def test_values_match_without_autograd():
    x = tc.tensor(A, requires_grad=True)
    with tc.no_grad():
        y = x * 1.0
        y += tc.tensor(B)
        y[0] = 1.0
    assert y.grad_fn is None
    want = A + B
    want[0] = 1.0
    np.testing.assert_allclose(y.numpy(), want)


def test_leaf_requiring_grad_is_refused():
    for m in (torch, tc):
        leaf = m.tensor(A, requires_grad=True)
        with pytest.raises(RuntimeError):
            leaf.add_(1.0)
        with pytest.raises(RuntimeError):
            leaf[0] = m.tensor(B)


def test_view_target_is_refused_not_silently_wrong():
    # PyTorch rebases the view's base (CopySlices); libtc cannot find a base
    # from its view, so tc refuses rather than leaving the base's graph stale
    a = tc.tensor(A, requires_grad=True)
    x = a * 2.0
    v = x[1]
    with pytest.raises(RuntimeError):
        v += tc.tensor(B, requires_grad=True)
