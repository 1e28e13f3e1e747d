"""tc.autograd.Variable against torch.autograd.Variable: what it returns
(a leaf sharing the data), isinstance, and its errors."""
import pytest

import tc

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("requires_grad", [False, True])
def test_leaf_over_the_same_data(requires_grad):
    for m in (tc, torch):
        a = m.ones(2, requires_grad=True)
        b = a * 2
        v = m.autograd.Variable(b, requires_grad=requires_grad)
        assert v.requires_grad == requires_grad and v.is_leaf and v.grad_fn is None
        with m.no_grad():
            v.add_(1.0)
        assert b.tolist() == [3.0, 3.0]


def test_gradient_reaches_the_variable():
    x = tc.autograd.Variable(tc.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    tc.mean(x * x).backward()
    t = torch.autograd.Variable(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
    torch.mean(t * t).backward()
    assert x.grad.tolist() == t.grad.tolist()


def test_isinstance_and_empty():
    assert isinstance(tc.ones(1), tc.autograd.Variable)
    assert not isinstance([1.0], tc.autograd.Variable)
    assert tuple(tc.autograd.Variable().shape) == tuple(torch.autograd.Variable().shape) == (0,)


def test_errors_match_torch():
    for m in (tc, torch):
        with pytest.raises(TypeError):
            m.autograd.Variable([1, 2])
        with pytest.raises(RuntimeError):
            m.autograd.Variable(m.ones(2, dtype=m.int64), requires_grad=True)
    with pytest.warns(UserWarning):
        tc.autograd.Variable(tc.ones(1), volatile=True)
