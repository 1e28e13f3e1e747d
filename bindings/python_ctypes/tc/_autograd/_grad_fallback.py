"""A first-order tc.autograd.grad for libtc builds whose engine has no
tc_autograd_grad: it runs an ordinary backward and reads the gradients of the
inputs back from their .grad, restoring whatever .grad they had before.

It is only a bridge: create_graph=True needs the engine (an error here), and,
unlike the engine's grad, the backward it runs still accumulates into the
.grad of leaves of the graph that are not among ``inputs`` (e.g. a module's
parameters used by the function). tc.autograd uses it only when the engine
provides no grad of its own."""
from .._core import enable_grad
from .._tensor import Tensor

__all__ = ["grad"]


def _as_tuple(x):
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """Computes and returns the gradients of ``outputs`` with respect to
    ``inputs`` (torch.autograd.grad), without touching the inputs' ``.grad``.

    Args:
        outputs (Tensor or sequence of Tensor): what is differentiated.
        inputs (Tensor or sequence of Tensor): with respect to what.
        grad_outputs (sequence, optional): the vector of the vector-Jacobian
            product, one per output (None: ones, for one-element outputs only).
        retain_graph (bool, optional): keep the graph (default: create_graph).
        create_graph (bool): not available without the engine's grad.
        only_inputs (bool): ignored (deprecated in PyTorch too).
        allow_unused (bool): give None for an input the outputs do not
            depend on instead of raising.
        is_grads_batched (bool): not available here.

    Returns:
        tuple of Tensor: one gradient (or None) per input.
    """
    if create_graph:
        raise NotImplementedError("tc.autograd.grad(create_graph=True) needs a libtc whose engine provides "
                                  "tc_autograd_grad; this library has none")
    if is_grads_batched:
        raise NotImplementedError("tc.autograd.grad(is_grads_batched=True) is not supported")
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError("grad requires one grad_output per output: got %d grad_outputs and %d outputs"
                           % (len(grad_outputs), len(outputs)))
    for i, inp in enumerate(inputs):
        if not inp.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    roots = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not out.requires_grad:
            raise RuntimeError("element %d of tensors does not require grad and does not have a grad_fn" % i)
        if g is None:
            if out.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            roots.append(out.sum())
        else:
            roots.append((out * g.detach()).sum())
    # Stash the inputs' own .grad, so that what backward leaves there is
    # only this call's gradient, and put it back afterwards.
    stashed = []
    for inp in inputs:
        if not inp.is_leaf:
            inp.retain_grad()
        stashed.append(inp.grad)
        inp.grad = None
    try:
        with enable_grad():
            root = roots[0]
            for r in roots[1:]:
                root = root + r
        root.backward(retain_graph=bool(retain_graph))
        result = []
        for inp in inputs:
            g = inp.grad
            result.append(None if g is None else g.detach())
    finally:
        # Reversed: an input given twice was stashed as None the second time.
        for inp, old in reversed(list(zip(inputs, stashed))):
            inp.grad = None
            if old is not None:
                inp.grad = old
    if not allow_unused and any(g is None for g in result):
        raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                           "Set allow_unused=True if this is the desired behavior.")
    return tuple(result)
