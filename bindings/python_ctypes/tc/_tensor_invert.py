"""``~tensor`` (Tensor.__invert__): bitwise NOT of an integer tensor,
logical NOT of a bool tensor (masks: ``outside = ~inside``), a TypeError
for floating and complex tensors, as PyTorch's."""


def __invert__(self):
    """~self: bitwise_not for integer and bool tensors."""
    if self.dtype.is_floating_point or self.dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return self.bitwise_not()


def install(tensor_class):
    """Adds __invert__ to tc.Tensor.

    Args:
        tensor_class (type): tc.Tensor.
    """
    __invert__.__qualname__ = "Tensor.__invert__"
    tensor_class.__invert__ = __invert__
