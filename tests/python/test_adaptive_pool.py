"""Adaptive pooling (tc_adaptive_{avg,max}_pool{1,2}d, their kernels in
src/cpu/adaptive_pool.cpp) against PyTorch 1.13: values and indices in
float32 and float64, float64 gradients against torch.autograd with the same
upstream gradient; output sizes that divide the input and that do not, larger
than the input, 1x1 (the global pool), unbatched, non-contiguous and empty
inputs; ties and NaN; the modules; errors."""
import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=2e-6, atol=2e-6)}
GTOL = dict(rtol=1e-10, atol=1e-12)
R = np.random.default_rng(12)


@pytest.fixture(autouse=True)
def _exported():
    need("tc_adaptive_avg_pool1d", "tc_adaptive_max_pool1d")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=t.dtype._np or "float32").reshape(tuple(t.shape))


def assert_same(a, b, tol, exact=False):
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    if exact:
        np.testing.assert_array_equal(to_np(a), to_np(b))
    else:
        np.testing.assert_allclose(to_np(a).astype(np.float64), to_np(b).astype(np.float64), **tol)


def check(f_tc, f_torch, x, noncontig=False):
    """f on tc and torch tensors made from x in float64 and float32: values
    (and int64 indices, exactly); then float64 input gradients for the same
    upstream gradient. noncontig: the inputs are transposed views."""
    for dt in (np.float64, np.float32):
        a = x.astype(dt)
        if noncontig:
            at = np.ascontiguousarray(np.swapaxes(a, -1, -2))
            xt, xh = tc.tensor(at).transpose(-1, -2), torch.tensor(at).transpose(-1, -2)
            assert not xt.is_contiguous()
        else:
            xt, xh = tc.tensor(a), torch.tensor(a)
        grad = dt == np.float64
        if grad:
            xt.requires_grad = True
            xh.requires_grad_(True)
        ot, oh = f_tc(xt), f_torch(xh)
        if isinstance(oh, tuple):
            assert_same(ot[0], oh[0], TOL[dt])
            assert_same(ot[1], oh[1], None, exact=True)
            ot, oh = ot[0], oh[0]
        else:
            assert_same(ot, oh, TOL[dt])
        if grad and oh.numel() > 0:
            g = R.standard_normal(tuple(oh.shape))
            ot.backward(tc.tensor(g))
            oh.backward(torch.tensor(g))
            assert_same(xt.grad, xh.grad, GTOL)


def perm(*shape):
    """Distinct values (no ties in any window)."""
    n = int(np.prod(shape))
    return R.permutation(n).reshape(shape) / 7.0 - n / 14.0


SIZES_2D = [(1, 1), (3, 4), (7, 3), (2, 6), (9, 8), (5, None), (None, 1)]


@pytest.mark.parametrize("out", SIZES_2D, ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 7, 6)], ids=str)
def test_adaptive_pool2d(shape, out):
    x = perm(*shape)
    check(lambda t: F.adaptive_avg_pool2d(t, out), lambda t: TF.adaptive_avg_pool2d(t, out), x)
    check(lambda t: F.adaptive_max_pool2d(t, out, return_indices=True),
          lambda t: TF.adaptive_max_pool2d(t, out, return_indices=True), x)


@pytest.mark.parametrize("out", [(1, 1), (3, 4), (9, 2)], ids=str)
def test_adaptive_pool2d_noncontiguous(out):
    x = perm(2, 3, 7, 6)
    check(lambda t: F.adaptive_avg_pool2d(t, out), lambda t: TF.adaptive_avg_pool2d(t, out), x, noncontig=True)
    check(lambda t: F.adaptive_max_pool2d(t, out, return_indices=True),
          lambda t: TF.adaptive_max_pool2d(t, out, return_indices=True), x, noncontig=True)


@pytest.mark.parametrize("out", [1, 3, 7, 10], ids=str)
@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7)], ids=str)
def test_adaptive_pool1d(shape, out):
    x = perm(*shape)
    check(lambda t: F.adaptive_avg_pool1d(t, out), lambda t: TF.adaptive_avg_pool1d(t, out), x)
    check(lambda t: F.adaptive_max_pool1d(t, out, return_indices=True),
          lambda t: TF.adaptive_max_pool1d(t, out, return_indices=True), x)
    check(lambda t: F.adaptive_avg_pool1d(t, out), lambda t: TF.adaptive_avg_pool1d(t, out), x, noncontig=True)


def test_resnet_head_and_global_pool():
    x = R.standard_normal((4, 64, 7, 7))
    check(lambda t: F.adaptive_avg_pool2d(t, 1), lambda t: TF.adaptive_avg_pool2d(t, 1), x)
    x = R.standard_normal((2, 8, 56, 56))
    check(lambda t: F.adaptive_avg_pool2d(t, 7), lambda t: TF.adaptive_avg_pool2d(t, 7), x)
    check(lambda t: F.adaptive_max_pool2d(t, 7, True), lambda t: TF.adaptive_max_pool2d(t, 7, True), x)


def test_empty_batch():
    for shape, f, g in [((0, 3, 5, 5), F.adaptive_avg_pool2d, TF.adaptive_avg_pool2d),
                        ((0, 3, 5), F.adaptive_avg_pool1d, TF.adaptive_avg_pool1d)]:
        xt = tc.zeros(*shape, requires_grad=True)
        y = f(xt, 2)
        assert tuple(y.shape) == tuple(g(torch.zeros(*shape), 2).shape)
        y.sum().backward()
        assert tuple(xt.grad.shape) == shape
    v, i = F.adaptive_max_pool2d(tc.zeros(0, 3, 5, 5), (2, 3), return_indices=True)
    assert tuple(v.shape) == tuple(i.shape) == (0, 3, 2, 3)
    assert i.dtype == tc.int64


def test_output_size_zero_gives_empty_results():
    x = perm(2, 3, 5, 4)
    for out in [(0, 2), (3, 0), (0, 0)]:
        check(lambda t: F.adaptive_avg_pool2d(t, out), lambda t: TF.adaptive_avg_pool2d(t, out), x)
        check(lambda t: F.adaptive_max_pool2d(t, out, return_indices=True),
              lambda t: TF.adaptive_max_pool2d(t, out, return_indices=True), x)
    check(lambda t: F.adaptive_avg_pool1d(t, 0), lambda t: TF.adaptive_avg_pool1d(t, 0), x[0])
    # The input's gradient is zeros (torch's too).
    xt = tc.tensor(x, requires_grad=True)
    F.adaptive_max_pool2d(xt, (0, 2)).sum().backward()
    assert tuple(xt.grad.shape) == x.shape and float(xt.grad.abs().sum()) == 0


def test_ties_and_nan_follow_pytorch():
    ties = np.array([[1, 1, 1, 2, 2], [1, 1, 2, 2, 2], [0, 0, 3, 3, 3], [0, 0, 3, 3, 3.]]).reshape(1, 1, 4, 5)
    nan = np.nan
    nans = np.array([[nan, 1, 5, 2, 2], [1, nan, 2, 7, nan], [0, 0, 3, 3, 3],
                     [0, 4, nan, 3, 3.]]).reshape(1, 1, 4, 5)
    for x in (ties, nans):
        for out in [(2, 3), (1, 1), (3, 2)]:
            for dt in (np.float64, np.float32):
                vt, it = F.adaptive_max_pool2d(tc.tensor(x.astype(dt)), out, return_indices=True)
                vh, ih = TF.adaptive_max_pool2d(torch.tensor(x.astype(dt)), out, return_indices=True)
                np.testing.assert_array_equal(to_np(vt), to_np(vh))  # NaN == NaN here
                np.testing.assert_array_equal(to_np(it), to_np(ih))
        vt, it = F.adaptive_max_pool1d(tc.tensor(x.reshape(4, 5)), 3, return_indices=True)
        vh, ih = TF.adaptive_max_pool1d(torch.tensor(x.reshape(4, 5)), 3, return_indices=True)
        np.testing.assert_array_equal(to_np(vt), to_np(vh))
        np.testing.assert_array_equal(to_np(it), to_np(ih))
    # Tied windows send their gradient to the first maximum, as torch does.
    check(lambda t: F.adaptive_max_pool2d(t, (2, 3)), lambda t: TF.adaptive_max_pool2d(t, (2, 3)), ties)


def test_modules_and_grad_fn():
    x = tc.tensor(perm(2, 3, 9))
    y, i = nn.AdaptiveMaxPool1d(4, return_indices=True)(x)
    yh, ih = torch.nn.AdaptiveMaxPool1d(4, return_indices=True)(torch.tensor(x.tolist(), dtype=torch.float64))
    assert_same(y, yh, TOL[np.float64])
    assert_same(i, ih, None, exact=True)
    assert "output_size=4" in repr(nn.AdaptiveMaxPool1d(4))
    assert_same(nn.AdaptiveAvgPool1d(2)(x[0]), torch.nn.AdaptiveAvgPool1d(2)(torch.tensor(x[0].tolist(), dtype=torch.float64)),
                TOL[np.float64])
    xg = tc.randn(2, 3, 5, 5, requires_grad=True)
    assert F.adaptive_avg_pool2d(xg, 2).grad_fn.name() == "AdaptiveAvgPool2DBackward"
    assert F.adaptive_max_pool2d(xg, 2).grad_fn.name() == "AdaptiveMaxPool2DBackward"


def test_errors():
    with pytest.raises(RuntimeError, match="output_size must be in"):
        F.adaptive_max_pool2d(tc.randn(1, 1, 2, 2), (-1, 1))
    with pytest.raises(tc.TcError, match="x must be \\[N, C, L\\] or \\[C, L\\]"):
        F.adaptive_avg_pool1d(tc.randn(1, 1, 2, 2), 2)
    with pytest.raises(tc.TcError, match="empty spatial dim"):
        F.adaptive_avg_pool2d(tc.randn(1, 1, 0, 2), 2)
    with pytest.raises(tc.TcError, match="float32 or float64"):
        F.adaptive_max_pool1d(tc.zeros(2, 3, dtype=tc.int64), 2)
