"""The exact GELU's float32 fast path (the forward keeps Phi(x), the backward
reads it instead of evaluating erfc again) against the formula's path (taken
by strided inputs) and PyTorch 1.13: same bytes as the formula, gradients
close to torch's, through graphs kept for a second backward."""
import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=t.dtype.name).reshape(tuple(t.shape))


def _data(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 5).astype(np.float32)


def test_kept_path_gives_the_formula_paths_bytes():
    x = _data((33, 517), 1)
    g = _data((33, 517), 2)
    a = tc.tensor(x, requires_grad=True)  # contiguous: the kept-Phi path
    ya = F.gelu(a)
    (ya * tc.tensor(g)).sum().backward()
    b = tc.tensor(np.ascontiguousarray(x.T), requires_grad=True)  # transposed view: the formula's path
    yb = F.gelu(b.t())
    (yb * tc.tensor(g)).sum().backward()
    assert ya.grad_fn.name() == yb.grad_fn.name() == "GeluBackward"
    assert np_of(ya).tobytes() == np_of(yb).tobytes()
    assert np_of(a.grad).tobytes() == np.ascontiguousarray(np_of(b.grad).T).tobytes()


@pytest.mark.parametrize("shape", [(), (0, 3), (7,), (4, 5, 6)])
def test_gradient_matches_torch_with_broadcast_gradient(shape):
    x = _data(shape, 3)
    a = tc.tensor(x, requires_grad=True)
    F.gelu(a).sum().backward()  # the gradient arrives expanded (strided) from sum
    r = torch.tensor(x, requires_grad=True)
    TF.gelu(r).sum().backward()
    np.testing.assert_allclose(np_of(a.grad), r.grad.numpy(), rtol=2e-6, atol=1e-7)


def test_second_backward_through_a_kept_graph():
    x = _data((64, 40), 4)
    a = tc.tensor(x, requires_grad=True)
    loss = (F.gelu(a) * 3.0).sum()
    loss.backward(retain_graph=True)
    first = np_of(a.grad).copy()
    loss.backward()
    np.testing.assert_array_equal(np_of(a.grad), 2 * first)
    # torch's float32 GELU loses relative accuracy on the negative tail
    # (1 + erf); its float64 one is the reference there.
    r = torch.tensor(x.astype(np.float64), requires_grad=True)
    (TF.gelu(r) * 3.0).sum().backward()
    np.testing.assert_allclose(first, r.grad.numpy(), rtol=1e-5, atol=1e-7)
