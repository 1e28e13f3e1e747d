"""Parity with PyTorch 1.13 of the further torch.nn layers and their
functional forms (tc/nn/modules_pad.py, modules_3d.py, modules_misc.py,
modules_lazy.py, functional_nd.py, functional_more.py): values in float64
(and float32 where it matters), float64 gradients against torch.autograd with
the same upstream gradient, the modules' parameter names and shapes, and
torch's exception types for bad arguments."""
import math
import warnings

import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional
TN = torch.nn

TOL = {np.float64: dict(rtol=1e-7, atol=1e-9), np.float32: dict(rtol=2e-5, atol=2e-5)}
GTOL = dict(rtol=1e-6, atol=1e-8)
RNG = np.random.default_rng(1234)


def rand(*shape):
    return RNG.standard_normal(shape)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist()).reshape(tuple(t.shape))


def assert_same(a, b, tol=TOL[np.float64]):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    if b.dtype in (torch.int64, torch.bool):
        np.testing.assert_array_equal(to_np(a), to_np(b))
    else:
        np.testing.assert_allclose(to_np(a).astype(np.float64), to_np(b).astype(np.float64), **tol)


def parity(f_tc, f_torch, arrays, dtypes=(np.float64,), grad=True):
    """f on tc and torch tensors made from the same arrays; values, then the
    float64 gradients of every float input for one random upstream gradient."""
    for dt in dtypes:
        arrs = [a.astype(dt) if a.dtype.kind == "f" else a for a in arrays]
        floats = [i for i, a in enumerate(arrs) if a.dtype.kind == "f"]
        tcs = [tc.tensor(a) for a in arrs]
        ths = [torch.tensor(a) for a in arrs]
        do_grad = grad and dt == np.float64 and floats
        if do_grad:
            for i in floats:
                tcs[i].requires_grad = True
                ths[i].requires_grad_(True)
        out_tc, out_th = f_tc(*tcs), f_torch(*ths)
        assert_same(out_tc, out_th, TOL[dt])
        if not do_grad:
            continue
        o_tc = out_tc[0] if isinstance(out_tc, (tuple, list)) else out_tc
        o_th = out_th[0] if isinstance(out_th, (tuple, list)) else out_th
        g = np.random.default_rng(7).standard_normal(tuple(o_th.shape))
        o_tc.backward(tc.tensor(g))
        o_th.backward(torch.tensor(g))
        for i in floats:
            gt, gc = ths[i].grad, tcs[i].grad
            if gt is None:
                assert gc is None or float(gc.abs().sum()) == 0
                continue
            assert gc is not None, "no grad for input %d" % i
            assert_same(gc, gt, GTOL)


def to64(m):
    """The module's parameters and floating buffers in float64 (Module.to moves only the parameters)."""
    m.to(tc.float64)
    for sub in m.modules():
        for name, b in list(sub._buffers.items()):
            if b is not None and b.is_floating_point():
                sub.register_buffer(name, b.to(tc.float64))
    return m


def copy_params(m_tc, m_th):
    """torch's parameters and buffers into the tc module, checking names and shapes."""
    sd_th = m_th.state_dict()
    sd_tc = m_tc.state_dict()
    assert sorted(sd_tc.keys()) == sorted(sd_th.keys())
    for k in sd_th:
        assert tuple(sd_tc[k].shape) == tuple(sd_th[k].shape), k
    m_tc.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in sd_th.items()})


def module_parity(m_tc, m_th, *arrays, grad=True):
    m_th = m_th.double()
    to64(m_tc)
    copy_params(m_tc, m_th)
    tc_params = [p for _, p in m_tc.named_parameters()]
    th_params = [p for _, p in m_th.named_parameters()]
    parity(lambda *xs: m_tc(*xs), lambda *xs: m_th(*xs), list(arrays), grad=grad)
    if grad and th_params and not any(a.dtype.kind == "f" for a in arrays):
        # integer inputs (EmbeddingBag): the parameters' gradients of one backward
        out_tc, out_th = m_tc(*[tc.tensor(a) for a in arrays]), m_th(*[torch.tensor(a) for a in arrays])
        g = np.random.default_rng(5).standard_normal(tuple(out_th.shape))
        out_tc.backward(tc.tensor(g))
        out_th.backward(torch.tensor(g))
    if grad and th_params:
        for (name, p), q in zip(m_tc.named_parameters(), th_params):
            assert q.grad is not None and p.grad is not None, name
            assert_same(p.grad, q.grad, GTOL)
    assert len(tc_params) == len(th_params)


# ---------------------------------------------------------------- padding

@pytest.mark.parametrize("name,n,pad", [
    ("ReflectionPad1d", 1, (2, 1)), ("ReflectionPad2d", 2, (1, 2, 2, 0)), ("ReflectionPad3d", 3, 1),
    ("ReplicationPad1d", 1, 3), ("ReplicationPad2d", 2, (0, 3, 1, 2)), ("ReplicationPad3d", 3, (1, 0, 2, 1, 0, 2)),
    ("ZeroPad2d", 2, (1, -1, 2, -2)),
])
def test_padding_modules(name, n, pad):
    shape = (2, 3) + (4,) * n
    module_parity(getattr(nn, name)(pad), getattr(TN, name)(pad), rand(*shape))
    assert getattr(nn, name)(pad).padding == getattr(TN, name)(pad).padding


@pytest.mark.parametrize("n,pad", [(1, (2, -1)), (2, (1, 1, -2, 3)), (3, 2)])
def test_constant_pad(n, pad):
    name = "ConstantPad%dd" % n
    module_parity(getattr(nn, name)(pad, 1.5), getattr(TN, name)(pad, 1.5), rand(*((2, 3) + (5,) * n)))
    assert getattr(nn, name)(pad, 0.5).padding == getattr(TN, name)(pad, 0.5).padding


def test_padding_bad_arguments():
    with pytest.raises(ValueError):
        nn.ReflectionPad2d((1, 2, 3))
    with pytest.raises(TypeError):
        nn.ConstantPad1d("x", 0.0)


# ---------------------------------------------------------------- 3-D convolutions

@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1), dict(stride=(1, 2, 1), padding=(0, 1, 2), dilation=(2, 1, 1)),
    dict(groups=2, padding="same", dilation=(1, 2, 1)), dict(padding="valid", bias=False),
    dict(padding=1, padding_mode="reflect"), dict(padding=(1, 0, 2), padding_mode="circular"),
    dict(padding=2, padding_mode="replicate", stride=2),
])
def test_conv3d_module(kw):
    m_th = TN.Conv3d(4, 6, (3, 2, 3), **kw)
    m_tc = nn.Conv3d(4, 6, (3, 2, 3), **kw)
    module_parity(m_tc, m_th, rand(2, 4, 5, 6, 7))
    assert (m_tc.kernel_size, m_tc.stride, m_tc.padding, m_tc.dilation) == (
        m_th.kernel_size, m_th.stride, m_th.padding, m_th.dilation)


def test_conv3d_functional_unbatched_and_float32():
    x, w, b = rand(3, 4, 5, 6), rand(2, 3, 2, 3, 2), rand(2)
    parity(lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=1),
           lambda x, w, b: TF.conv3d(x, w, b, stride=(2, 1, 1), padding=1), [x, w, b],
           dtypes=(np.float64, np.float32))


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1, output_padding=1), dict(stride=(2, 1, 3), padding=(1, 0, 1), dilation=(1, 2, 1)),
    dict(groups=2, stride=(1, 2, 2), output_padding=(0, 1, 0), bias=False), dict(stride=3, dilation=2, output_padding=2),
])
def test_conv_transpose3d_module(kw):
    m_th = TN.ConvTranspose3d(4, 6, (2, 3, 2), **kw)
    m_tc = nn.ConvTranspose3d(4, 6, (2, 3, 2), **kw)
    module_parity(m_tc, m_th, rand(2, 4, 3, 4, 3))


def test_conv_transpose3d_output_size_and_unbatched():
    m_th, m_tc = TN.ConvTranspose3d(2, 3, 3, stride=2).double(), nn.ConvTranspose3d(2, 3, 3, stride=2)
    to64(m_tc)
    copy_params(m_tc, m_th)
    x = rand(2, 3, 4, 3)
    a = m_tc(tc.tensor(x), output_size=[8, 9, 8])
    b = m_th(torch.tensor(x), output_size=[8, 9, 8])
    assert_same(a, b)
    with pytest.raises(ValueError):
        m_tc(tc.tensor(x), output_size=[20, 9, 8])


def test_conv3d_bad_arguments():
    with pytest.raises(ValueError):
        nn.Conv3d(3, 4, 2, groups=2)
    with pytest.raises(ValueError):
        nn.Conv3d(2, 4, 2, padding="same", stride=2)
    with pytest.raises(ValueError):
        nn.Conv3d(2, 4, 2, padding_mode="mirror")
    with pytest.raises(ValueError):
        nn.ConvTranspose3d(2, 4, 2, padding_mode="reflect")
    with pytest.raises(RuntimeError):
        F.conv3d(tc.zeros(1, 3, 4, 4, 4), tc.zeros(2, 2, 1, 1, 1))


# ---------------------------------------------------------------- 3-D pooling

@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=(2, 3, 2), dilation=(1, 2, 1)),
    dict(kernel_size=2, stride=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
])
def test_max_pool3d(kw):
    x = rand(2, 3, 5, 7, 6)
    parity(lambda x: F.max_pool3d(x, return_indices=True, **kw),
           lambda x: TF.max_pool3d(x, return_indices=True, **kw), [x], dtypes=(np.float64, np.float32))
    module_parity(nn.MaxPool3d(**kw), TN.MaxPool3d(**kw), x)
    parity(lambda x: F.max_pool3d(x, **kw), lambda x: TF.max_pool3d(x, **kw), [x[0]])


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=(2, 3, 2), stride=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                                 count_include_pad=False),
    dict(kernel_size=2, divisor_override=3),
])
def test_avg_pool3d(kw):
    x = rand(2, 3, 5, 7, 6)
    parity(lambda x: F.avg_pool3d(x, **kw), lambda x: TF.avg_pool3d(x, **kw), [x], dtypes=(np.float64, np.float32))
    module_parity(nn.AvgPool3d(**kw), TN.AvgPool3d(**kw), x[0])


@pytest.mark.parametrize("size", [(2, 3, 4), 3, (None, 2, 5), 1])
def test_adaptive_pool3d(size):
    x = rand(2, 3, 5, 7, 6)
    module_parity(nn.AdaptiveAvgPool3d(size), TN.AdaptiveAvgPool3d(size), x)
    parity(lambda x: F.adaptive_max_pool3d(x, size, True), lambda x: TF.adaptive_max_pool3d(x, size, True), [x])
    module_parity(nn.AdaptiveMaxPool3d(size), TN.AdaptiveMaxPool3d(size), x[0])


def test_with_indices_forms():
    x = rand(2, 3, 9, 8)
    parity(lambda x: F.max_pool2d_with_indices(x, 3, 2, 1), lambda x: TF.max_pool2d_with_indices(x, 3, 2, 1), [x])
    parity(lambda x: F.max_pool1d_with_indices(x[0], 3, 2), lambda x: TF.max_pool1d_with_indices(x[0], 3, 2), [x])
    parity(lambda x: F.max_pool3d_with_indices(x, 2), lambda x: TF.max_pool3d_with_indices(x, 2), [x])
    parity(lambda x: F.adaptive_max_pool2d_with_indices(x, 4), lambda x: TF.adaptive_max_pool2d_with_indices(x, 4),
           [x])
    parity(lambda x: F.adaptive_max_pool1d_with_indices(x[0], 3),
           lambda x: TF.adaptive_max_pool1d_with_indices(x[0], 3), [x])


def test_pool3d_bad_arguments():
    x = tc.zeros(1, 1, 4, 4, 4)
    with pytest.raises(RuntimeError):
        F.max_pool3d(x, 2, padding=2)
    with pytest.raises(RuntimeError):
        F.avg_pool3d(x, 5)
    with pytest.raises(RuntimeError):
        F.max_pool3d(tc.zeros(4, 4), 2)


# ---------------------------------------------------------------- norms

def test_batchnorm3d_and_instancenorm3d():
    x = rand(3, 4, 3, 4, 5)
    for momentum in (0.1, None):
        m_tc, m_th = nn.BatchNorm3d(4, momentum=momentum), TN.BatchNorm3d(4, momentum=momentum)
        module_parity(m_tc, m_th, x)
        m_tc(tc.tensor(x * 2 + 1))
        m_th(torch.tensor(x * 2 + 1))
        assert_same(m_tc.running_mean, m_th.running_mean)
        assert_same(m_tc.running_var, m_th.running_var)
        m_tc.eval()
        m_th.eval()
        parity(m_tc, m_th, [x])
    module_parity(nn.InstanceNorm3d(4, affine=True), TN.InstanceNorm3d(4, affine=True), x)
    module_parity(nn.InstanceNorm3d(4), TN.InstanceNorm3d(4), x[0])
    with pytest.raises(ValueError):
        nn.BatchNorm3d(4)(tc.zeros(2, 4, 3, 3))


# ---------------------------------------------------------------- unfold / fold / unpool

@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(2, 1), padding=1, stride=2),
                                dict(kernel_size=3, stride=(1, 2), padding=(2, 0))])
def test_unfold_fold(kw):
    x = rand(2, 3, 7, 8)
    module_parity(nn.Unfold(**kw), TN.Unfold(**kw), x)
    cols = TF.unfold(torch.tensor(x), **kw)
    module_parity(nn.Fold((7, 8), **kw), TN.Fold((7, 8), **kw), cols.numpy())
    parity(lambda c: F.fold(c, (7, 8), **kw), lambda c: TF.fold(c, (7, 8), **kw), [cols[0].numpy()])
    parity(lambda x: F.unfold(x, **kw), lambda x: TF.unfold(x, **kw), [x[0]])


def test_unfold_fold_bad_arguments():
    with pytest.raises(RuntimeError):
        F.unfold(tc.zeros(2, 3, 4, 4, 4), 2)
    with pytest.raises(RuntimeError):
        F.fold(tc.zeros(1, 12, 10), (4, 4), 2)
    with pytest.raises(RuntimeError):
        F.fold(tc.zeros(1, 10, 9), (4, 4), 2)


@pytest.mark.parametrize("n,kw", [(1, dict(kernel_size=2)), (1, dict(kernel_size=3, stride=2, padding=1)),
                                  (2, dict(kernel_size=2)), (2, dict(kernel_size=3, stride=2, padding=1)),
                                  (3, dict(kernel_size=2)), (3, dict(kernel_size=(2, 3, 2), stride=(1, 2, 2)))])
def test_max_unpool(n, kw):
    x = torch.tensor(rand(*((2, 3) + (7,) * n)))
    values, idx = getattr(TF, "max_pool%dd" % n)(x, return_indices=True, **kw)
    pool = dict(kw, output_size=[7] * n)
    tc_idx = tc.tensor(idx.numpy())
    parity(lambda v: getattr(F, "max_unpool%dd" % n)(v, tc_idx, **pool),
           lambda v: getattr(TF, "max_unpool%dd" % n)(v, idx, **pool), [values.numpy()])
    m_tc, m_th = getattr(nn, "MaxUnpool%dd" % n)(**kw), getattr(TN, "MaxUnpool%dd" % n)(**kw)
    out = [7] * n
    assert_same(m_tc(tc.tensor(values.numpy()), tc_idx, output_size=out), m_th(values, idx, output_size=out))
    # the unbatched form
    assert_same(getattr(F, "max_unpool%dd" % n)(tc.tensor(values[0].numpy()), tc.tensor(idx[0].numpy()), **pool),
                getattr(TF, "max_unpool%dd" % n)(values[0], idx[0], **pool))


def test_max_unpool_bad_arguments():
    v, i = tc.zeros(1, 1, 2, 2), tc.zeros(1, 1, 2, 2, dtype=tc.int64)
    with pytest.raises(ValueError):
        F.max_unpool2d(v, i, 2, output_size=(9, 9))
    with pytest.raises(RuntimeError):
        F.max_unpool2d(v, tc.full((1, 1, 2, 2), 99, dtype=tc.int64), 2)


# ---------------------------------------------------------------- LP and fractional pooling

@pytest.mark.parametrize("p", [2.0, 3, 1.5])
def test_lp_pool(p):
    x = np.abs(rand(2, 3, 7, 6)) + 0.1
    module_parity(nn.LPPool2d(p, 2), TN.LPPool2d(p, 2), x)
    module_parity(nn.LPPool2d(p, (3, 2), stride=(2, 1), ceil_mode=True),
                  TN.LPPool2d(p, (3, 2), stride=(2, 1), ceil_mode=True), x)
    module_parity(nn.LPPool1d(p, 3, stride=2), TN.LPPool1d(p, 3, stride=2), x[0])


@pytest.mark.parametrize("n,kw", [(2, dict(kernel_size=2, output_size=4)), (2, dict(kernel_size=(3, 2), output_size=(3, 5))),
                                  (2, dict(kernel_size=2, output_ratio=0.5)),
                                  (3, dict(kernel_size=2, output_size=(3, 2, 4))),
                                  (3, dict(kernel_size=(1, 2, 3), output_ratio=(0.7, 0.5, 0.5)))])
def test_fractional_max_pool(n, kw):
    x = rand(*((2, 3) + (9, 8, 7)[:n]))
    samples = np.random.default_rng(3).random((2, 3, n))
    for dt in (np.float64, np.float32):
        s_tc, s_th = tc.tensor(samples.astype(dt)), torch.tensor(samples.astype(dt))
        f = getattr(F, "fractional_max_pool%dd" % n)
        g = getattr(TF, "fractional_max_pool%dd" % n)
        parity(lambda x: f(x, return_indices=True, _random_samples=s_tc, **kw),
               lambda x: g(x, return_indices=True, _random_samples=s_th, **kw), [x], dtypes=(dt,))
    s = samples[:1]
    m_tc = getattr(nn, "FractionalMaxPool%dd" % n)(_random_samples=tc.tensor(s), **kw)
    m_th = getattr(TN, "FractionalMaxPool%dd" % n)(_random_samples=torch.tensor(s), **kw)
    assert list(m_tc.state_dict().keys()) == list(m_th.state_dict().keys())
    parity(m_tc, m_th, [x[:1]])


def test_fractional_random_and_errors():
    x = tc.tensor(rand(2, 3, 10, 10))
    out, idx = F.fractional_max_pool2d(x, 3, output_size=4, return_indices=True)
    assert tuple(out.shape) == (2, 3, 4, 4)
    # every value is the input at its index
    flat = x.reshape(2, 3, -1)
    np.testing.assert_array_equal(to_np(flat.gather(2, idx.reshape(2, 3, -1))), to_np(out.reshape(2, 3, -1)))
    with pytest.raises(ValueError):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(RuntimeError):
        F.fractional_max_pool2d(x, 4, output_size=8)


# ---------------------------------------------------------------- activations

@pytest.mark.parametrize("pair", [
    (lambda: nn.Threshold(0.1, -2.0), lambda: TN.Threshold(0.1, -2.0)),
    (lambda: nn.Hardshrink(), lambda: TN.Hardshrink()), (lambda: nn.Hardshrink(0.8), lambda: TN.Hardshrink(0.8)),
    (lambda: nn.Softshrink(0.3), lambda: TN.Softshrink(0.3)), (lambda: nn.Tanhshrink(), lambda: TN.Tanhshrink()),
    (lambda: nn.Softmin(1), lambda: TN.Softmin(1)), (lambda: nn.Softmax2d(), lambda: TN.Softmax2d()),
    (lambda: nn.ChannelShuffle(2), lambda: TN.ChannelShuffle(2)),
    (lambda: nn.LocalResponseNorm(3), lambda: TN.LocalResponseNorm(3)),
    (lambda: nn.LocalResponseNorm(4, 0.1, 0.5, 2.0), lambda: TN.LocalResponseNorm(4, 0.1, 0.5, 2.0)),
    (lambda: nn.Unflatten(1, (2, 3)), lambda: TN.Unflatten(1, (2, 3))),
    (lambda: nn.Unflatten(-1, [5, -1]), lambda: TN.Unflatten(-1, [5, -1])),
])
def test_elementwise_and_shape_layers(pair):
    x = rand(2, 6, 5, 5)
    m_tc, m_th = pair[0](), pair[1]()
    m_tc.eval()
    m_th.eval()
    # torch 1.13 has no derivative for channel_shuffle: its gradient is checked below
    module_parity(m_tc, m_th, x, grad=not isinstance(m_th, TN.ChannelShuffle))


def test_channel_shuffle_grad():
    x = tc.tensor(rand(2, 6, 3))
    x.requires_grad = True
    g = rand(2, 6, 3)
    F.channel_shuffle(x, 2).backward(tc.tensor(g))
    # the gradient is the inverse shuffle: 3 groups of 2
    assert_same(x.grad, TF.channel_shuffle(torch.tensor(g), 3))


def test_softmin_functional_and_rrelu_eval():
    x = rand(3, 4, 5)
    parity(lambda x: F.softmin(x, dim=-1), lambda x: TF.softmin(x, dim=-1), [x], dtypes=(np.float64, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda x: F.softmin(x), lambda x: TF.softmin(x), [x])
    parity(lambda x: F.rrelu(x, 0.1, 0.3), lambda x: TF.rrelu(x, 0.1, 0.3), [x])
    m_tc, m_th = nn.RReLU(0.2, 0.4).eval(), TN.RReLU(0.2, 0.4).eval()
    parity(m_tc, m_th, [x])
    parity(lambda x: F.threshold(x, 0.2, 7.0), lambda x: TF.threshold(x, 0.2, 7.0), [x])


def test_rrelu_training():
    x = tc.tensor(rand(200))
    x.requires_grad = True
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.backward(tc.ones(200, dtype=tc.float64))
    xs, ys, gs = to_np(x), to_np(y), to_np(x.grad)
    pos = xs > 0
    np.testing.assert_array_equal(ys[pos], xs[pos])
    np.testing.assert_array_equal(gs[pos], 1.0)
    slopes = ys[~pos] / xs[~pos]
    assert np.all((slopes >= 0.1) & (slopes <= 0.3)) and slopes.std() > 0.01
    np.testing.assert_allclose(gs[~pos], slopes)


def test_inplace_functional_forms():
    x = tc.tensor(rand(4, 5))
    ref = torch.tensor(to_np(x))
    assert F.relu_(x) is x
    assert_same(x, TF.relu_(ref))
    x2, ref2 = tc.tensor(rand(4, 5)), None
    ref2 = torch.tensor(to_np(x2))
    F.threshold_(x2, 0.3, -1.0)
    assert_same(x2, TF.threshold_(ref2, 0.3, -1.0))


def test_activation_bad_arguments():
    with pytest.raises(RuntimeError):
        F.softshrink(tc.zeros(3), -1.0)
    with pytest.raises(RuntimeError):
        F.channel_shuffle(tc.zeros(2, 5, 3), 2)
    with pytest.raises(RuntimeError):
        F.channel_shuffle(tc.zeros(2, 4, 3), 0)
    with pytest.raises(AssertionError):
        nn.Softmax2d()(tc.zeros(2, 3))
    with pytest.raises(TypeError):
        nn.Unflatten(1, 3)
    with pytest.raises(TypeError):
        nn.Unflatten(1, (2, 2.0))
    with pytest.raises(ValueError):
        F.local_response_norm(tc.zeros(2, 3), 2)


# ---------------------------------------------------------------- dropouts

def test_alpha_dropout():
    p = 0.3
    x = tc.tensor(rand(40, 50))
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    y = to_np(F.alpha_dropout(x, p, training=True))
    kept = np.isclose(y, a * to_np(x) + alpha * a * p)
    dropped = np.isclose(y, alpha * a * (p - 1))
    assert np.all(kept | dropped)
    assert 0.2 < dropped.mean() < 0.4
    assert F.alpha_dropout(x, p, training=False) is x
    m = nn.AlphaDropout(p)
    m.eval()
    assert m(x) is x
    # channels dropped whole
    z = to_np(nn.FeatureAlphaDropout(0.5)(tc.tensor(rand(8, 16, 5, 5))))
    dropped = np.isclose(z, alpha * (1.0 / math.sqrt((alpha * alpha * 0.5 + 1) * 0.5)) * (0.5 - 1))
    per_channel = dropped.reshape(8, 16, -1)
    assert np.all(per_channel.all(-1) | ~per_channel.any(-1))
    with pytest.raises(ValueError):
        nn.AlphaDropout(1.5)
    with pytest.raises(ValueError):
        F.feature_alpha_dropout(x, -0.1, True)


@pytest.mark.parametrize("cls,shape", [("Dropout1d", (6, 20, 7)), ("Dropout1d", (20, 7)),
                                       ("Dropout3d", (4, 20, 2, 3, 2)), ("Dropout3d", (20, 2, 3, 2))])
def test_channel_dropout(cls, shape):
    x = tc.tensor(np.abs(rand(*shape)) + 1.0)
    y = to_np(getattr(nn, cls)(0.4)(x))
    lead = 2 if len(shape) in (3, 5) else 1
    per = y.reshape(shape[:lead] + (-1,))
    xs = to_np(x).reshape(shape[:lead] + (-1,))
    zero = (per == 0).all(-1)
    scaled = np.isclose(per, xs / 0.6).all(-1)
    assert np.all(zero | scaled) and zero.any() and scaled.any()
    m = getattr(nn, cls)(0.4)
    m.eval()
    assert_same(m(x), torch.tensor(to_np(x)))


def test_dropout1d_bad_input():
    with pytest.raises(RuntimeError):
        F.dropout1d(tc.zeros(2, 3, 4, 5), 0.5)


# ---------------------------------------------------------------- upsampling

def test_upsampling_layers():
    x = rand(2, 3, 4, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module_parity(nn.UpsamplingNearest2d(scale_factor=2), TN.UpsamplingNearest2d(scale_factor=2), x)
        module_parity(nn.UpsamplingBilinear2d(size=(7, 9)), TN.UpsamplingBilinear2d(size=(7, 9)), x)
        parity(lambda x: F.upsample_bilinear(x, scale_factor=2), lambda x: TF.upsample_bilinear(x, scale_factor=2),
               [x])
        parity(lambda x: F.upsample_nearest(x, size=(6, 6)), lambda x: TF.upsample_nearest(x, size=(6, 6)), [x])


# ---------------------------------------------------------------- embedding_bag, bilinear

@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_offsets(mode, padding_idx):
    w = rand(10, 4)
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 9, 2, 2, 7], dtype=np.int64)
    offsets = np.array([0, 3, 3, 8, 9], dtype=np.int64)  # an empty bag, a bag of padding only
    for last in (False, True):
        offs = np.append(offsets, len(idx)) if last else offsets
        parity(lambda w: F.embedding_bag(tc.tensor(idx), w, tc.tensor(offs), mode=mode, padding_idx=padding_idx,
                                         include_last_offset=last),
               lambda w: TF.embedding_bag(torch.tensor(idx), w, torch.tensor(offs), mode=mode,
                                          padding_idx=padding_idx, include_last_offset=last), [w])


def test_embedding_bag_2d_weights_and_module():
    w = rand(10, 3)
    idx = RNG.integers(0, 10, (4, 5))
    psw = rand(4, 5)
    parity(lambda w, s: F.embedding_bag(tc.tensor(idx), w, mode="sum", per_sample_weights=s),
           lambda w, s: TF.embedding_bag(torch.tensor(idx), w, mode="sum", per_sample_weights=s), [w, psw])
    # scale_grad_by_freq divides a row's gradient by its count in the input, as
    # F.embedding's does (torch 1.13's embedding_bag CPU backward divides by other
    # counts: for [[0, 1, 1], [1, 2, 3]], rows 2 and 3 by 3), so the reference is embedding's.
    parity(lambda w: F.embedding_bag(tc.tensor(idx), w, mode="mean", scale_grad_by_freq=True),
           lambda w: TF.embedding(torch.tensor(idx), w, scale_grad_by_freq=True).mean(1), [w])
    m_tc, m_th = nn.EmbeddingBag(10, 3, mode="max", padding_idx=-1), TN.EmbeddingBag(10, 3, mode="max", padding_idx=-1)
    assert m_tc.padding_idx == m_th.padding_idx == 9
    assert float(m_tc.weight[9].abs().sum()) == 0
    module_parity(m_tc, m_th, idx)
    pre = TN.EmbeddingBag.from_pretrained(torch.tensor(w), mode="sum")
    mine = nn.EmbeddingBag.from_pretrained(tc.tensor(w), mode="sum")
    assert not mine.weight.requires_grad
    assert_same(mine(tc.tensor(idx)), pre(torch.tensor(idx)))


def test_embedding_bag_max_norm():
    w = rand(10, 3) * 3
    idx = np.array([[1, 2], [2, 5]], dtype=np.int64)
    w_tc, w_th = tc.tensor(w), torch.tensor(w)
    a = F.embedding_bag(tc.tensor(idx), w_tc, max_norm=1.0, mode="sum")
    b = TF.embedding_bag(torch.tensor(idx), w_th, max_norm=1.0, mode="sum")
    assert_same(a, b)
    assert_same(w_tc, w_th)


def test_embedding_bag_bad_arguments():
    w = tc.zeros(5, 2)
    with pytest.raises(ValueError):
        F.embedding_bag(tc.zeros(2, 3, dtype=tc.int64), w, tc.zeros(2, dtype=tc.int64))
    with pytest.raises(ValueError):
        F.embedding_bag(tc.zeros(3, dtype=tc.int64), w)
    with pytest.raises(ValueError):
        F.embedding_bag(tc.zeros(2, 3, dtype=tc.int64), w, mode="median")
    with pytest.raises(NotImplementedError):
        F.embedding_bag(tc.zeros(2, 3, dtype=tc.int64), w, mode="mean", per_sample_weights=tc.zeros(2, 3))
    with pytest.raises(ValueError):
        F.embedding_bag(tc.zeros(2, 3, dtype=tc.int64), w, mode="max", scale_grad_by_freq=True)
    with pytest.raises(AssertionError):
        nn.EmbeddingBag(5, 2, padding_idx=7)


def test_bilinear():
    m_tc, m_th = nn.Bilinear(3, 4, 5), TN.Bilinear(3, 4, 5)
    module_parity(m_tc, m_th, rand(2, 6, 3), rand(2, 6, 4))
    module_parity(nn.Bilinear(3, 4, 2, bias=False), TN.Bilinear(3, 4, 2, bias=False), rand(7, 3), rand(7, 4))
    bound = 1 / math.sqrt(3)
    assert float(m_tc.weight.abs().max()) <= bound
    with pytest.raises(RuntimeError):
        F.bilinear(tc.zeros(2, 3), tc.zeros(2, 4), tc.zeros(5, 3, 3))


def test_cross_map_lrn2d():
    for size in (3, 4, 5):
        module_parity(nn.CrossMapLRN2d(size, 0.5, 0.75, 1.0), TN.CrossMapLRN2d(size, 0.5, 0.75, 1.0), rand(2, 7, 3, 4))


# ---------------------------------------------------------------- lazy modules, SyncBatchNorm

@pytest.mark.parametrize("make,shape", [
    (lambda M: M.LazyLinear(5), (3, 4)),
    (lambda M: M.LazyConv1d(4, 3, stride=2), (2, 3, 9)),
    (lambda M: M.LazyConv2d(4, (3, 2), padding=1, groups=1), (2, 3, 6, 5)),
    (lambda M: M.LazyConv3d(4, 2, bias=False), (2, 3, 4, 4, 4)),
    (lambda M: M.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5)),
    (lambda M: M.LazyConvTranspose2d(4, 2, output_padding=1, stride=2), (2, 3, 4, 4)),
    (lambda M: M.LazyConvTranspose3d(2, 2), (2, 3, 3, 3, 3)),
    (lambda M: M.LazyBatchNorm1d(), (4, 3)),
    (lambda M: M.LazyBatchNorm2d(momentum=None), (4, 3, 2, 2)),
    (lambda M: M.LazyBatchNorm3d(affine=False), (4, 3, 2, 2, 2)),
    (lambda M: M.LazyInstanceNorm1d(affine=True), (4, 3, 5)),
    (lambda M: M.LazyInstanceNorm2d(), (4, 3, 5, 5)),
    (lambda M: M.LazyInstanceNorm3d(track_running_stats=True), (4, 3, 2, 3, 3)),
])
def test_lazy_modules(make, shape):
    m_tc, m_th = make(nn), make(TN)
    assert m_tc.has_uninitialized_params()
    x = rand(*shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_th.double()(torch.tensor(x))
    m_tc.to(tc.float64)  # kept for the parameters made on the first call
    m_tc(tc.tensor(x))
    for p in m_tc.parameters():
        assert p.dtype == tc.float64
    assert type(m_tc).__name__ == type(m_th).__name__
    assert not hasattr(m_tc, "has_uninitialized_params")
    to64(m_tc)
    copy_params(m_tc, m_th)
    parity(m_tc, m_th, [x])


def test_sync_batchnorm():
    x = rand(4, 3, 5)
    m_tc, m_ref = nn.SyncBatchNorm(3), TN.BatchNorm1d(3)
    module_parity(m_tc, m_ref, x)
    assert_same(m_tc.running_mean, m_ref.running_mean)
    assert_same(m_tc.running_var, m_ref.running_var)
    net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm3d(2)))
    bn = net[1]
    conv = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert isinstance(conv[1], nn.SyncBatchNorm) and isinstance(conv[2][0], nn.SyncBatchNorm)
    assert conv[1].weight is bn.weight and conv[1].running_mean is bn.running_mean
    ref = TN.SyncBatchNorm.convert_sync_batchnorm(TN.Sequential(TN.Conv2d(3, 4, 1), TN.BatchNorm2d(4)))
    assert set(conv.state_dict().keys()) - {"2.0.weight", "2.0.bias", "2.0.running_mean", "2.0.running_var",
                                           "2.0.num_batches_tracked"} == set(ref.state_dict().keys())
    with pytest.raises(ValueError):
        nn.SyncBatchNorm(3)(tc.zeros(3))


def test_data_parallel_and_exports():
    lin = nn.Linear(3, 2)
    dp = nn.DataParallel(lin)
    assert list(dp.state_dict().keys()) == ["module.weight", "module.bias"]
    if not tc.cuda.is_available():
        assert dp.device_ids == []
        x = tc.tensor(rand(4, 3).astype(np.float32))
        np.testing.assert_array_equal(to_np(dp(x)), to_np(lin(x)))
    # every torch.nn layer class (not a loss, RNN or Transformer, which other modules
    # bring; Container comes with the losses)
    ignore = {"Module", "RNNBase", "RNNCellBase", "ParameterList", "ParameterDict", "ModuleDict", "ModuleList",
              "Sequential", "Container", "MultiheadAttention"}
    import inspect
    layers = [n for n in dir(TN) if inspect.isclass(getattr(TN, n)) and issubclass(getattr(TN, n), TN.Module)
              and "Loss" not in n and "RNN" not in n and "LSTM" not in n and "GRU" not in n
              and "Transformer" not in n and n not in ignore]
    missing = [n for n in layers if not hasattr(nn, n)]
    assert missing == [], missing


# ---------------------------------------------------------------- vision, conv_tbc, gumbel

@pytest.mark.parametrize("align", [False, True])
def test_affine_grid(align):
    parity(lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=align),
           lambda t: TF.affine_grid(t, [2, 3, 4, 5], align_corners=align), [rand(2, 2, 3)])
    parity(lambda t: F.affine_grid(t, [2, 3, 2, 4, 3], align_corners=align),
           lambda t: TF.affine_grid(t, [2, 3, 2, 4, 3], align_corners=align), [rand(2, 3, 4)])
    with pytest.raises(ValueError):
        F.affine_grid(tc.zeros(2, 3, 3), [2, 3, 4, 5], align_corners=align)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_2d(mode, padding_mode, align):
    x = rand(2, 3, 5, 6)
    grid = RNG.uniform(-1.4, 1.4, (2, 4, 7, 2))
    grad = mode != "nearest"
    parity(lambda x, g: F.grid_sample(x, g, mode, padding_mode, align),
           lambda x, g: TF.grid_sample(x, g, mode, padding_mode, align), [x, grid], grad=grad)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_3d(mode, padding_mode):
    x = rand(2, 2, 3, 4, 5)
    grid = RNG.uniform(-1.3, 1.3, (2, 2, 3, 4, 3))
    parity(lambda x, g: F.grid_sample(x, g, mode, padding_mode, False),
           lambda x, g: TF.grid_sample(x, g, mode, padding_mode, False), [x, grid], grad=mode != "nearest")


def test_conv_tbc_and_gumbel():
    parity(lambda x, w, b: F.conv_tbc(x, w, b, 1), lambda x, w, b: torch.conv_tbc(x, w, b, 1),
           [rand(6, 2, 3), rand(3, 3, 4), rand(4)])
    logits = tc.tensor(rand(5, 7))
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(to_np(y.sum(-1)), 1.0)
    h = to_np(F.gumbel_softmax(logits, hard=True))
    assert np.all(h.sum(-1) == 1) and set(np.unique(h)) <= {0.0, 1.0}


# ---------------------------------------------------------------- interpolate's further modes

@pytest.mark.parametrize("shape,mode,kw", [
    ((2, 3, 4, 5, 3), "nearest", dict(scale_factor=2)), ((2, 3, 4, 5, 3), "nearest", dict(size=(3, 7, 5))),
    ((2, 3, 7), "nearest-exact", dict(size=4)), ((2, 3, 5, 6), "nearest-exact", dict(scale_factor=1.7)),
    ((2, 3, 4, 5, 3), "nearest-exact", dict(size=(6, 2, 5))),
    ((2, 3, 4, 5, 3), "trilinear", dict(size=(6, 3, 5))),
    ((2, 3, 4, 5, 3), "trilinear", dict(scale_factor=(1.5, 2, 0.7), align_corners=True)),
    ((2, 3, 4, 5, 3), "trilinear", dict(scale_factor=2.5, recompute_scale_factor=True)),
    ((2, 3, 5, 6), "bicubic", dict(size=(7, 4))), ((2, 3, 5, 6), "bicubic", dict(scale_factor=1.5, align_corners=True)),
    ((2, 3, 8, 9), "area", dict(size=(3, 4))), ((2, 3, 9), "area", dict(scale_factor=0.5)),
    ((2, 3, 4, 6, 5), "area", dict(size=2)),
    ((2, 3, 5, 6), "bilinear", dict(scale_factor=1.5)), ((2, 3, 7), "linear", dict(size=3, align_corners=True)),
])
def test_interpolate_modes(shape, mode, kw):
    parity(lambda x: F.interpolate(x, mode=mode, **kw), lambda x: TF.interpolate(x, mode=mode, **kw), [rand(*shape)],
           dtypes=(np.float64, np.float32))
    if mode == "trilinear":
        module_parity(nn.Upsample(mode=mode, **kw), TN.Upsample(mode=mode, **kw), rand(*shape))


def test_interpolate_bad_arguments():
    with pytest.raises(NotImplementedError):
        F.interpolate(tc.zeros(1, 2, 3, 4), size=5, mode="linear")
    with pytest.raises(ValueError):
        F.interpolate(tc.zeros(1, 2, 3, 4), size=5, mode="nearest", align_corners=True)
    with pytest.raises(ValueError):
        F.interpolate(tc.zeros(1, 2, 3, 4), size=(5, 5), scale_factor=2.0)
    with pytest.raises(ValueError):
        F.interpolate(tc.zeros(1, 2, 3, 4), size=(5, 5), recompute_scale_factor=True)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, float("inf"), 0.0])
def test_pdist(p):
    x = rand(5, 4)
    x[3] = x[1]  # a zero distance
    parity(lambda x: F.pdist(x, p), lambda x: TF.pdist(x, p), [x], dtypes=(np.float64, np.float32))
    with pytest.raises(RuntimeError):
        F.pdist(tc.zeros(2, 3, 4))


def test_sync_batchnorm_across_two_ranks():
    """dist_sync_batchnorm.py under mpirun: the synchronized statistics and gradients."""
    import os
    import shutil
    import subprocess
    import sys
    import tc.distributed as dist
    mpirun = shutil.which("mpirun") or shutil.which("mpiexec")
    if mpirun is None or not dist.is_mpi_available():
        pytest.skip("mpirun or libtc's MPI module is missing")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMP_NUM_THREADS="1", TC_NUM_THREADS="1",
               TC_DIST_TIMEOUT="120", PYTHONPATH=os.path.dirname(os.path.dirname(tc.__file__)))
    r = subprocess.run([mpirun, "-np", "2", "--oversubscribe", sys.executable,
                        os.path.join(here, "dist_sync_batchnorm.py")], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "rank 0 ok" in r.stdout and "rank 1 ok" in r.stdout
