"""The matrix functions torch.nn.utils.parametrizations.orthogonal needs,
composed from tc ops so that autograd differentiates them (tc has no linalg
module): the matrix exponential, the Householder product, a linear solve,
and, on values only, the QR factorizations its right_inverse uses."""
import math

from ..._core import no_grad
from ..._shape_ops import eye
from ..._tensor import arange, cat, where

_TAYLOR_DEGREE = 18  # with ||A / 2^s||_1 <= 1/2 the truncation error is below 1e-22


def matrix_exp(a):
    """exp(a) of a square matrix (or batch) by scaling and squaring around a
    Taylor polynomial (Horner form); differentiable."""
    n = a.shape[-1]
    with no_grad():
        norm = a.detach().abs().sum(-2).max().item() if a.numel() else 0.0
    squarings = max(0, int(math.ceil(math.log2(norm))) + 1) if norm > 0.5 else 0
    b = a / float(2 ** squarings)
    identity = eye(n, dtype=a.dtype, device=a.device)
    result = identity
    for k in range(_TAYLOR_DEGREE, 0, -1):
        result = identity + b.matmul(result) / float(k)
    for _ in range(squarings):
        result = result.matmul(result)
    return result


def householder_product(a, tau):
    """The first k columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T with
    v_i = (0, ..., 0, 1, a[i+1:, i]) (torch.linalg.householder_product);
    a: [..., n, k], tau: [..., k]; differentiable in both."""
    n, k = a.shape[-2], a.shape[-1]
    q = eye(n, k, dtype=a.dtype, device=a.device)
    rows = arange(n, device=a.device).reshape(n, 1)
    for i in reversed(range(k)):
        unit = (rows == i).to(a.dtype)
        v = where(rows > i, a[..., :, i:i + 1], 0.0) + unit
        t = tau[..., i:i + 1].unsqueeze(-1)
        q = q - t * v.matmul(v.transpose(-2, -1).matmul(q))
    return q


def solve(m, b):
    """x with m x = b by Gauss-Jordan elimination without pivoting (m:
    [..., n, n], b: [..., n, p]); differentiable. Meant for matrices with a
    positive-definite symmetric part, such as I - A/2 for skew-symmetric A,
    whose pivots are never zero."""
    n = m.shape[-1]
    aug = cat([m, b], -1)
    rows = arange(n, device=m.device).reshape(n, 1)
    for j in range(n):
        pivot_row = aug[..., j:j + 1, :] / aug[..., j:j + 1, j:j + 1]
        column = where(rows != j, aug[..., :, j:j + 1], 0.0)
        aug = where(rows == j, pivot_row, aug - column * pivot_row)
    return aug[..., :, n:]


def is_orthogonal(q) -> bool:
    """Whether q^T q is the identity within 10 n machine epsilons (torch's test)."""
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * (2.220446049250313e-16 if q.dtype.name == "float64" else 1.1920928955078125e-07)
    gram = q.transpose(-2, -1).matmul(q)
    return bool((gram - eye(k, dtype=q.dtype, device=q.device)).abs().max().item() <= eps) if k else True


def _batched(f, a):
    """f applied to each matrix of a [..., n, k] (values only)."""
    if a.dim() == 2:
        return f(a)
    flat = a.reshape(-1, a.shape[-2], a.shape[-1])
    from ..._tensor import stack
    return stack([f(flat[i]) for i in range(flat.shape[0])], 0).reshape(*a.shape[:-2], *f(flat[0]).shape)


def make_orthogonal(a):
    """The Q factor of a's QR with R's diagonal made positive (torch's
    _make_orthogonal), computed in float64 on values; a: [..., n, k], n >= k."""
    from ..init import _orthonormal_columns
    return _batched(lambda m: _orthonormal_columns(m.detach().double()).to(a.dtype), a)


def geqrf(a):
    """LAPACK's geqrf on values: (the packed R and Householder vectors, tau),
    a: [n, k] with n >= k, in float64 (dlarfg's conventions: beta =
    -sign(alpha) ||x||, tau = 0 when the column below the diagonal is 0)."""
    m = a.detach().double().clone()
    n, k = m.shape
    taus = []
    for j in range(min(n, k)):
        x = m[j:, j]
        alpha = x[0].item()
        tail = x[1:].norm().item() if n - j > 1 else 0.0
        if tail == 0.0:
            taus.append(0.0)
            continue
        beta = -math.copysign(math.hypot(alpha, tail), alpha)
        taus.append((beta - alpha) / beta)
        v = x / (alpha - beta)
        v[0] = 1.0
        # H = I - tau v v^T applied to the trailing columns
        trailing = m[j:, j + 1:]
        if trailing.shape[1]:
            m[j:, j + 1:] = trailing - taus[-1] * v.reshape(-1, 1).matmul(v.reshape(1, -1).matmul(trailing))
        m[j + 1:, j] = v[1:]
        m[j, j] = beta
    from ..._tensor import tensor
    return m.to(a.dtype), tensor(taus, dtype=a.dtype, device=a.device)
