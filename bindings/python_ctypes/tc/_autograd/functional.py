"""tc.autograd.functional: vjp, jvp, jacobian, hessian, vhp and hvp of a
Python function of tensors (torch.autograd.functional of PyTorch 1.13), built
on tc.autograd.grad.

As in PyTorch, the inputs are re-made as fresh leaves (or, with
create_graph=True and inputs that require grad, as views that keep the link
to the caller's graph), the function runs on them, and the results come back
in the nesting of the inputs and outputs: a Tensor where the user gave a
Tensor, a tuple where they gave a tuple.

jvp, hvp (and hessian's inner Jacobian) need gradients of gradients: they
use the "double-vjp trick" (the vjp with a dummy vector u is linear in u, so
differentiating it with respect to u gives the forward product), which needs
tc.autograd.grad(create_graph=True). libtc has no forward-mode AD and no
vmap: ``vectorize=True`` gives the same results computed row by row, and
``strategy="forward-mode"`` raises NotImplementedError."""
from .. import _core
from .._tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tc():
    import tc
    return tc


# ------------------------------------------------------------------ helpers
def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """(was it a tuple, the tuple), checking every element is a Tensor."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = ("the value at index %d" % i) if is_tuple else ("the given %s" % arg_name)
            raise TypeError("The %s given to %s must be either a Tensor or a tuple of Tensors but %s has type %s."
                            % (arg_name, fn_name, where, type(el)))
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Unwraps the one-element tuples the user did not ask for."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh leaves, or (create_graph and the input requires grad) views that
    stay connected to the caller's graph so the result can be differentiated
    with respect to the caller's tensors."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError("v is a tuple of invalid length: should be %d but got %d." % (len(other), len(v)))
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = ("Entry %d in " % idx) if is_other_tuple else ""
            raise RuntimeError("%sv has invalid size: should be %s but got %s."
                               % (prepend, el_other.size(), el_v.size()))


_REQUIRES_GRAD_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with "
                 "respect to input {} is independent of the input. This is not allowed in strict mode. You "
                 "should ensure that your function is twice differentiable and that the jacobian depends on "
                 "the inputs (this would be violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "outputs": ("Output {} of the user-provided function does not require gradients. The outputs must be "
                "computed in a differentiable manner from the input when running in strict mode."),
}


def _check_requires_grad(inputs, input_type, strict):
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError("The output of the user-provided function is independent of input %d. This is "
                               "not allowed in strict mode." % i)
        if not inp.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_MESSAGES[input_type].format(i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """tc.autograd.grad over the outputs that require grad (None for every
    input when none does), unused inputs giving None."""
    from .. import autograd
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = (), ()
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs += (out,)
            new_grad_outputs += (g,)
    if not new_outputs:
        return (None,) * len(inputs)
    return autograd.grad(new_outputs, inputs, new_grad_outputs, allow_unused=True, create_graph=create_graph,
                         retain_graph=retain_graph)


_FILL_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros for the None gradients (the mathematical value), or strict's errors."""
    tc = _tc()
    res = ()
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i))
            g = tc.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError("The %s of the user-provided function is independent of input %d. This is not "
                               "allowed in strict mode when create_graph=True." % (what, i))
        res += (g,)
    return res


def _prepare_v(v, refs, is_refs_tuple, create_graph, fn_name, none_message):
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, refs, is_refs_tuple)
        return v
    if len(refs) != 1 or refs[0].nelement() != 1:
        raise RuntimeError(none_message)
    return None


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                 "with a single element.")


# ------------------------------------------------------------------ API
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Jacobian product v^T J of ``func`` at ``inputs``.

    Args:
        func (callable): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): where the Jacobian is taken.
        v (Tensor or tuple of Tensor, optional): shaped like the outputs;
            optional for a one-element output (then 1).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when an output is independent of an input
            instead of giving zeros.

    Returns:
        tuple: (func_output, vjp), vjp shaped like the inputs.
    """
    with _core.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single Tensor "
                       "with a single element.")
    with _core.set_grad_enabled(True if create_graph else _core.is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Jacobian-vector product J v of ``func`` at ``inputs`` (by the
    double-vjp trick, as PyTorch).

    Args:
        func (callable): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): where the Jacobian is taken.
        v (Tensor or tuple of Tensor, optional): shaped like the inputs;
            optional for a one-element input (then 1).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when an output is independent of an input
            instead of giving zeros.

    Returns:
        tuple: (func_output, jvp), jvp shaped like the outputs.
    """
    tc = _tc()
    with _core.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict=strict)
        # The dummy u: vjp(u) = J^T u is linear in u, and its vjp with v is J v.
        grad_outputs = tuple(tc.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with _core.set_grad_enabled(True if create_graph else _core.is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_outputs_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``, one reverse pass per output element.

    Args:
        func (callable): takes Tensor inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple of Tensor): where the Jacobian is taken.
        create_graph (bool): make the Jacobian differentiable.
        strict (bool): raise when an output is independent of an input
            instead of giving zeros.
        vectorize (bool): PyTorch's vmap path; here the same values, computed
            row by row (strict and vectorize together raise, as PyTorch).
        strategy (str): "reverse-mode" ("forward-mode" needs forward AD,
            which libtc lacks: NotImplementedError).

    Returns:
        Tensor, or tuple (of tuples) of Tensor: entry [i][j] has shape
        output_i.shape + input_j.shape.
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more '
                             'performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        raise NotImplementedError('jacobian(strategy="forward-mode") needs forward-mode AD, which libtc does '
                                  'not have; use strategy="reverse-mode"')
    tc = _tc()
    with _core.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        outputs = func(*inputs)
        is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outputs, "outputs", strict=strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = ()
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                vj = _autograd_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)
                for j, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            raise RuntimeError("The jacobian of the user-provided function is independent of "
                                               "input %d. This is not allowed in strict mode when "
                                               "create_graph=True." % i)
                        row.append(g)
                    else:
                        if strict:
                            raise RuntimeError("Output %d of the user-provided function is independent of input "
                                               "%d. This is not allowed in strict mode." % (i, j))
                        row.append(tc.zeros_like(inp))
            jac += (tuple(_stack_rows(row, out, inputs[j]) for j, row in enumerate(rows)),)
        jac = _grad_postprocess(jac, create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def _stack_rows(rows, out, inp):
    tc = _tc()
    shape = tuple(out.size()) + tuple(inp.size())
    if not rows:  # an empty output: an empty Jacobian block
        return tc.zeros(shape, dtype=inp.dtype)
    return tc.stack(rows, dim=0).view(shape)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function ``func`` at ``inputs`` (the Jacobian of its Jacobian).

    Args:
        func (callable): takes Tensor inputs, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): where the Hessian is taken.
        create_graph (bool): make the Hessian differentiable.
        strict (bool): raise when the Hessian is independent of an input
            instead of giving zeros.
        vectorize (bool): as jacobian's.
        outer_jacobian_strategy (str): "reverse-mode" (see jacobian).

    Returns:
        Tensor, or tuple of tuples of Tensor: entry [i][j] has shape
        input_i.shape + input_j.shape.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_output(func, inputs, fn_name, strict):
    outputs = func(*inputs)
    is_outputs_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError("The function given to %s should return a single Tensor" % fn_name)
    if outputs[0].nelement() != 1:
        raise RuntimeError("The Tensor returned by the function given to %s should contain a single element"
                           % fn_name)
    return is_outputs_tuple, outputs


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """The vector-Hessian product v^T H of a scalar function ``func`` at ``inputs``.

    Args:
        func (callable): takes Tensor inputs, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): where the Hessian is taken.
        v (Tensor or tuple of Tensor, optional): shaped like the inputs;
            optional for a one-element input (then 1).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when the result is independent of an input
            instead of giving zeros.

    Returns:
        tuple: (func_output, vhp), vhp shaped like the inputs.
    """
    with _core.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vhp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", _V_NONE_INPUT)
        is_outputs_tuple, outputs = _scalar_output(func, inputs, "vhp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    with _core.set_grad_enabled(True if create_graph else _core.is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """The Hessian-vector product H v of a scalar function ``func`` at
    ``inputs`` (by the double-vjp trick, as PyTorch).

    Args:
        func (callable): takes Tensor inputs, returns a one-element Tensor.
        inputs (Tensor or tuple of Tensor): where the Hessian is taken.
        v (Tensor or tuple of Tensor, optional): shaped like the inputs;
            optional for a one-element input (then 1).
        create_graph (bool): make the results differentiable.
        strict (bool): raise when the result is independent of an input
            instead of giving zeros.

    Returns:
        tuple: (func_output, hvp), hvp shaped like the inputs.
    """
    tc = _tc()
    with _core.enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", _V_NONE_INPUT)
        is_outputs_tuple, outputs = _scalar_output(func, inputs, "hvp", strict)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(tc.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with _core.set_grad_enabled(True if create_graph else _core.is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_inputs_tuple)
