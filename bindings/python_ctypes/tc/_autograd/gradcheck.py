"""tc.autograd.gradcheck and gradgradcheck (torch.autograd.gradcheck of
PyTorch 1.13, its "slow mode"): the Jacobian computed by tc.autograd.grad,
one vector-Jacobian product per output element, is compared with central
finite differences, and a mismatch raises GradcheckError (a RuntimeError)
with both Jacobians printed, or returns False with raise_exception=False.

The Jacobians are laid out as PyTorch's: one (input numel x output numel)
matrix per (output, input) pair. The finite differences perturb copies of
the inputs (not the inputs themselves), so the function must be pure in its
tensor arguments, as PyTorch's gradcheck also assumes. ``fast_mode=True``
runs the same full check (PyTorch's fast mode only checks a random
projection of it). libtc has no forward-mode AD and no vmap:
check_forward_ad, check_batched_grad and check_batched_forward_grad raise
NotImplementedError when set."""
import warnings

import numpy as np

from .._tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails (a RuntimeError, as PyTorch's)."""


_FAILED_NONDET_MSG = (
    "\n\nNOTE: If your op relies on non-deterministic operations, this failure might be expected: "
    "call gradcheck/gradgradcheck with `nondet_tol=<tol>` as a keyword argument.\n")


def _tc():
    import tc
    return tc


def _as_tuple(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x):
    return tuple(o for o in _as_tuple(x) if isinstance(o, Tensor) and o.requires_grad)


def _is_float(t):
    return isinstance(t, Tensor) and t.dtype.is_floating_point


def _diff_inputs(inputs):
    return [t for t in inputs if _is_float(t) and t.requires_grad]


def _np(t):
    return t.detach().numpy().astype(np.float64, copy=False)


def _to_tc(arr, dtype):
    # np.ascontiguousarray turns a 0-d array into shape (1,): keep the shape.
    arr = np.asarray(arr)
    return _tc().tensor(np.ascontiguousarray(arr).reshape(arr.shape)).to(dtype)


def _check_inputs(inputs):
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if isinstance(inp, Tensor) and inp.requires_grad:
            if inp.dtype != _tc().float64:
                warnings.warn("Input #%d requires gradient and is not a double precision floating point or "
                              "complex. This check will likely fail if all the inputs are not of double "
                              "precision floating point or complex. " % idx)
            if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size())):
                raise RuntimeError("The %dth input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck." % idx)
            any_requires_grad = True
    if not any_requires_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")


def _numerical_jacobian(func, inputs, func_out, eps):
    """jac[j][i]: input j's (numel x numel of output i) central differences,
    for every output (differentiable or not), as PyTorch's."""
    outs = _as_tuple(func_out)
    result = []
    for j, inp in enumerate(inputs):
        if not (_is_float(inp) and inp.requires_grad):
            continue
        base = _np(inp).reshape(-1)
        cols = [np.zeros((inp.numel(), o.numel())) for o in outs]

        def run(values):
            args = list(inputs)
            args[j] = _to_tc(values.reshape(tuple(inp.shape)), inp.dtype)
            return [_np(o).reshape(-1) for o in _as_tuple(func(*args))]

        for k in range(base.size):
            minus, plus = base.copy(), base.copy()
            minus[k] -= eps
            plus[k] += eps
            a, b = run(minus), run(plus)
            for i in range(len(outs)):
                cols[i][k] = (b[i] - a[i]) / (2 * eps)
        result.append(cols)
    return result


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes):
    """One (numel x output numel) matrix per differentiable input, checked
    for size, dtype and reentrancy (the same products twice)."""
    from .. import autograd
    tc = _tc()
    diff = _diff_inputs(inputs)

    def rows():
        jac = [np.zeros((d.numel(), output.numel())) for d in diff]
        sizes_ok, types_ok = True, True
        flat = output.reshape(-1)
        for k in range(output.numel()):
            g = tc.zeros(output.numel(), dtype=output.dtype)
            g[k] = 1
            grads = autograd.grad(flat, diff, g, retain_graph=True, allow_unused=True)
            for n, (gi, d) in enumerate(zip(grads, diff)):
                if gi is None:
                    continue
                if gi.size() != d.size():
                    sizes_ok = False
                elif gi.dtype != d.dtype:
                    types_ok = False
                jac[n][:, k] = _np(gi).reshape(-1)
        return jac, sizes_ok, types_ok

    jac1, sizes_ok, types_ok = rows()
    jac2, _, _ = rows()
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    for a, b in zip(jac1, jac2):
        if a.size and np.abs(a - b).max() > nondet_tol:
            raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and "
                                 "grad_output multiple times gives different values, although analytical gradient "
                                 "matches numerical gradient.The tolerance for nondeterminism was %s." % nondet_tol
                                 + _FAILED_NONDET_MSG)
    return jac1


def _notallclose_msg(analytical, numerical, output_idx, input_idx):
    return "Jacobian mismatch for output %d with respect to input %d,\nnumerical:%s\nanalytical:%s\n" % (
        output_idx, input_idx, numerical, analytical)


def _slow_gradcheck(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol):
    numerical = _numerical_jacobian(func, inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jac in per_input:
                if np.count_nonzero(jac):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    func_out = _as_tuple(func_out)
    keep = [i for i, o in enumerate(func_out) if isinstance(o, Tensor) and o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][keep[i]]
            if not np.allclose(a, n, rtol=rtol, atol=atol):
                raise GradcheckError(_notallclose_msg(_to_tc(a, o.dtype), _to_tc(n, o.dtype), i, j))
    return True


def _test_backward_mul_by_grad_output(outputs, inputs):
    from .. import autograd
    tc = _tc()
    diff = _diff_inputs(inputs)
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = autograd.grad(outputs, diff, [tc.zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff):
        if gi is None:
            continue
        if not bool(gi.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype or gi.device != di.device:
            raise GradcheckError("grad is incorrect type")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(func, inputs):
    """libtc has no undefined gradients: the engine passes zeros for an
    output no gradient reaches, so the check is that all-zero output
    gradients (all at once and one at a time) give zero or no input gradients."""
    from .. import autograd
    tc = _tc()
    diff = _diff_inputs(inputs)
    if not diff:
        raise GradcheckError("no Tensors requiring grad found in input")
    outputs = _differentiable_outputs(func(*inputs))
    cases = [[tc.zeros_like(o) for o in outputs]]
    if len(outputs) > 1:
        for idx in range(len(outputs)):
            cases.append([tc.zeros_like(o) if n == idx else tc.ones_like(o) for n, o in enumerate(outputs)])
    for k, grad_outputs in enumerate(cases):
        outs = _differentiable_outputs(func(*inputs))
        try:
            grads = autograd.grad(outs, diff, grad_outputs, allow_unused=True)
        except RuntimeError:
            raise GradcheckError('Expected backward function to handle undefined output grads. Please look at '
                                 '"Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"')
        if k == 0 and any(g is not None and not bool(g.eq(0).all()) for g in grads):
            raise GradcheckError('Expected all input grads to be undefined or zero when all output grads are '
                                 'undefined or zero. Please look at "Notes about undefined output gradients" in '
                                 '"tools/autograd/derivatives.yaml"')
    return True


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      check_backward_ad):
    tupled_inputs = _as_tuple(inputs)
    _check_inputs(tupled_inputs)
    func_out = func(*tupled_inputs)
    outputs = _differentiable_outputs(func_out)
    if check_backward_ad:
        _slow_gradcheck(func, func_out, tupled_inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if not check_backward_ad:
        return True
    if outputs:
        _test_backward_mul_by_grad_output(outputs, tupled_inputs)
        if check_undefined_grad:
            _test_undefined_backward_mode(func, tupled_inputs)
    return True


def _unsupported(**flags):
    for name, value in flags.items():
        if value:
            raise NotImplementedError("gradcheck(%s=True) needs %s, which libtc does not have"
                                      % (name, "vmap" if "batched" in name else "forward-mode AD"))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_sparse_nnz=False,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """Checks the gradients of ``func`` against finite differences
    (torch.autograd.gradcheck).

    Args:
        func (callable): takes the inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple): its arguments; the floating tensors that
            require grad are checked (use float64).
        eps (float): the finite-difference step.
        atol (float): absolute tolerance.
        rtol (float): relative tolerance.
        raise_exception (bool): raise GradcheckError on failure (else return False).
        check_sparse_nnz (bool): PyTorch's sparse option (libtc's inputs are dense).
        nondet_tol (float): tolerance between two identical backward passes.
        check_undefined_grad (bool): check that zero output gradients give
            zero input gradients.
        check_grad_dtypes (bool): check the gradients' dtypes.
        check_batched_grad (bool): needs vmap (NotImplementedError).
        check_batched_forward_grad (bool): needs forward AD (NotImplementedError).
        check_forward_ad (bool): needs forward AD (NotImplementedError).
        check_backward_ad (bool): check the reverse-mode gradients.
        fast_mode (bool): accepted; runs the full check.

    Returns:
        bool: True when every check passes.
    """
    _unsupported(check_batched_grad=check_batched_grad, check_batched_forward_grad=check_batched_forward_grad,
                 check_forward_ad=check_forward_ad)
    try:
        return _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                                 check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0, check_undefined_grad=True,
                  check_grad_dtypes=False, check_batched_grad=False, check_fwd_over_rev=False,
                  check_rev_over_rev=True, fast_mode=False):
    """Checks the gradients of the gradients of ``func`` against finite
    differences (torch.autograd.gradgradcheck): gradcheck of the function
    (inputs, grad_outputs) -> grad(func(inputs), inputs, grad_outputs,
    create_graph=True).

    Args:
        func (callable): takes the inputs, returns a Tensor or a tuple of Tensors.
        inputs (Tensor or tuple): its arguments (use float64).
        grad_outputs (Tensor or tuple, optional): the gradients of the
            outputs; None: random ones in [-1, 1) that require grad.
        eps (float): the finite-difference step.
        atol (float): absolute tolerance.
        rtol (float): relative tolerance.
        gen_non_contig_grad_outputs (bool): make the random grad_outputs non-contiguous.
        raise_exception (bool): raise GradcheckError on failure (else return False).
        nondet_tol (float): tolerance between two identical backward passes.
        check_undefined_grad (bool): as gradcheck's.
        check_grad_dtypes (bool): check the gradients' dtypes.
        check_batched_grad (bool): needs vmap (NotImplementedError).
        check_fwd_over_rev (bool): needs forward AD (NotImplementedError).
        check_rev_over_rev (bool): check reverse over reverse.
        fast_mode (bool): accepted; runs the full check.

    Returns:
        bool: True when every check passes.
    """
    from .. import autograd
    tc = _tc()
    assert check_fwd_over_rev or check_rev_over_rev, \
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True"
    assert not (check_undefined_grad and not check_rev_over_rev), \
        "Setting check_undefined_grad=True requires check_rev_over_rev to be True"
    assert not (check_batched_grad and not check_rev_over_rev), \
        "Setting check_batched_grad=True requires check_rev_over_rev to be True"
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        made = []
        for x in _differentiable_outputs(func(*tupled_inputs)):
            dtype = x.dtype if x.dtype.is_floating_point else tc.float64
            if gen_non_contig_grad_outputs and x.dim() > 0:
                g = (tc.rand(tuple(x.shape) + (2,), dtype=dtype) * 2 - 1)[..., 0]
            else:
                g = tc.rand(tuple(x.shape), dtype=dtype) * 2 - 1
            made.append(g.detach().requires_grad_(True))
        tupled_grad_outputs = tuple(made)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_idx = {i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_idx = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def new_func(*args):
        input_args = tuple(x.requires_grad_() if i in diff_input_idx and not x.requires_grad else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        gos = tuple(x.requires_grad_() if i in diff_grad_output_idx and not x.requires_grad else x
                    for i, x in enumerate(args[-num_outputs:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_idx)
        grads = autograd.grad(outputs, diff_args, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev)
