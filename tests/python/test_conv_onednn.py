"""Convolutions against torch 1.13, float32 (the CPU's oneDNN path) and float64 (im2col + GEMM):
values and the gradients of input, weight and bias for 1-D/2-D/3-D, grouped/depthwise, dilated,
strided, padded ("same" with even kernels too) and transposed convolutions; the deterministic mode's path (im2col + GEMM)
agrees; the kept blocked copy of the weights follows in-place writes and replaced data."""
import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

F = tc.nn.functional
TF = torch.nn.functional

# (kind, x shape, w shape, kwargs)
CASES = [
    ("conv2d", (2, 3, 9, 8), (6, 3, 3, 3), dict(stride=1, padding=1)),
    ("conv2d", (2, 4, 10, 9), (8, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ("conv2d", (1, 6, 9, 9), (6, 1, 3, 3), dict(padding=2, dilation=2, groups=6)),  # depthwise
    ("conv2d", (3, 5, 7, 6), (4, 5, 1, 1), dict(stride=2)),
    ("conv2d", (2, 3, 8, 8), (4, 3, 4, 2), dict(padding="same")),
    ("conv2d", (2, 3, 11, 7), (5, 3, 3, 3), dict(stride=3, padding=(2, 1), dilation=(1, 2))),
    ("conv1d", (2, 4, 17), (6, 2, 4), dict(stride=2, padding=3, groups=2)),
    ("conv1d", (2, 3, 12), (5, 3, 4), dict(padding="same", dilation=2)),
    ("conv_transpose2d", (2, 4, 5, 6), (4, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose2d", (1, 4, 4, 5), (4, 2, 2, 3), dict(stride=(1, 2), groups=2, dilation=(2, 1))),
    ("conv_transpose1d", (2, 3, 7), (3, 4, 3), dict(stride=3, padding=1, output_padding=2)),
    ("conv3d", (2, 3, 5, 6, 4), (4, 3, 3, 2, 3), dict(stride=(1, 2, 1), padding=(1, 0, 2))),
    ("conv3d", (1, 4, 4, 5, 5), (4, 2, 2, 3, 3), dict(dilation=(1, 2, 1), groups=2, padding=1)),
    ("conv3d", (2, 2, 4, 4, 5), (3, 2, 2, 2, 2), dict(padding="same")),
    ("conv_transpose3d", (2, 4, 3, 4, 3), (4, 2, 3, 2, 2), dict(stride=2, padding=1, output_padding=(1, 0, 1))),
    ("conv_transpose3d", (1, 4, 2, 3, 3), (4, 1, 2, 2, 3), dict(groups=2, dilation=(2, 1, 1))),
]


# Shapes above a million multiply-adds, where float32 runs on oneDNN rather than im2col + GEMM
# (src/cpu/conv_onednn.cpp's onednn_conv_wanted).
LARGE = [
    ("conv2d", (4, 8, 16, 16), (16, 8, 3, 3), dict(padding=1)),
    ("conv2d", (8, 32, 24, 24), (32, 1, 3, 3), dict(padding=2, dilation=2, groups=32)),
    ("conv2d", (8, 16, 17, 15), (24, 8, 3, 2), dict(stride=(2, 1), padding=(1, 0), groups=2)),
    ("conv2d", (4, 8, 16, 16), (16, 8, 4, 3), dict(padding="same")),
    ("conv1d", (10, 16, 200), (32, 8, 5), dict(stride=2, padding=3, groups=2)),
    ("conv3d", (2, 8, 8, 10, 10), (16, 8, 3, 3, 3), dict(stride=(1, 2, 1), padding=1)),
    ("conv_transpose2d", (8, 16, 12, 12), (16, 8, 3, 3), dict(stride=2, padding=1, output_padding=1)),
    ("conv_transpose3d", (3, 16, 4, 6, 6), (16, 8, 3, 3, 3), dict(stride=2, padding=1, output_padding=1)),
]


def _pair(kind, xs, ws, seed, groups=1):
    """Random float32 input, weight and bias (of the output channels) for the case."""
    g = np.random.default_rng(seed)
    x, w = g.standard_normal(xs).astype(np.float32), g.standard_normal(ws).astype(np.float32)
    out_channels = ws[1] * groups if "transpose" in kind else ws[0]
    return x, w, g.standard_normal(out_channels).astype(np.float32)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind,xs,ws,kw", CASES)
def test_matches_torch(kind, xs, ws, kw, dtype):
    """Forward values and all three gradients agree with torch's: within float32 rounding on the
    float32 (oneDNN) path, to float64 precision on the reference (im2col) path."""
    x, w, b = (a.astype(dtype) for a in _pair(kind, xs, ws, 0, kw.get("groups", 1)))
    tol = 1e-4 if dtype == "float32" else 1e-10
    outs = []
    for lib, fn in ((tc, getattr(F, kind)), (torch, getattr(TF, kind))):
        xt, wt, bt = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        y = fn(xt, wt, bt, **kw)
        gy = np.random.default_rng(2).standard_normal(tuple(y.shape)).astype(dtype)
        y.backward(lib.tensor(gy))
        outs.append([t.detach().numpy() for t in (y, xt.grad, wt.grad, bt.grad)])
    for a, r in zip(*outs):
        assert a.shape == r.shape and a.dtype == r.dtype
        # Sums of hundreds of products: the absolute error scales with the largest value.
        np.testing.assert_allclose(a, r, rtol=tol, atol=tol * max(1.0, float(np.abs(r).max())))


@pytest.mark.parametrize("kind,xs,ws,kw", LARGE)
def test_large_matches_torch(kind, xs, ws, kw):
    """float32 on the oneDNN path: values and gradients within float32 rounding of torch's."""
    test_matches_torch(kind, xs, ws, kw, "float32")


def test_deterministic_mode_agrees():
    """The deterministic mode's im2col path and the default path give the same values."""
    x, w, b = _pair("conv2d", (8, 8, 17, 17), (16, 4, 3, 3), 3, 1)
    res = []
    for mode in (False, True):
        tc.use_deterministic_algorithms(mode)
        try:
            xt, wt, bt = (tc.tensor(a, requires_grad=True) for a in (x, w, b))
            y = F.conv2d(xt, wt, bt, stride=2, padding=1, groups=2)
            y.sum().backward()
            res.append([t.detach().numpy() for t in (y, xt.grad, wt.grad, bt.grad)])
        finally:
            tc.use_deterministic_algorithms(False)
    for a, r in zip(*res):
        np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-4)


def test_kept_weights_follow_writes():
    """Eval forwards after an in-place weight write, a replaced .data and a second weight of the
    same shape each see the current weights (the blocked copy is not stale)."""
    g = np.random.default_rng(4)
    x = g.standard_normal((4, 8, 16, 16)).astype(np.float32)
    w1 = g.standard_normal((16, 8, 3, 3)).astype(np.float32)
    w2 = g.standard_normal((16, 8, 3, 3)).astype(np.float32)
    xt, wt, wt2 = tc.tensor(x), tc.tensor(w1), tc.tensor(w2)
    ref = lambda w: TF.conv2d(torch.tensor(x), torch.tensor(w), padding=1).numpy()
    with tc.no_grad():
        np.testing.assert_allclose(F.conv2d(xt, wt, padding=1).numpy(), ref(w1), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(F.conv2d(xt, wt2, padding=1).numpy(), ref(w2), rtol=1e-4, atol=1e-4)
        wt.mul_(2.0)
        np.testing.assert_allclose(F.conv2d(xt, wt, padding=1).numpy(), ref(2 * w1), rtol=1e-4, atol=1e-4)
        wt.data = tc.tensor(w2 - 1)
        np.testing.assert_allclose(F.conv2d(xt, wt, padding=1).numpy(), ref(w2 - 1), rtol=1e-4, atol=1e-4)


def test_module_train_step_matches_torch():
    """A Conv2d -> BatchNorm -> ReLU -> Conv2d stack: two SGD-momentum steps give torch's weights."""
    res = []
    for lib in (tc, torch):
        lib.manual_seed(0)
        g = np.random.default_rng(5)
        m = lib.nn.Sequential(lib.nn.Conv2d(3, 8, 3, padding=1), lib.nn.BatchNorm2d(8), lib.nn.ReLU(),
                              lib.nn.Conv2d(8, 4, 3, stride=2, bias=False))
        for p in m.parameters():
            p.data = lib.tensor(g.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3)
        opt = lib.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
        x = lib.tensor(g.standard_normal((4, 3, 10, 10)).astype(np.float32))
        for _ in range(2):
            opt.zero_grad()
            (m(x) ** 2).mean().backward()
            opt.step()
        res.append([p.detach().numpy() for p in m.parameters()])
    for a, r in zip(*res):
        np.testing.assert_allclose(a, r, rtol=1e-3, atol=1e-4)


def test_conv3d_module_and_unbatched():
    """nn.Conv3d / nn.ConvTranspose3d with torch's weights give torch's outputs, batched or not."""
    g = np.random.default_rng(6)
    x = g.standard_normal((2, 3, 4, 5, 6)).astype(np.float32)
    for name, args in (("Conv3d", (3, 4, 3)), ("ConvTranspose3d", (3, 4, 2))):
        ref = getattr(torch.nn, name)(*args, stride=2, padding=1)
        mod = getattr(tc.nn, name)(*args, stride=2, padding=1)
        mod.weight.data = tc.tensor(ref.weight.detach().numpy())
        mod.bias.data = tc.tensor(ref.bias.detach().numpy())
        for inp in (x, x[0]):
            np.testing.assert_allclose(mod(tc.tensor(inp)).detach().numpy(),
                                       ref(torch.tensor(inp)).detach().numpy(), rtol=1e-4, atol=1e-4)


def test_conv3d_errors_match_torch():
    """Bad arguments raise torch's exception types."""
    calls = [
        lambda L, f: f.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(4, 3, 2, 2, 2)),  # channels differ
        lambda L, f: f.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(4, 2, 5, 2, 2)),  # kernel too large
        lambda L, f: f.conv3d(L.zeros(1, 2, 3, 3, 3), L.zeros(4, 2, 2, 2, 2), stride=0),
        lambda L, f: f.conv_transpose3d(L.zeros(1, 2, 3, 3, 3), L.zeros(2, 3, 2, 2, 2), output_padding=1),
    ]
    for call in calls:
        with pytest.raises(Exception) as ref:
            call(torch, TF)
        with pytest.raises(type(ref.value)):
            call(tc, F)
