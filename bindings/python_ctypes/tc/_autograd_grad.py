"""torch.autograd.grad and torch.autograd.backward (with retain_graph,
create_graph and inputs) over libtc's tc_autograd_grad and tc_backward_ex.

The engine does the work (graph walk, pruning to the requested inputs,
create_graph); this module converts the arguments the way torch 1.13's
torch/autograd/__init__.py does (_tensor_or_tensors_to_tuple, _make_grads)
and raises the same exception types."""

import ctypes as C
import warnings

from . import _decls as D
from ._core import byref, fn
from ._errors import error_for
from ._tensor_base import TensorBase, _wrap


def _as_tuple(tensors):
    """A single tensor as a 1-tuple, any other sequence as a tuple."""
    if isinstance(tensors, TensorBase):
        return (tensors,)
    return tuple(tensors)


def _grads_tuple(grads, length):
    """torch's _tensor_or_tensors_to_tuple: None -> (None,) * length."""
    if grads is None:
        return (None,) * length
    if isinstance(grads, TensorBase):
        return (grads,)
    return tuple(grads)


def _check_grads(outputs, grads):
    """torch's _make_grads checks that stay in Python: only tensors or None,
    one per output (the engine checks shapes, dtypes and scalar outputs)."""
    if len(grads) != len(outputs):
        raise RuntimeError("got %d tensors and %d gradients" % (len(outputs), len(grads)))
    for g in grads:
        if g is not None and not isinstance(g, TensorBase):
            raise TypeError("gradients can be either Tensors or None, but got " + type(g).__name__)


def _handles(tensors, what):
    for t in tensors:
        if not isinstance(t, TensorBase):
            raise TypeError("%s must be Tensors, but got %s" % (what, type(t).__name__))
    return (D.tc_tensor * max(1, len(tensors)))(*[t._h for t in tensors])


def _optional_handles(tensors):
    if all(t is None for t in tensors):
        return None
    return (D.tc_tensor * max(1, len(tensors)))(*[None if t is None else t._h for t in tensors])


def _grad_once(outputs, inputs, grads, retain_graph, create_graph, allow_unused):
    opts = D.tc_grad_options()
    opts.size = C.sizeof(opts)
    opts.retain_graph = 1 if retain_graph else 0
    opts.create_graph = 1 if create_graph else 0
    opts.allow_unused = 1 if allow_unused else 0
    opts.materialize_grads = 0
    outs = (D.tc_tensor * len(inputs))()
    rc = fn("tc_autograd_grad")(_handles(outputs, "outputs"), len(outputs), _optional_handles(grads),
                                _handles(inputs, "inputs"), len(inputs), byref(opts), outs)
    if rc:
        raise error_for(rc)
    return tuple(_wrap(outs[k]) if outs[k] else None for k in range(len(inputs)))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """Computes and returns the sum of gradients of outputs with respect to the inputs.

    Nothing is accumulated into any ``.grad``.

    Args:
        outputs (sequence of Tensor): outputs of the differentiated function.
        inputs (sequence of Tensor): inputs w.r.t. which the gradient is returned.
        grad_outputs (sequence of Tensor): the "vector" in the vector-Jacobian product, one per output
            (None: ones, for scalar outputs only).
        retain_graph (bool, optional): keep the graph for another pass; defaults to ``create_graph``.
        create_graph (bool): record the derivative's graph, for higher order derivatives.
        only_inputs (bool): deprecated and ignored.
        allow_unused (bool): return None for an input the outputs do not depend on instead of raising.
        is_grads_batched (bool): the first dim of each ``grad_outputs`` entry is a batch of vectors;
            the result has the same leading dim.

    Returns:
        tuple of Tensor: one gradient (or None) per input.
    """
    t_outputs = _as_tuple(outputs)
    t_inputs = _as_tuple(inputs)
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now "
                      "(defaults to True). To accumulate gradient for other "
                      "parts of the graph, please use torch.autograd.backward.")
    grads = _grads_tuple(grad_outputs, len(t_outputs))
    _check_grads(t_outputs, grads)
    if retain_graph is None:
        retain_graph = create_graph
    if not t_inputs:
        raise RuntimeError("grad requires non-empty inputs.")
    if not is_grads_batched:
        return _grad_once(t_outputs, t_inputs, grads, retain_graph, create_graph, allow_unused)
    # The batch one vector at a time (torch vmaps it): the graph is kept
    # until the last one.
    from . import stack
    batch = None
    for g in grads:
        if g is not None:
            if g.dim() == 0:
                raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
                                   "as the batch dimension. The sizes of the remaining dimensions are expected to "
                                   "match the shape of corresponding output, but a mismatch was detected: "
                                   "grad_output has no batch dimension")
            batch = g.shape[0] if batch is None else batch
    if batch is None:
        raise RuntimeError("is_grads_batched=True needs at least one grad_output")
    rows = []
    for i in range(batch):
        gi = tuple(None if g is None else g[i] for g in grads)
        rows.append(_grad_once(t_outputs, t_inputs, gi, True if i < batch - 1 else retain_graph, create_graph,
                               allow_unused))
    result = []
    for k in range(len(t_inputs)):
        col = [r[k] for r in rows]
        result.append(None if any(c is None for c in col) else stack(col))
    return tuple(result)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Computes the sum of gradients of given tensors with respect to graph leaves, into their ``.grad``.

    Args:
        tensors (sequence of Tensor or Tensor): tensors whose derivative is computed.
        grad_tensors (sequence of (Tensor or None)): the "vector" in the Jacobian-vector product, one per tensor
            (None: ones, for one-element tensors only).
        retain_graph (bool, optional): keep the graph for another pass; defaults to ``create_graph``.
        create_graph (bool): record the derivative's graph, for higher order derivatives
            (the accumulated ``.grad`` then keeps its graph).
        grad_variables (sequence of Tensor): deprecated alias of ``grad_tensors``.
        inputs (sequence of Tensor or Tensor, optional): accumulate only into these tensors' ``.grad``.
    """
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.")
        if grad_tensors is None:
            grad_tensors = grad_variables
        else:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) "
                               "arguments both passed to backward(). Please only "
                               "use 'grad_tensors'.")
    if inputs is not None and len(_as_tuple(inputs)) == 0:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    t_tensors = _as_tuple(tensors)
    t_inputs = _as_tuple(inputs) if inputs is not None else ()
    grads = _grads_tuple(grad_tensors, len(t_tensors))
    _check_grads(t_tensors, grads)
    if retain_graph is None:
        retain_graph = create_graph
    opts = D.tc_backward_options()
    opts.size = C.sizeof(opts)
    opts.retain_graph = 1 if retain_graph else 0
    opts.create_graph = 1 if create_graph else 0
    keep = None
    if t_inputs:
        keep = _handles(t_inputs, "inputs")
        opts.inputs = keep
        opts.n_inputs = len(t_inputs)
    rc = fn("tc_backward_ex")(_handles(t_tensors, "tensors"), len(t_tensors), _optional_handles(grads),
                              byref(opts))
    if rc:
        raise error_for(rc)


def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Tensor.backward: torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)."""
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)
