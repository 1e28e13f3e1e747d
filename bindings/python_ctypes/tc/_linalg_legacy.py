"""PyTorch 1.13's torch.* linear-algebra functions outside torch.linalg
(inverse, det, slogdet, logdet, cholesky, cholesky_solve, cholesky_inverse,
qr, svd, lu, lu_solve, lu_unpack, pinverse, matrix_power, matrix_exp,
triangular_solve) with their legacy signatures and result tuples, and the
Tensor methods of the same names, built on tc.linalg."""
import collections
import sys

from . import linalg as _la

SvdLegacy = collections.namedtuple("svd", ["U", "S", "V"])
QrLegacy = collections.namedtuple("qr", ["Q", "R"])
SlogdetLegacy = collections.namedtuple("slogdet", ["sign", "logabsdet"])
TriangularSolve = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
LuUnpack = collections.namedtuple("lu_unpack", ["P", "L", "U"])


def _tc():
    return sys.modules[__name__.rpartition(".")[0]]


def inverse(input, *, out=None):
    """torch.inverse: linalg.inv."""
    return _la.inv(input, out=out)


def det(input):
    """torch.det: linalg.det."""
    return _la.det(input)


def slogdet(input, *, out=None):
    """torch.slogdet: (sign, logabsdet)."""
    return _la._into(out, SlogdetLegacy(*_la.slogdet(input)))


def logdet(input):
    """log(det(A)): NaN for a negative determinant, -inf for a zero one."""
    sign, logabsdet = _la.slogdet(input)
    return logabsdet + sign.log()


def cholesky(input, upper=False, *, out=None):
    """torch.cholesky (deprecated in PyTorch): linalg.cholesky."""
    return _la.cholesky(input, upper=upper, out=out)


def _factor_product(L, upper):
    """A from its Cholesky factor: L L^T (U^T U when upper). The whole factor
    is read, so that the gradient is PyTorch's dense one."""
    Lt = L.transpose(-2, -1)
    return Lt @ L if upper else L @ Lt


def cholesky_solve(input, input2, upper=False, *, out=None):
    """Solves A X = B (B = input) from A's Cholesky factor input2."""
    return _la._into(out, _la.solve(_factor_product(input2, upper), input))


def cholesky_inverse(input, upper=False, *, out=None):
    """The inverse of A from its Cholesky factor."""
    return _la._into(out, _la.inv(_factor_product(input, upper)))


def qr(input, some=True, *, out=None):
    """torch.qr: reduced (some=True) or complete."""
    return _la._into(out, QrLegacy(*_la.qr(input, "reduced" if some else "complete")))


def svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd: (U, S, V) with V (not Vh); without compute_uv, U and V are
    zero matrices of the full shapes as in PyTorch."""
    tc = _tc()
    if not compute_uv:
        S = _la.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        batch = tuple(input.shape[:-2])
        U = tc.zeros(*batch, m, m, dtype=input.dtype)
        V = tc.zeros(*batch, n, n, dtype=input.dtype)
        return _la._into(out, SvdLegacy(U, S, V))
    U, S, Vh = _la.svd(input, full_matrices=not some)
    return _la._into(out, SvdLegacy(U, S, Vh.transpose(-2, -1)))


def lu(A, pivot=True, get_infos=False, out=None):
    """torch.lu: (A_LU, pivots) or (A_LU, pivots, infos)."""
    r = _la.lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    res = (r.LU, r.pivots, r.info) if get_infos else (r.LU, r.pivots)
    return _la._into(out, res)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """torch.lu_solve(b, LU_data, LU_pivots): linalg.lu_solve(LU, pivots, b)."""
    return _la.lu_solve(LU_data, LU_pivots, b, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """(P, L, U) from a packed LU factorization; the parts not unpacked are empty."""
    tc = _tc()
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    batch = tuple(LU_data.shape[:-2])
    empty = tc.empty(0, dtype=LU_data.dtype)
    L = U = P = empty
    if unpack_data:
        eye = tc.eye(m, k, dtype=LU_data.dtype)
        L = LU_data[..., :, :k].tril(-1) + eye
        U = LU_data[..., :k, :].triu()
    if unpack_pivots:
        piv = LU_pivots.reshape(-1, LU_pivots.shape[-1]).tolist() if LU_pivots.numel() else [[]] * max(
            1, _la._prod(batch))
        mats = []
        for row in piv:
            perm = list(range(m))
            for i, p in enumerate(row):
                perm[i], perm[p - 1] = perm[p - 1], perm[i]
            mat = [[0.0] * m for _ in range(m)]
            for j in range(m):
                mat[perm[j]][j] = 1.0
            mats.append(mat)
        P = tc.tensor(mats, dtype=LU_data.dtype).reshape(*batch, m, m)
    return _la._into(out, LuUnpack(P, L, U))


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol = rcond."""
    return _la.pinv(input, rtol=rcond)


def matrix_power(input, n, *, out=None):
    """torch.matrix_power: linalg.matrix_power."""
    return _la.matrix_power(input, n, out=out)


def matrix_exp(input):
    """torch.matrix_exp: linalg.matrix_exp."""
    return _la.matrix_exp(input)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve: (solution of op(A) X = b, a copy of A)."""
    At = A.transpose(-2, -1) if transpose else A
    up = (not upper) if transpose else upper
    X = _la.solve_triangular(At, b, upper=up, unitriangular=unitriangular)
    # PyTorch's cloned_coefficient is A broadcast to the batch of the solution.
    coefficient = A.expand(*X.shape[:-2], *A.shape[-2:]).clone()
    return _la._into(out, TriangularSolve(X, coefficient))


FUNCTIONS = {f.__name__: f for f in (inverse, det, slogdet, logdet, cholesky, cholesky_solve, cholesky_inverse,
                                     qr, svd, lu, lu_solve, lu_unpack, pinverse, matrix_power, matrix_exp,
                                     triangular_solve)}


class LinalgTensorMethods:
    """The Tensor methods of torch's linear-algebra functions (a mixin of
    tc.Tensor, after all the others: a method of the same name elsewhere wins)."""

    __slots__ = ()

    def det(self):
        """The determinant (torch.det)."""
        return det(self)

    def logdet(self):
        """log(det) (torch.logdet)."""
        return logdet(self)

    def slogdet(self):
        """(sign, logabsdet) (torch.slogdet)."""
        return slogdet(self)

    def inverse(self):
        """The inverse (torch.inverse)."""
        return inverse(self)

    def cholesky(self, upper=False):
        """The Cholesky factor (torch.cholesky)."""
        return cholesky(self, upper)

    def cholesky_solve(self, input2, upper=False):
        """torch.cholesky_solve(self, input2, upper)."""
        return cholesky_solve(self, input2, upper)

    def cholesky_inverse(self, upper=False):
        """torch.cholesky_inverse(self, upper)."""
        return cholesky_inverse(self, upper)

    def qr(self, some=True):
        """torch.qr(self, some)."""
        return qr(self, some)

    def svd(self, some=True, compute_uv=True):
        """torch.svd(self, some, compute_uv)."""
        return svd(self, some, compute_uv)

    def lu(self, pivot=True, get_infos=False):
        """torch.lu(self, pivot, get_infos)."""
        return lu(self, pivot, get_infos)

    def lu_solve(self, LU_data, LU_pivots):
        """torch.lu_solve(self, LU_data, LU_pivots)."""
        return lu_solve(self, LU_data, LU_pivots)

    def pinverse(self, rcond=1e-15):
        """torch.pinverse(self, rcond)."""
        return pinverse(self, rcond)

    def matrix_power(self, n):
        """torch.matrix_power(self, n)."""
        return matrix_power(self, n)

    def matrix_exp(self):
        """torch.matrix_exp(self)."""
        return matrix_exp(self)

    def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
        """torch.triangular_solve(self, A, ...)."""
        return triangular_solve(self, A, upper, transpose, unitriangular)
