"""dense + sparse: PyTorch adds a sparse COO tensor to a dense one (the
result is dense, with the usual type promotion: float32 + int64 -> float32).
SparseTensor subclasses Tensor with no handle of its own, so Tensor.__add__
cannot take it; as the subclass, its reflected __radd__ is what Python tries
first, and it adds the dense equivalent."""
from ._sparse import SparseTensor
from ._tensor import Tensor


def _radd(self, other):
    """other + self for a dense tensor (or number) other: a dense result."""
    if isinstance(other, Tensor) and not isinstance(other, SparseTensor):
        return other + self.to_dense()
    return NotImplemented


def install():
    """Gives SparseTensor its __radd__, once."""
    if "__radd__" not in SparseTensor.__dict__:
        SparseTensor.__radd__ = _radd
