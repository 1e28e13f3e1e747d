"""tc.autograd.graph: saved-tensor hooks (torch.autograd.graph), over tc.h's
tc_saved_tensors_hooks_push / _pop.

libtc keeps one uint64 token per saved tensor; a pack hook may return any
Python object, so each pushed pair keeps its packed objects in a dict keyed by
the token it hands libtc, and libtc's free callback drops the entry once the
graph no longer needs it (its node died, or a backward freed the saved
tensors). An exception raised inside a hook is re-raised, as itself, by the
tc call that ran it (the op that saved, or backward) as PyTorch 1.13 raises
it: a RuntimeError "<type>: <message>" (with the original as its __cause__).
"""
import contextlib
import ctypes as C
import itertools
import threading

from tc import _decls as D
from tc import autograd as _autograd
from tc._core import fn
from tc._errors import check
from tc._tensor_base import TensorBase

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


class _HookPair:
    """One pushed (pack_hook, unpack_hook) pair and the objects it packed.

    No lock of its own: next() on the counter and the dict's operations are
    atomic under the GIL, and a lock would deadlock here, since dropping a
    packed tensor may free a graph whose tokens come back to drop() on the
    same thread."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self.packed = {}
        self._tokens = itertools.count(1)

    def keep(self, obj):
        """Stores a packed object; returns its token."""
        token = next(self._tokens)
        self.packed[token] = obj
        return token

    def get(self, token):
        """The packed object of token."""
        return self.packed[token]

    def drop(self, token):
        """Forgets token's packed object (libtc no longer needs it)."""
        obj = self.packed.pop(token, None)
        del obj  # dies here, after the dict was updated (it may free more tokens)


def _hook_error(exc):
    """What the tc call running a failed hook raises: torch 1.13 turns an
    Exception raised in a saved-tensor hook into a RuntimeError naming it
    (a KeyboardInterrupt or SystemExit stays itself)."""
    if not isinstance(exc, Exception):
        return exc
    err = RuntimeError("%s: %s" % (type(exc).__name__, exc))
    err.__cause__ = exc
    return err


def _unpack_type_error(result):
    return TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type %s"
                     % type(result).__name__)


@D.tc_saved_tensor_pack_hook
def _pack(ctx, tensor, token):
    try:
        pair = _autograd._get(ctx)
        token[0] = pair.keep(pair.pack_hook(_autograd._borrow(tensor)))
        return 0
    except BaseException as e:  # noqa: B902 (every exception goes back to the caller)
        return _autograd._report(_hook_error(e))


@D.tc_saved_tensor_unpack_hook
def _unpack(ctx, token, out):
    try:
        pair = _autograd._get(ctx)
        result = pair.unpack_hook(pair.get(token))
    except BaseException as e:  # noqa: B902
        return _autograd._report(_hook_error(e))
    try:
        if not isinstance(result, TensorBase):
            raise _unpack_type_error(result)  # torch's TypeError, as it is
        out[0] = _autograd._give(result)
        return 0
    except BaseException as e:  # noqa: B902
        return _autograd._report(e)


@D.tc_saved_tensor_free_hook
def _free(ctx, token):
    # Runs whenever a graph dies (possibly while the interpreter shuts
    # down): it must never raise into libtc.
    try:
        pair = _autograd._held.get(ctx)
        if pair is not None:
            pair.drop(token)
    except BaseException:  # noqa: B902
        pass


def _hooks_depth():
    """How many saved-tensor hook pairs this thread has pushed (a libtc
    extension for tests and debugging: torch has no such query)."""
    out = C.c_int64()
    check(fn("tc_saved_tensors_hooks_depth")(C.byref(out)))
    return out.value


_disabled = threading.local()  # .message: why hooks are disabled on this thread (None: enabled)


class saved_tensors_hooks:
    """Context-manager that sets a pair of pack / unpack hooks for saved tensors.

    Inside it, every tensor an operation saves for backward (the ops' own and
    those saved by ``ctx.save_for_backward``) is passed to ``pack_hook``, whose
    result is kept in the graph instead of the tensor; ``unpack_hook`` gets
    that result back when backward needs the tensor and must return a tensor.
    Only the innermost pair applies when contexts nest.

    Args:
        pack_hook (Callable[[Tensor], Any]): called with each saved tensor
            (grad mode off).
        unpack_hook (Callable[[Any], Tensor]): called with what pack_hook returned.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        message = getattr(_disabled, "message", None)
        if message is not None:
            raise RuntimeError(message)
        pair = _HookPair(self.pack_hook, self.unpack_hook)
        check(fn("tc_saved_tensors_hooks_push")(_pack, _unpack, _free, _autograd._hold(pair),
                                                _autograd._release))

    def __exit__(self, *args):
        check(fn("tc_saved_tensors_hooks_pop")())


class save_on_cpu(saved_tensors_hooks):
    """Context-manager under which tensors saved by the forward pass are kept
    on the CPU and copied back to their device for backward (a CPU tensor is
    kept as it is, without a copy).

    Args:
        pin_memory (bool): keep the copies in pinned memory and copy them back
            asynchronously. Default: ``False``.
    """

    def __init__(self, pin_memory=False):
        import tc

        def pack_to_cpu(tensor):
            if not pin_memory:
                return (tensor.device, tensor.cpu())
            packed = tc.empty(tensor.size(), dtype=tensor.dtype,
                              pin_memory=tc.cuda.is_available() and not tensor.is_sparse)
            packed.copy_(tensor)
            return (tensor.device, packed)

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context-manager under which entering saved_tensors_hooks (or
    save_on_cpu) raises RuntimeError(error_message), on this thread.

    Args:
        error_message (str): the message of that error.
    """
    previous = getattr(_disabled, "message", None)
    try:
        _disabled.message = error_message
        yield
    finally:
        _disabled.message = previous
