"""nn.Linear's device/dtype arguments (tc/nn/_linear_factory_kwargs.py),
against PyTorch 1.13: the signature, positional use by a subclass, the
parameters' dtype, and float64 values and gradients."""
import inspect

import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")


def test_signature_matches_pytorch():
    assert list(inspect.signature(tc.nn.Linear).parameters) == list(inspect.signature(torch.nn.Linear).parameters)


@pytest.mark.parametrize("lib", [tc, torch], ids=["tc", "torch"])
def test_subclass_passes_them_positionally(lib):
    class Layer(lib.nn.Linear):
        def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
            super().__init__(in_features, out_features, bias, device, dtype)

    layer = Layer(3, 2, True, "cpu", lib.float64)
    assert layer.weight.dtype == lib.float64 and layer.bias.dtype == lib.float64
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert isinstance(layer.weight, lib.nn.Parameter) and layer.weight.requires_grad


def test_float64_values_and_gradients_match():
    rng = np.random.RandomState(0)
    w, b, x = rng.randn(4, 3), rng.randn(4), rng.randn(5, 3)
    got, want = tc.nn.Linear(3, 4, dtype=tc.float64), torch.nn.Linear(3, 4, dtype=torch.float64)
    assert got.weight.dtype == tc.float64 and want.weight.dtype == torch.float64
    for lib, m in ((tc, got), (torch, want)):
        with lib.no_grad():
            m.weight.copy_(lib.from_numpy(w))
            m.bias.copy_(lib.from_numpy(b))
    out_t = got(tc.from_numpy(x))
    out_r = want(torch.from_numpy(x))
    assert out_t.dtype == tc.float64
    np.testing.assert_allclose(out_t.detach().numpy(), out_r.detach().numpy(), rtol=1e-12)
    (out_t ** 2).sum().backward()
    (out_r ** 2).sum().backward()
    np.testing.assert_allclose(got.weight.grad.numpy(), want.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got.bias.grad.numpy(), want.bias.grad.numpy(), rtol=1e-12)


def test_no_bias_and_defaults():
    m = tc.nn.Linear(3, 4, bias=False, device="cpu")
    assert m.bias is None and m.weight.dtype == tc.float32
    assert tc.nn.Linear(3, 4).weight.dtype == tc.float32
