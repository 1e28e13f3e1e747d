"""torch.nn.utils.stateless.functional_call: a module's forward with some
of its parameters and buffers replaced for that one call."""
from typing import Any, Dict, Tuple

__all__ = ["functional_call"]


def _owner(module, dotted: str):
    """(the submodule holding ``dotted``'s last part, that part)."""
    *path, leaf = dotted.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def functional_call(module, parameters_and_buffers: Dict[str, Any], args: Tuple, kwargs: Dict[str, Any] = None):
    """Calls ``module(*args, **kwargs)`` with the tensors of
    ``parameters_and_buffers`` (dotted names, as in state_dict) in place of
    its own, then puts its own back (also when the call raises). Gradients
    flow to the tensors passed.

    Unlike torch's, tied parameters are not replaced together (pass every
    name), and a parametrized tensor cannot be replaced.

    Args:
        module (Module): the module.
        parameters_and_buffers (dict): name -> tensor.
        args: the positional argument(s) (a tuple, or one argument).
        kwargs (dict, optional): keyword arguments.

    Returns:
        the module's output.
    """
    kwargs = {} if kwargs is None else kwargs
    saved = []
    try:
        for name, tensor in parameters_and_buffers.items():
            owner, leaf = _owner(module, name)
            if leaf in getattr(type(owner), "_parametrized_names", ()):
                raise NotImplementedError("functional_call: %r is parametrized; tc cannot swap it" % name)
            saved.append((owner, leaf, owner.__dict__.get(leaf, _MISSING)))
            # The attribute forward reads; the registries (state_dict, parameters()) keep the originals.
            object.__setattr__(owner, leaf, tensor)
        return module(*args, **kwargs) if isinstance(args, tuple) else module(args, **kwargs)
    finally:
        for owner, leaf, old in reversed(saved):
            if old is _MISSING:
                owner.__dict__.pop(leaf, None)
            else:
                object.__setattr__(owner, leaf, old)


_MISSING = object()
