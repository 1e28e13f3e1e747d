"""Module.register_full_backward_hook, as PyTorch's BackwardHook: identity
custom functions around the module's tensor inputs and outputs. The one on
the outputs sees grad_output first; the one on the inputs then calls the
hooks with (module, grad_input, grad_output) and passes on what they return."""
from .. import _core as K
from .._tensor import Tensor
from ..autograd import Function


class _State:
    def __init__(self, module, hooks, n_inputs, inputs_need_grad):
        self.module = module
        self.hooks = hooks
        self.n_inputs = n_inputs
        self.inputs_need_grad = inputs_need_grad
        self.grad_output = None

    def run(self, grad_input):
        for hook in self.hooks:
            r = hook(self.module, grad_input, self.grad_output)
            if r is not None:
                grad_input = tuple(r) if isinstance(r, (tuple, list)) else (r,)
        return grad_input


class _InputHook(Function):
    @staticmethod
    def forward(ctx, state, *xs):
        ctx.state = state
        return tuple(xs)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.state.run(tuple(grads)))


class _OutputHook(Function):
    @staticmethod
    def forward(ctx, state, *ys):
        ctx.state = state
        return tuple(ys)

    @staticmethod
    def backward(ctx, *grads):
        st = ctx.state
        st.grad_output = tuple(grads)
        if not st.inputs_need_grad:  # no input gradient will come: PyTorch calls with None
            st.run((None,) * st.n_inputs)
        return (None,) + tuple(grads)


def wrap_inputs(module, hooks, args):
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    need = K.is_grad_enabled() and any(args[i].requires_grad for i in pos)
    state = _State(module, hooks, len(pos), need)
    if need:
        wrapped = _InputHook.apply(state, *[args[i] for i in pos])
        args = list(args)
        for k, i in enumerate(pos):
            args[i] = wrapped[k]
        args = tuple(args)
    return state, args


def wrap_outputs(state, out):
    single = isinstance(out, Tensor)
    outs = (out,) if single else tuple(out) if isinstance(out, (tuple, list)) else None
    if outs is None or not all(isinstance(o, Tensor) for o in outs):
        return out
    if not (K.is_grad_enabled() and any(o.requires_grad for o in outs)):
        return out
    wrapped = _OutputHook.apply(state, *outs)
    return wrapped[0] if single else tuple(wrapped)
