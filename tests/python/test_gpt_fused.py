"""The fused paths of the GPT training step (bench/bench_gpt.py) against
PyTorch 1.13: the exact GELU's vectorized float32 formula (values and
gradients on both tails, special values, strided, 0-d and empty inputs) and
AdamW's one-pass step over all parameters (several steps of two parameter
groups, float32 and float64, against torch.optim.AdamW)."""
import math

import pytest

import tc
import tc.nn.functional as F

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional


def tc_of(a, requires_grad=False):
    """A tc tensor with a numpy array's values and dtype."""
    return tc.tensor(a, dtype=str(a.dtype), requires_grad=requires_grad)


def np_of(t):
    return np.asarray(t.detach().tolist(), dtype=t.dtype.name).reshape(tuple(t.shape))


def gelu_f64_reference(x):
    """x * Phi(x) and its derivative in float64 by torch, through erfc so that
    the negative tail keeps its relative accuracy (1 + erf loses it)."""
    xt = torch.tensor(x, dtype=torch.float64)
    cdf = 0.5 * torch.erfc(-xt / math.sqrt(2.0))
    pdf = torch.exp(-0.5 * xt * xt) / math.sqrt(2.0 * math.pi)
    return (xt * cdf).numpy(), (cdf + xt * pdf).numpy()


GELU_POINTS = np.concatenate([np.linspace(-14.0, 14.0, 20001), np.array([0.0, -0.0, 1e-30, -1e-30, 0.75179])])


def test_gelu_float32_values_match_torch():
    x = GELU_POINTS.astype(np.float32)
    got = np_of(F.gelu(tc_of(x)))
    want = TF.gelu(torch.from_numpy(x)).numpy()
    # PyTorch's float32 1 + erf(x / sqrt 2) cancels below x = -3 (4% off at
    # x = -5; |x| * 2^-25 absolute, 4.2e-7 at x = -14): an absolute tolerance
    # covers its tail.
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def test_gelu_float32_is_accurate_on_both_tails():
    x = GELU_POINTS.astype(np.float32)
    value, slope = gelu_f64_reference(x.astype(np.float64))
    got = np_of(F.gelu(tc_of(x))).astype(np.float64)
    keep = np.abs(value) > 1e-37  # float32's normal range
    np.testing.assert_allclose(got[keep], value[keep], rtol=1e-6, atol=0)
    xt = tc_of(x, requires_grad=True)
    F.gelu(xt).sum().backward()
    grad = np_of(xt.grad).astype(np.float64)
    # The slope crosses zero near x = -0.75: an absolute tolerance there.
    np.testing.assert_allclose(grad, slope, rtol=1e-6, atol=1e-7)


def test_gelu_float32_gradient_matches_torch():
    rs = np.random.default_rng(0)
    x = (rs.standard_normal((64, 33)) * 3).astype(np.float32)
    g = rs.standard_normal((64, 33)).astype(np.float32)
    xt = tc_of(x, requires_grad=True)
    (F.gelu(xt) * tc_of(g)).sum().backward()
    xr = torch.from_numpy(x).requires_grad_()
    (TF.gelu(xr) * torch.from_numpy(g)).sum().backward()
    np.testing.assert_allclose(np_of(xt.grad), xr.grad.numpy(), rtol=2e-6, atol=2e-6)


def test_gelu_float64_keeps_libm_erf():
    rs = np.random.default_rng(1)
    x = rs.standard_normal(1000) * 4
    xt = tc_of(x, requires_grad=True)
    F.gelu(xt).sum().backward()
    xr = torch.from_numpy(x).requires_grad_()
    TF.gelu(xr).sum().backward()
    np.testing.assert_allclose(np_of(F.gelu(tc_of(x))), TF.gelu(xr).detach().numpy(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(np_of(xt.grad), xr.grad.numpy(), rtol=1e-13, atol=1e-15)


def test_gelu_float32_special_values_match_torch():
    x = np.array([np.inf, -np.inf, np.nan, 88.0, -88.0, 3e38, -3e38], dtype=np.float32)
    xt = tc_of(x, requires_grad=True)
    y = F.gelu(xt)
    y.sum().backward()
    xr = torch.from_numpy(x).requires_grad_()
    yr = TF.gelu(xr)
    yr.sum().backward()
    np.testing.assert_array_equal(np_of(y), yr.detach().numpy())
    np.testing.assert_array_equal(np_of(xt.grad), xr.grad.numpy())


def test_gelu_float32_strided_scalar_and_empty():
    rs = np.random.default_rng(2)
    x = (rs.standard_normal((6, 10)) * 2).astype(np.float32)
    t = tc_of(x)
    np.testing.assert_allclose(np_of(F.gelu(t.transpose(0, 1))), TF.gelu(torch.from_numpy(x).t()).numpy(),
                               rtol=2e-6, atol=2e-7)
    np.testing.assert_allclose(np_of(F.gelu(t[:, ::3])), TF.gelu(torch.from_numpy(x)[:, ::3]).numpy(),
                               rtol=2e-6, atol=2e-7)
    s = tc.tensor(-1.5, dtype="float32")
    assert F.gelu(s).shape == ()
    assert abs(F.gelu(s).item() - TF.gelu(torch.tensor(-1.5)).item()) < 1e-7
    e = F.gelu(tc.zeros(0, 3, dtype="float32"))
    assert tuple(e.shape) == (0, 3)
    assert tc.nn.GELU()(tc_of(x)).shape == (6, 10)


# ------------------------------------------------------------------- AdamW

# Sizes around the CPU kernel's parallel grain (32768 elements), a 0-d and an
# empty parameter; the 2-D ones decay (the GPT recipe), the rest do not.
ADAMW_SHAPES = [(300, 250), (7, 5), (3,), (), (0, 4)]


def _adamw_pair(dtype, seed=0):
    rs = np.random.default_rng(seed)
    values = [rs.standard_normal(s).astype(dtype) for s in ADAMW_SHAPES]
    grads = [[rs.standard_normal(s).astype(dtype) for s in ADAMW_SHAPES] for _ in range(3)]
    return values, grads


def _run_tc_adamw(values, grads):
    params = [tc_of(v, requires_grad=True) for v in values]
    decay = [p for p, v in zip(params, values) if v.ndim >= 2]
    rest = [p for p, v in zip(params, values) if v.ndim < 2]
    opt = tc.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                         lr=1e-2, betas=(0.9, 0.99))
    for step in grads:
        opt.zero_grad()
        for p, g in zip(params, step):
            (p * tc_of(g)).sum().backward()
        opt.step()
    return [np_of(p) for p in params]


def _run_torch_adamw(values, grads):
    params = [torch.tensor(v, requires_grad=True) for v in values]
    decay = [p for p, v in zip(params, values) if v.ndim >= 2]
    rest = [p for p, v in zip(params, values) if v.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}],
                            lr=1e-2, betas=(0.9, 0.99))
    for step in grads:
        opt.zero_grad()
        for p, g in zip(params, step):
            p.grad = torch.tensor(g)
        opt.step()
    return [p.detach().numpy() for p in params]


@pytest.mark.parametrize("dtype,tol", [(np.float32, dict(rtol=2e-6, atol=1e-7)),
                                       (np.float64, dict(rtol=1e-13, atol=1e-15))], ids=["float32", "float64"])
def test_adamw_steps_match_torch(dtype, tol):
    values, grads = _adamw_pair(dtype)
    for got, want in zip(_run_tc_adamw(values, grads), _run_torch_adamw(values, grads)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, **tol)


def test_adamw_step_does_not_depend_on_the_thread_count():
    values, grads = _adamw_pair(np.float32, seed=3)
    old = tc.get_num_threads()
    try:
        tc.set_num_threads(1)
        one = _run_tc_adamw(values, grads)
        tc.set_num_threads(2)
        two = _run_tc_adamw(values, grads)
    finally:
        tc.set_num_threads(old)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


# ---- the attention block's gradient plumbing: qkv split, transposed output ----

@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("use", [(0, 1, 2), (0, 2), (1,)], ids=["all", "skip-middle", "middle-only"])
def test_split_backward_matches_torch(dtype, use):
    """split's pieces share one backward node; pieces without a gradient leave zeros."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 10)).astype(dtype)
    w = [rng.standard_normal((2, 3, 4)).astype(dtype) for _ in range(3)]
    got, want = tc_of(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for t, lib in ((got, tc), (want, torch)):
        src = t.transpose(0, 1)  # a non-contiguous input
        pieces = src.split(4, dim=2)  # 4, 4, 2 along the last dim
        loss = None
        for i in use:
            wi = (tc_of(w[i]) if lib is tc else torch.tensor(w[i])).transpose(0, 1)[..., :pieces[i].shape[2]]
            term = (pieces[i] * pieces[i] * wi).sum()
            loss = term if loss is None else loss + term
        loss.backward()
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np_of(got.grad), want.grad.numpy(), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_attention_output_transpose_backward_matches_torch(dtype):
    """(attn @ v).transpose(1, 2).reshape(b, t, d), as the GPT block: the matmul's
    gradient arrives transposed and is read through its strides."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((2, 3, 5, 5)).astype(dtype)
    v = rng.standard_normal((2, 5, 3, 4)).astype(dtype)  # [B, T, H, E] -> transposed below
    g = rng.standard_normal((2, 5, 12)).astype(dtype)
    grads = []
    for lib, mk in ((tc, lambda z: tc_of(z, requires_grad=True)), (torch, lambda z: torch.tensor(z, requires_grad=True))):
        at, vt = mk(a), mk(v)
        y = (at @ vt.transpose(1, 2)).transpose(1, 2).reshape(2, 5, 12)
        (y * (tc_of(g) if lib is tc else torch.tensor(g))).sum().backward()
        grads.append((at.grad, vt.grad))
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    for got, want in zip(grads[0], grads[1]):
        np.testing.assert_allclose(np_of(got), want.numpy(), **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("use", [(0, 1, 2), (2,)], ids=["all", "last-only"])
def test_unbind_backward_matches_torch(dtype, use):
    """q, k, v = qkv.unbind(2): one backward node; unused slices leave zeros."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 2, 3, 5)).astype(dtype)
    w = rng.standard_normal((3, 2, 4, 5)).astype(dtype)
    got, want = tc_of(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for t, lib in ((got, tc), (want, torch)):
        pieces = t.transpose(0, 1).unbind(2)  # a non-contiguous input; three [2, 4, 5]
        ws = tc_of(w) if lib is tc else torch.tensor(w)
        loss = None
        for i in use:
            term = (pieces[i] * pieces[i] * ws[i]).sum()
            loss = term if loss is None else loss + term
        loss.backward()
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np_of(got.grad), want.grad.numpy(), **tol)
