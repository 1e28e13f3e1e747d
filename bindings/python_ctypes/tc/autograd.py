"""tc.autograd: custom functions (tc.autograd.Function), tensor hooks and the
graph's nodes, over tc.h's tc_function_apply, tc_tensor_register_*hook and
tc_node_*.

Callbacks run Python code from inside libtc. An exception raised there is
kept in a thread-local (tc._errors.pending_callback_exception), reported to
libtc as TC_ERR_CALLBACK with its text, and re-raised, as itself, by the
Python call that ran it (backward(), Function.apply())."""
import ctypes as C
import itertools
import threading

from . import _decls as D
from ._core import VP, byref, fn
from ._errors import check, error_for, keep_callback_exception
from ._tensor_base import TensorBase, _call, _wrap

_I64 = C.c_int64
_I32 = C.c_int32

# Python objects libtc holds through a context pointer: id -> object. The
# release callback (called once by libtc) drops the entry.
_held = {}
_ids = itertools.count(1)
_held_lock = threading.Lock()


def _hold(obj):
    with _held_lock:
        key = next(_ids)
        _held[key] = obj
    return key


def _get(ctx):
    return _held[ctx]


@D.tc_deleter
def _release(_data, ctx):
    with _held_lock:
        _held.pop(ctx, None)


def _report(exc):
    """Keeps exc for re-raising and tells libtc why the callback fails."""
    keep_callback_exception(exc)
    text = "%s: %s" % (type(exc).__name__, exc)
    fn("tc_set_last_error")(D.TC_ERR_CALLBACK, text.encode("utf-8", "replace"))
    return D.TC_ERR_CALLBACK


def _borrow(h):
    """A Tensor of our own for a handle libtc lends a callback (valid during the call)."""
    return _call(fn("tc_tensor_retain"), VP(h))


def _give(t):
    """A new handle to t for libtc to own."""
    out = VP()
    check(fn("tc_tensor_retain")(t._h, byref(out)))
    return out.value


# ---------------------------------------------------------------- hooks
class RemovableHandle:
    """Removes a hook (tensor or module) once; removing twice raises."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self):
        """Removes the hook."""
        self._remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


@D.tc_grad_hook
def _grad_hook(ctx, grad, replacement):
    try:
        hook = _get(ctx)
        result = hook(_borrow(grad))
        if result is not None:
            replacement[0] = _give(result)
        return 0
    except BaseException as e:  # noqa: B902 (every exception goes back to the caller)
        return _report(e)


@D.tc_tensor_hook
def _post_hook(ctx, tensor):
    try:
        _get(ctx)(_borrow(tensor))
        return 0
    except BaseException as e:  # noqa: B902
        return _report(e)


def _tensor_hook_handle(h):
    def remove():
        check(fn("tc_hook_remove")(h))
    return RemovableHandle(remove)


def register_hook(tensor, hook):
    """tensor.register_hook(hook): hook(grad) may return a replacement."""
    out = VP()
    check(fn("tc_tensor_register_hook")(tensor._h, _grad_hook, _hold(hook), _release, byref(out)))
    return _tensor_hook_handle(out)


def register_post_accumulate_grad_hook(tensor, hook):
    """hook(tensor) after a leaf's .grad was accumulated."""
    out = VP()
    check(fn("tc_tensor_register_post_accumulate_grad_hook")(tensor._h, _post_hook, _hold(hook), _release,
                                                              byref(out)))
    return _tensor_hook_handle(out)


# ---------------------------------------------------------------- graph
class Node:
    """A node of the autograd graph (tensor.grad_fn)."""

    __slots__ = ("_h",)

    def __init__(self, h):
        self._h = h

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            try:
                fn("tc_node_free")(h)
            except Exception:
                pass

    def name(self):
        """Returns the name of the backward function (e.g. ``'MulBackward0'``)."""
        from ._core import copy_string
        return copy_string(fn("tc_node_name"), self._h)

    @property
    def next_functions(self):
        """The nodes of the inputs, as ((node or None, index), ...) like PyTorch's."""
        n = _I64()
        check(fn("tc_node_next_count")(self._h, byref(n)))
        out = []
        for i in range(n.value):
            nh, nr = VP(), _I64()
            check(fn("tc_node_next")(self._h, _I64(i), byref(nh), byref(nr)))
            out.append((Node(nh) if nh.value else None, nr.value))
        return tuple(out)

    def __eq__(self, other):
        if not isinstance(other, Node):
            return NotImplemented
        same = _I32()
        check(fn("tc_node_same")(self._h, other._h, byref(same)))
        return bool(same.value)

    def __hash__(self):
        return hash(self.name())

    def __repr__(self):
        return "<%s object>" % self.name()


def grad_fn(tensor):
    """Returns the backward node that produced ``tensor`` (None for leaves).

    Args:
        tensor (Tensor): the tensor.

    Returns:
        Node or None.
    """
    out = VP()
    check(fn("tc_tensor_grad_fn")(tensor._h, byref(out)))
    return Node(out) if out.value else None


# ---------------------------------------------------------------- functions
class FunctionCtx:
    """The ctx of Function.forward/backward."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.to_save = ()
        self._saved = None

    def save_for_backward(self, *tensors):
        """Saves tensors for ``backward`` (read back with ``saved_tensors``).

        Args:
            *tensors (Tensor): the tensors.
        """
        self.to_save = tensors

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, as a tuple."""
        if self._saved is None:
            raise RuntimeError("saved_tensors is only available in backward")
        return self._saved


class _Call:
    """One Function.apply: the class, the arguments with None for each tensor
    (libtc lends the callbacks the tensors; a reference here would keep every
    tensor input alive as long as the node, long after backward freed what
    forward saved, as PyTorch's ctx does not), the tensors' positions and the
    ctx."""

    def __init__(self, cls, args):
        self.cls = cls
        self.pos = _tensor_positions(args)
        self.args = tuple(None if isinstance(a, TensorBase) else a for a in args)
        self.ctx = None


def _tensor_positions(args):
    return [i for i, a in enumerate(args) if isinstance(a, TensorBase)]


@D.tc_function_forward
def _forward(ctx, inputs, n_inputs, needs, outputs, n_outputs, saved, n_saved):
    try:
        call = _get(ctx)
        args = list(call.args)
        pos = call.pos
        for k, i in enumerate(pos):
            args[i] = _borrow(inputs[k])
        needs_input_grad = [False] * len(args)
        for k, i in enumerate(pos):
            needs_input_grad[i] = bool(needs[k])
        call.ctx = FunctionCtx(tuple(needs_input_grad))
        result = call.cls.forward(call.ctx, *args)
        outs = result if isinstance(result, tuple) else (result,)
        call.multi = isinstance(result, tuple)
        if len(outs) > D.TC_FUNCTION_MAX_OUTPUTS:
            raise ValueError("a Function may return at most %d tensors" % D.TC_FUNCTION_MAX_OUTPUTS)
        if len(call.ctx.to_save) > D.TC_FUNCTION_MAX_SAVED:
            raise ValueError("save_for_backward takes at most %d tensors" % D.TC_FUNCTION_MAX_SAVED)
        for k, t in enumerate(outs):
            outputs[k] = _give(t)
        n_outputs[0] = len(outs)
        for k, t in enumerate(call.ctx.to_save):
            saved[k] = _give(t) if t is not None else None
        n_saved[0] = len(call.ctx.to_save)
        call.ctx.to_save = ()
        return 0
    except BaseException as e:  # noqa: B902
        return _report(e)


@D.tc_function_backward
def _backward(ctx, saved, n_saved, grads, n_grads, needs, grad_inputs, n_inputs):
    try:
        call = _get(ctx)
        fctx = call.ctx
        fctx._saved = tuple(_borrow(saved[k]) if saved[k] else None for k in range(n_saved))
        gs = [_borrow(grads[k]) for k in range(n_grads)]
        try:
            result = call.cls.backward(fctx, *gs)
        finally:
            fctx._saved = None
        result = result if isinstance(result, tuple) else (result,)
        pos = call.pos
        if len(result) != len(call.args):
            raise RuntimeError("function %s.backward returned %d gradients, expected %d (one per forward "
                               "argument)" % (call.cls.__name__, len(result), len(call.args)))
        for k, i in enumerate(pos):
            g = result[i]
            if g is not None and needs[k]:
                grad_inputs[k] = _give(g)
        return 0
    except BaseException as e:  # noqa: B902
        return _report(e)


class Function:
    """torch.autograd.Function: subclass with static forward(ctx, *args) and
    backward(ctx, *grad_outputs), call with MyFunction.apply(*args)."""

    @staticmethod
    def forward(ctx, *args):
        """Computes the outputs; override it.

        Args:
            ctx (FunctionCtx): a context to save tensors for ``backward``.
            *args: the inputs.

        Returns:
            Tensor or tuple of Tensor: the outputs.
        """
        raise NotImplementedError("a Function subclass must define forward")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Computes the gradients of the inputs; override it.

        Args:
            ctx (FunctionCtx): the context filled by ``forward``.
            *grad_outputs (Tensor): the gradients of the outputs.

        Returns:
            one gradient (or None) per input of ``forward``.
        """
        raise NotImplementedError("this Function defines no backward")

    @classmethod
    def apply(cls, *args):
        """Runs ``forward`` and records ``backward`` in the graph.

        Args:
            *args: the arguments of ``forward``.

        Returns:
            the result of ``forward``.
        """
        call = _Call(cls, args)
        pos = _tensor_positions(args)
        inputs = (D.tc_tensor * max(1, len(pos)))(*[args[i]._h for i in pos])
        outs = (D.tc_tensor * D.TC_FUNCTION_MAX_OUTPUTS)()
        count = _I64()
        d = D.tc_function_def()
        d.size = C.sizeof(d)
        name = (cls.__name__ + "Backward").encode()
        d.name = name
        d.forward = _forward
        d.backward = _backward if cls.backward is not Function.backward else D.tc_function_backward()
        d.context = _hold(call)
        d.release = _release
        rc = fn("tc_function_apply")(byref(d), inputs, _I64(len(pos)), outs, _I64(D.TC_FUNCTION_MAX_OUTPUTS),
                                     byref(count))
        if rc:
            raise error_for(rc)
        result = tuple(_wrap(outs[k]) for k in range(count.value))
        return result if getattr(call, "multi", False) else result[0]

# ---- torch.autograd.Variable (tc/_variable.py) ----------------------------------------------
from ._variable import Variable  # noqa: E402,F401
# ---- end of Variable ---------------------------------------------------------------------------
# ---- torch.autograd.grad / backward (tc/_autograd_grad.py) -------------------------------------
from ._autograd_grad import backward, grad  # noqa: E402,F401
# ---- end of grad / backward --------------------------------------------------------------------

# ---- higher-order autograd, Python side (tc/_autograd/): tc.autograd.functional, gradcheck,
# anomaly mode. tc.autograd is a module file; giving it a __path__ makes it a package too, so
# `import tc.autograd.functional` finds tc/_autograd/functional.py (imported below by that full
# name, so that there is one copy of each module).
import importlib as _importlib  # noqa: E402
import os as _os  # noqa: E402

__path__ = [_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "_autograd")]
functional = _importlib.import_module(__name__ + ".functional")
_gradcheck = _importlib.import_module(__name__ + ".gradcheck")
gradcheck, gradgradcheck, GradcheckError = _gradcheck.gradcheck, _gradcheck.gradgradcheck, _gradcheck.GradcheckError
grad_mode = _importlib.import_module(__name__ + ".grad_mode")
inference_mode = grad_mode.inference_mode
anomaly_mode = _importlib.import_module(__name__ + ".anomaly_mode")
detect_anomaly, set_detect_anomaly = anomaly_mode.detect_anomaly, anomaly_mode.set_detect_anomaly
# ---- end of higher-order autograd ----

# ---- saved-tensor hooks (tc/_autograd/graph.py): torch.autograd.graph.saved_tensors_hooks,
# save_on_cpu, disable_saved_tensors_hooks ----
graph = _importlib.import_module(__name__ + ".graph")
# ---- end of saved-tensor hooks ----
