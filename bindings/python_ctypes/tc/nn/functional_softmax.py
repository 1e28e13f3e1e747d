"""torch.nn.functional.softmax and log_softmax with PyTorch 1.13's full
signature: ``dim=None`` (the deprecated implicit choice, with its warning:
dim 0 for 0-, 1- and 3-D inputs, else 1, as old programs such as
``F.softmax(scores)`` rely on) and ``dtype`` (the input is cast first).
Re-exported at the end of tc/nn/functional.py."""
from .functional_more import _softmax_dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Softmax along dim (torch.nn.functional.softmax).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim; None is PyTorch's deprecated implicit
            choice (0 for 0-, 1- and 3-D inputs, else 1), with its warning.
        _stacklevel (int): accepted for PyTorch's signature.
        dtype (tc.dtype, optional): cast the input to it first.

    Returns:
        Tensor: shaped like input.
    """
    if dim is None:
        dim = _softmax_dim("softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return input.softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """Log-softmax along dim (torch.nn.functional.log_softmax).

    Args:
        input (Tensor): the input.
        dim (int, optional): the dim; None is PyTorch's deprecated implicit
            choice (0 for 0-, 1- and 3-D inputs, else 1), with its warning.
        _stacklevel (int): accepted for PyTorch's signature.
        dtype (tc.dtype, optional): cast the input to it first.

    Returns:
        Tensor: shaped like input.
    """
    if dim is None:
        dim = _softmax_dim("log_softmax", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return input.log_softmax(dim)
