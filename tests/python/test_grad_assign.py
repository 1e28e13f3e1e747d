"""`tensor.grad = g` (tc_tensor_set_grad) against PyTorch 1.13: g becomes
.grad itself (no copy), backward accumulates into it in place, and the
assignments PyTorch refuses are refused (DDP's gradient_as_bucket_view
relies on this: tests/dist/dist_ddp_bucket_view.py)."""
import numpy as np
import pytest
import torch

import tc


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_assigned_grad_is_accumulated_in_place_like_torch(dtype):
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((3, 4)).astype(dtype)
    gv = rng.standard_normal((3, 4)).astype(dtype)
    # tc
    x = tc.tensor(xv).requires_grad_()
    g = tc.tensor(gv)
    x.grad = g
    assert x.grad.data_ptr() == g.data_ptr()
    (x * x).sum().backward()
    # torch
    tx = torch.tensor(xv, requires_grad=True)
    tg = torch.tensor(gv)
    tx.grad = tg
    (tx * tx).sum().backward()
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-6)  # in place, in both
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_assigned_view_of_a_flat_buffer():
    # A .grad that is a non-zero-offset view of a larger buffer (a DDP bucket).
    flat = tc.zeros(20, dtype=tc.float64)
    w = tc.tensor(np.arange(6.0).reshape(2, 3)).requires_grad_()
    view = flat.narrow(0, 7, 6).view((2, 3))
    w.grad = view
    (w * 3).sum().backward()
    (w * w).sum().backward()
    tw = torch.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    tflat = torch.zeros(20, dtype=torch.float64)
    tw.grad = tflat.narrow(0, 7, 6).view(2, 3)
    (tw * 3).sum().backward()
    (tw * tw).sum().backward()
    np.testing.assert_allclose(flat.numpy(), tflat.numpy())
    assert flat.numpy()[:7].tolist() == [0.0] * 7 and flat.numpy()[13:].tolist() == [0.0] * 7


def test_refused_assignments():
    x = tc.zeros(2, 3).requires_grad_()
    with pytest.raises(tc.ShapeError, match="different size"):
        x.grad = tc.zeros(3, 2)
    with pytest.raises(tc.DTypeError, match="different type"):
        x.grad = tc.zeros(2, 3, dtype=tc.float64)
    with pytest.raises(tc.TcError, match="own grad"):
        x.grad = x
    with pytest.raises(tc.TcError, match="requires grad"):
        x.grad = x * 2
    with pytest.raises(TypeError):
        x.grad = 1.0
    # Unlike torch (tc.h says why): no grad in x's own memory, neither a view
    # nor x's memory back through DLPack (a producer's wrapper of x's memory
    # can keep x alive from its storage's deleter: a cycle leaking both).
    with pytest.raises(tc.TcError, match="shares memory"):
        x.grad = x.detach()
    with pytest.raises(tc.TcError, match="shares memory"):
        x.grad = tc.from_dlpack(x.detach())
    big = tc.zeros(4, 3)
    y = big[:2].requires_grad_()
    with pytest.raises(tc.TcError, match="shares memory"):
        y.grad = big[1:3]  # overlaps one row
    y.grad = big[2:4]  # the same buffer, other bytes: accepted
    assert y.grad is not None
    assert x.grad is None  # nothing changed
    # torch refuses the same shape and dtype mismatches.
    tx = torch.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError):
        tx.grad = torch.zeros(3, 2)
    with pytest.raises(RuntimeError):
        tx.grad = torch.zeros(2, 3, dtype=torch.float64)
    x.grad = None
    assert x.grad is None
