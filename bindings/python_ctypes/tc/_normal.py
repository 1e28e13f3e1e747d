"""tc.normal (torch.normal): samples of N(mean, std^2) with tensor or number
mean and std, composed as mean + std * z over tc.randn. As in PyTorch 1.13,
a mean or std that requires grad makes a result that requires grad too, with
zero gradients flowing back to them (torch's NormalBackward)."""
from ._factory_keywords import _with_generator, write_out
from ._tensor_base import TensorBase


def _is_tensor(x):
    return isinstance(x, TensorBase)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, pin_memory=False, requires_grad=False):
    """Draws from normal distributions of the given means and standard deviations.

    The forms of torch.normal: ``normal(mean: Tensor, std: Tensor)`` (broadcast
    together), ``normal(mean: Tensor, std=1.0)``, ``normal(mean: float, std:
    Tensor)``, and ``normal(mean: float, std: float, size)``.

    Args:
        mean (Tensor or float): the means.
        std (Tensor or float): the standard deviations (>= 0).
        size (sequence of int, optional): the shape, when mean and std are numbers.
        generator (tc.Generator, optional): the stream drawn from.
        out (Tensor, optional): receives the result.
        dtype (tc.dtype, optional): with number mean and std: the result's type.
        requires_grad (bool): with number mean and std: whether the result requires grad.

    Returns:
        Tensor: the samples.
    """
    import tc
    tensors = [x for x in (mean, std) if _is_tensor(x)]
    if not tensors:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with float mean "
                            "and std, size is required")
        if std < 0:
            raise RuntimeError("normal expects std >= 0.0, but found std %s" % std)
        with _with_generator(generator):
            z = tc.randn(tuple(size), dtype=dtype, device=device)
        result = z * float(std) + float(mean)
        if requires_grad:
            result.requires_grad_(True)
    else:
        if size is not None:
            raise TypeError("normal() received an invalid combination of arguments: size is only "
                            "taken with float mean and std")
        if _is_tensor(std) and std.numel() and bool((std.detach() < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        if not _is_tensor(std) and std < 0:
            raise RuntimeError("normal expects std >= 0.0, but found std %s" % std)
        shape = tc.broadcast_shapes(*[tuple(t.shape) for t in tensors])
        with _with_generator(generator):
            z = tc.randn(tuple(shape), dtype=tensors[0].dtype, device=tensors[0].device)
        with tc.no_grad():
            result = z * std + mean
        for t in tensors:
            if t.requires_grad:
                # joins the graph with a zero gradient, as PyTorch's does
                result = result + t * 0
    return write_out(out, result) if out is not None else result


FUNCTIONS = {"normal": normal}
