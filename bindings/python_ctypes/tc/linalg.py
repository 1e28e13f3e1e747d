"""tc.linalg: PyTorch 1.13's torch.linalg. The factorizations and solves
(inv, det, slogdet, solve, solve_triangular, cholesky, qr, svd, eigh, lu,
lu_factor, lu_solve and their _ex forms) are libtc's tc_linalg_* functions on
LAPACK, with their backward formulas in libtc, and householder_product, eig,
eigvals and lstsq (tc/_linalg_more.py); the rest (pinv, matrix_rank,
matrix_power, matrix_exp, the norms, cond, multi_dot, vander, tensorinv,
tensorsolve, ...) is composed of tc ops here, so autograd
differentiates it. float32/float64 CPU tensors; CUDA tensors raise
(libtc's linear algebra runs on the CPU only)."""
import collections
import math
import sys

from ._core import VP, byref, fn
from ._errors import InvalidArgumentError, check
from ._tensor_base import _wrap

__all__ = [
    "LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex", "solve_triangular", "cholesky",
    "cholesky_ex", "qr", "svd", "svdvals", "eigh", "eigvalsh", "lu_factor", "lu_factor_ex", "lu", "lu_solve",
    "lstsq", "pinv", "matrix_rank", "matrix_power", "matrix_exp", "matrix_norm", "vector_norm", "norm", "cond",
    "cross", "multi_dot", "vander", "tensorinv", "tensorsolve", "diagonal", "matmul", "householder_product",
    "eig", "eigvals", "vecdot",
]


class LinAlgError(RuntimeError):
    """Raised for a singular or non-positive-definite input or a factorization
    that did not converge (torch.linalg.LinAlgError, a RuntimeError)."""


class _LinAlgInvalidArgument(InvalidArgumentError, LinAlgError):
    """libtc's TC_ERR_INVALID_ARGUMENT for a failed factorization, also a
    LinAlgError as PyTorch raises."""


_QR_MODES = {"reduced": 0, "complete": 1, "r": 2}

InvEx = collections.namedtuple("linalg_inv_ex", ["inverse", "info"])
Slogdet = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
SolveEx = collections.namedtuple("linalg_solve_ex", ["result", "info"])
CholeskyEx = collections.namedtuple("linalg_cholesky_ex", ["L", "info"])
QR = collections.namedtuple("linalg_qr", ["Q", "R"])
SVD = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
Eigh = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
LuFactor = collections.namedtuple("linalg_lu_factor", ["LU", "pivots"])
LuFactorEx = collections.namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LU = collections.namedtuple("linalg_lu", ["P", "L", "U"])
Lstsq = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


def _tc():
    return sys.modules[__name__.rpartition(".")[0]]


def _run(name, *args, outs=1):
    """Calls tc_<name>(*args, &out...) and wraps the handles; a failed
    factorization's error is also a LinAlgError."""
    hs = [VP() for _ in range(outs)]
    try:
        check(fn(name)(*args, *[byref(h) for h in hs]))
    except InvalidArgumentError as e:
        if any(s in str(e) for s in ("could not be completed", "failed to converge", "is zero and using it",
                                     "solver failed because", "could not be computed")):
            err = _LinAlgInvalidArgument.__new__(_LinAlgInvalidArgument)
            err.__dict__.update(e.__dict__)
            err.args = e.args
            raise err from None
        raise
    ts = [_wrap(h) for h in hs]
    return ts[0] if outs == 1 else ts


def _into(out, result):
    """PyTorch's out=: result copied into out (a tensor or a tuple of them)."""
    if out is None:
        return result
    from ._factory_keywords import write_out
    if isinstance(result, tuple):
        for o, r in zip(out, result):
            write_out(o, r)
        return out
    return write_out(out, result)


def _eps(t):
    return 1.1920928955078125e-07 if t.dtype == _tc().float32 else 2.220446049250313e-16


# ---------------------------------------------------------------- LAPACK-backed
def _renamed(error, old, new):
    """error with its message's op name old replaced by new (the C function
    serves both linalg.inv and linalg.inv_ex; PyTorch names the one called)."""
    error.args = tuple(str(a).replace(old, new, 1) for a in error.args[:1]) + tuple(error.args[1:])
    if isinstance(getattr(error, "message", None), str):
        error.message = error.message.replace(old, new, 1)
    return error


def inv_ex(A, *, check_errors=False, out=None):
    """The inverse of square matrices and LAPACK's info per matrix
    (> 0: singular); check_errors raises instead."""
    try:
        inverse, info = _run("tc_linalg_inv_ex", A._h, int(bool(check_errors)), outs=2)
    except LinAlgError as e:
        raise _renamed(e, "linalg.inv:", "linalg.inv_ex:") from None
    return _into(out, InvEx(inverse, info))


def inv(A, *, out=None):
    """The inverse of square matrices (raises naming the batch element and
    pivot of a singular one)."""
    inverse, _ = _run("tc_linalg_inv_ex", A._h, 1, outs=2)
    return _into(out, inverse)


def det(A, *, out=None):
    """The determinant of square matrices (differentiable at singular ones too)."""
    return _into(out, _run("tc_linalg_det", A._h))


def slogdet(A, *, out=None):
    """(sign, logabsdet) of the determinant of square matrices."""
    return _into(out, Slogdet(*_run("tc_linalg_slogdet", A._h, outs=2)))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """Solves A X = B (X A = B when not left) and returns (result, info)."""
    try:
        result, info = _run("tc_linalg_solve_ex", A._h, B._h, int(bool(left)), int(bool(check_errors)), outs=2)
    except LinAlgError as e:
        raise _renamed(e, "torch.linalg.solve:", "torch.linalg.solve_ex:") from None
    return _into(out, SolveEx(result, info))


def solve(A, B, *, left=True, out=None):
    """Solves A X = B (X A = B when not left) for square A; B is a matrix or
    a (batch of) vector(s) as in PyTorch."""
    result, _ = _run("tc_linalg_solve_ex", A._h, B._h, int(bool(left)), 1, outs=2)
    return _into(out, result)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """Solves A X = B (X A = B when not left) for triangular A; only the upper
    or lower triangle of A is read (its diagonal taken as ones when unitriangular)."""
    return _into(out, _run("tc_linalg_solve_triangular", A._h, B._h, int(bool(upper)), int(bool(left)),
                           int(bool(unitriangular))))


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """The Cholesky factor of symmetric positive-definite matrices and info
    (> 0: the order of the leading minor that is not positive-definite)."""
    L, info = _run("tc_linalg_cholesky_ex", A._h, int(bool(upper)), int(bool(check_errors)), outs=2)
    return _into(out, CholeskyEx(L, info))


def cholesky(A, *, upper=False, out=None):
    """The Cholesky factor (lower, or upper) of symmetric positive-definite matrices."""
    return _into(out, cholesky_ex(A, upper=upper, check_errors=True).L)


def qr(A, mode="reduced", *, out=None):
    """The QR decomposition; mode 'reduced', 'complete' or 'r' (Q empty)."""
    if mode not in _QR_MODES:
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'" % (mode,))
    return _into(out, QR(*_run("tc_linalg_qr", A._h, _QR_MODES[mode], outs=2)))


def _check_driver(driver):
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")


def svd(A, full_matrices=True, *, driver=None, out=None):
    """A = U diag(S) Vh, singular values descending (full_matrices: square U and Vh)."""
    _check_driver(driver)
    return _into(out, SVD(*_run("tc_linalg_svd", A._h, int(bool(full_matrices)), outs=3)))


def svdvals(A, *, driver=None, out=None):
    """The singular values, descending."""
    _check_driver(driver)
    return _into(out, _run("tc_linalg_svdvals", A._h))


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % (UPLO,))
    return 1 if UPLO == "U" else 0


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, reading
    the lower (UPLO='L') or upper triangle."""
    return _into(out, Eigh(*_run("tc_linalg_eigh", A._h, _uplo(UPLO), outs=2)))


def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of symmetric matrices."""
    return _into(out, _run("tc_linalg_eigvalsh", A._h, _uplo(UPLO)))


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """The packed LU factorization with partial pivoting: (LU, pivots, info),
    pivots int32 and 1-based as LAPACK's."""
    return _into(out, LuFactorEx(*_run("tc_linalg_lu_factor_ex", A._h, int(bool(pivot)),
                                       int(bool(check_errors)), outs=3)))


def lu_factor(A, *, pivot=True, out=None):
    """The packed LU factorization (LU, pivots); raises for an exactly singular U."""
    r = lu_factor_ex(A, pivot=pivot, check_errors=True)
    return _into(out, LuFactor(r.LU, r.pivots))


def lu(A, *, pivot=True, out=None):
    """A = P L U with partial pivoting."""
    return _into(out, LU(*_run("tc_linalg_lu", A._h, int(bool(pivot)), outs=3)))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """Solves A X = B from lu_factor's (LU, pivots) (X A = B when not left;
    A^T when adjoint)."""
    return _into(out, _run("tc_linalg_lu_solve", LU._h, pivots._h, B._h, int(bool(left)), int(bool(adjoint))))


# ---------------------------------------------------------------- composed
def _svd_tol(S, atol, rtol, m, n):
    """PyTorch's cutoff max(atol, rtol * S_max); rtol defaults to eps * max(m, n)
    when neither is given, else to 0."""
    tc = _tc()
    smax = S.amax(dim=-1, keepdim=True) if S.shape[-1] > 0 else tc.zeros_like(S[..., :1])
    if rtol is None:
        rtol = _eps(S) * max(m, n) if atol is None else 0.0
    tol = smax * rtol if not isinstance(rtol, tc.Tensor) else smax * rtol.unsqueeze(-1)
    if atol is not None:
        at = atol.unsqueeze(-1) if isinstance(atol, tc.Tensor) else atol
        tol = tc.maximum(tol, tc.zeros_like(tol) + at)
    return tol


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The Moore-Penrose pseudo-inverse through the SVD (eigh when hermitian);
    singular values at or below max(atol, rtol * S_max) count as zero."""
    tc = _tc()
    if rcond is not None:
        rtol = rcond
    m, n = A.shape[-2], A.shape[-1]
    if hermitian:
        L, Q = eigh(A)
        tol = _svd_tol(L.abs(), atol, rtol, m, n)
        Linv = tc.where(L.abs() > tol, 1.0 / tc.where(L.abs() > tol, L, tc.ones_like(L)), tc.zeros_like(L))
        return _into(out, (Q * Linv.unsqueeze(-2)) @ Q.transpose(-2, -1))
    U, S, Vh = svd(A, full_matrices=False)
    tol = _svd_tol(S, atol, rtol, m, n)
    Sinv = tc.where(S > tol, 1.0 / tc.where(S > tol, S, tc.ones_like(S)), tc.zeros_like(S))
    return _into(out, (Vh.transpose(-2, -1) * Sinv.unsqueeze(-2)) @ U.transpose(-2, -1))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """The number of singular values above max(atol, rtol * S_max) (int64)."""
    if tol is not None:
        atol, rtol = tol, 0.0
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    t = _svd_tol(S, atol, rtol, A.shape[-2], A.shape[-1])
    return _into(out, (S > t).sum(dim=-1))


def _check_square(A, op):
    if A.ndim < 2:
        raise RuntimeError("%s: The input tensor A must have at least 2 dimensions." % op)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("%s: A must be batches of square matrices, but they are %d by %d matrices"
                           % (op, A.shape[-2], A.shape[-1]))


def matrix_power(A, n, *, out=None):
    """A to the integer power n (n < 0: of the inverse), by repeated squaring."""
    tc = _tc()
    _check_square(A, "linalg.matrix_power")
    n = int(n)
    if n == 0:
        return _into(out, tc.eye(A.shape[-1], dtype=A.dtype).expand(*A.shape).clone())
    base = inv(A) if n < 0 else A
    k, result = abs(n), None
    while k:
        if k & 1:
            result = base if result is None else result @ base
        k >>= 1
        if k:
            base = base @ base
    return _into(out, result)


# Higham (2005): the [13/13] Padé approximant and its scaling threshold.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0,
           960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def matrix_exp(A):
    """exp(A) by scaling and squaring with the [13/13] Padé approximant,
    composed of matmuls and one solve (differentiable)."""
    tc = _tc()
    _check_square(A, "linalg.matrix_exp")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    if n == 1:
        return A.exp()
    with tc.no_grad():
        norm1 = float(A.abs().sum(dim=-2).amax().item())
    s = 0 if not math.isfinite(norm1) or norm1 <= _THETA13 else int(math.ceil(math.log2(norm1 / _THETA13)))
    X = A / (2.0 ** s) if s else A
    b = _PADE13
    eye = tc.eye(n, dtype=A.dtype)
    X2 = X @ X
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    R = solve(V - U, V + U)
    for _ in range(s):
        R = R @ R
    return R


def _dims_tuple(dim, ndim):
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(d % ndim if ndim else d for d in dims)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The vector ord-norm over dim (every dim when None)."""
    tc = _tc()
    if dtype is not None:
        x = x.to(dtype)
    if not x.is_floating_point():
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s"
                           % (x.dtype,))
    dims = _dims_tuple(dim, x.ndim)
    ord = float(ord)
    a = x.abs()
    if ord == math.inf:
        r = a.amax(dim=dims, keepdim=keepdim)
    elif ord == -math.inf:
        r = a.amin(dim=dims, keepdim=keepdim)
    elif ord == 0:
        r = (a != 0).to(x.dtype).sum(dim=dims, keepdim=keepdim)
    elif ord == 1:
        r = a.sum(dim=dims, keepdim=keepdim)
    elif ord == 2:
        r = tc.norm(x, 2, dim=list(dims), keepdim=keepdim)
    else:
        r = (a ** ord).sum(dim=dims, keepdim=keepdim) ** (1.0 / ord)
    return _into(out, r)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    """The matrix norm over the two dims: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    d0, d1 = (d % A.ndim for d in dim)
    if ord == "fro":
        r = vector_norm(A, 2, dim=(d0, d1), keepdim=keepdim)
    elif ord in ("nuc", 2, -2, 2.0, -2.0):
        S = svdvals(A.movedim((d0, d1), (-2, -1)))
        r = S.sum(dim=-1) if ord == "nuc" else (S.amax(dim=-1) if ord in (2, 2.0) else S.amin(dim=-1))
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    elif ord in (1, -1, math.inf, -math.inf):
        # 1: the largest column sum (sum over rows d0, then max over d1); inf: rows.
        over, then = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(dim=over, keepdim=True)
        r = sums.amax(dim=then, keepdim=True) if ord > 0 else sums.amin(dim=then, keepdim=True)
        if not keepdim:
            r = r.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    else:
        raise RuntimeError("linalg.matrix_norm: Order %s not supported." % (ord,))
    return _into(out, r)


def norm(A, ord=None, dim=None, keepdim=False, *, out=None, dtype=None):
    """torch.linalg.norm: a vector norm for 1 dim (or a flattened input), a
    matrix norm for 2 dims."""
    if dim is not None and not isinstance(dim, int):
        dim = tuple(dim)
    if ord is None:
        if isinstance(dim, tuple) and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype, out=out)
        if dim is None:
            A = A.flatten() if not keepdim else A
        return vector_norm(A, 2, dim, keepdim, dtype=dtype, out=out)
    if dim is None:
        if A.ndim == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
        if A.ndim == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           "Got %dD." % A.ndim)
    if isinstance(dim, tuple) and len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype, out=out)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype, out=out)


def cond(A, p=None, *, out=None):
    """The condition number in the p-norm (2 or None: S_max / S_min)."""
    if p is None or p in (2, -2):
        S = svdvals(A)
        r = S[..., 0] / S[..., -1] if p != -2 else S[..., -1] / S[..., 0]
        return _into(out, r)
    if p not in ("fro", "nuc", math.inf, -math.inf, 1, -1):
        raise RuntimeError("linalg.cond got an invalid norm type: %s" % (p,))
    _check_square(A, "linalg.cond(ord=%s)" % (p,))
    tc = _tc()
    inverse, info = inv_ex(A)
    r = matrix_norm(A, p) * matrix_norm(inverse, p)
    # PyTorch: a singular matrix's condition number is inf, not an error.
    return _into(out, tc.where(info > 0, tc.full_like(r, math.inf), r))


def cross(input, other, *, dim=-1, out=None):
    """The cross product of 3-vectors along dim (broadcasting)."""
    return _into(out, _tc().cross(input, other, dim=dim))


def multi_dot(tensors, *, out=None):
    """The chained product of matrices (the first and last may be vectors)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got %d" % len(ts))
    first_vec, last_vec = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_vec:
        ts[0] = ts[0].unsqueeze(0)
    if last_vec:
        ts[-1] = ts[-1].unsqueeze(-1)
    for i, t in enumerate(ts):
        if t.ndim != 2:
            raise RuntimeError("multi_dot(): tensor %d must be 2D but got %dD" % (i, t.ndim))
    r = ts[0]
    for t in ts[1:]:
        r = r @ t
    if first_vec:
        r = r.squeeze(0)
    if last_vec:
        r = r.squeeze(-1)
    return _into(out, r)


def vander(x, N=None):
    """The Vandermonde matrix [..., n, N] of x [..., n]: columns x^0 ... x^(N-1)."""
    tc = _tc()
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least 1 dimension.")
    n = x.shape[-1] if N is None else int(N)
    if n <= 1:
        if n < 1:
            raise RuntimeError("N must be greater than 1.")
        return tc.ones_like(x).unsqueeze(-1)
    xs = x.unsqueeze(-1).expand(*x.shape, n - 1)
    return tc.cat([tc.ones_like(x).unsqueeze(-1), xs], dim=-1).cumprod(dim=-1)


def _prod(shape):
    p = 1
    for s in shape:
        p *= s
    return p


def tensorinv(A, ind=2, *, out=None):
    """The inverse of A seen as a matrix of shape (prod(A.shape[:ind]), prod(A.shape[ind:]))."""
    if ind <= 0:
        raise RuntimeError("Expected a strictly positive integer for 'ind', but got %s" % (ind,))
    left, right = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if _prod(left) != _prod(right):
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got %d != %d" % (_prod(right), _prod(left)))
    return _into(out, inv(A.reshape(_prod(left), _prod(right))).reshape(*right, *left))


def tensorsolve(A, B, dims=None, *, out=None):
    """X with tensordot(A, X, X.ndim) = B."""
    if dims is not None:
        src = [d % A.ndim for d in dims]
        A = A.movedim(src, list(range(A.ndim - len(src), A.ndim)))
    rest = tuple(A.shape[B.ndim:])
    A2 = A.reshape(B.numel(), _prod(rest))
    return _into(out, solve(A2, B.reshape(B.numel())).reshape(*rest))


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """A view of the diagonals of A."""
    return A.diagonal(offset=offset, dim1=dim1, dim2=dim2)


def matmul(input, other, *, out=None):
    """torch.matmul."""
    return _into(out, input @ other)


# ---- LAPACK routines beyond the factorizations above (tc/_linalg_more.py) ----
from ._linalg_more import eig, eigvals, householder_product, lstsq, vecdot  # noqa: E402,F401
# ---- end ----
