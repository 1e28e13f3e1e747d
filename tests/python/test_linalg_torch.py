"""Every function of PyTorch 1.13's torch.linalg and its legacy torch.*
linear-algebra forms against torch itself, from one table: the same inputs
(batched, with broadcast batch dims where the function broadcasts) in
float32 and float64, the values compared, and in float64 the gradients of
the same weighted sum of the outputs (through gauge-invariant functions of
the singular and eigenvectors). Then out=, the _ex infos, PyTorch's errors
(singular matrices naming the batch element and the pivot, shapes named in
the message) and NaN inputs that finish."""
import math
import warnings

import numpy as np
import pytest

import tc
from tc import _linalg_more

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not hasattr(tc._lib.lib, "tc_linalg_lstsq") or tc._core.get_flag("has_lapack") != 1,
                                reason="libtc without LAPACK or without tc_linalg_lstsq")

RNG = np.random.default_rng(11)


def randn(*shape):
    return RNG.standard_normal(shape)


def well(*shape):
    return randn(*shape) + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    b = randn(*shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(x):
    return (x + x.transpose(-2, -1)) / 2


def tall(*shape):  # full column rank, well conditioned
    return randn(*shape) + np.eye(shape[-2], shape[-1]) * 3


# Gauge-invariant views of the vectors: a singular/eigenvector's sign is free.
def svd_inv(r):
    U, S, Vh = r
    return (U * S.unsqueeze(-2)) @ Vh, S, U * U, Vh * Vh


def eigh_inv(r):
    w, V = r
    return w, V * V, (V * w.unsqueeze(-2)) @ V.transpose(-2, -1)


def tup(r):
    return tuple(r)


def _namedtuple_or(x):
    return x


# name: (tc function, torch function, input makers, differentiable in float64)
# A function takes the modules' namespace objects (tc or torch) first so that
# one lambda serves both.
CASES = {
    "linalg.inv": (lambda m, a: m.linalg.inv(a), [lambda: well(2, 3, 4, 4)], True),
    "linalg.inv_ex": (lambda m, a: tup(m.linalg.inv_ex(a)), [lambda: well(3, 3, 3)], True),
    "inverse": (lambda m, a: m.inverse(a), [lambda: well(3, 3)], True),
    "linalg.det": (lambda m, a: m.linalg.det(a), [lambda: well(2, 4, 4)], True),
    "det": (lambda m, a: m.det(a), [lambda: randn(3, 3, 3)], True),
    "linalg.slogdet": (lambda m, a: tup(m.linalg.slogdet(a)), [lambda: randn(3, 4, 4)], True),
    "slogdet": (lambda m, a: tup(m.slogdet(a)), [lambda: randn(4, 4)], True),
    "logdet": (lambda m, a: m.logdet(a), [lambda: spd(2, 3, 3)], True),
    "linalg.solve": (lambda m, a, b: m.linalg.solve(a, b), [lambda: well(2, 1, 3, 3), lambda: randn(4, 3, 2)], True),
    "linalg.solve vector": (lambda m, a, b: m.linalg.solve(a, b), [lambda: well(2, 3, 3), lambda: randn(2, 3)], True),
    "linalg.solve left=False": (lambda m, a, b: m.linalg.solve(a, b, left=False),
                                [lambda: well(2, 3, 3), lambda: randn(2, 5, 3)], True),
    "linalg.solve_ex": (lambda m, a, b: tup(m.linalg.solve_ex(a, b)), [lambda: well(3, 3), lambda: randn(3, 2)], True),
    "linalg.solve_triangular upper": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [lambda: well(2, 1, 4, 4), lambda: randn(3, 4, 2)], True),
    "linalg.solve_triangular lower right unit": (
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        [lambda: well(2, 4, 4), lambda: randn(2, 3, 4)], True),
    "triangular_solve": (lambda m, b, a: tup(m.triangular_solve(b, a, upper=False, transpose=True)),
                         [lambda: randn(2, 3, 2), lambda: well(2, 3, 3)], True),
    "linalg.cholesky": (lambda m, a: m.linalg.cholesky(sym(a)), [lambda: spd(2, 4, 4)], True),
    "linalg.cholesky upper": (lambda m, a: m.linalg.cholesky(sym(a), upper=True), [lambda: spd(4, 4)], True),
    "linalg.cholesky_ex": (lambda m, a: tup(m.linalg.cholesky_ex(sym(a))), [lambda: spd(3, 3, 3)], True),
    "cholesky upper": (lambda m, a: m.cholesky(sym(a), upper=True), [lambda: spd(3, 3)], True),
    "cholesky_solve": (lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(sym(a))),
                       [lambda: randn(2, 3, 2), lambda: spd(2, 3, 3)], True),
    "cholesky_solve upper": (lambda m, b, a: m.cholesky_solve(b, m.linalg.cholesky(sym(a), upper=True), upper=True),
                             [lambda: randn(3, 2), lambda: spd(3, 3)], True),
    "cholesky_inverse": (lambda m, a: m.cholesky_inverse(m.linalg.cholesky(sym(a))), [lambda: spd(3, 3)], True),
    "linalg.qr": (lambda m, a: tup(m.linalg.qr(a)), [lambda: tall(2, 5, 3)], True),
    "linalg.qr wide": (lambda m, a: tup(m.linalg.qr(a)), [lambda: randn(3, 5)], True),
    "linalg.qr complete": (lambda m, a: tup(m.linalg.qr(a, mode="complete")), [lambda: randn(2, 5, 3)], False),
    "linalg.qr r": (lambda m, a: m.linalg.qr(a, mode="r")[1], [lambda: randn(4, 3)], False),
    "qr some=False": (lambda m, a: tup(m.qr(a, some=False)), [lambda: randn(3, 3)], True),
    "linalg.svd": (lambda m, a: svd_inv(m.linalg.svd(a, full_matrices=False)), [lambda: randn(2, 5, 3)], True),
    "linalg.svd wide": (lambda m, a: svd_inv(m.linalg.svd(a, full_matrices=False)), [lambda: randn(3, 5)], True),
    "linalg.svd full": (lambda m, a: m.linalg.svd(a)[1], [lambda: randn(2, 4, 3)], True),
    "linalg.svdvals": (lambda m, a: m.linalg.svdvals(a), [lambda: randn(3, 4, 5)], True),
    "svd some": (lambda m, a: (lambda r: ((r[0] * r[1].unsqueeze(-2)) @ r[2].transpose(-2, -1), r[1]))(m.svd(a)),
                 [lambda: randn(2, 4, 3)], True),
    "svd compute_uv=False": (lambda m, a: tup(m.svd(a, compute_uv=False)), [lambda: randn(4, 3)], False),
    "linalg.eigh": (lambda m, a: eigh_inv(m.linalg.eigh(sym(a))), [lambda: randn(2, 4, 4)], True),
    "linalg.eigh U": (lambda m, a: eigh_inv(m.linalg.eigh(a.triu() + a.triu(1).transpose(-2, -1), UPLO="U")),
                      [lambda: randn(4, 4)], True),
    "linalg.eigvalsh": (lambda m, a: m.linalg.eigvalsh(sym(a)), [lambda: randn(3, 5, 5)], True),
    "symeig": (lambda m, a: eigh_inv(m.symeig(sym(a), eigenvectors=True)), [lambda: randn(4, 4)], True),
    "linalg.lu_factor": (lambda m, a: tup(m.linalg.lu_factor(a)), [lambda: randn(2, 4, 4)], True),
    "linalg.lu_factor_ex": (lambda m, a: tup(m.linalg.lu_factor_ex(a)), [lambda: randn(4, 4)], True),
    "linalg.lu": (lambda m, a: tup(m.linalg.lu(a)), [lambda: randn(2, 4, 4)], True),
    "linalg.lu wide": (lambda m, a: tup(m.linalg.lu(a)), [lambda: randn(3, 5)], False),
    "linalg.lu_solve": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b),
                        [lambda: well(2, 3, 3), lambda: randn(2, 3, 2)], True),
    "linalg.lu_solve adjoint right": (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False,
                                                                        adjoint=True),
                                      [lambda: well(3, 3), lambda: randn(2, 3)], True),
    "lu_unpack": (lambda m, a: tup(m.lu_unpack(*m.linalg.lu_factor(a))), [lambda: randn(2, 3, 3)], False),
    "lu_solve legacy": (lambda m, b, a: m.lu_solve(b, *m.linalg.lu_factor(a)),
                        [lambda: randn(3, 2), lambda: well(3, 3)], True),
    "linalg.pinv": (lambda m, a: m.linalg.pinv(a), [lambda: tall(2, 5, 3)], True),
    "linalg.pinv hermitian": (lambda m, a: m.linalg.pinv(sym(a), hermitian=True), [lambda: spd(4, 4)], True),
    "pinverse": (lambda m, a: m.pinverse(a), [lambda: randn(3, 5)], True),
    "linalg.matrix_rank": (lambda m, a: m.linalg.matrix_rank(a), [lambda: randn(3, 4, 5)], False),
    "linalg.matrix_power 3": (lambda m, a: m.linalg.matrix_power(a, 3), [lambda: randn(2, 3, 3) / 2], True),
    "linalg.matrix_power -2": (lambda m, a: m.linalg.matrix_power(a, -2), [lambda: well(3, 3)], True),
    "matrix_power 0": (lambda m, a: m.matrix_power(a, 0), [lambda: randn(2, 3, 3)], False),
    "linalg.matrix_exp": (lambda m, a: m.linalg.matrix_exp(a), [lambda: randn(2, 4, 4)], True),
    "matrix_exp large": (lambda m, a: m.matrix_exp(a), [lambda: 4 * randn(3, 3)], True),
    "linalg.matrix_norm fro": (lambda m, a: m.linalg.matrix_norm(a), [lambda: randn(2, 3, 4)], True),
    "linalg.matrix_norm nuc": (lambda m, a: m.linalg.matrix_norm(a, "nuc"), [lambda: randn(2, 3, 4)], True),
    "linalg.matrix_norm 2": (lambda m, a: m.linalg.matrix_norm(a, 2), [lambda: randn(2, 3, 4)], True),
    "linalg.matrix_norm -2": (lambda m, a: m.linalg.matrix_norm(a, -2), [lambda: randn(2, 4, 3)], True),
    "linalg.matrix_norm 1 keepdim": (lambda m, a: m.linalg.matrix_norm(a, 1, keepdim=True),
                                     [lambda: randn(2, 3, 4)], True),
    "linalg.matrix_norm -inf dims": (lambda m, a: m.linalg.matrix_norm(a, -math.inf, dim=(0, 2)),
                                     [lambda: randn(3, 2, 4)], True),
    "linalg.matrix_norm nuc dims": (lambda m, a: m.linalg.matrix_norm(a, "nuc", dim=(2, 0)),
                                    [lambda: randn(3, 2, 4)], True),
    "linalg.vector_norm 3": (lambda m, a: m.linalg.vector_norm(a, 3, dim=-1), [lambda: randn(3, 4)], True),
    "linalg.vector_norm inf": (lambda m, a: m.linalg.vector_norm(a, math.inf), [lambda: randn(3, 4)], True),
    "linalg.norm": (lambda m, a: m.linalg.norm(a), [lambda: randn(3, 4)], True),
    "linalg.norm ord 2": (lambda m, a: m.linalg.norm(a, 2), [lambda: randn(3, 4)], True),
    "frobenius_norm": (lambda m, a: m.frobenius_norm(a), [lambda: randn(2, 3, 4)], True),
    "nuclear_norm": (lambda m, a: m.nuclear_norm(a), [lambda: randn(3, 4)], True),
    "linalg.cross": (lambda m, a, b: m.linalg.cross(a, b), [lambda: randn(2, 1, 3), lambda: randn(1, 4, 3)], True),
    "linalg.multi_dot": (lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
                         [lambda: randn(3), lambda: randn(3, 4), lambda: randn(4, 2)], True),
    "chain_matmul": (lambda m, a, b, c: m.chain_matmul(a, b, c),
                     [lambda: randn(2, 3), lambda: randn(3, 4), lambda: randn(4, 2)], True),
    "outer": (lambda m, a, b: m.outer(a, b), [lambda: randn(3), lambda: randn(4)], True),
    "ger": (lambda m, a, b: m.ger(a, b), [lambda: randn(3), lambda: randn(4)], True),
    "linalg.vander": (lambda m, a: m.linalg.vander(a, N=4), [lambda: randn(2, 3)], True),
    "linalg.tensorinv": (lambda m, a: m.linalg.tensorinv(a, ind=2), [lambda: well(6, 6).reshape(2, 3, 6)], True),
    "linalg.tensorsolve": (lambda m, a, b: m.linalg.tensorsolve(a, b),
                           [lambda: well(6, 6).reshape(2, 3, 6), lambda: randn(2, 3)], True),
    "linalg.vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), [lambda: randn(2, 1, 4), lambda: randn(3, 4)], True),
    "linalg.diagonal": (lambda m, a: m.linalg.diagonal(a, offset=1), [lambda: randn(2, 3, 4)], True),
    "linalg.matmul": (lambda m, a, b: m.linalg.matmul(a, b), [lambda: randn(2, 3, 4), lambda: randn(4, 2)], True),
    "linalg.householder_product": (lambda m, a, t: m.linalg.householder_product(a, t),
                                   [lambda: randn(2, 5, 3), lambda: randn(2, 2)], True),
    "linalg.householder_product square": (lambda m, a, t: m.linalg.householder_product(a, t),
                                          [lambda: randn(4, 4), lambda: randn(4)], True),
    "orgqr": (lambda m, a, t: m.orgqr(a, t), [lambda: randn(4, 3), lambda: randn(3)], True),
    # (torch 1.13 has no derivative for ormqr: values only)
    "ormqr": (lambda m, a, t, c: m.ormqr(a, t, c), [lambda: randn(4, 3), lambda: randn(3), lambda: randn(4, 2)],
              False),
    "ormqr right transpose": (lambda m, a, t, c: m.ormqr(a, t, c, left=False, transpose=True),
                              [lambda: randn(4, 3), lambda: randn(3), lambda: randn(2, 4)], False),
    "linalg.lstsq": (lambda m, a, b: tup(m.linalg.lstsq(a, b)), [lambda: tall(2, 5, 3), lambda: randn(2, 5, 2)],
                     True),
    # (torch 1.13's own backward fails for a vector B: values only; the gradient is checked below)
    "linalg.lstsq vector": (lambda m, a, b: tup(m.linalg.lstsq(a, b, driver="gelsd")),
                            [lambda: tall(2, 5, 3), lambda: randn(2, 5)], False),
    "linalg.lstsq broadcast": (lambda m, a, b: m.linalg.lstsq(a, b).solution,
                               [lambda: tall(2, 1, 5, 3), lambda: randn(1, 3, 5, 2)], True),
    "linalg.lstsq wide": (lambda m, a, b: tup(m.linalg.lstsq(a, b, driver="gelsd")),
                          [lambda: randn(3, 5), lambda: randn(3, 2)], True),
}
for _d in ("gels", "gelsy", "gelsd", "gelss"):
    CASES["linalg.lstsq " + _d] = (lambda m, a, b, d=_d: tup(m.linalg.lstsq(a, b, driver=d)),
                                   [lambda: tall(2, 6, 3), lambda: randn(2, 6, 2)], True)
    CASES["linalg.lstsq rank-deficient " + _d] = (
        lambda m, a, b, d=_d: tup(m.linalg.lstsq(a, b, driver=d))[1:] if d == "gels" else tup(
            m.linalg.lstsq(a, b, driver=d)),
        [lambda: np.repeat(randn(6, 2), [1, 2], axis=1), lambda: randn(6, 2)], False)
# torch 1.13's own backward fails for the p that go through the inverse
# (an in-place op on inv's output): values only for those.
for _p in (None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2):
    CASES["linalg.cond %s" % (_p,)] = (lambda m, a, p=_p: m.linalg.cond(a, p), [lambda: well(2, 3, 3)],
                                       _p in (None, 2, -2, "nuc"))


def _as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def _np(t):
    return np.asarray(t.tolist(), dtype=np.float64).reshape(tuple(t.shape))


def _run_case(name, dtype_name):
    f, makers, differentiable = CASES[name]
    arrays = [mk() for mk in makers]
    grad = differentiable and dtype_name == "float64"
    xs_tc = [tc.tensor(a, dtype=getattr(tc, dtype_name), requires_grad=grad) for a in arrays]
    xs_t = [torch.tensor(a, dtype=getattr(torch, dtype_name), requires_grad=grad) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out_tc, out_t = _as_list(f(tc, *xs_tc)), _as_list(f(torch, *xs_t))
    assert len(out_tc) == len(out_t), name
    tol = dict(atol=1e-8, rtol=1e-6) if dtype_name == "float64" else dict(atol=2e-4, rtol=2e-4)
    loss_tc = loss_t = None
    for o_tc, o_t in zip(out_tc, out_t):
        assert tuple(o_tc.shape) == tuple(o_t.shape), (name, tuple(o_tc.shape), tuple(o_t.shape))
        assert str(o_tc.dtype).rpartition(".")[2] == str(o_t.dtype).rpartition(".")[2], (name, o_tc.dtype, o_t.dtype)
        np.testing.assert_allclose(_np(o_tc), o_t.detach().double().numpy(), err_msg=name, **tol)
        if grad and o_t.is_floating_point() and o_t.requires_grad:
            w = randn(*o_t.shape)
            lt, lo = (o_tc * tc.tensor(w)).sum(), (o_t * torch.tensor(w)).sum()
            loss_tc = lt if loss_tc is None else loss_tc + lt
            loss_t = lo if loss_t is None else loss_t + lo
    if loss_t is None:
        return
    loss_tc.backward()
    loss_t.backward()
    for x_tc, x_t in zip(xs_tc, xs_t):
        if x_t.grad is None:
            continue
        assert x_tc.grad is not None, name
        np.testing.assert_allclose(_np(x_tc.grad), x_t.grad.numpy(), atol=1e-7, rtol=1e-5, err_msg=name + " grad")


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch_float64(name):
    _run_case(name, "float64")


# float32: the same table, values only (LAPACK's single-precision routines).
@pytest.mark.parametrize("name", [n for n in sorted(CASES) if "rank-deficient" not in n and "large" not in n])
def test_against_torch_float32(name):
    _run_case(name, "float32")


def test_lstsq_rank_deficient_residuals_and_rank():
    # rank 2 of 3 columns: no residuals but for gels, whose solution is
    # meaningless then (torch's too); rank and singular values as torch.
    # A fixed input of its own: torch's gelsy (QR with column pivoting)
    # reports rank 1 for about 1 in 1,000 such random matrices, and the
    # module's generator hands this test whatever the tests before it left.
    rng = np.random.default_rng(2024)
    a = np.repeat(rng.standard_normal((6, 2)), [1, 2], axis=1)
    b = rng.standard_normal((6, 2))
    for d in ("gelsy", "gelsd", "gelss"):
        r_tc = tc.linalg.lstsq(tc.tensor(a), tc.tensor(b), driver=d)
        r_t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=d)
        assert r_tc.rank.item() == r_t.rank.item() == 2
        assert tuple(r_tc.residuals.shape) == tuple(r_t.residuals.shape) == (0,)
        # the minimum-norm solution (gelsy's differs from the SVD's only by rounding)
        np.testing.assert_allclose(_np(r_tc.solution), r_t.solution.numpy(), atol=1e-8)
    r = tc.linalg.lstsq(tc.tensor(a), tc.tensor(b), rcond=0.9, driver="gelsd")
    assert r.rank.item() == torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), rcond=0.9, driver="gelsd").rank.item()


def test_lstsq_vector_gradient_is_the_matrix_one():
    a, b = tall(2, 5, 3), randn(2, 5)
    grads = []
    for vector in (True, False):
        x_a, x_b = tc.tensor(a, requires_grad=True), tc.tensor(b if vector else b[..., None], requires_grad=True)
        x = tc.linalg.lstsq(x_a, x_b).solution
        (x * tc.tensor(np.arange(6.0).reshape(2, 3) if vector else np.arange(6.0).reshape(2, 3, 1))).sum().backward()
        grads.append((_np(x_a.grad), _np(x_b.grad).reshape(2, 5)))
    np.testing.assert_allclose(grads[0][0], grads[1][0], atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], atol=1e-12)
    # and the matrix case is torch's
    t_a, t_b = torch.tensor(a, requires_grad=True), torch.tensor(b[..., None], requires_grad=True)
    (torch.linalg.lstsq(t_a, t_b).solution * torch.arange(6.0, dtype=torch.float64).reshape(2, 3, 1)).sum().backward()
    np.testing.assert_allclose(grads[1][0], t_a.grad.numpy(), atol=1e-10)


def _eig_sorted(w, v=None):
    """Eigenpairs sorted by (real, imaginary) part so that both sides line up."""
    order = np.lexsort((np.round(w[..., 1], 8), np.round(w[..., 0], 8)))
    return w[order], (v[:, order] if v is not None else None)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_eig_eigvals(dtype_name):
    # A real matrix with real and complex-conjugate eigenvalues, batched.
    a = randn(3, 5, 5)
    atol = 1e-9 if dtype_name == "float64" else 1e-4
    w_tc, v_tc = tc.linalg.eig(tc.tensor(a, dtype=getattr(tc, dtype_name)))
    w_t, v_t = torch.linalg.eig(torch.tensor(a, dtype=getattr(torch, dtype_name)))
    wr_t, vr_t = torch.view_as_real(w_t).double().numpy(), torch.view_as_real(v_t).double().numpy()
    if _linalg_more._has_complex():
        w_tc, v_tc = tc.view_as_real(w_tc), tc.view_as_real(v_tc)
    assert tuple(w_tc.shape) == wr_t.shape and tuple(v_tc.shape) == vr_t.shape
    ev = tc.linalg.eigvals(tc.tensor(a, dtype=getattr(tc, dtype_name)))
    ev_tc = _np(tc.view_as_real(ev) if _linalg_more._has_complex() else ev)
    for i in range(3):
        w1, v1 = _eig_sorted(_np(w_tc)[i], _np(v_tc)[i])
        w2, v2 = _eig_sorted(wr_t[i], vr_t[i])
        np.testing.assert_allclose(w1, w2, atol=atol * 10)
        np.testing.assert_allclose(_eig_sorted(ev_tc[i])[0], w2, atol=atol * 10)
        # Same LAPACK normalization (unit norm, largest component real): the
        # same vectors, up to the sign of a real eigenvector.
        c1, c2 = v1[..., 0] + 1j * v1[..., 1], v2[..., 0] + 1j * v2[..., 1]
        np.testing.assert_allclose(np.abs(np.sum(np.conj(c1) * c2, axis=0)), np.ones(5), atol=atol * 100)
        # A V = V diag(w)
        np.testing.assert_allclose(a[i] @ c1, c1 * (w1[:, 0] + 1j * w1[:, 1]), atol=atol * 100)


def test_eig_backward_follows_torch():
    # sum(V) depends on the eigenvectors' phases once they are complex: both refuse it then,
    # else both give the same gradient (tests/python/test_linalg_eig_grad.py has the rest).
    for a in (np.array([[0.0, -2.0, 0.3], [1.0, 0.1, 0.0], [0.2, 0.0, 1.5]]), np.diag([1.0, 2.0, 3.0]) + 0.1):
        y = torch.tensor(a, requires_grad=True)
        x = tc.tensor(a, dtype=tc.float64, requires_grad=True)
        w, v = torch.linalg.eig(y)
        try:
            (w.sum() + v.sum()).backward()
        except RuntimeError as e:
            assert "ill-defined" in str(e)
            w, v = tc.linalg.eig(x)
            with pytest.raises(RuntimeError, match="ill-defined"):
                (w.sum() + v.sum()).backward()
            continue
        w, v = tc.linalg.eig(x)
        (w.sum() + v.sum()).backward()
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_eig_nan_input():
    with pytest.raises(RuntimeError) as e_t:
        torch.linalg.eig(torch.full((3, 3), float("nan")))
    with pytest.raises(RuntimeError) as e_tc:
        tc.linalg.eig(tc.full((3, 3), float("nan")))
    assert str(e_t.value) in str(e_tc.value)


@pytest.mark.parametrize("fn,args", [
    ("inv", ([[1.0, 2.0], [2.0, 4.0]],)),
    ("solve", ([[1.0, 2.0], [2.0, 4.0]], [[1.0], [1.0]])),
])
def test_singular_names_batch_element_and_pivot(fn, args):
    batch = [np.eye(2).tolist()] * 3 + [args[0]]
    rest = [np.ones((4,) + np.shape(a)).tolist() for a in args[1:]]
    with pytest.raises(torch.linalg.LinAlgError) as e_t:
        getattr(torch.linalg, fn)(torch.tensor(batch), *[torch.tensor(r) for r in rest])
    with pytest.raises(tc.linalg.LinAlgError) as e_tc:
        getattr(tc.linalg, fn)(tc.tensor(batch), *[tc.tensor(r) for r in rest])
    assert str(e_t.value) in str(e_tc.value)
    assert "(Batch element 3)" in str(e_tc.value)


def test_inv_message_exact():
    batch = np.stack([np.eye(3)] * 4)
    batch[3, 1, :] = batch[3, 0, :]  # rows 0 and 1 equal: U[2, 2] = 0
    with pytest.raises(tc.linalg.LinAlgError) as e:
        tc.linalg.inv(tc.tensor(batch))
    with pytest.raises(torch.linalg.LinAlgError) as e_t:
        torch.linalg.inv(torch.tensor(batch))
    assert str(e_t.value) in str(e.value)
    assert "linalg.inv: (Batch element 3): The diagonal element 2 is zero" in str(e.value)


def test_ex_infos_match():
    a = np.stack([np.eye(3), np.zeros((3, 3)), -np.eye(3)])
    for name in ("inv_ex", "cholesky_ex", "lu_factor_ex"):
        r_tc = getattr(tc.linalg, name)(tc.tensor(a))
        r_t = getattr(torch.linalg, name)(torch.tensor(a))
        assert r_tc.info.tolist() == r_t.info.tolist(), name
    r_tc = tc.linalg.solve_ex(tc.tensor(a), tc.ones(3, 3, 1, dtype=tc.float64))
    r_t = torch.linalg.solve_ex(torch.tensor(a), torch.ones(3, 3, 1, dtype=torch.float64))
    assert r_tc.info.tolist() == r_t.info.tolist()


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.solve(m.eye(3), m.ones(2, 1)),
    lambda m: m.linalg.inv(m.ones(2, 3)),
    lambda m: m.linalg.det(m.ones(3)),
    lambda m: m.linalg.cholesky(m.ones(2, 3)),
    lambda m: m.linalg.eigh(m.ones(3, 2)),
    lambda m: m.linalg.eig(m.ones(3, 4)),
    lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(4, 2)),
    lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(5, 2), driver="foo"),
    lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(5, 2, dtype=m.float64)),
    lambda m: m.linalg.householder_product(m.ones(3, 4), m.ones(2)),
    lambda m: m.linalg.householder_product(m.ones(4, 3), m.ones(4)),
    lambda m: m.linalg.householder_product(m.ones(2, 4, 3), m.ones(3, 2)),
    lambda m: m.linalg.householder_product(m.ones(4, 3), m.ones(2, dtype=m.float64)),
    lambda m: m.linalg.solve_triangular(m.eye(3), m.ones(2, 1), upper=True),
    lambda m: m.linalg.matrix_power(m.ones(2, 3), 2),
    lambda m: m.lstsq(m.ones(3, 2), m.ones(3, 3)),
    lambda m: m.eig(m.ones(3, 3)),
    lambda m: m.matrix_rank(m.ones(3, 3)),
])
def test_errors_as_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError) as e_t:
            call(torch)
        with pytest.raises(RuntimeError) as e_tc:
            call(tc)
    # torch's message, or its gist (dtype names are spelled per library)
    msg_t = str(e_t.value).replace("Float", "").replace("Double", "")
    msg_tc = str(e_tc.value)
    words = [w for w in msg_t.replace(",", " ").split() if w.isalpha() and len(w) > 3][:6]
    assert all(w in msg_tc for w in words), (msg_t, msg_tc)


@pytest.mark.parametrize("fn", [
    lambda m, a: m.linalg.inv_ex(a).inverse, lambda m, a: m.linalg.det(a), lambda m, a: m.linalg.slogdet(a)[1],
    lambda m, a: m.linalg.cholesky_ex(a).L, lambda m, a: m.linalg.qr(a)[1], lambda m, a: m.linalg.solve_ex(a, a)[0],
    lambda m, a: m.linalg.lu_factor_ex(a)[0], lambda m, a: m.linalg.householder_product(a, a[0]),
    lambda m, a: m.linalg.lstsq(a, a, driver="gels").solution,
])
def test_nan_input_finishes(fn):
    a = np.eye(3)
    a[1, 1] = np.nan
    out = fn(tc, tc.tensor(a))  # returns: NaN propagates, nothing hangs
    assert np.isnan(_np(out)).any()


@pytest.mark.parametrize("fn", [lambda m, a: m.linalg.svd(a), lambda m, a: m.linalg.eigh(a)])
def test_nan_input_raises_for_iterations(fn):
    a = np.eye(3)
    a[1, 1] = np.nan
    with pytest.raises(RuntimeError):
        fn(tc, tc.tensor(a))


@pytest.mark.parametrize("name,call", [
    ("inv", lambda m, a, out: m.linalg.inv(a, out=out)),
    ("det", lambda m, a, out: m.linalg.det(a, out=out)),
    ("cholesky", lambda m, a, out: m.linalg.cholesky(a, out=out)),
    ("svdvals", lambda m, a, out: m.linalg.svdvals(a, out=out)),
    ("eigvalsh", lambda m, a, out: m.linalg.eigvalsh(a, out=out)),
    ("matrix_norm", lambda m, a, out: m.linalg.matrix_norm(a, "nuc", out=out)),
    ("householder_product", lambda m, a, out: m.linalg.householder_product(a, a[..., 0, :2], out=out)),
    ("inverse", lambda m, a, out: m.inverse(a, out=out)),
])
def test_out(name, call):
    # (tc writes into an out= of the result's shape; it does not resize one)
    a = spd(2, 3, 3)
    ref = call(torch, torch.tensor(a), None)
    out = tc.empty(*ref.shape, dtype=tc.float64)
    r = call(tc, tc.tensor(a), out)
    assert r is out
    np.testing.assert_allclose(_np(out), ref.numpy(), atol=1e-8)


def test_multiple_out():
    a = spd(2, 3, 3)
    outs = (tc.empty(2, 3, dtype=tc.float64), tc.empty(2, 3, 3, dtype=tc.float64))
    r = tc.linalg.eigh(tc.tensor(a), out=outs)
    w, _ = torch.linalg.eigh(torch.tensor(a))
    np.testing.assert_allclose(_np(outs[0]), w.numpy(), atol=1e-8)
    assert r[0] is outs[0]


def test_config_names_lapack_vendor():
    cfg = tc.config()
    line = [ln for ln in cfg.splitlines() if "LAPACK" in ln]
    assert line and "yes" in line[0], cfg
    if "OpenBLAS" in torch.__config__.show() or "openblas" in open("/proc/self/maps").read():
        assert "OpenBLAS" in line[0]
