"""The parts of PyTorch 1.13's torch.linalg on LAPACK routines beyond the
factorizations of linalg.py: householder_product (orgqr), eig/eigvals
(geev), lstsq with its four CPU drivers, and the small composed ones
(vecdot), with the legacy torch.* forms (orgqr, ormqr, symeig,
chain_matmul, frobenius_norm, nuclear_norm) and PyTorch's removal errors
for torch.lstsq, torch.eig and torch.matrix_rank.

eig's results are complex in PyTorch. libtc computes them as (real,
imaginary) pairs in a trailing dim of 2 (torch.view_as_real's layout); when
the package has complex dtypes (tc.complex), eig/eigvals return complex
tensors built from them, else the pairs themselves."""
import collections
import sys

from ctypes import c_double

from . import linalg as _la

Eig = collections.namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
Symeig = collections.namedtuple("symeig", ["eigenvalues", "eigenvectors"])

_DRIVERS = {"gels": 0, "gelsy": 1, "gelsd": 2, "gelss": 3}


def _tc():
    return sys.modules[__name__.rpartition(".")[0]]


def householder_product(A, tau, *, out=None):
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^T, v_i the
    i-th column of A below its diagonal with a unit i-th entry (LAPACK's
    orgqr; A [..., m, n], m >= n >= k = tau.shape[-1])."""
    return _la._into(out, _la._run("tc_linalg_householder_product", A._h, tau._h))


def _has_complex():
    tc = _tc()
    return callable(getattr(tc, "complex", None)) and hasattr(tc, "complex128")


def _as_complex(pairs):
    """(real, imaginary) pairs in the last dim -> a complex tensor when the
    package has complex dtypes, else the pairs."""
    if not _has_complex() or pairs.numel() == 0 and pairs.ndim == 1:
        return pairs
    return _tc().complex(pairs[..., 0], pairs[..., 1])


def eig(A, *, out=None):
    """Eigenvalues and right eigenvectors (unit-norm columns) of general
    square matrices, in LAPACK's order (geev), complex (see the module's
    note). Differentiable for real inputs as PyTorch 1.13's linalg_eig_backward
    (a loss that depends on the eigenvectors' phases raises its RuntimeError)."""
    w, v = _la._run("tc_linalg_eig", A._h, 1, outs=2)
    return _la._into(out, Eig(_as_complex(w), _as_complex(v)))


def eigvals(A, *, out=None):
    """The eigenvalues of general square matrices, complex (see the module's
    note); differentiable for real inputs as PyTorch 1.13."""
    w, _ = _la._run("tc_linalg_eig", A._h, 0, outs=2)
    return _la._into(out, _as_complex(w))


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of A X = B by LAPACK's driver ('gelsy', the
    default on the CPU, 'gels', 'gelsd', 'gelss'): (solution, residuals,
    rank, singular_values) filled as PyTorch fills them for the driver
    (residuals for m > n and full rank except gelsy; rank but for gels;
    singular values for gelsd and gelss; the rest empty). rcond (None:
    eps * max(m, n)) bounds the singular values that count. The gradient of
    the solution is the full-rank one."""
    if driver is None:
        driver = "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    r = -1.0 if rcond is None else float(rcond)
    return _la.Lstsq(*_la._run("tc_linalg_lstsq", A._h, B._h, c_double(r), _DRIVERS[driver], outs=4))


def vecdot(x, y, *, dim=-1, out=None):
    """The dot product of real vectors along dim, broadcasting."""
    return _la._into(out, (x * y).sum(dim=dim))


# ---------------------------------------------------------------- torch.* forms
def orgqr(input, tau):
    """torch.orgqr: linalg.householder_product."""
    return householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """op(Q) C (left) or C op(Q), Q = H_1 ... H_k the full m x m product of
    the reflectors in input (geqrf's layout), op = transpose when transpose."""
    tc = _tc()
    m, n = input.shape[-2], input.shape[-1]
    if n < m:  # the full Q: the reflectors padded with zero columns
        pad = tc.zeros(*input.shape[:-1], m - n, dtype=input.dtype)
        input = tc.cat([input, pad], dim=-1)
    elif n > m:
        input = input[..., :, :m]
    Q = householder_product(input, tau)
    if transpose:
        Q = Q.transpose(-2, -1)
    return _la._into(out, Q @ other if left else other @ Q)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """torch.symeig (deprecated in PyTorch): eigenvalues ascending and, with
    eigenvectors, the vectors (else an empty tensor)."""
    tc = _tc()
    uplo = "U" if upper else "L"
    if eigenvectors:
        w, v = _la.eigh(input, UPLO=uplo)
    else:
        w, v = _la.eigvalsh(input, UPLO=uplo), tc.empty(0, dtype=input.dtype)
    return _la._into(out, Symeig(w, v))


def chain_matmul(*matrices, out=None):
    """torch.chain_matmul (deprecated in PyTorch): the product of 2-D matrices."""
    if len(matrices) == 1:
        return _la._into(out, matrices[0].clone())
    return _la.multi_dot(matrices, out=out)


def frobenius_norm(input, dim=(), keepdim=False, *, out=None):
    """torch.frobenius_norm: the 2-norm over dim (every dim when empty)."""
    dims = None if dim is None or (not isinstance(dim, int) and len(dim) == 0) else dim
    return _la.vector_norm(input, 2, dim=dims, keepdim=keepdim, out=out)


def nuclear_norm(input, dim=(-2, -1), keepdim=False, *, out=None):
    """torch.nuclear_norm: the sum of the singular values over the two dims."""
    if isinstance(dim, bool):  # nuclear_norm(input, keepdim)
        dim, keepdim = (-2, -1), dim
    return _la.matrix_norm(input, "nuc", dim=dim, keepdim=keepdim, out=out)


def _removed(name, replacement):
    def f(*args, **kwargs):
        raise RuntimeError("This function was deprecated since version 1.9 and is now removed. "
                           "Please use the `%s` function instead." % replacement)
    f.__name__ = name
    f.__doc__ = "torch.%s: removed in PyTorch 1.13 (raises, naming %s)." % (name, replacement)
    return f


lstsq_legacy = _removed("lstsq", "torch.linalg.lstsq")
eig_legacy = _removed("eig", "torch.linalg.eig")
matrix_rank_legacy = _removed("matrix_rank", "torch.linalg.matrix_rank")

# torch.* names and the Tensor methods of the same name (self first).
TORCH_FUNCTIONS = {"orgqr": orgqr, "ormqr": ormqr, "symeig": symeig, "chain_matmul": chain_matmul,
                   "frobenius_norm": frobenius_norm, "nuclear_norm": nuclear_norm, "lstsq": lstsq_legacy,
                   "eig": eig_legacy, "matrix_rank": matrix_rank_legacy}
TENSOR_METHODS = ("orgqr", "ormqr", "symeig", "lstsq", "eig")


class LinalgMoreMethods:
    """tc.Tensor's methods of the functions above (self first): orgqr, ormqr,
    symeig, and the removed lstsq and eig (which raise, as PyTorch's)."""

    __slots__ = ()

    orgqr = orgqr
    ormqr = ormqr
    symeig = symeig
    lstsq = lstsq_legacy
    eig = eig_legacy


def install(namespace):
    """Adds the torch.* functions above to namespace (the package's globals),
    where there is none of that name."""
    for name, f in TORCH_FUNCTIONS.items():
        namespace.setdefault(name, f)
