"""Spectral normalization (torch.nn.utils.spectral_norm, the forward-pre-hook
form of torch 1.13): weight = weight_orig / sigma, sigma estimated by power
iteration with the buffers ``<name>_u`` and ``<name>_v``; the parameter
``<name>_orig`` replaces ``<name>``, so state dicts have torch's keys.

torch's state-dict version hooks (which upgrade checkpoints saved before
torch 1.0) are not reproduced: tc modules have no state-dict hooks."""
from typing import Any, Optional

from ..._core import no_grad
from ..functional_loss import normalize
from ..modules import Module
from ._module_attrs import delete_attr, refuse_second_hook, remove_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that sets ``<name>`` to ``<name>_orig`` / sigma.

    Args:
        name (str): the parameter's name.
        n_power_iterations (int): power iterations per training forward (> 0).
        dim (int): the dim of the output channels (the matrix's rows).
        eps (float): the smallest norm divided by when normalizing u and v.
    """
    _version: int = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got n_power_iterations={}"
                             .format(n_power_iterations))
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix: ``dim`` first, the other dims flattened."""
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.shape[0], -1)

    def compute_weight(self, module: Module, do_power_iteration: bool):
        """weight_orig / sigma, sigma = u . (W v); with do_power_iteration, first
        updates the u and v buffers in place (outside autograd)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mat.t().matmul(u), dim=0, eps=self.eps))
                    u.copy_(normalize(mat.matmul(v), dim=0, eps=self.eps))
                # Clones: the buffers change in place on the next forward, and
                # this forward's graph must keep the values it used.
                u = u.clone()
                v = v.clone()
        sigma = u.dot(mat.matmul(v))
        return weight / sigma

    def remove(self, module: Module) -> None:
        """Puts back ``<name>`` as one parameter holding the normalized weight."""
        from ..modules import Parameter
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delete_attr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        """The pre-hook: sets ``module.<name>``, iterating u and v in training mode."""
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        """Reparametrizes ``module.<name>`` and registers the hook; returns it."""
        refuse_second_hook(module, SpectralNorm, name, "spectral_norm")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = mat.shape
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delete_attr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain tensor until the first forward computes the normalized one
        # (torch sets weight.data here too).
        object.__setattr__(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def _is_conv_transpose(module: Module) -> bool:
    from .. import modules_layers
    kinds = tuple(getattr(modules_layers, n) for n in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
                  if hasattr(modules_layers, n))
    return bool(kinds) and isinstance(module, kinds)


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: Optional[int] = None) -> Module:
    """Applies spectral normalization to ``module.<name>``: before every
    forward it becomes weight_orig / sigma, sigma its largest singular value
    estimated by power iteration (updated in training mode only).

    Args:
        module (Module): the module.
        name (str): the parameter's name.
        n_power_iterations (int): power iterations per training forward.
        eps (float): the smallest norm divided by.
        dim (int, optional): the dim of the output channels (1 for transposed convolutions, else 0).

    Returns:
        Module: module.
    """
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Module, name: str = "weight") -> Module:
    """Removes the spectral normalization of ``module.<name>``.

    Args:
        module (Module): the module.
        name (str): the parameter's name.

    Returns:
        Module: module.
    """
    return remove_hook(module, SpectralNorm, name, "spectral_norm")
