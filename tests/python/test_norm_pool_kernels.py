"""The fused batch_norm / group_norm kernels (src/cpu/norm_layers.cpp) and
the pooling kernels with PyTorch 1.13's full geometry (src/cpu/conv.cpp)
against torch on the cases the composed versions never met: ResNet-sized
channels, float32 with a large mean (the one-pass statistics), channels of
size 1, a single value per channel, non-contiguous inputs, eval-mode
gradients, momentum over several steps, empty inputs. Values in float32 and
float64, gradients in float64 with the same upstream gradient."""
import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(12)
TOL = {"float64": dict(rtol=1e-9, atol=1e-10), "float32": dict(rtol=1e-4, atol=1e-4)}


def arr(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().astype(np.float64)
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(a, b, dt, **kw):
    tol = dict(TOL[dt])
    tol.update(kw)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(arr(a), arr(b), **tol)


def pair(a, dt, grad=False):
    """The same values as a tc and a torch tensor of dtype dt."""
    a = np.ascontiguousarray(a.astype(dt))
    x, y = tc.tensor(a), torch.tensor(a)
    if grad:
        x.requires_grad = True
        y.requires_grad_(True)
    return x, y


def run_both(f_tc, f_th, arrays, dt, grad):
    """f on tc and torch; with grad, backward of a fixed upstream gradient.
    Returns (outputs, [(tc grad, torch grad) for each input])."""
    ins = [pair(a, dt, grad) for a in arrays]
    out_c, out_t = f_tc(*[p[0] for p in ins]), f_th(*[p[1] for p in ins])
    grads = []
    if grad:
        g = R.standard_normal(tuple(out_t.shape)).astype(dt)
        out_c.backward(tc.tensor(g))
        out_t.backward(torch.tensor(g))
        grads = [(c.grad, t.grad) for c, t in ins]
    return (out_c, out_t), grads


def check_both(f_tc, f_th, arrays, dt):
    """run_both, then the values and (float64) the gradients compared."""
    (yc, yt), grads = run_both(f_tc, f_th, arrays, dt, grad=dt == "float64")
    close(yc, yt, dt)
    for gc, gt in grads:
        close(gc, gt, dt)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(8, 64, 7, 7), (3, 1, 5, 4), (2, 5, 1, 1), (7, 3), (2, 4, 3, 2, 2)], ids=str)
def test_batch_norm_train_values_grads(dt, shape):
    c = shape[1]
    x = R.standard_normal(shape) * 3 + 2
    w, b = R.standard_normal(c), R.standard_normal(c)
    check_both(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-4),
               lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True, eps=1e-4), [x, w, b], dt)


def test_batch_norm_float32_large_mean():
    # sum(x^2) - n mean^2 in float32 would lose every digit here.
    x = (1e4 + R.standard_normal((16, 4, 12, 12))).astype(np.float32)
    yc = F.batch_norm(tc.tensor(x), None, None, training=True)
    yt = TF.batch_norm(torch.tensor(x.astype(np.float64)), None, None, training=True)
    np.testing.assert_allclose(arr(yc), arr(yt), rtol=0, atol=5e-3)


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_batch_norm_running_stats_momentum(dt):
    c = 5
    rm_c, rv_c = tc.zeros(c, dtype=dt), tc.ones(c, dtype=dt)
    rm_t, rv_t = torch.zeros(c, dtype=getattr(torch, dt)), torch.ones(c, dtype=getattr(torch, dt))
    for step, momentum in enumerate([0.1, 0.5, 1.0, 0.0]):
        x = R.standard_normal((6, c, 3, 2)) * (step + 1) + step
        xc, xt = pair(x, dt)
        close(F.batch_norm(xc, rm_c, rv_c, training=True, momentum=momentum),
              TF.batch_norm(xt, rm_t, rv_t, training=True, momentum=momentum), dt)
        close(rm_c, rm_t, dt)
        close(rv_c, rv_t, dt)


@pytest.mark.parametrize("shape", [(4, 3, 5, 2), (6, 2), (1, 3, 1, 1)], ids=str)
def test_batch_norm_eval_values_grads(shape):
    c = shape[1]
    rm, rv = R.standard_normal(c), R.uniform(0.5, 2.0, c)
    x, w, b = R.standard_normal(shape), R.standard_normal(c), R.standard_normal(c)
    for dt in ("float64", "float32"):
        rmc, rmt = pair(rm, dt)
        rvc, rvt = pair(rv, dt)
        check_both(lambda x, w, b: F.batch_norm(x, rmc, rvc, w, b, training=False, eps=1e-3),
                   lambda x, w, b: TF.batch_norm(x, rmt, rvt, w, b, training=False, eps=1e-3), [x, w, b], dt)
        # eval leaves the running statistics alone
        close(rmc, rmt, dt)
        np.testing.assert_array_equal(arr(rmc), rm.astype(dt))


def test_batch_norm_noncontiguous():
    # channels-last storage, seen as NCHW: a permuted view
    base = R.standard_normal((3, 4, 5, 6))  # N, H, W, C
    for dt in ("float64", "float32"):
        xc = tc.tensor(base.astype(dt)).permute(0, 3, 1, 2)
        xt = torch.tensor(base.astype(dt)).permute(0, 3, 1, 2)
        xc.requires_grad = True if dt == "float64" else False
        xt.requires_grad_(dt == "float64")
        yc, yt = F.batch_norm(xc, None, None, training=True), TF.batch_norm(xt, None, None, training=True)
        close(yc, yt, dt)
        if dt == "float64":
            g = R.standard_normal(tuple(yt.shape))
            yc.backward(tc.tensor(g).permute(0, 1, 3, 2).transpose(2, 3))  # a strided upstream gradient
            yt.backward(torch.tensor(g))
            close(xc.grad, xt.grad, dt)


def test_batch_norm_single_value_per_channel_errors():
    with pytest.raises(tc.TcError, match="more than 1 value per channel"):
        F.batch_norm(tc.randn(1, 3, 1, 1), None, None, training=True)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        TF.batch_norm(torch.randn(1, 3, 1, 1), None, None, training=True)
    # eval mode accepts it, as torch
    rm, rv = tc.zeros(3), tc.ones(3)
    assert tuple(F.batch_norm(tc.randn(1, 3, 1, 1), rm, rv, training=False).shape) == (1, 3, 1, 1)


def test_batch_norm_partial_grads():
    # only the weight wants a gradient; x is a constant
    x, w = R.standard_normal((4, 3, 2)), R.standard_normal(3)
    wc, wt = pair(w, "float64", grad=True)
    yc = F.batch_norm(tc.tensor(x), None, None, wc, None, training=True)
    yt = TF.batch_norm(torch.tensor(x), None, None, wt, None, training=True)
    g = R.standard_normal((4, 3, 2))
    yc.backward(tc.tensor(g))
    yt.backward(torch.tensor(g))
    close(wc.grad, wt.grad, "float64")


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("shape,groups", [((4, 64, 6, 5), 32), ((2, 6, 7), 3), ((3, 4), 4), ((2, 4, 1, 1), 1),
                                          ((2, 3, 4, 5), 3)], ids=str)
def test_group_norm_values_grads(dt, shape, groups):
    c = shape[1]
    x = R.standard_normal(shape) * 2 - 1
    w, b = R.standard_normal(c), R.standard_normal(c)
    check_both(lambda x, w, b: F.group_norm(x, groups, w, b, eps=1e-4),
               lambda x, w, b: TF.group_norm(x, groups, w, b, eps=1e-4), [x, w, b], dt)


def test_group_norm_no_affine_noncontiguous_large_mean():
    base = (500 + R.standard_normal((2, 5, 4, 8))).astype(np.float32)  # N, H, W, C
    yc = F.group_norm(tc.tensor(base).permute(0, 3, 1, 2), 4)
    yt = TF.group_norm(torch.tensor(base.astype(np.float64)).permute(0, 3, 1, 2), 4)
    np.testing.assert_allclose(arr(yc), arr(yt), rtol=0, atol=2e-3)


def test_norms_empty_batch():
    x = tc.zeros(0, 4, 3)
    x.requires_grad = True
    w = tc.ones(4)
    w.requires_grad = True
    y = F.group_norm(x, 2, w)
    assert tuple(y.shape) == (0, 4, 3)
    y.sum().backward()
    assert np.array_equal(arr(w.grad), np.zeros(4))
    rm, rv = tc.zeros(4), tc.ones(4)
    assert tuple(F.batch_norm(tc.zeros(0, 4, 3), rm, rv, training=False).shape) == (0, 4, 3)


MAXPOOL = [dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2), dict(kernel_size=3, stride=1, padding=1),
           dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 3), ceil_mode=True),
           dict(kernel_size=3, stride=2, ceil_mode=True)]


@pytest.mark.parametrize("kw", MAXPOOL, ids=str)
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_max_pool2d_ties_values_indices_grads(kw, dt):
    # few distinct values: many ties, where the first maximum must win
    x = np.round(R.standard_normal((2, 3, 13, 17)) * 2) / 2
    xc, xt = pair(x, dt, grad=dt == "float64")
    (yc, ic), (yt, it) = F.max_pool2d(xc, return_indices=True, **kw), TF.max_pool2d(xt, return_indices=True, **kw)
    close(yc, yt, dt)
    np.testing.assert_array_equal(arr(ic), arr(it))
    if dt == "float64":
        g = R.standard_normal(tuple(yt.shape))
        yc.backward(tc.tensor(g))
        yt.backward(torch.tensor(g))
        close(xc.grad, xt.grad, dt)


def test_max_pool2d_nan_rule():
    # PyTorch: a NaN replaces the max, a later NaN replaces that one
    x = R.standard_normal((1, 2, 9, 9))
    x[0, 0, 1, 1] = x[0, 0, 2, 2] = np.nan
    x[0, 1, 4, 4] = np.nan
    for dt in ("float64", "float32"):
        xc, xt = pair(x, dt)
        (yc, ic), (yt, it) = F.max_pool2d(xc, 3, 2, 1, return_indices=True), \
            TF.max_pool2d(xt, 3, 2, 1, return_indices=True)
        np.testing.assert_array_equal(np.isnan(arr(yc)), np.isnan(arr(yt)))
        np.testing.assert_array_equal(arr(ic), arr(it))


@pytest.mark.parametrize("kw", [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=1, padding=1,
                                                                    count_include_pad=False),
                                dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, divisor_override=4)],
                         ids=str)
def test_avg_pool2d_resnet_shapes(kw):
    x = R.standard_normal((4, 8, 14, 14))
    for dt in ("float64", "float32"):
        check_both(lambda t: F.avg_pool2d(t, **kw), lambda t: TF.avg_pool2d(t, **kw), [x], dt)
