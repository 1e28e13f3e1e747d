"""Small pieces several distributions share."""
import numbers

import tc


def softplus_exact(x):
    """log(1 + e^x) without overflow and without a cut-over, differentiable
    everywhere (sigmoid(0) = 1/2 at 0): x + log1p(e^-x) above 0, log1p(e^x)
    at and below, each branch on an input clamped to its side."""
    zero = tc.zeros_like(x)
    pos = x > 0
    xp = tc.where(pos, x, zero)
    xn = tc.where(pos, zero, x)
    return tc.where(pos, xp + tc.log1p(tc.exp(-xp)), tc.log1p(tc.exp(xn)))


def bce_with_logits(logits, target):
    """Elementwise binary cross-entropy of ``target`` under ``logits``:
    softplus(x) - x z, computed stably (torch's binary_cross_entropy_with_logits)."""
    return softplus_exact(logits) - logits * target


def batch_shape_of(param, original):
    """() when the parameter was given as a Python number, else its shape."""
    return tc.Size() if isinstance(original, numbers.Number) else tc.Size(tuple(param.shape))


def nan_like(t):
    """A tensor of NaNs shaped like ``t``."""
    return tc.full_like(t, float("nan"))


def expand_params(new, old, names, batch_shape):
    """Sets new.<name> to old.<name> expanded to batch_shape, for those of
    ``names`` set on ``old`` (probs or logits may be lazily absent)."""
    for name in names:
        if name in old.__dict__:
            setattr(new, name, getattr(old, name).expand(batch_shape))
