"""Small pieces several distributions share."""
import numbers

import tc
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


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


def probs_or_logits(dist, probs, logits):
    """Stores whichever of ``probs`` and ``logits`` is given on ``dist``, as a
    tensor (ValueError as torch unless exactly one is); returns it and the
    batch shape it gives."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        dist.probs, = broadcast_all(probs)
        return dist.probs, batch_shape_of(dist.probs, probs)
    dist.logits, = broadcast_all(logits)
    return dist.logits, batch_shape_of(dist.logits, logits)


def binary_logits_probs(logits_doc, probs_doc):
    """The ``logits`` and ``probs`` lazy properties of a two-outcome
    distribution: the one not given is derived from the other on first use.
    Use as ``logits, probs = binary_logits_probs(...)`` in the class body."""
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    logits.__doc__, probs.__doc__ = logits_doc, probs_doc
    return lazy_property(logits), lazy_property(probs)


def forwarded_property(holder, name, doc):
    """A read-only property returning ``self.<holder>.<name>`` (a wrapper
    distribution's view of the one it wraps)."""
    return property(lambda self: getattr(getattr(self, holder), name), doc=doc)


def attribute_property(name, doc):
    """A read-only property returning ``self.<name>`` (e.g. a mean or mode that is ``loc``)."""
    return property(lambda self: getattr(self, name), doc=doc)
