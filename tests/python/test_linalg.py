"""tc.linalg and the legacy linear-algebra functions against PyTorch 1.13:
values and float64 gradients of the same inputs (through gauge-invariant
functions of svd/eigh's vectors), PyTorch's errors for singular and
non-square inputs, and NaN inputs that finish."""
import math

import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not hasattr(tc._lib.lib, "tc_linalg_inv_ex"), reason="libtc without tc.linalg")


def _lapack():
    return tc._core.get_flag("has_lapack") == 1


RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape)


def well_conditioned(*shape):
    n = shape[-1]
    return randn(*shape) + n * np.eye(n)


def spd(*shape):
    b = randn(*shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def _outputs(r):
    if isinstance(r, (tuple, list)):
        return list(r)
    return [r]


def compare(f_tc, f_torch, *arrays, grad=True, atol=1e-8, rtol=1e-6):
    """Runs both on the same float64 inputs; compares every floating output
    and, with grad, the inputs' gradients of sum(out_i * w_i)."""
    xs_tc = [tc.tensor(a, dtype=tc.float64, requires_grad=grad) for a in arrays]
    xs_t = [torch.tensor(a, dtype=torch.float64, requires_grad=grad) for a in arrays]
    outs_tc, outs_t = _outputs(f_tc(*xs_tc)), _outputs(f_torch(*xs_t))
    assert len(outs_tc) == len(outs_t)
    loss_tc, loss_t = None, None
    for o_tc, o_t in zip(outs_tc, outs_t):
        assert tuple(o_tc.shape) == tuple(o_t.shape), (o_tc.shape, o_t.shape)
        np.testing.assert_allclose(np.asarray(o_tc.tolist(), dtype=np.float64).reshape(tuple(o_t.shape)),
                                   o_t.detach().numpy().astype(np.float64), atol=atol, rtol=rtol)
        if grad and o_t.dtype == torch.float64 and o_t.requires_grad:
            w = randn(*o_t.shape)
            lt = (o_tc * tc.tensor(w, dtype=tc.float64)).sum()
            lo = (o_t * torch.tensor(w)).sum()
            loss_tc = lt if loss_tc is None else loss_tc + lt
            loss_t = lo if loss_t is None else loss_t + lo
    if grad and loss_t is not None:
        loss_tc.backward()
        loss_t.backward()
        for x_tc, x_t in zip(xs_tc, xs_t):
            g_t = x_t.grad
            if g_t is None:
                continue
            assert x_tc.grad is not None
            np.testing.assert_allclose(np.asarray(x_tc.grad.tolist()).reshape(tuple(g_t.shape)), g_t.numpy(),
                                       atol=max(atol, 1e-7), rtol=max(rtol, 1e-5))


needs_lapack = pytest.mark.skipif(not _lapack(), reason="libtc built without LAPACK")


@needs_lapack
class TestFactorizations:
    def test_inv_det_slogdet_logdet(self):
        a = well_conditioned(3, 4, 4)
        compare(tc.linalg.inv, torch.linalg.inv, a)
        compare(tc.linalg.det, torch.linalg.det, a)
        compare(lambda x: tc.linalg.slogdet(x), lambda x: tuple(torch.linalg.slogdet(x)), a)
        compare(tc.logdet, torch.logdet, spd(2, 3, 3))
        compare(lambda x: tc.linalg.inv_ex(x).inverse, lambda x: torch.linalg.inv_ex(x).inverse, a)
        compare(lambda x: x.inverse(), lambda x: x.inverse(), a)
        compare(lambda x: x.det(), lambda x: x.det(), a)

    def test_det_singular_gradient(self):
        # The gradient of det is the cofactor matrix, non-zero for a rank n-1
        # matrix. torch 1.13 returns zeros there (its singular branch is
        # masked out when det == 0 exactly); libtc returns the cofactors.
        a = np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]])  # rank 2
        x = tc.tensor(a, requires_grad=True)
        d = tc.linalg.det(x)
        assert d.item() == 0.0
        d.backward()
        cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                        for i in range(3)])
        np.testing.assert_allclose(np.array(x.grad.tolist()), cof, atol=1e-10)

    def test_solve(self):
        a = well_conditioned(2, 3, 3)
        compare(tc.linalg.solve, torch.linalg.solve, a, randn(2, 3, 2))
        compare(tc.linalg.solve, torch.linalg.solve, a, randn(3, 2))  # B broadcast over A's batch
        compare(tc.linalg.solve, torch.linalg.solve, a, randn(2, 3))  # a batch of vectors
        compare(tc.linalg.solve, torch.linalg.solve, a[0], randn(3))
        compare(lambda x, b: tc.linalg.solve(x, b, left=False), lambda x, b: torch.linalg.solve(x, b, left=False),
                a, randn(2, 4, 3))
        r = tc.linalg.solve_ex(tc.tensor(a), tc.tensor(randn(2, 3, 1)))
        assert r.info.tolist() == [0, 0]

    @pytest.mark.parametrize("upper,left,unit", [(True, True, False), (False, True, True), (True, False, False),
                                                 (False, False, False)])
    def test_solve_triangular(self, upper, left, unit):
        a = well_conditioned(2, 3, 3)
        b = randn(2, 3, 4) if left else randn(2, 4, 3)
        compare(lambda x, y: tc.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit),
                lambda x, y: torch.linalg.solve_triangular(x, y, upper=upper, left=left, unitriangular=unit), a, b)

    def test_triangular_solve_legacy(self):
        a, b = well_conditioned(3, 3), randn(3, 2)
        for upper, transpose in [(True, False), (False, True)]:
            compare(lambda y, x: tuple(tc.triangular_solve(y, x, upper, transpose)),
                    lambda y, x: tuple(torch.triangular_solve(y, x, upper, transpose)), b, a)

    @pytest.mark.parametrize("upper", [False, True])
    def test_cholesky(self, upper):
        # Differentiate through the symmetrized input, as PyTorch's gradient is symmetric.
        sym = lambda x: (x + x.transpose(-2, -1)) / 2  # noqa: E731
        a = spd(2, 4, 4)
        compare(lambda x: tc.linalg.cholesky(sym(x), upper=upper),
                lambda x: torch.linalg.cholesky(sym(x), upper=upper), a)
        compare(lambda x: tc.linalg.cholesky_ex(sym(x), upper=upper).L,
                lambda x: torch.linalg.cholesky_ex(sym(x), upper=upper).L, a)
        compare(lambda x: tc.cholesky(sym(x), upper), lambda x: torch.cholesky(sym(x), upper), a)

    @pytest.mark.parametrize("upper", [False, True])
    def test_cholesky_solve_inverse(self, upper):
        L = np.linalg.cholesky(spd(3, 3))
        f = L.T.copy() if upper else L
        compare(lambda b, l: tc.cholesky_solve(b, l, upper), lambda b, l: torch.cholesky_solve(b, l, upper),
                randn(3, 2), f)
        compare(lambda l: tc.cholesky_inverse(l, upper), lambda l: torch.cholesky_inverse(l, upper), f)

    @pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 5, 3)])
    @pytest.mark.parametrize("mode", ["reduced", "complete"])
    def test_qr(self, shape, mode):
        a = randn(*shape)
        grad = mode == "reduced" or shape[-2] <= shape[-1]
        compare(lambda x: tuple(tc.linalg.qr(x, mode)), lambda x: tuple(torch.linalg.qr(x, mode)), a, grad=grad)
        compare(lambda x: tc.linalg.qr(x, "r").R, lambda x: torch.linalg.qr(x, "r").R, a, grad=False)

    def test_qr_r_mode_refuses_backward(self):
        x = tc.tensor(randn(3, 3), requires_grad=True)
        with pytest.raises(RuntimeError, match="mode='r'"):
            tc.linalg.qr(x, "r").R.sum().backward()

    @pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
    def test_svd(self, shape):
        a = randn(*shape)
        # U*U and Vh*Vh do not depend on the singular vectors' signs.
        compare(lambda x: (lambda u, s, vh: (u * u, s, vh * vh))(*tc.linalg.svd(x, full_matrices=False)),
                lambda x: (lambda u, s, vh: (u * u, s, vh * vh))(*torch.linalg.svd(x, full_matrices=False)), a)
        compare(tc.linalg.svdvals, torch.linalg.svdvals, a)
        compare(lambda x: (lambda r: (r.U * r.U, r.S, r.V * r.V))(tc.svd(x)),
                lambda x: (lambda r: (r.U * r.U, r.S, r.V * r.V))(torch.svd(x)), a)
        u, s, vh = tc.linalg.svd(tc.tensor(a))
        assert tuple(u.shape) == tuple(torch.linalg.svd(torch.tensor(a)).U.shape)

    def test_svd_full_matrices_gradient(self):
        # Gauge-invariant: squares of the first k singular vectors.
        a = randn(5, 3)
        r_tc, r_t = tc.linalg.svd(tc.tensor(a)), torch.linalg.svd(torch.tensor(a))
        assert tuple(r_tc.U.shape) == tuple(r_t.U.shape) and tuple(r_tc.Vh.shape) == tuple(r_t.Vh.shape)
        w = randn(5, 3)
        compare(lambda x: (tc.linalg.svd(x).U[:, :3] ** 2) * tc.tensor(w),
                lambda x: (torch.linalg.svd(x).U[:, :3] ** 2) * torch.tensor(w), a)

    def test_out_and_methods(self):
        a = well_conditioned(3, 3)
        out = tc.empty(3, 3, dtype=tc.float64)
        r = tc.linalg.inv(tc.tensor(a), out=out)
        assert r is out
        np.testing.assert_allclose(np.array(out.tolist()), np.linalg.inv(a), atol=1e-12)
        sign, logabs = tc.empty((), dtype=tc.float64), tc.empty((), dtype=tc.float64)
        tc.linalg.slogdet(tc.tensor(a), out=(sign, logabs))
        np.testing.assert_allclose(logabs.item(), np.linalg.slogdet(a)[1])
        b = randn(3, 2)
        L = np.linalg.cholesky(spd(3, 3))
        x = tc.tensor(b)
        for name, args in [("cholesky_solve", (tc.tensor(L),)), ("matrix_power", (3,)), ("pinverse", ()),
                           ("matrix_exp", ())]:
            src = x if name == "cholesky_solve" else tc.tensor(a)
            tsrc = torch.tensor(b) if name == "cholesky_solve" else torch.tensor(a)
            targs = tuple(torch.tensor(np.array(t.tolist())) if isinstance(t, tc.Tensor) else t for t in args)
            np.testing.assert_allclose(np.array(getattr(src, name)(*args).tolist()),
                                       getattr(tsrc, name)(*targs).numpy(), atol=1e-10)

    def test_eigh(self):
        a = randn(2, 4, 4)
        for uplo in ("L", "U"):
            compare(lambda x: (lambda w, v: (w, v * v))(*tc.linalg.eigh(x, uplo)),
                    lambda x: (lambda w, v: (w, v * v))(*torch.linalg.eigh(x, uplo)), a)
            compare(lambda x: tc.linalg.eigvalsh(x, uplo), lambda x: torch.linalg.eigvalsh(x, uplo), a)

    def test_lu_family(self):
        a = well_conditioned(2, 4, 4)
        compare(lambda x: tuple(tc.linalg.lu(x)), lambda x: tuple(torch.linalg.lu(x)), a)
        compare(lambda x: tc.linalg.lu_factor(x).LU, lambda x: torch.linalg.lu_factor(x).LU, a)
        lu_tc = tc.linalg.lu_factor(tc.tensor(a))
        lu_t = torch.linalg.lu_factor(torch.tensor(a))
        assert lu_tc.pivots.tolist() == lu_t.pivots.tolist()
        b = randn(2, 4, 3)
        for left, adjoint in [(True, False), (True, True), (False, False)]:
            bb = b if left else np.swapaxes(b, -1, -2)
            compare(lambda x, y: tc.linalg.lu_solve(*tc.linalg.lu_factor(x), y, left=left, adjoint=adjoint),
                    lambda x, y: torch.linalg.lu_solve(*torch.linalg.lu_factor(x), y, left=left, adjoint=adjoint),
                    a, bb)
        compare(lambda x, y: tc.lu_solve(y, *tc.lu(x)), lambda x, y: torch.lu_solve(y, *torch.lu(x)), a, b)
        P, L, U = tc.lu_unpack(lu_tc.LU, lu_tc.pivots)
        Pt, Lt, Ut = torch.lu_unpack(lu_t.LU, lu_t.pivots)
        np.testing.assert_allclose(np.array(P.tolist()), Pt.numpy())
        np.testing.assert_allclose(np.array(L.tolist()), Lt.numpy(), atol=1e-12)


@needs_lapack
class TestComposed:
    def test_pinv_rank_lstsq(self):
        a = randn(2, 5, 3)
        compare(tc.linalg.pinv, torch.linalg.pinv, a)
        compare(lambda x: tc.pinverse(x), lambda x: torch.pinverse(x), a[0])
        compare(lambda x: tc.linalg.pinv(x, hermitian=True), lambda x: torch.linalg.pinv(x, hermitian=True),
                spd(3, 3), grad=False)
        low = randn(4, 2) @ randn(2, 4)
        assert tc.linalg.matrix_rank(tc.tensor(low)).item() == torch.linalg.matrix_rank(torch.tensor(low)).item()
        b = randn(2, 5, 2)
        for driver in ("gelsd", "gels"):
            r_tc = tc.linalg.lstsq(tc.tensor(a), tc.tensor(b), driver=driver)
            r_t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
            for x, y in zip(r_tc, r_t):
                assert tuple(x.shape) == tuple(y.shape), (driver, x.shape, y.shape)
                np.testing.assert_allclose(np.array(x.tolist(), dtype=float).reshape(tuple(y.shape)),
                                           y.numpy().astype(float), atol=1e-8)
        compare(lambda x, y: tc.linalg.lstsq(x, y).solution, lambda x, y: torch.linalg.lstsq(x, y).solution, a, b)

    def test_matrix_power_exp(self):
        a = well_conditioned(2, 3, 3) / 3
        for n in (0, 1, 2, 5, -1, -3):
            compare(lambda x: tc.linalg.matrix_power(x, n), lambda x: torch.linalg.matrix_power(x, n), a,
                    grad=n != 0)
        compare(tc.linalg.matrix_exp, torch.linalg.matrix_exp, randn(2, 4, 4))
        compare(tc.matrix_exp, torch.matrix_exp, 20 * randn(3, 3), rtol=1e-9, atol=1e-6)

    @pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
    def test_matrix_norm(self, ord):
        a = randn(2, 3, 4)
        compare(lambda x: tc.linalg.matrix_norm(x, ord), lambda x: torch.linalg.matrix_norm(x, ord), a)
        compare(lambda x: tc.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True),
                lambda x: torch.linalg.matrix_norm(x, ord, dim=(0, 2), keepdim=True), a)

    def test_vector_norm_norm_cond(self):
        a = randn(3, 4)
        for ord in (2, 1, 3, math.inf, -math.inf):
            compare(lambda x: tc.linalg.vector_norm(x, ord, dim=1), lambda x: torch.linalg.vector_norm(x, ord, dim=1),
                    a)
        compare(tc.linalg.norm, torch.linalg.norm, a)
        compare(lambda x: tc.linalg.norm(x, "nuc"), lambda x: torch.linalg.norm(x, "nuc"), a)
        compare(lambda x: tc.linalg.norm(x, 3, dim=0), lambda x: torch.linalg.norm(x, 3, dim=0), a)
        w = well_conditioned(2, 3, 3)
        for p in (None, 2, -2, "fro", 1, math.inf):
            # torch 1.13's backward of cond for the norms through inv fails
            # (it writes into inv's saved output): values only there.
            compare(lambda x: tc.linalg.cond(x, p), lambda x: torch.linalg.cond(x, p), w, grad=p in (None, 2, -2))

    def test_cross_multi_dot_vander(self):
        compare(tc.linalg.cross, torch.linalg.cross, randn(4, 3), randn(4, 3))
        compare(lambda *xs: tc.linalg.multi_dot(xs), lambda *xs: torch.linalg.multi_dot(xs), randn(3), randn(3, 4),
                randn(4, 2), randn(2))
        compare(tc.linalg.vander, torch.linalg.vander, randn(4))
        compare(lambda x: tc.linalg.vander(x, N=3), lambda x: torch.linalg.vander(x, N=3), randn(2, 4))

    def test_tensorinv_tensorsolve(self):
        a = well_conditioned(6, 6).reshape(6, 2, 3)
        compare(lambda x: tc.linalg.tensorinv(x, ind=1), lambda x: torch.linalg.tensorinv(x, ind=1), a)
        a2 = well_conditioned(6, 6).reshape(2, 3, 6)
        compare(tc.linalg.tensorsolve, torch.linalg.tensorsolve, a2, randn(2, 3))


@needs_lapack
class TestErrors:
    def test_singular_inverse_names_the_pivot(self):
        a = [[1.0, 2.0], [2.0, 4.0]]
        with pytest.raises(torch.linalg.LinAlgError) as e_t:
            torch.linalg.inv(torch.tensor(a))
        with pytest.raises(tc.linalg.LinAlgError) as e_tc:
            tc.linalg.inv(tc.tensor(a))
        assert str(e_t.value) in str(e_tc.value)
        batch = [np.eye(2).tolist(), a]
        with pytest.raises(RuntimeError) as e_t:
            torch.linalg.solve(torch.tensor(batch), torch.ones(2, 2, 1))
        with pytest.raises(RuntimeError) as e_tc:
            tc.linalg.solve(tc.tensor(batch), tc.ones(2, 2, 1))
        assert str(e_t.value) in str(e_tc.value)
        assert tc.linalg.inv_ex(tc.tensor(batch)).info.tolist() == torch.linalg.inv_ex(torch.tensor(batch)).info.tolist()

    def test_not_positive_definite(self):
        a = -np.eye(3)
        with pytest.raises(RuntimeError) as e_t:
            torch.linalg.cholesky(torch.tensor(a))
        with pytest.raises(tc.linalg.LinAlgError) as e_tc:
            tc.linalg.cholesky(tc.tensor(a))
        assert str(e_t.value) in str(e_tc.value)
        assert tc.linalg.cholesky_ex(tc.tensor(a)).info.item() == torch.linalg.cholesky_ex(torch.tensor(a)).info.item()

    def test_shapes_and_dtypes(self):
        with pytest.raises(RuntimeError, match="must be batches of square matrices, but they are 2 by 3 matrices"):
            tc.linalg.inv(tc.ones(2, 3))
        with pytest.raises(RuntimeError, match="at least 2 dimensions"):
            tc.linalg.det(tc.ones(3))
        with pytest.raises(RuntimeError, match="Expected a floating point"):
            tc.linalg.inv(tc.ones(2, 2, dtype=tc.int64))
        with pytest.raises(RuntimeError) as e_t:
            torch.linalg.solve(torch.eye(3), torch.ones(2, 1))
        with pytest.raises(RuntimeError) as e_tc:
            tc.linalg.solve(tc.eye(3), tc.ones(2, 1))
        assert str(e_t.value) in str(e_tc.value)
        with pytest.raises(RuntimeError, match="2 by 3 matrices"):
            tc.linalg.matrix_power(tc.ones(2, 3), 2)

    def test_nan_input_finishes(self):
        a = np.eye(3)
        a[1, 1] = np.nan
        assert np.isnan(np.array(tc.linalg.inv(tc.tensor(a)).tolist())).any()
        assert math.isnan(tc.linalg.det(tc.tensor(a)).item())
        with pytest.raises(RuntimeError):
            tc.linalg.svd(tc.tensor(a))

    def test_has_lapack_in_config(self):
        assert "LAPACK:       yes, LAPACKE on " in tc.config()
