"""Parity of the neural-network layers (ops/nn_layers.cpp, tc.nn.functional
and the modules of tc/nn/modules_layers.py) with PyTorch 1.13: values in
float32 and float64, gradients in float64 against torch.autograd with the
same upstream gradient, running statistics after several training steps."""
import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

TOL = {np.float64: dict(rtol=1e-7, atol=1e-9), np.float32: dict(rtol=2e-5, atol=2e-5)}
GTOL = dict(rtol=1e-6, atol=1e-8)


@pytest.fixture(autouse=True)
def _exported():
    need("tc_batch_norm", "tc_conv_transpose2d", "tc_max_pool2d_with_indices", "tc_interpolate",
         "tc_dropout2d")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=t.dtype._np or "float32").reshape(tuple(t.shape))


def assert_same(a, b, tol):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y, tol)
        return
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    np.testing.assert_allclose(to_np(a).astype(np.float64), to_np(b).astype(np.float64), **tol)


def parity(f_tc, f_torch, arrays, dtypes=(np.float64, np.float32), grad=True, noncontig=False):
    """f on tc and torch tensors made from the same arrays (floats cast to
    each dtype); values, then float64 gradients of every float input.
    noncontig: the float inputs are transposed views of their last two dims."""
    for dt in dtypes:
        arrs = [a.astype(dt) if a.dtype.kind == "f" else a for a in arrays]
        floats = [i for i, a in enumerate(arrs) if a.dtype.kind == "f"]
        tcs, ths = [], []
        for i, a in enumerate(arrs):
            if noncontig and i in floats and a.ndim >= 2:
                at = np.ascontiguousarray(np.swapaxes(a, -1, -2))
                tcs.append(tc.tensor(at).transpose(-1, -2))
                ths.append(torch.tensor(at).transpose(-1, -2))
            else:
                tcs.append(tc.tensor(a))
                ths.append(torch.tensor(a))
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


R = np.random.default_rng(0)


def randn(*s):
    return R.standard_normal(s)


def pos(*s):
    return R.uniform(0.5, 2.0, s)


# ---------------------------------------------------------------- norms

@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 5), (2, 3, 4, 5)], ids=str)
def test_batch_norm_training_values_grads(shape):
    c = shape[1]
    parity(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True, eps=1e-3),
           lambda x, w, b: TF.batch_norm(x, None, None, w, b, training=True, eps=1e-3),
           [randn(*shape), randn(c), randn(c)])


def test_batch_norm_noncontiguous_and_no_affine():
    parity(lambda x: F.batch_norm(x, None, None, training=True),
           lambda x: TF.batch_norm(x, None, None, training=True), [randn(2, 3, 4, 5)], noncontig=True)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_batch_norm_running_stats_and_eval(dt):
    rm_c, rv_c = tc.zeros(3, dtype=dt.__name__), tc.ones(3, dtype=dt.__name__)
    rm_t, rv_t = torch.zeros(3, dtype=getattr(torch, dt.__name__)), torch.ones(3, dtype=getattr(torch, dt.__name__))
    for step in range(4):
        x = randn(5, 3, 2, 3).astype(dt) * (step + 1) + step
        F.batch_norm(tc.tensor(x), rm_c, rv_c, training=True, momentum=0.3)
        TF.batch_norm(torch.tensor(x), rm_t, rv_t, training=True, momentum=0.3)
        assert_same(rm_c, rm_t, TOL[dt])
        assert_same(rv_c, rv_t, TOL[dt])
    x, w, b = randn(2, 3, 4).astype(dt), randn(3).astype(dt), randn(3).astype(dt)
    assert_same(F.batch_norm(tc.tensor(x), rm_c, rv_c, tc.tensor(w), tc.tensor(b), training=False),
                TF.batch_norm(torch.tensor(x), rm_t, rv_t, torch.tensor(w), torch.tensor(b), training=False),
                TOL[dt])


def test_batch_norm_eval_grads():
    rm, rv = randn(3), pos(3)
    parity(lambda x, w, b: F.batch_norm(x, tc.tensor(rm).to(x.dtype), tc.tensor(rv).to(x.dtype), w, b),
           lambda x, w, b: TF.batch_norm(x, torch.tensor(rm).to(x.dtype), torch.tensor(rv).to(x.dtype), w, b),
           [randn(4, 3, 5), randn(3), randn(3)])


def test_batch_norm_errors():
    with pytest.raises(tc.TcError, match="more than 1 value per channel"):
        F.batch_norm(tc.randn(1, 3), None, None, training=True)
    with pytest.raises(tc.TcError, match="running_mean"):
        F.batch_norm(tc.randn(2, 3), tc.zeros(4), tc.ones(4), training=True)
    with pytest.raises(tc.TcError, match="running_mean and running_var are needed"):
        F.batch_norm(tc.randn(2, 3), None, None, training=False)


@pytest.mark.parametrize("shape,groups", [((2, 6, 5), 3), ((3, 4, 2, 3), 2), ((2, 4, 3), 1), ((2, 4, 3), 4)],
                         ids=str)
def test_group_norm(shape, groups):
    c = shape[1]
    parity(lambda x, w, b: F.group_norm(x, groups, w, b, eps=1e-4),
           lambda x, w, b: TF.group_norm(x, groups, w, b, eps=1e-4), [randn(*shape), randn(c), randn(c)])


def test_group_norm_errors():
    with pytest.raises(tc.TcError, match="divisible by num_groups"):
        F.group_norm(tc.randn(2, 6, 3), 4)


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 4, 3)], ids=str)
def test_instance_norm(shape):
    c = shape[1]
    parity(lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
           lambda x, w, b: TF.instance_norm(x, weight=w, bias=b), [randn(*shape), randn(c), randn(c)])


def test_instance_norm_running_stats():
    rm_c, rv_c, rm_t, rv_t = tc.zeros(3, dtype="float64"), tc.ones(3, dtype="float64"), torch.zeros(
        3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    for step in range(3):
        x = randn(4, 3, 5, 2) * (step + 2)
        assert_same(F.instance_norm(tc.tensor(x), rm_c, rv_c, momentum=0.2),
                    TF.instance_norm(torch.tensor(x), rm_t, rv_t, momentum=0.2), TOL[np.float64])
    assert_same(rm_c, rm_t, TOL[np.float64])
    assert_same(rv_c, rv_t, TOL[np.float64])
    x = randn(2, 3, 4)
    assert_same(F.instance_norm(tc.tensor(x), rm_c, rv_c, use_input_stats=False),
                TF.instance_norm(torch.tensor(x), rm_t, rv_t, use_input_stats=False), TOL[np.float64])


# ---------------------------------------------------------- convolutions

@pytest.mark.parametrize("kw", [dict(), dict(stride=2, padding=1), dict(dilation=2, padding=2),
                                dict(groups=2, padding=1), dict(padding="same"), dict(padding="valid"),
                                dict(padding="same", dilation=3)], ids=str)
def test_conv1d(kw):
    parity(lambda x, w, b: F.conv1d(x, w, b, **kw), lambda x, w, b: TF.conv1d(x, w, b, **kw),
           [randn(2, 4, 9), randn(6, 4 // kw.get("groups", 1), 3), randn(6)])


@pytest.mark.parametrize("k", [(2, 2), (4, 3), (3, 3), (1, 2)], ids=str)
@pytest.mark.parametrize("dil", [1, 2])
def test_conv2d_padding_same(k, dil):
    parity(lambda x, w: F.conv2d(x, w, padding="same", dilation=dil),
           lambda x, w: TF.conv2d(x, w, padding="same", dilation=dil), [randn(2, 3, 7, 6), randn(4, 3, *k)])


def test_conv2d_padding_valid_and_errors():
    parity(lambda x, w: F.conv2d(x, w, padding="valid"), lambda x, w: TF.conv2d(x, w, padding="valid"),
           [randn(1, 2, 5, 5), randn(3, 2, 2, 2)])
    with pytest.raises(ValueError):
        F.conv2d(tc.randn(1, 2, 5, 5), tc.randn(3, 2, 2, 2), padding="same", stride=2)
    with pytest.raises(ValueError):
        F.conv2d(tc.randn(1, 2, 5, 5), tc.randn(3, 2, 2, 2), padding="full")


CT2 = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1), dict(stride=(3, 2), padding=(1, 2)),
       dict(dilation=2, padding=1), dict(groups=2, stride=2), dict(stride=2, dilation=2, output_padding=1),
       dict(padding=(2, 1))]


@pytest.mark.parametrize("kw", CT2, ids=str)
def test_conv_transpose2d(kw):
    g = kw.get("groups", 1)
    parity(lambda x, w, b: F.conv_transpose2d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose2d(x, w, b, **kw),
           [randn(2, 4, 4, 5), randn(4, 6 // g, 3, 4), randn(6)])


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=1, output_padding=2), dict(groups=2, dilation=2)],
                         ids=str)
def test_conv_transpose1d(kw):
    g = kw.get("groups", 1)
    parity(lambda x, w, b: F.conv_transpose1d(x, w, b, **kw), lambda x, w, b: TF.conv_transpose1d(x, w, b, **kw),
           [randn(2, 4, 6), randn(4, 2 // g * 2, 3), randn(4 // g * g)])


def test_conv_transpose2d_errors():
    with pytest.raises(tc.TcError, match="output_padding must be smaller"):
        F.conv_transpose2d(tc.randn(1, 2, 3, 3), tc.randn(2, 2, 3, 3), stride=1, output_padding=1)
    with pytest.raises(tc.TcError, match="input channels"):
        F.conv_transpose2d(tc.randn(1, 3, 3, 3), tc.randn(2, 2, 3, 3))


# -------------------------------------------------------------- pooling

MP2 = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, ceil_mode=True),
       dict(kernel_size=3, stride=2, ceil_mode=True, padding=1), dict(kernel_size=2, dilation=2),
       dict(kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2), padding=(1, 1), ceil_mode=True)]


@pytest.mark.parametrize("kw", MP2, ids=str)
@pytest.mark.parametrize("hw", [(7, 6), (5, 5)], ids=str)
def test_max_pool2d_with_indices(kw, hw):
    x = R.permutation(2 * 3 * hw[0] * hw[1]).reshape(2, 3, *hw) / 10.0  # distinct: no ties
    parity(lambda t: F.max_pool2d(t, return_indices=True, **kw),
           lambda t: TF.max_pool2d(t, return_indices=True, **kw), [x])
    parity(lambda t: F.max_pool2d(t, **kw), lambda t: TF.max_pool2d(t, **kw), [x], grad=False)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=2, dilation=3, return_indices=True)], ids=str)
def test_max_pool1d(kw):
    parity(lambda t: F.max_pool1d(t, **kw), lambda t: TF.max_pool1d(t, **kw), [R.permutation(30).reshape(2, 3, 5)
                                                                              * 1.0 + randn(2, 3, 5) * 0.01])


AP2 = [dict(kernel_size=2, ceil_mode=True), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
       dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
       dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=2, divisor_override=3),
       dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), ceil_mode=True, divisor_override=5)]


@pytest.mark.parametrize("kw", AP2, ids=str)
@pytest.mark.parametrize("hw", [(7, 6), (5, 4)], ids=str)
def test_avg_pool2d(kw, hw):
    parity(lambda t: F.avg_pool2d(t, **kw), lambda t: TF.avg_pool2d(t, **kw), [randn(2, 3, *hw)])


@pytest.mark.parametrize("kw", [dict(kernel_size=3), dict(kernel_size=2, stride=2, padding=1, ceil_mode=True,
                                                          count_include_pad=False)], ids=str)
def test_avg_pool1d(kw):
    parity(lambda t: F.avg_pool1d(t, **kw), lambda t: TF.avg_pool1d(t, **kw), [randn(2, 3, 7)])


@pytest.mark.parametrize("out", [(1, 1), (3, 2), (4, 5), (7, 6), (2, None)], ids=str)
def test_adaptive_pool2d(out):
    x = R.permutation(2 * 3 * 7 * 6).reshape(2, 3, 7, 6) / 7.0
    parity(lambda t: F.adaptive_avg_pool2d(t, out), lambda t: TF.adaptive_avg_pool2d(t, out), [x],
           noncontig=True)
    if None not in out:
        parity(lambda t: F.adaptive_max_pool2d(t, out, return_indices=True),
               lambda t: TF.adaptive_max_pool2d(t, out, return_indices=True), [x])


@pytest.mark.parametrize("out", [1, 3, 5])
def test_adaptive_avg_pool1d(out):
    parity(lambda t: F.adaptive_avg_pool1d(t, out), lambda t: TF.adaptive_avg_pool1d(t, out), [randn(2, 3, 7)])


def test_pool_errors():
    with pytest.raises(tc.TcError, match="at most half the kernel"):
        F.max_pool2d(tc.randn(1, 1, 5, 5), 2, padding=2, ceil_mode=True)
    with pytest.raises(tc.TcError, match="larger than the padded input"):
        F.avg_pool2d(tc.randn(1, 1, 2, 2), 3, ceil_mode=True)
    with pytest.raises(tc.TcError):
        F.adaptive_max_pool2d(tc.randn(1, 1, 2, 2), (-1, 1))


# ----------------------------------------------------------- resampling

INTERP = [dict(size=(5, 7), mode="nearest"), dict(scale_factor=2, mode="nearest"),
          dict(scale_factor=0.5, mode="nearest"), dict(scale_factor=1.7, mode="nearest"),
          dict(size=(5, 7), mode="bilinear"), dict(size=(5, 7), mode="bilinear", align_corners=True),
          dict(scale_factor=2, mode="bilinear"), dict(scale_factor=(0.6, 1.5), mode="bilinear"),
          dict(size=(2, 2), mode="bilinear", align_corners=True), dict(size=(1, 1), mode="bilinear",
                                                                       align_corners=True)]


@pytest.mark.parametrize("kw", INTERP, ids=str)
def test_interpolate_2d(kw):
    parity(lambda t: F.interpolate(t, **kw), lambda t: TF.interpolate(t, **kw), [randn(2, 3, 4, 5)])


@pytest.mark.parametrize("kw", [dict(size=9, mode="linear"), dict(scale_factor=2.5, mode="linear"),
                                dict(size=9, mode="linear", align_corners=True), dict(size=3, mode="nearest"),
                                dict(scale_factor=3, mode="nearest")], ids=str)
def test_interpolate_1d(kw):
    parity(lambda t: F.interpolate(t, **kw), lambda t: TF.interpolate(t, **kw), [randn(2, 3, 6)])


def test_interpolate_errors():
    with pytest.raises(ValueError):
        F.interpolate(tc.randn(1, 1, 4), size=3, mode="bilinear")
    with pytest.raises(ValueError):
        F.interpolate(tc.randn(1, 1, 4, 4), size=3, scale_factor=2.0)


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((2, 2, 4, 1, 1), 2)], ids=str)
def test_pixel_shuffle(shape, r):
    parity(lambda t: F.pixel_shuffle(t, r), lambda t: TF.pixel_shuffle(t, r), [randn(*shape)])
    parity(lambda t: F.pixel_unshuffle(F.pixel_shuffle(t, r), r),
           lambda t: TF.pixel_unshuffle(TF.pixel_shuffle(t, r), r), [randn(*shape)])
    with pytest.raises(tc.TcError, match="divisible"):
        F.pixel_shuffle(tc.randn(1, 3, 2, 2), 2)


def test_pixel_shuffle_int_dtype():
    x = np.arange(2 * 8 * 2 * 3).reshape(2, 8, 2, 3)
    assert to_np(F.pixel_shuffle(tc.tensor(x), 2)).tolist() == TF.pixel_shuffle(torch.tensor(x), 2).tolist()


# ----------------------------------------------------- embedding, dropout

@pytest.mark.parametrize("pad", [0, 2, -1])
def test_embedding_padding_idx(pad):
    idx = np.array([[0, 2, 1], [3, 2, 2]], dtype=np.int64)
    parity(lambda w: F.embedding(tc.tensor(idx), w, padding_idx=pad),
           lambda w: TF.embedding(torch.tensor(idx), w, padding_idx=pad), [randn(4, 3)])
    with pytest.raises(tc.TcError, match="padding_idx"):
        F.embedding(tc.tensor(idx), tc.randn(4, 3), padding_idx=4)


def test_dropout2d_zeroes_whole_channels():
    x = tc.ones(8, 16, 3, 4)
    y = to_np(F.dropout2d(x, 0.5, training=True))
    per_channel = y.reshape(8, 16, -1)
    # Every channel is all-zero or all-2 (scaled by 1/(1-p)).
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2).all(-1))
    frac = (per_channel[..., 0] == 0).mean()
    assert 0.2 < frac < 0.8
    assert to_np(F.dropout2d(x, 0.5, training=False)).tolist() == to_np(x).tolist()
    x.requires_grad = True
    y = F.dropout2d(x, 0.5)
    y.sum().backward()
    np.testing.assert_array_equal(to_np(x.grad), to_np(y.detach()))
    with pytest.raises(ValueError):
        F.dropout2d(x, 1.5)


@pytest.mark.parametrize("kw", [dict(), dict(is_causal=True), dict(bool_mask=True), dict(float_mask=True)],
                         ids=str)
def test_sdpa_masks(kw):
    L, S = 4, 5
    if kw.get("is_causal"):
        S = L
    mask = None
    if kw.get("bool_mask"):
        mask = R.uniform(size=(L, S)) > 0.3
        mask[:, 0] = True
    if kw.get("float_mask"):
        mask = randn(L, S)

    def f_tc(q, k, v):
        m = tc.tensor(mask.astype(np.float64) if mask.dtype.kind == "f" else mask) if mask is not None else None
        if m is not None and m.dtype.name != "bool":
            m = m.to(q.dtype)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=kw.get("is_causal", False))

    def f_th(q, k, v):
        m = torch.tensor(mask) if mask is not None else None
        if m is not None and m.dtype != torch.bool:
            m = m.to(q.dtype)
        # torch 1.13 has no scaled_dot_product_attention: its definition.
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if kw.get("is_causal"):
            m = torch.ones(L, S, dtype=torch.bool).tril()
        if m is not None and m.dtype == torch.bool:
            scores = scores.masked_fill(~m, float("-inf"))
        elif m is not None:
            scores = scores + m
        return scores.softmax(-1) @ v

    parity(f_tc, f_th, [randn(2, L, 3), randn(2, S, 3), randn(2, S, 4)])


# ---------------------------------------------------------------- modules

@pytest.fixture
def f64():
    """Modules made in these tests hold float64 parameters and buffers."""
    prev = tc.get_default_dtype()
    tc.set_default_dtype("float64")
    yield
    tc.set_default_dtype(prev)


def test_batchnorm_module_state_dict_and_modes(f64):
    torch.manual_seed(0)
    ref = torch.nn.BatchNorm1d(3, momentum=None).double()
    m = nn.BatchNorm1d(3, momentum=None)
    assert list(m.state_dict()) == list(ref.state_dict())
    for step in range(3):
        x = randn(6, 3, 2) * (step + 1)
        assert_same(m(tc.tensor(x)), ref(torch.tensor(x)), TOL[np.float64])
    sd, rsd = m.state_dict(), ref.state_dict()
    for k in ("running_mean", "running_var"):
        assert_same(sd[k], rsd[k], TOL[np.float64])
    assert int(sd["num_batches_tracked"].item()) == 3
    m.eval()
    ref.eval()
    x = randn(2, 3)
    assert_same(m(tc.tensor(x)), ref(torch.tensor(x)), TOL[np.float64])
    with pytest.raises(ValueError):
        m(tc.randn(2, 3, 4, 5))
    free = nn.BatchNorm2d(2, affine=False, track_running_stats=False)
    assert list(free.state_dict()) == []
    free.eval()  # no running stats: batch statistics in eval mode too
    x = randn(3, 2, 2, 2)
    assert_same(free(tc.tensor(x)), TF.batch_norm(torch.tensor(x), None, None, training=True), TOL[np.float64])


def test_instance_and_group_norm_modules(f64):
    x = randn(2, 4, 3, 3)
    ref = torch.nn.InstanceNorm2d(4, affine=True, track_running_stats=True).double()
    m = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
    assert_same(m(tc.tensor(x)), ref(torch.tensor(x)), TOL[np.float64])
    assert_same(m.running_var, ref.running_var, TOL[np.float64])
    m.eval()
    ref.eval()
    assert_same(m(tc.tensor(x)), ref(torch.tensor(x)), TOL[np.float64])
    g = nn.GroupNorm(2, 4)
    assert_same(g(tc.tensor(x)), torch.nn.GroupNorm(2, 4).double()(torch.tensor(x)), TOL[np.float64])


@pytest.mark.parametrize("make", [
    lambda lib: lib.Conv1d(4, 6, 3, padding="same", groups=2),
    lambda lib: lib.Conv2d(4, 6, (2, 3), padding="same"),
    lambda lib: lib.ConvTranspose1d(4, 6, 3, stride=2, output_padding=1),
    lambda lib: lib.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)], ids=range(4))
def test_conv_modules_match_torch_with_copied_weights(make, f64):
    torch.manual_seed(0)
    ref, m = make(torch.nn).double(), make(nn)
    assert [tuple(p.shape) for p in m.parameters()] == [tuple(p.shape) for p in ref.parameters()]
    # PyTorch's initialization bounds: kaiming_uniform(a=sqrt(5)) = U(-1/sqrt(fan_in), ..), bias the same.
    fan_in = ref.weight.shape[1] * int(np.prod(ref.weight.shape[2:]))
    for p in m.parameters():
        assert float(p.abs().max().item()) <= 1 / np.sqrt(fan_in) + 1e-6
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    x = randn(2, 4, *(5, 6)[:len(ref.weight.shape) - 2])
    assert_same(m(tc.tensor(x)), ref(torch.tensor(x)), TOL[np.float64])


def test_pool_resample_modules(f64):
    x = randn(2, 3, 7, 6)
    pairs = [(nn.MaxPool2d(3, 2, 1, dilation=1, ceil_mode=True), torch.nn.MaxPool2d(3, 2, 1, ceil_mode=True)),
             (nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False),
              torch.nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False)),
             (nn.AdaptiveAvgPool2d((3, 2)), torch.nn.AdaptiveAvgPool2d((3, 2))),
             (nn.AdaptiveMaxPool2d(2), torch.nn.AdaptiveMaxPool2d(2)),
             (nn.Upsample(scale_factor=2, mode="bilinear"), torch.nn.Upsample(scale_factor=2, mode="bilinear")),
             (nn.PixelUnshuffle(1), torch.nn.PixelUnshuffle(1))]
    for a, b in pairs:
        assert_same(a(tc.tensor(x)), b(torch.tensor(x)), TOL[np.float64])
    x1 = randn(2, 3, 9)
    for a, b in [(nn.MaxPool1d(2, ceil_mode=True), torch.nn.MaxPool1d(2, ceil_mode=True)),
                 (nn.AvgPool1d(3, 2, 1), torch.nn.AvgPool1d(3, 2, 1)),
                 (nn.AdaptiveAvgPool1d(4), torch.nn.AdaptiveAvgPool1d(4))]:
        assert_same(a(tc.tensor(x1)), b(torch.tensor(x1)), TOL[np.float64])
    ps = nn.PixelShuffle(2)
    assert tuple(ps(tc.randn(1, 8, 2, 3)).shape) == (1, 2, 4, 6)
    d = nn.Dropout2d(0.5)
    d.eval()
    assert to_np(d(tc.tensor(x))).tolist() == x.tolist()


def test_embedding_module_padding_idx(f64):
    e = nn.Embedding(5, 3, padding_idx=1)
    assert to_np(e.weight)[1].tolist() == [0.0, 0.0, 0.0]
    out = e(tc.tensor(np.array([1, 2, 1], dtype=np.int64)))
    out.sum().backward()
    g = to_np(e.weight.grad)
    assert g[1].tolist() == [0.0, 0.0, 0.0] and g[2].tolist() == [1.0, 1.0, 1.0]
