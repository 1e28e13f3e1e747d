"""Weight normalization (torch.nn.utils.weight_norm, the forward-pre-hook
form of torch 1.13): weight = g * v / ||v||, with ``<name>_g`` and
``<name>_v`` parameters replacing ``<name>``, so state dicts match torch's."""
from typing import Any, Optional

from ..._core import no_grad
from ..modules import Module, Parameter
from ._module_attrs import delete_attr, refuse_second_hook, remove_hook

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The ``pow``-norm of v over every dim but ``dim``, keeping v's rank
    (dim -1: over all of v, a 0-dim tensor), as torch.norm_except_dim."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.dim()
    others = tuple(d for d in range(v.dim()) if d != dim)
    if not others:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dim=others, keepdim=True)


def _weight_norm(v, g, dim: int = 0):
    """v * (g / ||v||), the norm taken over every dim but ``dim`` (torch._weight_norm)."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``<name>`` from ``<name>_g`` and ``<name>_v``.

    Args:
        name (str): the parameter's name.
        dim (int or None): the dim kept by the norm (None or -1: the norm of the whole tensor).
    """

    def __init__(self, name: str, dim: Optional[int]) -> None:
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module) -> Any:
        """Returns g * v / ||v|| from the module's parameters."""
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: Optional[int]) -> "WeightNorm":
        """Reparametrizes ``module.<name>`` and registers the hook; returns it."""
        refuse_second_hook(module, WeightNorm, name, "weight_norm")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if name not in module._parameters:
            raise KeyError(name)
        delete_attr(module, name)
        with no_grad():
            g = norm_except_dim(weight.detach(), 2, dim)
        module.register_parameter(name + "_g", Parameter(g))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        """Puts back ``<name>`` as one parameter holding the current weight."""
        weight = self.compute_weight(module)
        delete_attr(module, self.name)
        delete_attr(module, self.name + "_g")
        delete_attr(module, self.name + "_v")
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        """The pre-hook: sets ``module.<name>`` from the current g and v."""
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: Optional[int] = 0) -> Module:
    """Applies weight normalization to ``module.<name>``: it becomes
    g * v / ||v||, recomputed before every forward, from the new parameters
    ``<name>_g`` (the norms) and ``<name>_v`` (the direction).

    Args:
        module (Module): the module.
        name (str): the parameter's name.
        dim (int or None): the dim over which the norm is not taken (0: one
            norm per output channel; None: one norm of the whole tensor).

    Returns:
        Module: module.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Removes the weight normalization of ``module.<name>``.

    Args:
        module (Module): the module.
        name (str): the parameter's name.

    Returns:
        Module: module.
    """
    return remove_hook(module, WeightNorm, name, "weight_norm")
