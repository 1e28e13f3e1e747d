"""tc.nn.utils: gradient clipping, as torch.nn.utils."""
import math

from .._tensor import Tensor, tensor


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
