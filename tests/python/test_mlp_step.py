"""The fast paths of the C training step against torch 1.13: small float32
products (a kept oneDNN matmul primitive after a layout repeats, every
operand layout), linear's bias gradient (column sums split across threads),
plain SGD over a large parameter (split across threads) and the 784-256-10
MLP step itself (gradients kept without a copy), at 1 and 2 threads."""
import pytest

import tc
import tc.nn.functional as TF

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


@pytest.fixture(params=[1, 2])
def threads(request):
    old = tc.get_num_threads()
    tc.set_num_threads(request.param)
    yield request.param
    tc.set_num_threads(old)


def as_tc(a, requires_grad=False):
    t = tc.tensor(np.ascontiguousarray(a))
    if requires_grad:
        t.requires_grad_(True)
    return t


def as_np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t.numpy())


@pytest.mark.parametrize("m,n,k", [(64, 64, 64), (128, 128, 128), (32, 96, 48), (100, 40, 120), (8, 64, 64)])
@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_small_matmul_layouts_match_torch(threads, m, n, k, ta, tb):
    r = np.random.default_rng(m * 1000 + n + k)
    a = r.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = r.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    ta_, tb_ = as_tc(a), as_tc(b)
    ta_ = ta_.t() if ta else ta_
    tb_ = tb_.t() if tb else tb_
    want = (torch.from_numpy(a).t() if ta else torch.from_numpy(a)) @ (
        torch.from_numpy(b).t() if tb else torch.from_numpy(b))
    # The first calls run on sgemm; once the layout repeats, on the kept primitive.
    for _ in range(6):
        got = as_np(tc.matmul(ta_, tb_))
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-4)


def test_small_matmul_many_layouts_and_threads():
    # More layouts than a thread keeps, from several threads at once.
    import threading
    r = np.random.default_rng(3)
    shapes = [(32 + 8 * i, 64, 40 + 4 * i) for i in range(12)]
    data = [(r.standard_normal((m, k)).astype(np.float32), r.standard_normal((k, n)).astype(np.float32))
            for m, n, k in shapes]
    errors = []

    def work():
        try:
            for _ in range(5):
                for a, b in data:
                    got = as_np(tc.matmul(as_tc(a), as_tc(b)))
                    np.testing.assert_allclose(got, a @ b, rtol=1e-4, atol=1e-4)
        except Exception as e:  # reported on the main thread
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linear_bias_grad_large_batch_matches_torch(threads, dtype):
    r = np.random.default_rng(1)
    x = r.standard_normal((1024, 96)).astype(dtype)
    w = r.standard_normal((300, 96)).astype(dtype)
    b = r.standard_normal(300).astype(dtype)
    g = r.standard_normal((1024, 300)).astype(dtype)
    xt, wt, bt = torch.from_numpy(x), torch.from_numpy(w).requires_grad_(), torch.from_numpy(b).requires_grad_()
    torch.nn.functional.linear(xt, wt, bt).backward(torch.from_numpy(g))
    xc, wc, bc = as_tc(x), as_tc(w, True), as_tc(b, True)
    TF.linear(xc, wc, bc).backward(as_tc(g))
    tol = 1e-4 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(as_np(bc.grad), bt.grad.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(as_np(wc.grad), wt.grad.numpy(), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("batch", [64, 1024])
def test_mlp_step_matches_torch(threads, batch):
    r = np.random.default_rng(batch)
    params = [(r.random((256, 784)) * 0.1 - 0.05).astype(np.float32),
              (r.random(256) * 0.1 - 0.05).astype(np.float32),
              (r.random((10, 256)) * 0.1 - 0.05).astype(np.float32),
              (r.random(10) * 0.1 - 0.05).astype(np.float32)]
    x = r.random((batch, 784)).astype(np.float32)
    y = (r.random(batch) * 9.999).astype(np.int64)
    p_th = [torch.from_numpy(p.copy()).requires_grad_() for p in params]
    p_tc = [as_tc(p, True) for p in params]
    opt_th = torch.optim.SGD(p_th, lr=0.05)
    opt_tc = tc.optim.SGD(p_tc, lr=0.05)
    xt, yt, xc, yc = torch.from_numpy(x), torch.from_numpy(y), as_tc(x), as_tc(y)
    for _ in range(3):
        loss_th = torch.nn.functional.cross_entropy(
            torch.nn.functional.linear(torch.relu(torch.nn.functional.linear(xt, p_th[0], p_th[1])), p_th[2], p_th[3]), yt)
        opt_th.zero_grad(set_to_none=True)
        loss_th.backward()
        opt_th.step()
        loss_tc = TF.cross_entropy(TF.linear(TF.linear(xc, p_tc[0], p_tc[1]).relu(), p_tc[2], p_tc[3]), yc)
        opt_tc.zero_grad()
        loss_tc.backward()
        # The kept gradients are the leaves' own: writable, dense, unshared.
        grads = [p.grad for p in p_tc]
        assert all(g is not None and g.is_contiguous() for g in grads)
        opt_tc.step()
        assert abs(loss_tc.item() - loss_th.item()) < 2e-5
    for pc, pt in zip(p_tc, p_th):
        np.testing.assert_allclose(as_np(pc), pt.detach().numpy(), rtol=1e-4, atol=2e-6)


def special_logits(r, n, c, scale, dtype):
    """Logits over [-scale, scale]; rows 0-3 hold -inf, entries ~800 below the
    row max, equal values and a NaN."""
    x = (r.standard_normal((n, c)) * scale).astype(dtype)
    if n >= 4:
        x[0, 0] = -np.inf
        x[1, 0], x[1, 1:] = 5.0, -800.0 + np.arange(1, c)
        x[2, :] = 0.25
        x[3, c // 2] = np.nan
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,c", [(1024, 10), (1001, 10), (2100, 1), (130, 1024), (5, 2048), (9, 2100)])
def test_cross_entropy_rows_match_torch(threads, dtype, n, c):
    # float32 rows of up to 2048 classes go through blocks of 2048 logits
    # with a polynomial exp; wider rows and float64 keep libm's exp.
    r = np.random.default_rng(n * 7 + c)
    for scale in (1.0, 30.0):
        x = special_logits(r, n, c, scale, dtype)
        y = r.integers(0, c, n)
        xt = torch.from_numpy(x).requires_grad_()
        xc = as_tc(x, True)
        lt = torch.nn.functional.cross_entropy(xt, torch.from_numpy(y), reduction="none")
        lc = TF.cross_entropy(xc, as_tc(y), reduction="none")
        tol = dict(rtol=2e-6, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(as_np(lc), lt.detach().numpy(), **tol)
        # Rows without NaN give the gradient (softmax - onehot); torch's NaN row too.
        ok = ~np.isnan(x).any(axis=1)
        g = r.standard_normal(n).astype(dtype) * ok
        lt.backward(torch.from_numpy(g))
        lc.backward(as_tc(g))
        np.testing.assert_allclose(as_np(xc.grad)[ok], xt.grad.numpy()[ok], **tol)
        mean_c = TF.cross_entropy(as_tc(x[ok]), as_tc(y[ok]))
        mean_t = torch.nn.functional.cross_entropy(torch.from_numpy(x[ok]), torch.from_numpy(y[ok]))
        np.testing.assert_allclose(mean_c.item(), mean_t.item(), **tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rows", [7, 1024, 3001])
def test_linear_bias_forward_matches_torch(threads, dtype, rows):
    # The bias fill before the GEMM splits across threads; x transposed and a
    # strided bias take the same path (the bias copied contiguous first).
    r = np.random.default_rng(rows)
    x = r.standard_normal((40, rows)).astype(dtype)
    w = r.standard_normal((256, 40)).astype(dtype)
    b = r.standard_normal(512).astype(dtype)
    xt, wt, bt = torch.from_numpy(x).t(), torch.from_numpy(w).requires_grad_(), torch.from_numpy(b)
    bt = bt.requires_grad_()
    want = torch.nn.functional.linear(xt, wt, bt[::2])
    xc, wc, bc = as_tc(x).t(), as_tc(w, True), as_tc(b, True)
    got = TF.linear(xc, wc, bc[::2])
    tol = 1e-4 if dtype == "float32" else 1e-11
    np.testing.assert_allclose(as_np(got), want.detach().numpy(), rtol=tol, atol=tol)
    g = r.standard_normal((rows, 256)).astype(dtype)
    want.backward(torch.from_numpy(g))
    got.backward(as_tc(g))
    np.testing.assert_allclose(as_np(bc.grad), bt.grad.numpy(), rtol=tol, atol=tol * 10)
    np.testing.assert_allclose(as_np(wc.grad), wt.grad.numpy(), rtol=tol, atol=tol * 10)
