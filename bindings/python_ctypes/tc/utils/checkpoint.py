"""tc.utils.checkpoint: activation checkpointing (torch.utils.checkpoint of
PyTorch 1.13).

checkpoint(function, *args) runs ``function`` without recording a graph, so
none of its intermediate activations is kept; only its inputs are saved. When
backward reaches it, the function runs again with grad mode on (the RNG state
of the forward restored first, so dropout draws the same mask) and the
gradients of that recomputation flow on: memory traded for one more forward.

The recomputation runs a nested backward from inside the engine's backward
(a custom Function's backward calling backward again), which libtc's engine
supports as PyTorch's reentrant engine does."""
import warnings

from .. import autograd as _autograd
from .._core import enable_grad, no_grad
from .._tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "detach_variable", "check_backward_validity"]


def detach_variable(inputs):
    """Detaches each tensor of a tuple, keeping its requires_grad.

    Args:
        inputs (tuple): tensors and other values (other values pass through).

    Returns:
        tuple: the detached tensors, as new leaves.
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: ",
                           type(inputs).__name__)
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad_(inp.requires_grad)
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    """Warns (as PyTorch) when no tensor input requires grad.

    Args:
        inputs (iterable): the checkpointed function's arguments.
    """
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None")


class CheckpointFunction(_autograd.Function):
    """The Function behind checkpoint(): forward runs without a graph and saves
    only the inputs; backward recomputes and backpropagates through the
    recomputation."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        """Runs ``run_function(*args)`` under no_grad, saving its tensor
        inputs and (if asked) the RNG state.

        Args:
            ctx: the Function's context.
            run_function (callable): the checkpointed function.
            preserve_rng_state (bool): stash the RNG state for the recomputation.
            *args: its arguments.

        Returns:
            the function's outputs.
        """
        from ..serialization import get_rng_state
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs = []
        ctx.tensor_indices = []
        tensor_inputs = []
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensor_inputs.append(arg)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(arg)
        ctx.save_for_backward(*tensor_inputs)
        with no_grad():
            outputs = run_function(*args)
        return outputs

    @staticmethod
    def backward(ctx, *args):
        """Recomputes the forward with grad mode on (same RNG state) and
        backpropagates ``args`` through it.

        Args:
            ctx: the Function's context.
            *args (Tensor): the gradients of the outputs.

        Returns:
            tuple: None, None, then the gradient of each input.
        """
        from ..serialization import get_rng_state, set_rng_state
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        # The RNG is forked: restored to the forward's state for the
        # recomputation, then put back, so backward does not move the
        # caller's random stream (torch.random.fork_rng).
        outer_state = get_rng_state() if ctx.preserve_rng_state else None
        try:
            if ctx.preserve_rng_state:
                set_rng_state(ctx.fwd_cpu_state)
            detached = detach_variable(tuple(inputs))
            with enable_grad():
                outputs = ctx.run_function(*detached)
        finally:
            if outer_state is not None:
                set_rng_state(outer_state)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad, grads = [], []
        for out, g in zip(outputs, args):
            if isinstance(out, Tensor) and out.requires_grad:
                with_grad.append(out)
                grads.append(g)
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _autograd.backward(with_grad, grads)
        return (None, None) + tuple(inp.grad if isinstance(inp, Tensor) else None for inp in detached)


def checkpoint(function, *args, use_reentrant=True, **kwargs):
    """Checkpoints a model or part of it (torch.utils.checkpoint.checkpoint).

    Args:
        function (callable): what to run in the forward pass.
        *args: its arguments.
        use_reentrant (bool): PyTorch's choice of implementation. libtc has
            one (a nested backward inside the engine's backward); False
            additionally accepts keyword arguments for ``function``.
        preserve_rng_state (bool, keyword): stash and restore the RNG state
            so the recomputation draws the same random numbers. Default True.
        **kwargs: with ``use_reentrant=False``, keyword arguments of ``function``.

    Returns:
        the output of ``function(*args)``.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    run = function
    if kwargs:
        def run(*a):
            return function(*a, **kwargs)
    return CheckpointFunction.apply(run, preserve, *args)


def checkpoint_sequential(functions, segments, input, **kwargs):
    """Checkpoints a sequential model in ``segments`` chunks; the last one runs
    normally (torch.utils.checkpoint.checkpoint_sequential).

    Args:
        functions (nn.Sequential or list of callables): the model's parts, in order.
        segments (int): the number of chunks.
        input (Tensor): the input of the first part.
        preserve_rng_state (bool, keyword): as in checkpoint(). Default True.

    Returns:
        the output of running the parts one after another on ``input``.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from ..nn import Sequential

    def run_function(start, end, functions):
        def forward(input):
            for j in range(start, end + 1):
                input = functions[j](input)
            return input
        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
