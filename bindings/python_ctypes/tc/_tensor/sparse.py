"""A dense tc.Tensor's side of the sparse layouts: the conversions to_sparse,
to_sparse_coo, to_sparse_csr/csc/bsr/bsc, to_dense, sparse_mask, and
PyTorch's errors for the sparse-only methods (indices, values, coalesce, ...).
A mixin of tc.Tensor placed after the others: a method of the same name
elsewhere wins.

The sparse tensor classes subclass Tensor (tc/_sparse.py,
tc/_sparse_compressed.py), so the conversions, which make them, import those
modules when called: a true cycle at run time, not at import."""


def _dense_only(name):
    """A dense tensor's version of a sparse-only method: PyTorch's error."""
    def method(self, *args, **kwargs):
        raise NotImplementedError("Could not run 'aten::%s' with arguments from the '%s' backend. This could be "
                                  "because the operator doesn't exist for this backend."
                                  % (name, "CUDA" if self.is_cuda else "CPU"))
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("Sparse tensors only (see tc.SparseTensor.%s); a dense tensor raises "
                      "NotImplementedError, as in PyTorch." % name)
    return method


_COMPRESSED_DOC = "This 2-D tensor in the sparse_%s layout.\n\nReturns:\n    SparseCompressedTensor: the converted matrix."
_BLOCKED_DOC = ("This 2-D tensor in the sparse_%s layout with blocks of ``blocksize`` (rows, cols).\n\n"
                "Returns:\n    SparseCompressedTensor: the converted matrix.")


class SparseMethods:
    """A dense tc.Tensor's conversions to the sparse layouts, and the
    sparse-only methods (which raise on a dense tensor)."""

    __slots__ = ()

    def to_sparse(self, sparse_dim=None):
        """The sparse COO form of a dense tensor: its nonzero entries over the
        first ``sparse_dim`` dims (default: all), like torch.Tensor.to_sparse.
        The values stay differentiable.

        Returns:
            SparseTensor: a coalesced sparse tensor.
        """
        from .. import _sparse  # (see the module docstring)
        return _sparse.to_sparse(self, sparse_dim)

    def to_sparse_coo(self):
        """:func:`to_sparse` with all dims sparse."""
        return self.to_sparse()

    def to_dense(self, dtype=None):
        """self (a dense tensor is its own dense form), converted to dtype if given."""
        return self if dtype is None else self.to(dtype)

    def sparse_mask(self, mask):
        """The entries of this dense tensor at the indices of the sparse ``mask``, as a sparse tensor.

        Returns:
            SparseTensor: mask's (coalesced) indices with self's values there.
        """
        from .. import _sparse  # (see the module docstring)
        return _sparse.sparse_mask(self, mask)

    def to_sparse_csr(self):
        from .. import _sparse_compressed  # (see the module docstring)
        return _sparse_compressed.to_compressed(self, "csr", None)

    def to_sparse_csc(self):
        from .. import _sparse_compressed  # (see the module docstring)
        return _sparse_compressed.to_compressed(self, "csc", None)

    def to_sparse_bsr(self, blocksize):
        from .. import _sparse_compressed  # (see the module docstring)
        return _sparse_compressed.to_compressed(self, "bsr", blocksize)

    def to_sparse_bsc(self, blocksize):
        from .. import _sparse_compressed  # (see the module docstring)
        return _sparse_compressed.to_compressed(self, "bsc", blocksize)

    to_sparse_csr.__doc__ = _COMPRESSED_DOC % "csr"
    to_sparse_csc.__doc__ = _COMPRESSED_DOC % "csc"
    to_sparse_bsr.__doc__ = _BLOCKED_DOC % "bsr"
    to_sparse_bsc.__doc__ = _BLOCKED_DOC % "bsc"

    indices = _dense_only("indices")
    values = _dense_only("values")
    coalesce = _dense_only("coalesce")
    is_coalesced = _dense_only("is_coalesced")
    sparse_dim = _dense_only("sparse_dim")
    dense_dim = _dense_only("dense_dim")
    _nnz = _dense_only("_nnz")
    smm = _dense_only("smm")
    sspaddmm = _dense_only("sspaddmm")
    sparse_resize_ = _dense_only("sparse_resize_")
    sparse_resize_and_clear_ = _dense_only("sparse_resize_and_clear_")
    resize_as_sparse_ = _dense_only("resize_as_sparse_")
    crow_indices = _dense_only("crow_indices")
    col_indices = _dense_only("col_indices")
    ccol_indices = _dense_only("ccol_indices")
    row_indices = _dense_only("row_indices")
