from ._tensor_base import TensorBase, cat, empty, tensor
"""Tensor methods that change a tensor's shape or memory in place, done the
way PyTorch's set_data does it (libtc's tc_tensor_set_data: the tensor keeps
its identity and takes the view's metadata): squeeze_, unsqueeze_, t_,
transpose_, swapaxes_, swapdims_, resize_, resize_as_, set_; plus the
deprecated out-of-place resize/resize_as, map2_,
is_distributed, as_subclass, hardshrink, prelu and the imag and volatile
properties.

libtc records no in-place view change in the autograd graph, so these
refuse tensors that require grad: a leaf with PyTorch's own error, a graph
tensor with a RuntimeError saying so (PyTorch would record the view)."""


def _check_grad(t, name):
    if t.requires_grad:
        if t.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        raise RuntimeError("%s: tc cannot record an in-place view change of a tensor that requires grad; "
                           "use the out-of-place %s" % (name, name.rstrip("_")))


def _become(self, view, name):
    _check_grad(self, name)
    self.data = view
    return self


def squeeze_(self, dim=None):
    """In-place squeeze: removes size-1 dims (all, or ``dim``) from self's shape.

    Returns:
        Tensor: self.
    """
    return _become(self, self.squeeze() if dim is None else self.squeeze(dim), "squeeze_")


def unsqueeze_(self, dim):
    """In-place unsqueeze: inserts a size-1 dim at ``dim``.

    Returns:
        Tensor: self.
    """
    return _become(self, self.unsqueeze(dim), "unsqueeze_")


def t_(self):
    """In-place t(): transposes a tensor of at most 2 dims.

    Returns:
        Tensor: self.
    """
    return _become(self, self.t(), "t_")


def transpose_(self, dim0, dim1):
    """In-place transpose of dims dim0 and dim1.

    Returns:
        Tensor: self.
    """
    return _become(self, self.transpose(dim0, dim1), "transpose_")


def swapaxes_(self, axis0, axis1):
    """In-place swapaxes (transpose_).

    Returns:
        Tensor: self.
    """
    return _become(self, self.transpose(axis0, axis1), "swapaxes_")


def swapdims_(self, dim0, dim1):
    """In-place swapdims (transpose_).

    Returns:
        Tensor: self.
    """
    return _become(self, self.transpose(dim0, dim1), "swapdims_")


def _sizes(args):
    if len(args) == 1 and not isinstance(args[0], int):
        return [int(s) for s in args[0]]
    return [int(s) for s in args]


def resize_(self, *sizes, memory_format=None):
    """Gives self the contiguous shape ``sizes``, like torch.Tensor.resize_:
    the first elements (in row-major order) keep their values; when it grows,
    the memory is reallocated and the new elements are uninitialized.

    Returns:
        Tensor: self.
    """
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    sizes = _sizes(sizes)
    if any(s < 0 for s in sizes):
        raise RuntimeError("Trying to create tensor with negative dimension %d: %s" % (min(sizes), sizes))
    n = 1
    for s in sizes:
        n *= s
    flat = self.reshape(-1) if self.is_contiguous() else self.contiguous().reshape(-1)
    if n <= flat.shape[0]:
        new = flat.narrow(0, 0, n).view(*sizes) if sizes else flat.narrow(0, 0, 1).view(())
    else:
        extra = empty(n - flat.shape[0], dtype=self.dtype, device=self.device)
        new = cat([flat, extra]).view(*sizes)
    self.data = new
    return self


def resize_as_(self, tensor, memory_format=None):
    """:meth:`resize_` to ``tensor``'s shape.

    Returns:
        Tensor: self.
    """
    return resize_(self, tuple(tensor.shape))


def resize(self, *sizes):
    """The deprecated out-of-place resize: the elements (same count) in the
    new shape, differentiable (torch.autograd._functions.Resize).

    Returns:
        Tensor: a new tensor.
    """
    import warnings
    warnings.warn("non-inplace resize is deprecated")
    sizes = _sizes(sizes)
    n = 1
    for s in sizes:
        n *= s
    if n != self.numel():
        raise RuntimeError("requested resize to %s (%d elements in total), but the given tensor has a size of %s "
                           "(%d elements). autograd's resize can only change the shape of a given tensor, while "
                           "preserving the number of elements. " % ("x".join(map(str, sizes)), n,
                                                                    "x".join(map(str, self.shape)), self.numel()))
    return self.contiguous().reshape(*sizes)


def resize_as(self, tensor):
    """The deprecated out-of-place :meth:`resize` to ``tensor``'s shape.

    Returns:
        Tensor: a new tensor.
    """
    import warnings
    warnings.warn("non-inplace resize_as is deprecated")
    return resize(self, tuple(tensor.shape))


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    """Makes self share ``source``'s memory, shape and strides (set_(tensor)),
    or become an empty tensor (set_()). tc has no storage objects, so the
    (storage, offset, size, stride) forms are not available.

    Returns:
        Tensor: self.
    """
    if storage_offset is not None or size is not None or stride is not None:
        raise TypeError("set_(): tc has no storage objects; only set_() and set_(source: Tensor) are supported")
    if source is None:
        new = empty(0, dtype=self.dtype, device=self.device)
    elif isinstance(source, TensorBase):
        if source.dtype != self.dtype:
            raise RuntimeError("Could not set tensor of type %s to a tensor of type %s" % (source.dtype, self.dtype))
        new = source.detach()
    else:
        raise TypeError("set_(): argument 'source' must be Tensor, not %s" % type(source).__name__)
    _check_grad(self, "set_")
    self.data = new
    return self


def map2_(self, x, y, callable):
    """Replaces each element a by callable(a, b, c), b and c the matching
    elements of x and y broadcast to self's shape (CPU tensors).

    Returns:
        Tensor: self.
    """
    if self.device.type != "cpu":
        raise TypeError("map2_ is only implemented on CPU tensors")
    xs = x.expand(*self.shape).reshape(-1).tolist()
    ys = y.expand(*self.shape).reshape(-1).tolist()
    values = [callable(a, b, c) for a, b, c in zip(self.reshape(-1).tolist(), xs, ys)]
    return self.copy_(tensor(values, dtype=self.dtype, device=self.device).reshape(*self.shape))


def is_distributed(self):
    """False: a tc tensor lives on one device (tc.distributed works on
    ordinary tensors, as torch's does)."""
    return False


def as_subclass(self, cls):
    """A tensor of class ``cls`` (a subclass of tc.Tensor) sharing self's
    data, without autograd history, like torch.Tensor.as_subclass.

    Returns:
        cls: the new object.
    """
    if not (isinstance(cls, type) and issubclass(cls, TensorBase)):
        raise TypeError("as_subclass(): argument 'cls' must be a subclass of Tensor, got %r" % (cls,))
    view = self.detach()
    obj = object.__new__(cls)
    obj._h, view._h = view._h, None
    obj._dt = None
    return obj


def hardshrink(self, lambd=0.5):
    """x where |x| > lambd, else 0 (torch.nn.functional.hardshrink).

    Returns:
        Tensor: the result.
    """
    from .nn import functional  # tc.nn is built on Tensor: a true cycle
    return functional.hardshrink(self, lambd)


def prelu(self, weight):
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or shared.

    Returns:
        Tensor: the result.
    """
    from .nn import functional  # tc.nn is built on Tensor: a true cycle
    return functional.prelu(self, weight)


def _volatile(self):
    """Always False, with PyTorch's warning: volatile was removed (use tc.no_grad())."""
    import warnings
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _imag(self):
    """The imaginary part: tc tensors are real, so reading it raises, as on a real torch tensor."""
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


METHODS = {f.__name__: f for f in (
    squeeze_, unsqueeze_, t_, transpose_, swapaxes_, swapdims_, resize_, resize_as_, resize, resize_as, set_,
    map2_, is_distributed, as_subclass, hardshrink, prelu)}


class InplaceViewMethods:
    """tc.Tensor's methods above (a mixin after all the others: a method of
    the same name elsewhere wins), and the imag and volatile properties."""

    __slots__ = ()

    squeeze_ = squeeze_
    unsqueeze_ = unsqueeze_
    t_ = t_
    transpose_ = transpose_
    swapaxes_ = swapaxes_
    swapdims_ = swapdims_
    resize_ = resize_
    resize_as_ = resize_as_
    resize = resize
    resize_as = resize_as
    set_ = set_
    map2_ = map2_
    is_distributed = is_distributed
    as_subclass = as_subclass
    hardshrink = hardshrink
    prelu = prelu
    imag = property(_imag)
    volatile = property(_volatile)
