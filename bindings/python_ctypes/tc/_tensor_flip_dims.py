"""Tensor.flip in all of PyTorch's forms: ``t.flip(0, 1)``, ``t.flip((0, 1))``
and the keyword form ``t.flip(dims=(1,))`` (a flow's permutation)."""


def install(tensor_class):
    """Wraps tc.Tensor.flip so that it also takes ``dims=``.

    Args:
        tensor_class (type): tc.Tensor.
    """
    positional = tensor_class.flip

    def flip(self, *dims, **kwargs):
        """Reverses the order of the elements along the given dims.

        Args:
            dims (int or sequence of int): the dimensions (positionally, or as ``dims=``).
        """
        if kwargs:
            if dims or set(kwargs) != {"dims"}:
                raise TypeError("flip() received an invalid combination of arguments: expected (tuple of ints dims)")
            dims = (kwargs["dims"],)
        return positional(self, *dims)

    flip.__qualname__ = "Tensor.flip"
    tensor_class.flip = flip
