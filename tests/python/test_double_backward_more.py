"""Double backward of the reductions, scans, order statistics, triangles,
diagonals, padding, index_put, split/unbind and adaptive pools, float64:
tc's second derivatives against PyTorch 1.13's (the harness of
test_double_backward_nodes.py) and against central differences of tc's own
first derivative (tc.autograd.gradgradcheck)."""
import itertools

import pytest

import tc
import tc.nn.functional as F
from conftest import need
from test_double_backward_nodes import check

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

R = np.random.default_rng(23)


def fn(lib):
    return F if lib is tc else TF


def r(*shape):
    return R.standard_normal(shape)


def spread(*shape):
    """Values well apart (no ties, none near another), in random order: the
    order statistics pick the same element under a finite-difference step."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.37 + 0.2).reshape(shape) * np.where(R.random(shape) < 0.5, -1, 1)


def well(*shape):
    """Well-conditioned square matrices: [*batch, n, n], random plus 3 I."""
    n = shape[-1]
    return r(*shape[:-1], n, n) * 0.5 + 3 * np.eye(n)


def zero_at(x, *positions):
    for p in positions:
        x[p] = 0.0
    return x


def real_spectrum(n):
    """P diag(d) P^-1: real eigenvalues well apart, not symmetric."""
    p = r(n, n) + 2 * np.eye(n)
    return p @ np.diag(np.arange(1.0, n + 1) * 0.7 + R.uniform(0, 0.2, n)) @ np.linalg.inv(p)


def complex_spectrum(n):
    """A random matrix with complex eigenvalues, none near another."""
    while True:
        a = r(n, n)
        w = np.linalg.eigvals(a)
        if np.abs(w.imag).max() > 0.1 and (np.abs(w[:, None] - w[None, :]) + np.eye(n)).min() > 0.2:
            return a


def eig_loss(L, a):
    """Depends on the eigenvectors through |V_ij| only (not on their phases,
    which PyTorch refuses); its eigenvalues are complex."""
    w, v = L.linalg.eig(a)
    return w.real * (w.imag ** 2 + 1) + (v.abs() ** 3).sum(0) * a.sum(0)


def eigvals_loss(L, a):
    w = L.linalg.eigvals(a)
    return w.real ** 2 + w.imag * w.real + w.abs() * a.sum(1)


def causal_attention(lib, q, k, v):
    """tc's fused causal attention; PyTorch 1.13's by its formula."""
    if lib is tc:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).triu(1)
    return torch.softmax(scores.masked_fill(mask, float("-inf")), -1) @ v


def with_zeros():
    x = r(3, 4)
    x[0, 1] = 0.0  # one zero in a row
    x[2, 0] = x[2, 3] = 0.0  # two zeros in a row
    return x


CASES = {
    "var_dim": (lambda L, x: x.var(1) ** 2 + x.var(0, keepdim=True).sum() * x[:, 0], [r(3, 4)]),
    "var_all_unbiased_false": (lambda L, x: x.var(unbiased=False) * x.sin(), [r(3, 4)]),
    "std_dim": (lambda L, x: x.std(1) * x.sum(1), [r(3, 4)]),
    "std_all": (lambda L, x: x.std() ** 3 * x[0], [r(2, 3)]),
    "prod_dim": (lambda L, x: x.prod(1) * x.sum(1), [r(3, 4)]),
    "prod_all_keepdim": (lambda L, x: x.prod(0, keepdim=True) ** 2 + x.prod(), [r(3, 3)]),
    "prod_zeros": (lambda L, x: x.prod(1) * x.sum(1), [with_zeros()]),
    "norm_2": (lambda L, x: L.norm(x, dim=1) ** 3, [r(3, 4)]),
    "norm_p3_and_1": (lambda L, x: L.norm(x, p=3, dim=1) * L.norm(x, p=1, dim=1), [r(3, 4)]),
    "norm_inf": (lambda L, x: L.norm(x, p=float("inf"), dim=1) * x.sum(1), [spread(3, 4)]),
    "amax_amin": (lambda L, x: x.amax(1) * x.sum(1) + x.amin(0).sum() ** 2, [spread(3, 4)]),
    "tril_triu": (lambda L, x: x.tril(-1) ** 2 + x.triu(1).exp(), [r(3, 4)]),
    "diagonal": (lambda L, x: x.diagonal(1) ** 3, [r(3, 4)]),
    "diagonal_dims": (lambda L, x: x.diagonal(0, 0, 2).sin(), [r(3, 2, 4)]),
    "diag_embed": (lambda L, v: L.diag(v * v, 1).exp(), [r(3)]),
    "pad_constant": (lambda L, x: fn(L).pad(x * x, (1, 2, 0, -1), value=0.5) ** 2, [r(2, 3, 4)]),
    "pad_reflect": (lambda L, x: fn(L).pad(x, (2, 1), mode="reflect") ** 3, [r(1, 2, 5)]),
    "pad_replicate": (lambda L, x: fn(L).pad(x, (1, 2), mode="replicate") ** 3, [r(1, 2, 4)]),
    "pad_circular": (lambda L, x: fn(L).pad(x, (2, 1), mode="circular") ** 3, [r(1, 2, 4)]),
    "index_put": (lambda L, x, v: x.index_put((L.tensor([0, 2]),), v * v) ** 2, [r(3, 4), r(2, 4)]),
    "index_put_broadcast_accumulate": (
        lambda L, x, v: x.index_put((L.tensor([0, 2, 0]),), v.exp(), accumulate=True) ** 2, [r(3, 4), r(4)]),
    "sort": (lambda L, x: x.sort(1)[0] ** 3 * L.arange(4.0, dtype=L.float64), [spread(3, 4)]),
    "sort_descending": (lambda L, x: x.sort(0, descending=True)[0].cumsum(0) ** 2, [spread(3, 4)]),
    "topk": (lambda L, x: x.topk(2, 1)[0] ** 3, [spread(3, 5)]),
    "kthvalue": (lambda L, x: x.kthvalue(2, 1)[0] ** 3, [spread(3, 4)]),
    "median": (lambda L, x: x.median(1)[0] ** 3 + x.median() ** 2, [spread(3, 5)]),
    "mode": (lambda L, x: x.mode(1)[0] ** 3, [spread(3, 4)]),
    "cummax_cummin": (lambda L, x: x.cummax(1)[0] ** 3 + x.cummin(0)[0] ** 2, [spread(3, 4)]),
    "cumsum": (lambda L, x: x.cumsum(1) ** 3 + x.cumsum(0).exp(), [r(3, 4)]),
    "cumprod": (lambda L, x: x.cumprod(1) ** 2, [r(3, 4)]),
    "logcumsumexp": (lambda L, x: x.logcumsumexp(1) ** 2, [r(3, 4)]),
    "split": (lambda L, x: L.cat([p * p.sum() for p in x.split(2, 1)], 1), [r(3, 5)]),
    "unbind_one_unused": (lambda L, x: x.unbind(1)[0] * x.unbind(1)[2] ** 2, [r(3, 4)]),
    "adaptive_avg_pool2d": (lambda L, x: fn(L).adaptive_avg_pool2d(x * x, (2, 3)) ** 2, [r(1, 2, 5, 4)]),
    "adaptive_avg_pool1d": (lambda L, x: fn(L).adaptive_avg_pool1d(x * x, 3) ** 2, [r(2, 2, 5)]),
    "adaptive_max_pool2d": (lambda L, x: fn(L).adaptive_max_pool2d(x, (2, 2)) ** 3, [spread(1, 2, 4, 5)]),
    "adaptive_max_pool1d": (lambda L, x: fn(L).adaptive_max_pool1d(x, 2) ** 3, [spread(2, 2, 5)]),
    "linalg_inv": (lambda L, a: L.linalg.inv(a).sin(), [well(3)]),
    "linalg_det_batched": (lambda L, a: L.linalg.det(a) ** 2, [well(2, 3)]),
    "linalg_slogdet": (lambda L, a: L.linalg.slogdet(a)[1] ** 2 * a[0], [well(3)]),
    "linalg_solve": (lambda L, a, b: L.linalg.solve(a, b).tanh(), [well(3), r(3, 2)]),
    "linalg_solve_broadcast_vector": (lambda L, a, b: L.linalg.solve(a, b) ** 2, [well(2, 3), r(3)]),
    "linalg_solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a.triu(), b, upper=True) ** 2,
                                [well(3), r(2, 3, 2)]),
    "linalg_cholesky": (lambda L, x: L.linalg.cholesky(x @ x.transpose(-2, -1) + 3 * L.eye(3, dtype=L.float64))
                        .sin(), [r(3, 3)]),
    "linalg_lu_factor_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b) ** 2,
                               [well(3), r(3, 2)]),
    "linalg_lu": (lambda L, a: L.linalg.lu(a)[1].sin() + L.linalg.lu(a)[2] ** 2, [well(3)]),
    "linalg_qr": (lambda L, a: L.linalg.qr(a)[0].sin().sum(0) + (L.linalg.qr(a)[1] ** 2).sum(0), [r(4, 3)]),
    "linalg_svd": (lambda L, a: (L.linalg.svd(a, full_matrices=False)[0] ** 4).sum(0)
                   + L.linalg.svd(a, full_matrices=False)[1] ** 2
                   + (L.linalg.svd(a, full_matrices=False)[2] ** 4).sum(0), [r(3, 3)]),
    "linalg_eigh": (lambda L, x: (L.linalg.eigh(x + x.transpose(0, 1))[1] ** 4).sum(0)
                    + L.linalg.eigh(x + x.transpose(0, 1))[0] ** 2, [r(3, 3)]),
    "causal_attention": (lambda L, q, k, v: causal_attention(L, q, k, v).sin(), [r(2, 4, 3), r(2, 4, 3), r(2, 4, 3)]),
    "scatter_reduce_sum_mean": (lambda L, x, v: x.scatter_reduce(1, L.tensor([[0, 2, 0], [1, 1, 3]]), v * v, "sum")
                                ** 2 + x.scatter_reduce(1, L.tensor([[3, 2, 3], [0, 1, 0]]), v.exp(), "mean",
                                                        include_self=False) ** 2, [r(2, 4), r(2, 3)]),
    "scatter_reduce_amax_amin": (lambda L, x, v: x.scatter_reduce(0, L.tensor([[0, 1], [0, 0]]), v, "amax") ** 3
                                 + x.scatter_reduce(0, L.tensor([[1, 1], [0, 1]]), v, "amin",
                                                    include_self=False).exp(), [spread(2, 2), spread(2, 2) + 0.05]),
    "view_as_real_complex": (lambda L, x: L.view_as_real(L.view_as_complex(x)) ** 3, [r(3, 2)]),
    "complex_abs": (lambda L, x: L.view_as_complex(x * x).abs().sin(), [r(3, 2)]),
    "fft_rfft": (lambda L, x: L.view_as_real(L.fft.rfft(x * x)) ** 2, [r(2, 5)]),
    "fft_irfft": (lambda L, x: L.fft.irfft(L.view_as_complex(x * x), n=6) ** 3, [r(2, 4, 2)]),
    "fft_fft": (lambda L, x: L.view_as_real(L.fft.fft(L.view_as_complex(x * x))) ** 2, [r(5, 2)]),
    # (last: the arrays above keep their random values)
    "linalg_svdvals": (lambda L, a: L.linalg.svdvals(a) ** 3 * a.sum(), [r(3, 4)]),
    "linalg_eigvalsh": (lambda L, x: L.linalg.eigvalsh(x + x.transpose(-2, -1)) ** 3, [r(2, 3, 3)]),
    "linalg_eig_real_spectrum": (eig_loss, [real_spectrum(3)]),
    "linalg_eig_complex_spectrum": (eig_loss, [complex_spectrum(4)]),
    "linalg_eigvals": (eigvals_loss, [complex_spectrum(3)]),
    "linalg_eigvals_batched": (lambda L, a: L.linalg.eigvals(a).abs() ** 3,
                               [np.stack([real_spectrum(3), complex_spectrum(3)])]),
    "linalg_householder_product": (lambda L, a, tau: L.linalg.householder_product(a, tau).sin(),
                                   [r(4, 3), r(2)]),
    "linalg_householder_product_batched": (lambda L, a, tau: L.linalg.householder_product(a, tau) ** 3,
                                           [r(2, 3, 3), r(2, 3)]),
    "linalg_lstsq_tall": (lambda L, a, b: L.linalg.lstsq(a, b).solution.sin(), [r(5, 3), r(5, 2)]),
    "linalg_lstsq_wide": (lambda L, a, b: L.linalg.lstsq(a, b).solution ** 3, [r(2, 4), r(2, 3)]),
    "linalg_lstsq_batched_gelsd": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd").solution ** 2,
                                   [r(2, 4, 3), r(2, 4, 2)]),
    "cumprod_zeros": (lambda L, x: x.cumprod(1) ** 2 + x.cumprod(0).sin(), [with_zeros()]),
    "scatter_reduce_prod_zeros": (lambda L, x, v: x.scatter_reduce(1, L.tensor([[0, 2, 0], [1, 1, 3]]), v, "prod")
                                  ** 2, [zero_at(r(2, 4), (0, 1), (1, 3)), zero_at(r(2, 3), (0, 0), (1, 1))]),
    "scatter_reduce_prod_exclude_self": (lambda L, x, v: x.scatter_reduce(0, L.tensor([[0, 1], [0, 0]]), v, "prod",
                                                                          include_self=False).sin(),
                                         [r(2, 2), zero_at(r(2, 2), (1, 0))]),
    # rank 1 (det exactly 0): the cofactors through the minors under create_graph
    "linalg_det_rank_one": (lambda L, a: L.linalg.det(a) * a.sum(), [np.outer([1.0, 2.0, 4.0], [1.0, -2.0, 0.5])]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_against_torch(name):
    need("tc_autograd_grad")
    f, arrays = CASES[name]
    check(f, arrays)


@pytest.mark.parametrize("name", list(CASES))
def test_gradgradcheck(name):
    need("tc_autograd_grad")
    f, arrays = CASES[name]
    xs = tuple(tc.tensor(a, requires_grad=True) for a in arrays)
    assert tc.autograd.gradgradcheck(lambda *ts: f(tc, *ts), xs)


def test_prod_gradient_node_is_differentiable_through_its_own_recorded_form():
    # the zero case's recorded form calls prod again: three orders deep
    def third(lib, a):
        x = lib.tensor(a, requires_grad=True)
        (g,) = lib.autograd.grad(x.prod(1).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x, create_graph=True)
        (k,) = lib.autograd.grad(h.sum(), x)
        return k
    a = with_zeros()
    np.testing.assert_allclose(np.array(third(tc, a).tolist()), third(torch, a).numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shapes", [((5, 3), (5,)), ((2, 4), (2,))])
def test_lstsq_vector_gradgradcheck(shapes):
    # against finite differences only: PyTorch 1.13's lstsq backward fails for a vector B
    need("tc_autograd_grad")
    rng = np.random.default_rng(5)
    xs = tuple(tc.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    assert tc.autograd.gradgradcheck(lambda a, b: tc.linalg.lstsq(a, b).solution ** 3, xs)


@pytest.mark.parametrize("m, n, driver", [(5, 3, "gelsd"), (3, 5, "gelsy"), (6, 4, "gelss"), (4, 4, "gelsd")])
def test_lstsq_rank_deficient_against_torch(m, n, driver):
    # Rank 2: the problems the drivers other than gels exist for. PyTorch's
    # gradient is the pseudo-inverse's (pinv_backward), first and second
    # order; finite differences change the rank and do not apply.
    need("tc_autograd_grad")
    rng = np.random.default_rng(m * 10 + n)
    a = rng.standard_normal((m, 2)) @ rng.standard_normal((2, n))
    b = rng.standard_normal((m, 2))
    f = lambda L, x, y: L.linalg.lstsq(x, y, driver=driver).solution ** 3  # noqa: E731
    firsts = []
    for L in (tc, torch):
        x, y = L.tensor(a, requires_grad=True), L.tensor(b, requires_grad=True)
        f(L, x, y).sum().backward()
        firsts.append([np.array(t.grad.tolist()) for t in (x, y)])
    for got, want in zip(*firsts):
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)
    check(f, [a, b])


@pytest.mark.parametrize("which", [0, 1])
def test_lstsq_gradient_of_one_input_only(which):
    # Only the input that requires grad gets one (the other's formula is skipped).
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal((5, 3)), rng.standard_normal((5, 2))]
    grads = []
    for L in (tc, torch):
        ts = [L.tensor(a, requires_grad=(i == which)) for i, a in enumerate(arrays)]
        (L.linalg.lstsq(*ts, driver="gelsd").solution ** 2).sum().backward()
        assert ts[1 - which].grad is None
        grads.append(np.array(ts[which].grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


def leibniz_det(a):
    """det as the polynomial it is (torch differentiates it exactly)."""
    n = a.shape[-1]
    total = 0
    for p in itertools.permutations(range(n)):
        sign = (-1) ** sum(p[i] > p[j] for i in range(n) for j in range(i + 1, n))
        term = sign
        for i in range(n):
            term = term * a[..., i, p[i]]
        total = total + term
    return total


@pytest.mark.parametrize("a", [[[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
                               [[1.0, 1.0, 0.0, 2.0], [2.0, 2.0, 0.0, 4.0], [0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 2.0, 1.0]]])
def test_det_rank_n_minus_1_second_derivative(a):
    # PyTorch 1.13's double backward of det differentiates the SVD's cofactor
    # formula, wrong at rank n - 1 (|sigma_min| at its kink): the reference is
    # torch differentiating det's polynomial, and finite differences.
    need("tc_autograd_grad")
    a = np.array(a)
    f = lambda L, x: (L.linalg.det(x) if L is tc else leibniz_det(x)) * x.sum()  # noqa: E731
    check(f, [a])
    x = tc.tensor(a, requires_grad=True)
    # the steps' first derivatives (det A^-T of a nearly singular A) lose
    # digits as 1/step: a larger step (exact enough for det's polynomial)
    assert tc.autograd.gradgradcheck(lambda t: tc.linalg.det(t) * t.sum(), (x,), eps=1e-4)


def test_scatter_reduce_prod_two_zeros_in_one_place_raises_named():
    # PyTorch 1.13 refuses it too (a DelayedError on src's gradient)
    need("tc_autograd_grad")
    x = tc.tensor([[1.5, 2.0, -1.0]], requires_grad=True)
    v = tc.tensor([[0.0, 0.0, 3.0]], requires_grad=True)
    y = x.scatter_reduce(1, tc.tensor([[1, 1, 2]]), v, "prod")
    gx, gv = tc.autograd.grad((y * y).sum(), (x, v), create_graph=True)
    tc.autograd.grad((gx * gx).sum(), x)  # self's gradient is differentiable
    with pytest.raises(NotImplementedError, match="scatter_reduce"):
        tc.autograd.grad(gv.sum(), v)


def recurrent(kind):
    """f(lib, x, h0) running torch's `kind` layer (float64, 2 layers, both
    directions) with the same weights in both libraries."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
    state = {k: v.detach().numpy().copy() for k, v in ref.state_dict().items()}
    made = {}

    def module(lib):
        if lib not in made:
            m = getattr(lib.nn, kind)(3, 4, num_layers=2, bidirectional=True).double()
            m.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
            made[lib] = m
        return made[lib]

    def f(lib, x, h0):
        hx = (h0, h0.cos()) if kind == "LSTM" else h0
        out, h = module(lib)(x, hx)
        return out.tanh() * (h[0] if kind == "LSTM" else h).sum()
    return f


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_fused_recurrent_layers(kind):
    need("tc_autograd_grad")
    f = recurrent(kind)
    check(f, [r(3, 2, 3), r(4, 2, 4)])
    xs = (tc.tensor(r(2, 1, 3), requires_grad=True), tc.tensor(r(4, 1, 4), requires_grad=True))
    assert tc.autograd.gradgradcheck(lambda *ts: f(tc, *ts), xs)
