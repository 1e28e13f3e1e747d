"""``x[key] += v`` (and -=, *=, /=) on a tensor that requires grad, where
``x[key]`` is a view: Python runs it as ``t = x[key]; t = t.__iadd__(v);
x[key] = t``. libtc can record an in-place write only into a tensor that
owns its memory (tc/_inplace_autograd.py), so ``t.__iadd__`` on the view
fails, although the statement as a whole is just a recorded write into x
(x.__setitem__ puts the value with autograd). PyTorch writes through the
view and then copies the same values back.

So when the recorded in-place operator fails on a view and the calling
statement stores its result back by subscript (the instructions after the
operator are the SWAPs and STORE_SUBSCR of an augmented subscript
assignment), the operator returns the out-of-place result and leaves the
write to __setitem__: the same values and gradients as PyTorch's. Anywhere
else (``v = x[0]; v += 1``, where PyTorch changes x through v) the error
stands: a result silently not written into x would be wrong."""
import dis
import sys

from ._errors import AutogradError

_OPERATORS = (("__iadd__", "__add__"), ("__isub__", "__sub__"), ("__imul__", "__mul__"),
              ("__itruediv__", "__truediv__"))


def _stores_by_subscript(frame):
    """True when the instructions after frame's current one (an in-place
    operator) store its result with STORE_SUBSCR, as ``x[k] op= v`` does."""
    code, lasti = frame.f_code, frame.f_lasti
    following = []
    for ins in dis.get_instructions(code):
        if ins.offset > lasti and ins.opname not in ("CACHE", "EXTENDED_ARG"):
            following.append(ins.opname)
            if len(following) == 3:
                break
    # 3.11+: SWAP 3, SWAP 2, STORE_SUBSCR; 3.8-3.10: ROT_THREE, STORE_SUBSCR
    return following[:3] == ["SWAP", "SWAP", "STORE_SUBSCR"] or following[:2] == ["ROT_THREE", "STORE_SUBSCR"]


def _wrap(cls, inplace, out_of_place):
    recorded = getattr(cls, inplace)
    plain = getattr(cls, out_of_place)

    def op(self, other):
        try:
            return recorded(self, other)
        except AutogradError:
            caller = sys._getframe(1)
            if not _stores_by_subscript(caller):
                raise
            return plain(self, other)

    op.__name__ = inplace
    op.__qualname__ = "Tensor." + inplace
    op.__doc__ = recorded.__doc__ or ("self %s other, in place (recorded by autograd)" % inplace)
    setattr(cls, inplace, op)


def install(cls):
    """Wraps tc.Tensor's in-place arithmetic operators as above (after
    tc/_inplace_autograd.py has installed its recorded forms).

    Args:
        cls (type): tc.Tensor.
    """
    for inplace, out_of_place in _OPERATORS:
        _wrap(cls, inplace, out_of_place)
