"""Small dense linear algebra for MultivariateNormal (Cholesky factorization,
triangular solves), composed from tc ops one row or column at a time, so that
autograd works through it. libtc has no LAPACK-backed kernels for these yet;
the loops cost O(n) op calls, fine for the small event sizes distributions
use, and should become C kernels for large matrices."""
import tc


def _eye_mask(n, like):
    """Lower-triangular mask (1 on and below the diagonal) of ``like``'s dtype."""
    return tc.ones(n, n, dtype=like.dtype, device=like.device).tril()


def transpose(m):
    """The matrix transpose of the last two dims (Tensor.mT)."""
    return m.transpose(-1, -2)


def cholesky_ex(a):
    """(L, ok): the lower Cholesky factor of the symmetric matrices ``a``
    (..., n, n) and a bool tensor (...) saying which were positive definite
    (torch.linalg.cholesky_ex's info == 0); failed factors hold NaN."""
    n = a.shape[-1]
    # Factor the symmetric part, so that the gradient comes out symmetric as
    # torch's does (each off-diagonal pair shares its entry's gradient).
    a = (a + transpose(a)) * 0.5
    cols = []
    ok = None
    for j in range(n):
        v = a[..., :, j]
        for c in cols:
            v = v - c * c[..., j:j + 1]
        d = v[..., j]
        good = d > 0
        ok = good if ok is None else ok & good
        root = tc.sqrt(tc.where(good, d, tc.full_like(d, float("nan"))))
        row_mask = tc.tensor([1.0 if i >= j else 0.0 for i in range(n)], dtype=a.dtype, device=a.device)
        cols.append(v / root.unsqueeze(-1) * row_mask)
    return tc.stack(cols, -1), ok


def cholesky(a):
    """The lower Cholesky factor of ``a``; raises RuntimeError if ``a`` is not positive definite."""
    L, ok = cholesky_ex(a)
    if not bool(ok.all()):
        raise RuntimeError("linalg.cholesky: The factorization could not be completed because the "
                           "input is not positive-definite.")
    return L


def solve_triangular(L, b, upper=False):
    """X with L X = b for triangular L (..., n, n) and b (..., n, k), batch dims broadcast."""
    n = L.shape[-1]
    rows = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = b[..., i, :]
        others = range(i + 1, n) if upper else range(i)
        for k in others:
            acc = acc - L[..., i, k:k + 1] * rows[k]
        rows[i] = acc / L[..., i, i:i + 1]
    return tc.stack(rows, -2)


def tril_inverse(L):
    """The inverse of the lower-triangular matrices L."""
    n = L.shape[-1]
    eye = tc.eye(n, dtype=L.dtype, device=L.device)
    return solve_triangular(L, eye.expand(tuple(L.shape[:-2]) + (n, n)))


def batch_mv(m, v):
    """Matrix-vector product with broadcasting batch dims: m (..., n, k), v (..., k)."""
    return tc.matmul(m, v.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(L, x):
    """x^T (L L^T)^-1 x for lower-triangular L (..., n, n) and x (..., n), broadcasting."""
    shape = tuple(tc.distributions.utils.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1])))
    n = L.shape[-1]
    Lb = L.expand(shape + (n, n))
    y = solve_triangular(Lb, x.expand(shape + (n,)).unsqueeze(-1)).squeeze(-1)
    return (y * y).sum(-1)


def precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1, computed without inverting P: with
    F the flip of both axes, cholesky(F P F) flipped back gives an upper
    factor U = L^-T of P = U U^T, whose transpose inverts to the answer."""
    flipped = P.flip(-2, -1)
    Lf = cholesky(flipped)
    L_inv = transpose(Lf.flip(-2, -1))
    return tril_inverse(L_inv)
