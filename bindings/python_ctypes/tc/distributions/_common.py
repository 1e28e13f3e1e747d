"""Small pieces several distributions share."""
import numbers

import tc


def bce_with_logits(logits, target):
    """Elementwise binary cross-entropy of ``target`` under ``logits``, computed
    stably: max(x, 0) - x z + log1p(exp(-|x|))."""
    return logits.clamp(min=0) - logits * target + tc.log1p(tc.exp(-logits.abs()))


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
