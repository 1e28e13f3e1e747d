"""torch.nn.functional.softmax and log_softmax with PyTorch 1.13's full
signature: ``dim=None`` (the deprecated implicit choice, with its warning:
dim 0 for 0-, 1- and 3-D inputs, else 1, as old programs such as
``F.softmax(scores)`` rely on) and ``dtype`` (the input is cast first).
Re-exported at the end of tc/nn/functional.py."""
from .functional_more import _softmax_dim


def _prepare(name, input, dim, dtype):
    """(input cast to dtype, the dim: PyTorch's implicit choice when None)."""
    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    return (input if dtype is None else input.to(dtype)), dim


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
    input, dim = _prepare("softmax", input, dim, dtype)
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
    input, dim = _prepare("log_softmax", input, dim, dtype)
    return input.log_softmax(dim)
