"""tc.utils.checkpoint: a checkpointed model gives the outputs and gradients
of the plain one (dropout included: the RNG state is restored for the
recomputation), matches torch.utils.checkpoint's gradients, and raises
PyTorch's errors."""
import numpy as np
import pytest

import tc
from tc.utils.checkpoint import checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")
import torch.utils.checkpoint  # noqa: E402


def _grads(model, x):
    return [p.grad.numpy().copy() for p in model.parameters()] + [x.grad.numpy().copy()]


def _zero(model, x):
    for p in model.parameters():
        p.grad = None
    x.grad = None


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(6, 16), lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(16, 16),
                             lib.nn.GELU(), lib.nn.Dropout(0.3), lib.nn.Linear(16, 3))


def test_checkpoint_matches_plain_with_dropout():
    m = _mlp(tc)
    x = tc.randn(5, 6, requires_grad=True)
    tc.manual_seed(7)
    y = m(x)
    (y * y).sum().backward()
    plain = _grads(m, x)
    _zero(m, x)
    tc.manual_seed(7)
    y2 = checkpoint(m, x)
    assert y2.requires_grad
    np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())
    (y2 * y2).sum().backward()
    for a, b in zip(plain, _grads(m, x)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_without_preserved_rng_state_dropout_differs():
    m = _mlp(tc)
    x = tc.randn(5, 6, requires_grad=True)
    tc.manual_seed(7)
    (m(x) ** 2).sum().backward()
    plain = _grads(m, x)
    _zero(m, x)
    tc.manual_seed(7)
    (checkpoint(m, x, preserve_rng_state=False) ** 2).sum().backward()
    assert any(not np.allclose(a, b) for a, b in zip(plain, _grads(m, x)))


def test_backward_keeps_the_callers_rng_stream():
    m = _mlp(tc)
    x = tc.randn(5, 6, requires_grad=True)
    tc.manual_seed(3)
    y = checkpoint(m, x)
    after_forward = tc.rand(4).numpy()
    tc.manual_seed(3)
    y = checkpoint(m, x)
    y.sum().backward()  # recomputes, drawing dropout masks from the restored state
    np.testing.assert_array_equal(tc.rand(4).numpy(), after_forward)


def test_checkpoint_sequential_matches_torch():
    tm = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 8), torch.nn.Tanh(),
                             torch.nn.Linear(8, 2)).double()
    m = tc.nn.Sequential(tc.nn.Linear(6, 8), tc.nn.Tanh(), tc.nn.Linear(8, 8), tc.nn.Tanh(),
                         tc.nn.Linear(8, 2)).double()
    m.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    xa = np.random.RandomState(0).randn(4, 6)
    x = tc.tensor(xa, requires_grad=True)
    tx = torch.tensor(xa, requires_grad=True)
    checkpoint_sequential(m, 2, x).pow(2).sum().backward()
    torch.utils.checkpoint.checkpoint_sequential(tm, 2, tx).pow(2).sum().backward()
    for p, tp in zip(list(m.parameters()) + [x], list(tm.parameters()) + [tx]):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_checkpointed_transformer_layers_with_dropout():
    tc.manual_seed(0)
    layers = [tc.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1, batch_first=True)
              for _ in range(2)]
    x = tc.randn(2, 5, 16, requires_grad=True)
    params = [p for layer in layers for p in layer.parameters()]

    def run(ckpt):
        for p in params:
            p.grad = None
        x.grad = None
        tc.manual_seed(11)
        h = x
        for layer in layers:
            h = checkpoint(layer, h) if ckpt else layer(h)
        h.pow(2).mean().backward()
        return [p.grad.numpy().copy() for p in params] + [x.grad.numpy().copy()]

    for a, b in zip(run(False), run(True)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_kwargs_and_errors_like_torch():
    lin = tc.nn.Linear(3, 3)
    x = tc.randn(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(lambda a, scale=1.0: lin(a) * scale, x, scale=2.0)
    out = checkpoint(lambda a, scale=1.0: lin(a) * scale, x, use_reentrant=False, scale=2.0)
    np.testing.assert_allclose(out.detach().numpy(), (lin(x) * 2.0).detach().numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential([lin], 1, x, foo=1)
    y = checkpoint(lambda a: a.detach() * 2, x)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        y.sum().backward()
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(lin, tc.randn(2, 3))


def test_backward_frees_each_checkpoints_saved_input():
    # A chain of checkpoints: after backward ran through them, the inputs they
    # saved are freed (as torch's), though the graph (y) is still alive; the
    # Function node's context held them until the graph died.
    import gc
    w = tc.ones(256, 1024, requires_grad=True)  # 1 MiB of float32
    h = w * 3.0  # each checkpoint's input is a fresh 1 MiB tensor
    for _ in range(3):
        h = checkpoint(lambda a: a * 2.0, h)
    y = h.sum()
    del h
    gc.collect()
    before = tc.flags["cpu_allocated_bytes"]
    y.backward()
    gc.collect()
    # w.grad (1 MiB) is allocated; the three saved inputs (3 MiB) are freed
    assert tc.flags["cpu_allocated_bytes"] - before == 2 ** 20 - 3 * 2 ** 20
