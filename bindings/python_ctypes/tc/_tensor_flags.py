from ._factory_keywords import strided
"""PyTorch's Tensor flags and small queries that tc answers from what its
tensors are (dense, strided, real, on the CPU or a CUDA device): is_sparse,
is_quantized, is_meta, is_complex(), layout, get_device(), ... in
TensorFlags, a base class of tc.Tensor."""


class TensorFlags:
    """The flag properties and queries of tc.Tensor (a base class of it)."""

    __slots__ = ()

    @property
    def is_xpu(self):
        """False: tc has no XPU (Intel GPU) device."""
        return False

    @property
    def is_mps(self):
        """False: tc has no MPS (Apple GPU) device."""
        return False

    @property
    def is_ipu(self):
        """False: tc has no IPU device."""
        return False

    @property
    def is_vulkan(self):
        """False: tc has no Vulkan device."""
        return False

    @property
    def is_ort(self):
        """False: tc has no ONNX Runtime device."""
        return False

    @property
    def is_meta(self):
        """False: tc tensors always have storage (no meta tensors)."""
        return False

    @property
    def is_sparse(self):
        """False: tc tensors are dense."""
        return False

    @property
    def is_sparse_csr(self):
        """False: tc tensors are dense."""
        return False

    @property
    def is_quantized(self):
        """False: tc has no quantized tensors."""
        return False

    @property
    def is_mkldnn(self):
        """False: tc has no MKL-DNN tensor layout."""
        return False

    @property
    def is_nested(self):
        """False: tc has no nested tensors."""
        return False

    @property
    def layout(self):
        """The memory layout: always tc.strided."""
        return strided

    def is_complex(self):
        """False: tc has no complex dtypes."""
        return False

    def is_signed(self):
        """True unless the dtype is unsigned (uint8) or bool."""
        return self.dtype.name not in ("uint8", "bool")

    def is_conj(self):
        """False: tc tensors are real, never lazily conjugated."""
        return False

    def is_neg(self):
        """False: tc has no lazily negated views."""
        return False

    def is_inference(self):
        """False: tc has no inference mode tensors."""
        return False

    def is_pinned(self):
        """False: tc does not page-lock CPU memory."""
        return False

    def is_shared(self):
        """False: tc tensors are not in shared memory."""
        return False

    def is_set_to(self, tensor):
        """True when both tensors view the same memory with the same shape and strides.

        Args:
            tensor (Tensor): the other tensor.

        Returns:
            bool.
        """
        return (self.data_ptr() == tensor.data_ptr() and tuple(self.shape) == tuple(tensor.shape)
                and self.stride() == tensor.stride() and self.dtype == tensor.dtype)

    def is_same_size(self, other):
        """True when both tensors have the same shape.

        Args:
            other (Tensor): the other tensor.

        Returns:
            bool.
        """
        return tuple(self.shape) == tuple(other.shape)

    def is_nonzero(self):
        """The truth of a one-element tensor (RuntimeError otherwise), like torch.is_nonzero."""
        n = self.numel()
        if n == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        if n > 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def get_device(self):
        """The CUDA device index, or -1 on the CPU."""
        dev = self.device
        return -1 if dev.type == "cpu" else (dev.index or 0)

    def ndimension(self):
        """The number of dimensions (an old name of dim())."""
        return self.ndim

    def conj(self):
        """self: tc tensors are real."""
        return self

    def conj_physical(self):
        """self: tc tensors are real."""
        return self

    def resolve_conj(self):
        """self: tc tensors are real."""
        return self

    def resolve_neg(self):
        """self: tc has no lazily negated views."""
        return self

    def pin_memory(self):
        """self: tc does not page-lock CPU memory (a hint PyTorch programs may give)."""
        return self

    def share_memory_(self):
        """self: tc tensors are not moved to shared memory (no multiprocessing sharing)."""
        return self

    def type_as(self, tensor):
        """This tensor converted to ``tensor``'s dtype.

        Args:
            tensor (Tensor): whose dtype to take.

        Returns:
            Tensor: self when the dtype is already that one.
        """
        return self.to(tensor.dtype)

    def positive(self):
        """self (PyTorch's torch.positive, a no-op for real tensors)."""
        return self
