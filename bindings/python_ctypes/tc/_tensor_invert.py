"""``~tensor`` (Tensor.__invert__): bitwise NOT of an integer tensor,
logical NOT of a bool tensor (masks: ``outside = ~inside``), a TypeError
for floating and complex tensors, as PyTorch's."""


class InvertMethods:
    """tc.Tensor's ~ operator."""

    __slots__ = ()

    def __invert__(self):
        """~self: bitwise_not for integer and bool tensors."""
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return self.bitwise_not()
