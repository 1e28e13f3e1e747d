"""tc.nn.utils: gradient clipping, parameter vectors, weight and spectral
normalization and parametrizations, as torch.nn.utils."""
import math

from ..._core import no_grad
from ..._tensor import Tensor, cat as _cat, tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their joint norm is at most
    max_norm (coefficient max_norm / (norm + 1e-6), like PyTorch); returns
    the norm before clipping as a 0-dim tensor of the gradients' dtype."""
    grads = _grads(parameters)
    if not grads:
        return tensor(0.0)
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        total = max(g.abs().max().item() for g in grads)
    else:
        total = sum((g.abs() ** norm_type).sum().item() for g in grads) ** (1.0 / norm_type) \
            if norm_type != 2.0 else math.sqrt(sum((g * g).sum().item() for g in grads))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError("The total norm of order %s for gradients from `parameters` is non-finite, so "
                           "it cannot be clipped" % norm_type)
    coef = float(max_norm) / (total + 1e-6)
    if coef < 1.0:
        for g in grads:
            g.mul_(coef)
    return tensor(total, dtype=grads[0].dtype)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    v = float(clip_value)
    for g in _grads(parameters):
        g.copy_(g.clamp(-v, v))


def parameters_to_vector(parameters) -> Tensor:
    """Flattens parameters into one 1-D tensor (a copy), as torch.nn.utils.parameters_to_vector.

    Args:
        parameters: an iterable of tensors (or one tensor).

    Returns:
        Their elements, concatenated in order.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return _cat([p.reshape(-1) for p in parameters], 0)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Copies consecutive slices of vec into the parameters (in place, without autograd).

    Args:
        vec: a 1-D tensor with as many elements as the parameters together.
        parameters: an iterable of tensors (or one tensor).
    """
    if not isinstance(vec, Tensor):
        raise TypeError("expected torch.Tensor, but got: %s" % type(vec).__name__)
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.dim() != 1 or vec.numel() != total:
        raise RuntimeError("vector_to_parameters: vec has shape %s but the parameters hold %d elements"
                           % (tuple(vec.shape), total))
    offset = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.detach().copy_(vec[offset:offset + n].reshape(tuple(p.shape)))
            offset += n


# ---- weight/spectral normalization, parametrizations and the smaller
# helpers of torch.nn.utils (weight_norm.py, spectral_norm.py, parametrize.py,
# parametrizations.py, fusion.py, stateless.py, misc.py). As in torch, the
# names weight_norm and spectral_norm are the functions (their submodules
# stay importable).
from . import fusion, parametrizations, parametrize, stateless  # noqa: E402,F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights  # noqa: E402,F401
from .misc import clip_grad_norm, skip_init  # noqa: E402,F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401

# ---- tc.nn.utils.rnn (the packing helpers; their code is in tc/nn/utils_rnn.py)
from . import rnn  # noqa: E402,F401
# ---- end tc.nn.utils.rnn
