"""torch.nn.utils.parametrizations: orthogonal and spectral_norm as
parametrizations (torch.nn.utils.parametrize), torch 1.13's forms.

orthogonal's maps (matrix exponential, Cayley, Householder) are composed from
tc ops in _orthogonal_maps.py, so autograd differentiates them; they loop
over the matrix's columns in Python, which is fine at the sizes of layer weights."""
from typing import Optional

from ..._core import no_grad
from ..._tensor import Tensor, cat, where
from ..functional_loss import normalize
from ..modules import Module
from . import _orthogonal_maps as maps
from . import parametrize

__all__ = ["orthogonal", "spectral_norm"]


_MAPS = ("matrix_exp", "cayley", "householder")


class _Orthogonal(Module):
    """Maps a matrix (or batch) to an orthogonal one (orthonormal columns, or
    rows when wide): exp(A) or the Cayley transform of A = X.tril() - X.tril()^T,
    or the Householder product of X's strict lower triangle; with
    use_trivialization, the result is multiplied by the ``base`` buffer
    (set by right_inverse), so that training moves around that point.

    Args:
        weight (Tensor): the tensor parametrized (its shape is checked by right_inverse).
        orthogonal_map (str): "matrix_exp", "cayley" or "householder".
        use_trivialization (bool): keep a ``base`` buffer.
    """

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        """Returns the orthogonal matrix that X parametrizes."""
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = _pad_columns(X, n)
            A = X - X.transpose(-2, -1)
            if self.orthogonal_map == "matrix_exp":
                Q = maps.matrix_exp(A)
            else:
                from ..._shape_ops import eye
                identity = eye(n, dtype=A.dtype, device=A.device)
                Q = maps.solve(identity - A * 0.5, identity + A * 0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = maps.householder_product(A, tau)
            # torch multiplies by X's diagonal truncated to integers (+-1 after right_inverse).
            Q = Q * X.diagonal(0, -2, -1).trunc().detach().unsqueeze(-2)
        if "base" in self._buffers and self._buffers["base"] is not None:
            Q = self._buffers["base"].matmul(Q)
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """Returns an X that this parametrization maps to Q (with
        use_trivialization: sets ``base`` from Q and returns -I)."""
        with no_grad():
            if tuple(Q.shape) != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {tuple(Q.shape)}.")
            q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.transpose(-2, -1)
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                              "or the Cayley parametrizations when use_trivialization=False.")
                if Q.dim() != 2:
                    raise NotImplementedError("tc: householder without trivialization takes one matrix, not a batch")
                A, tau = maps.geqrf(Q)
                diag = A.diagonal(0, -2, -1).sign()
                diag = where(tau == 0.0, -diag, diag)
                rows = A.shape[0]
                from ..._shape_ops import eye
                on_diag = eye(rows, A.shape[1], dtype="bool", device=A.device)
                A = where(on_diag, diag.unsqueeze(0).expand(rows, A.shape[1]), A)
                return A.transpose(-2, -1) if transpose else A
            if n == k:
                Q = Q.clone() if maps.is_orthogonal(Q) else maps.make_orthogonal(Q)
            else:
                from ..._tensor import randn
                N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = maps.make_orthogonal(cat([Q, N], -1))
            self.register_buffer("base", Q)
            neg_identity = q_init.new_zeros(*q_init.shape)
            from ..._shape_ops import eye
            neg_identity = neg_identity - eye(q_init.shape[-2], q_init.shape[-1], dtype=q_init.dtype,
                                              device=q_init.device)
            return neg_identity


def _pad_columns(X: Tensor, n: int) -> Tensor:
    """X [..., n, k] with zero columns appended up to n."""
    return cat([X, X.new_zeros(*X.shape[:-1], n - X.shape[-1])], -1)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: Optional[str] = None, *,
               use_trivialization: bool = True) -> Module:
    """Registers an orthogonal parametrization on ``module.<name>`` (a matrix
    or batch of matrices): the tensor read always has orthonormal columns (or
    rows, when wide).

    Args:
        module (Module): the module.
        name (str): the parameter's (or buffer's) name.
        orthogonal_map (str, optional): "matrix_exp", "cayley" or
            "householder" (default: matrix_exp for square matrices, else householder).
        use_trivialization (bool): parametrize around a ``base`` buffer (torch's dynamic trivialization).

    Returns:
        Module: module.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if weight.dim() < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of {} dimensions.".format(weight.dim()))
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in _MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a
    matrix (``dim`` first), estimated by power iteration with the buffers
    ``_u`` and ``_v`` (one step per training forward); a 1-D weight is just
    normalized.

    Args:
        weight (Tensor): the weight (its shape fixes the buffers').
        n_power_iterations (int): power iterations per training forward (> 0).
        dim (int): the dim of the output channels.
        eps (float): the smallest norm divided by.
    """

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got n_power_iterations={}"
                             .format(n_power_iterations))
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            with no_grad():
                mat = self._reshape_weight_to_matrix(weight)
                h, w = mat.shape
                u = mat.new_empty(h).normal_(0, 1)
                v = mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            # Start from a good estimate, as torch does.
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place, outside autograd: the buffers are estimates, not graph inputs.
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(normalize(weight_mat.matmul(self._v), dim=0, eps=self.eps))
                self._v.copy_(normalize(weight_mat.t().matmul(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        """Returns weight / sigma (after a power iteration step in training mode)."""
        if weight.dim() == 1:
            return normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u = self._u.clone()
        v = self._v.clone()
        sigma = u.dot(mat.matmul(v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """Returns value: any weight is kept as the original (sigma is re-estimated)."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Registers spectral normalization on ``module.<name>`` as a
    parametrization: the weight read is the original divided by its largest
    singular value (power iteration; buffers
    ``parametrizations.<name>.0._u`` and ``._v``).

    Args:
        module (Module): the module.
        name (str): the parameter's (or buffer's) name.
        n_power_iterations (int): power iterations per training forward.
        eps (float): the smallest norm divided by.
        dim (int, optional): the dim of the output channels (1 for transposed convolutions, else 0).

    Returns:
        Module: module.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError("Module '{}' has no parameter or buffer with name '{}'".format(module, name))
    if dim is None:
        from .spectral_norm import _is_conv_transpose
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
