"""tc.autograd.Variable (torch.autograd.Variable): the pre-0.4 wrapper, kept by
PyTorch for old programs. ``Variable(t, requires_grad=False)`` returns a new
leaf tensor sharing t's data, and every tensor is an instance of Variable."""
import warnings
from ._tensor_base import TensorBase


class _VariableMeta(type):
    """Makes isinstance(tensor, Variable) true for every tensor, as PyTorch's."""

    def __instancecheck__(cls, other):
        return isinstance(other, TensorBase)


class Variable(metaclass=_VariableMeta):
    """Variable(data=None, requires_grad=False, volatile=False): a leaf tensor
    over data's storage (data itself is left as it is); with no data, an empty
    float tensor. ``volatile`` has no effect (as in PyTorch, which warns)."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        import tc
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            data = tc.empty(0)
        if not isinstance(data, tc.Tensor):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(data).__name__)
        result = data.detach()
        if requires_grad:
            result.requires_grad_(True)
        return result
