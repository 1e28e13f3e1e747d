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


def augmented(self, other, inplace, out_of_place):
    """self.<inplace>(other) for the operator ``self op= other`` (Tensor.__iadd__,
    ...), or self.<out_of_place>(other) when the recorded write fails on a view
    and the statement stores the result back by subscript (see above)."""
    try:
        return getattr(self, inplace)(other)
    except AutogradError:
        caller = sys._getframe(2)  # 0: here, 1: Tensor.__iadd__ (...), 2: the statement's frame
        if not _stores_by_subscript(caller):
            raise
        return getattr(self, out_of_place)(other)
