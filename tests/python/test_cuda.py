"""CUDA through the Python package: matmul/linear (cuBLAS) forward and
backward against the CPU, rand/randn equal on both devices for one seed,
optimizer steps on CUDA parameters equal the CPU's; the float32 matmul
precision setting. The CUDA tests skip without a usable GPU."""
import pytest

import tc

cuda = pytest.mark.skipif(not tc.cuda.is_available(), reason="no usable CUDA GPU")


def test_matmul_precision_set_get():
    assert tc.get_float32_matmul_precision() == "highest"
    try:
        for p in ("high", "medium", "highest"):
            tc.set_float32_matmul_precision(p)
            assert tc.get_float32_matmul_precision() == p
        with pytest.raises(ValueError):
            tc.set_float32_matmul_precision("low")
        assert tc.get_float32_matmul_precision() == "highest"
    finally:
        tc.set_float32_matmul_precision("highest")


def test_has_cublas_follows_has_cuda():
    assert tc.flags["has_cublas"] == tc.flags["has_cuda"]


def _close(a, b, tol):
    x, y = a.cpu().double().tolist(), b.cpu().double().tolist()

    def flat(v):
        return [z for e in v for z in flat(e)] if isinstance(v, list) else [v]

    x, y = flat(x), flat(y)
    assert len(x) == len(y)
    for i, (p, q) in enumerate(zip(x, y)):
        assert abs(p - q) <= tol * (1 + abs(q)), (i, p, q)


@cuda
@pytest.mark.parametrize("dtype,tol", [(tc.float32, 2e-5), (tc.float64, 1e-12), (tc.float16, 2e-3),
                                       (tc.bfloat16, 1.6e-2)])
@pytest.mark.parametrize("sa,sb", [((5,), (5,)), ((3, 5), (5,)), ((5,), (5, 4)), ((3, 5), (5, 4)),
                                   ((2, 3, 5), (5, 4)), ((2, 1, 3, 5), (6, 5, 4))])
def test_matmul_matches_cpu(dtype, tol, sa, sb):
    a = tc.rand(*sa, dtype=tc.float64).to(dtype)
    b = tc.rand(*sb, dtype=tc.float64).to(dtype)
    want = tc.matmul(a.double(), b.double()).to(dtype)
    got = tc.matmul(a.cuda(), b.cuda())
    assert got.is_cuda and got.dtype == dtype
    _close(got, want, tol)


@cuda
def test_linear_backward_matches_cpu():
    F = tc.nn.functional
    x, w, b = tc.randn(6, 7), tc.randn(4, 7), tc.randn(4)
    g = tc.randn(6, 4)
    grads = []
    for dev in ("cpu", "cuda"):
        xs = [t.to(dev).detach().requires_grad_() for t in (x, w, b)]
        F.linear(*xs).backward(g.to(dev))
        grads.append([t.grad for t in xs])
    for c, d in zip(*grads):
        assert d.is_cuda
        _close(d, c, 2e-5)


@cuda
@pytest.mark.parametrize("dtype", [tc.float32, tc.float64, tc.float16, tc.bfloat16])
def test_rand_equal_on_both_devices(dtype):
    for make in (tc.rand, tc.randn):
        tc.manual_seed(123)
        c = make(1001, dtype=dtype)
        tc.manual_seed(123)
        d = make(1001, dtype=dtype, device="cuda")
        tol = 0 if make is tc.rand else (1e-2 if dtype in (tc.float16, tc.bfloat16) else 1e-6)
        _close(d, c, tol)


@cuda
@pytest.mark.parametrize("make", [lambda ps: tc.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True,
                                                          weight_decay=1e-3),
                                  lambda ps: tc.optim.Adam(ps, lr=1e-2, weight_decay=1e-2),
                                  lambda ps: tc.optim.AdamW(ps, lr=1e-2)])
def test_optimizer_steps_equal_on_both_devices(make):
    F = tc.nn.functional
    x, w0, b0 = tc.randn(8, 5), tc.randn(3, 5), tc.randn(3)
    gs = [tc.randn(8, 3) for _ in range(3)]
    finals = []
    for dev in ("cpu", "cuda"):
        w = w0.to(dev).detach().requires_grad_()
        b = b0.to(dev).detach().requires_grad_()
        opt = make([w, b])
        for g in gs:
            opt.zero_grad()
            F.linear(x.to(dev), w, b).backward(g.to(dev))
            opt.step()
        finals.append((w, b))
    for c, d in zip(*finals):
        _close(d, c, 1e-5)
