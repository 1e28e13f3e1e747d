"""Double backward of the hand-written nodes (matmul/linear/addmm/bmm,
reductions, views and indexing, cat, softmax/log_softmax, the losses,
layer/batch/group norm, embedding, conv2d, pooling), float64, against
PyTorch 1.13: for f(params) with upstream gradient v, the second pass
differentiates s = sum(w_i * dy/dp_i) with respect to every parameter and
to v."""
import pytest

import tc
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(11)


def to_np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def second(lib, f, arrays, consts, v, ws):
    ts = [lib.tensor(a, requires_grad=True) for a in arrays]
    cs = [lib.tensor(c) for c in consts]
    tv = lib.tensor(v, requires_grad=True)
    y = f(lib, *ts, *cs)
    gs = lib.autograd.grad(y, ts, tv, create_graph=True)
    s = sum((g * lib.tensor(w)).sum() for g, w in zip(gs, ws))
    out = lib.autograd.grad(s, ts + [tv], allow_unused=True)
    return [None if g is None else (to_np(g) if lib is tc else g.detach().numpy()) for g in out]


def check(f, arrays, consts=()):
    """tc's second derivatives of f against torch's."""
    y = f(torch, *[torch.tensor(a) for a in arrays], *[torch.tensor(c) for c in consts])
    v = R.standard_normal(tuple(y.shape))
    ws = [R.standard_normal(a.shape) for a in arrays]
    got = second(tc, f, arrays, consts, v, ws)
    want = second(torch, f, arrays, consts, v, ws)
    for k, (g, h) in enumerate(zip(got, want)):
        if h is None or g is None:
            z = h if g is None else g
            assert z is None or np.allclose(z, 0, atol=1e-10), k
            continue
        np.testing.assert_allclose(g, h, rtol=1e-7, atol=1e-9, err_msg="argument %d" % k)


def fn(lib):
    return F if lib is tc else TF


def r(*shape):
    return R.standard_normal(shape)


CASES = {
    "matmul": (lambda L, a, b: (a @ b).tanh(), [r(3, 4), r(4, 2)]),
    "matmul_batched_broadcast": (lambda L, a, b: (a @ b).sin(), [r(2, 3, 4), r(4, 5)]),
    "mv_dot": (lambda L, a, b: (a @ b) * (b @ b), [r(3, 4), r(4)]),
    "linear": (lambda L, x, w, b: fn(L).linear(x, w, b).tanh(), [r(5, 3), r(4, 3), r(4)]),
    "addmm": (lambda L, i, a, b: L.addmm(i, a, b, beta=0.5, alpha=2.0).sigmoid(), [r(3, 2), r(3, 4), r(4, 2)]),
    "bmm": (lambda L, a, b: L.bmm(a, b).tanh(), [r(2, 3, 4), r(2, 4, 2)]),
    "sum_mean": (lambda L, x: (x.sum(1, keepdim=True) * x.mean(0)).exp(), [r(3, 4)]),
    "max_dim": (lambda L, x: x.max(1)[0] ** 2, [r(3, 5)]),
    "max_all": (lambda L, x: x.max() * x.sin(), [r(3, 5)]),
    "logsumexp": (lambda L, x: x.logsumexp(1) ** 2, [r(3, 4)]),
    "views": (lambda L, x: (x.reshape(4, 3).t().unsqueeze(0).expand(2, 3, 4).permute(2, 0, 1) ** 3).squeeze(),
              [r(3, 4)]),
    "slicing": (lambda L, x: (x[1:, ::2] * x[0] .sum()) + x.narrow(1, 1, 2).sum() * x.select(0, 2)[0], [r(3, 4)]),
    "index_gather": (lambda L, x, i: x.index_select(0, i).sin() + x.gather(1, L.tensor([[0, 1], [2, 0], [1, 1]]))
                     .cos().sum(), [r(3, 3)], [np.array([2, 0, 1])]),
    "advanced_index": (lambda L, x: x[L.tensor([0, 2, 2])] ** 3, [r(3, 4)]),
    "cat": (lambda L, a, b: L.cat([a * a, b.exp()], 1).tanh(), [r(2, 3), r(2, 2)]),
    "softmax": (lambda L, x: fn(L).softmax(x, 1) * x, [r(3, 5)]),
    "log_softmax": (lambda L, x: fn(L).log_softmax(x, 1) ** 2, [r(3, 5)]),
    "cross_entropy": (lambda L, x, t: fn(L).cross_entropy(x, t), [r(4, 5)], [np.array([1, 0, 4, 2])]),
    "cross_entropy_sum": (lambda L, x, t: fn(L).cross_entropy(x, t, reduction="sum"), [r(4, 5)],
                          [np.array([1, 0, 4, 2])]),
    "nll_loss": (lambda L, x, t: fn(L).nll_loss(fn(L).log_softmax(x, 1), t), [r(4, 5)], [np.array([1, 0, 4, 2])]),
    "mse_loss": (lambda L, x, y: fn(L).mse_loss(x.tanh(), y), [r(3, 4), r(3, 4)]),
    "bce_with_logits": (lambda L, x, y: fn(L).binary_cross_entropy_with_logits(x, y), [r(3, 4)],
                        [R.uniform(0, 1, (3, 4))]),
    "activations": (lambda L, x: fn(L).gelu(x) + fn(L).silu(x) * fn(L).leaky_relu(x, 0.1) + x.relu() * x
                    + x.tanh() * x.sigmoid(), [r(3, 4) + 0.01]),
    "layer_norm": (lambda L, x, w, b: fn(L).layer_norm(x, (4,), w, b).sin(), [r(3, 4), r(4), r(4)]),
    "batch_norm": (lambda L, x, w, b: fn(L).batch_norm(x, None, None, w, b, training=True).sin(),
                   [r(4, 3), r(3), r(3)]),
    "group_norm": (lambda L, x, w, b: fn(L).group_norm(x, 2, w, b).sin(), [r(2, 4, 3), r(4), r(4)]),
    "embedding": (lambda L, w, i: fn(L).embedding(i, w).tanh(), [r(5, 3)], [np.array([[0, 4], [4, 2]])]),
    "conv2d": (lambda L, x, w, b: fn(L).conv2d(x, w, b, stride=2, padding=1).tanh(),
               [r(2, 2, 5, 5), r(3, 2, 3, 3), r(3)]),
    "conv2d_groups_dilation": (lambda L, x, w: fn(L).conv2d(x, w, groups=2, dilation=2).sin(),
                               [r(1, 4, 6, 6), r(2, 2, 2, 2)]),
    "max_pool2d": (lambda L, x: fn(L).max_pool2d(x * x, 2) ** 2, [r(1, 2, 4, 4)]),
    "avg_pool2d": (lambda L, x: fn(L).avg_pool2d(x * x, 2, padding=1) ** 2, [r(1, 2, 4, 4)]),
    "clamp_where": (lambda L, x: L.where(x > 0, x ** 2, x.clamp(-0.5, 0.5) * x), [r(3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_node_twice(name):
    need("tc_autograd_grad")
    case = CASES[name]
    f, arrays = case[0], case[1]
    consts = case[2] if len(case) > 2 else ()
    check(f, arrays, consts)


def test_wgan_gp_gradient_penalty():
    """A WGAN-GP critic's gradient penalty: d/dtheta of ||d critic / d x||^2
    through conv2d, leaky_relu and linear, against torch."""
    xs, ws = r(2, 1, 6, 6), [r(2, 1, 3, 3), r(2), r(1, 8), r(1)]

    def penalty(lib):
        x = lib.tensor(xs, requires_grad=True)
        p = [lib.tensor(a, requires_grad=True) for a in ws]
        h = fn(lib).leaky_relu(fn(lib).conv2d(x, p[0], p[1], stride=2), 0.2)
        out = fn(lib).linear(h.reshape(2, -1), p[2], p[3])
        (gx,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        pen = (((gx.reshape(2, -1) ** 2).sum(1).sqrt() - 1) ** 2).mean()
        pen.backward()
        return [a.grad for a in p]

    got, want = penalty(tc), penalty(torch)
    assert got[0] is not None and want[0] is not None  # the conv weight gets the penalty's gradient
    for a, b, shape in zip(got, want, [w.shape for w in ws]):
        a = np.zeros(shape) if a is None else to_np(a)  # None: the penalty does not depend on it
        b = np.zeros(shape) if b is None else b.numpy()
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)
