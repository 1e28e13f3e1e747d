"""Compressed sparse matrices (2-D), like PyTorch's sparse_csr, sparse_csc,
sparse_bsr and sparse_bsc layouts: made from a dense matrix by
Tensor.to_sparse_csr / to_sparse_csc / to_sparse_bsr(blocksize) /
to_sparse_bsc(blocksize). A SparseCompressedTensor keeps its specified
elements (or blocks) as COO coordinates on the block grid, sorted by row
(CSR, BSR) or by column (CSC, BSC), and computes the compressed indices
(crow_indices / col_indices, ccol_indices / row_indices) from them. It
converts back with to_dense / to_sparse and multiplies dense matrices (@,
mm, matmul) with gradients for the dense side and the values; other ops
raise NotImplementedError. Batched compressed tensors are not supported."""
from . import _core as K
from ._factory_keywords import layout
from ._sparse import SparseTensor, _dense_only, _unsupported, mm

sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_LAYOUTS = {"csr": sparse_csr, "csc": sparse_csc, "bsr": sparse_bsr, "bsc": sparse_bsc}


def _tc():
    import tc
    return tc


def _make(kind, indices, values, size, blocksize):
    s = object.__new__(SparseCompressedTensor)
    s._h = None
    s._dt = None
    s._ix, s._vals, s._sizes, s._coalesced = indices, values, tuple(int(n) for n in size), True
    s._kind, s._blocksize = kind, tuple(blocksize)
    return s


class SparseCompressedTensor(SparseTensor):
    """A 2-D compressed sparse matrix (see the module docstring)."""

    __slots__ = ("_kind", "_blocksize")

    @property
    def is_sparse(self):
        """False: is_sparse means the COO layout, as in PyTorch."""
        return False

    @property
    def is_sparse_csr(self):
        """True for the sparse_csr layout only, as in PyTorch."""
        return self._kind == "csr"

    @property
    def layout(self):
        """tc.sparse_csr, tc.sparse_csc, tc.sparse_bsr or tc.sparse_bsc."""
        return _LAYOUTS[self._kind]

    def _like(self, indices, values, size, coalesced):
        return _make(self._kind, indices, values, size, self._blocksize)

    def sparse_dim(self):
        """2: the matrix dims."""
        return 2

    def dense_dim(self):
        """0: no dense dims (blocks are part of the layout)."""
        return 0

    def _compressed(self, by_row):
        tc = _tc()
        n = self._sizes[0] // self._blocksize[0] if by_row else self._sizes[1] // self._blocksize[1]
        keys = self._ix[0] if by_row else self._ix[1]
        counts = tc.zeros(n, dtype=K.int64, device=keys.device).index_add(
            0, keys, tc.ones(keys.shape[0], dtype=K.int64, device=keys.device))
        return tc.cat([tc.zeros(1, dtype=K.int64, device=keys.device), counts.cumsum(0)])

    def _require(self, kinds, name):
        if self._kind not in kinds:
            raise NotImplementedError("Could not run 'aten::%s' with arguments from the 'SparseCsrCPU' backend "
                                      "(layout %s)" % (name, self.layout))

    def crow_indices(self):
        """The compressed row pointers (CSR, BSR): row r's entries are
        col_indices()[crow[r]:crow[r + 1]]."""
        self._require(("csr", "bsr"), "crow_indices")
        return self._compressed(True)

    def col_indices(self):
        """The column (block column) of each entry, by row (CSR, BSR)."""
        self._require(("csr", "bsr"), "col_indices")
        return self._ix[1]

    def ccol_indices(self):
        """The compressed column pointers (CSC, BSC)."""
        self._require(("csc", "bsc"), "ccol_indices")
        return self._compressed(False)

    def row_indices(self):
        """The row (block row) of each entry, by column (CSC, BSC)."""
        self._require(("csc", "bsc"), "row_indices")
        return self._ix[0]

    def values(self):
        """The specified elements (nnz,), or blocks (nnz, *blocksize), in layout order."""
        return self._vals

    def indices(self):
        """Compressed layouts have no COO indices (crow/ccol and col/row indices instead)."""
        self._require((), "indices")

    def to_dense(self, dtype=None):
        """The dense matrix (differentiable in the values).

        Returns:
            Tensor: 2-D dense.
        """
        tc = _tc()
        values = self._vals if dtype is None else self._vals.to(dtype)
        bh, bw = self._blocksize
        rows, cols = self._sizes[0] // bh, self._sizes[1] // bw
        grid = tc.zeros(rows, cols, bh, bw, dtype=values.dtype, device=values.device)
        if self._ix.shape[1]:
            grid = grid.index_put((self._ix[0], self._ix[1]), values.reshape(-1, bh, bw), True)
        return grid.permute(0, 2, 1, 3).reshape(*self._sizes)

    def to_sparse(self, sparse_dim=None):
        """The COO form."""
        return self.to_dense().to_sparse(sparse_dim)

    def to_sparse_coo(self):
        """The COO form."""
        return self.to_dense().to_sparse()

    def mm(self, mat2):
        """compressed (n, m) @ dense (m, p) -> dense (n, p)."""
        return mm(self.to_sparse_coo(), mat2)

    matmul = mm

    def __matmul__(self, other):
        return self.mm(other)

    def __repr__(self):
        if self._kind in ("csr", "bsr"):
            parts = "crow_indices=%r,\n       col_indices=%r" % (self.crow_indices(), self.col_indices())
        else:
            parts = "ccol_indices=%r,\n       row_indices=%r" % (self.ccol_indices(), self.row_indices())
        return "tensor(%s,\n       values=%r,\n       size=%s, nnz=%d, layout=%s)" % (
            parts, self._vals, self._sizes, self._nnz(), self.layout)

    __str__ = __repr__

    # COO operations the compressed layouts do not have
    coalesce = _unsupported("coalesce")
    is_coalesced = _unsupported("is_coalesced")
    _indices = _unsupported("_indices")
    t = _unsupported("t")
    transpose = _unsupported("transpose")
    add = _unsupported("add")
    __add__ = _unsupported("__add__")
    sub = _unsupported("sub")
    __sub__ = _unsupported("__sub__")
    smm = _unsupported("smm")
    sspaddmm = _unsupported("sspaddmm")


def _compress(x, kind, blocksize):
    """x (a 2-D tensor) in the compressed layout ``kind``."""
    tc = _tc()
    name = "to_sparse_" + kind
    if x.ndim != 2:
        raise RuntimeError("%s: tc supports 2-D matrices only, got a %d-D tensor" % (name, x.ndim))
    bh, bw = (int(b) for b in blocksize)
    if bh <= 0 or bw <= 0 or x.shape[0] % bh or x.shape[1] % bw:
        raise RuntimeError("%s: the input shape %s must be divisible by the blocksize (%d, %d)"
                           % (name, tuple(x.shape), bh, bw))
    rows, cols = x.shape[0] // bh, x.shape[1] // bw
    blocks = x.reshape(rows, bh, cols, bw).permute(0, 2, 1, 3)  # (rows, cols, bh, bw)
    nz = (blocks != 0).reshape(rows, cols, bh * bw).any(2) if bh * bw else tc.zeros(rows, cols, dtype=K.bool_)
    if kind in ("csr", "bsr"):
        pos = nz.nonzero()
        r, c = pos[:, 0], pos[:, 1]
    else:
        pos = nz.t().nonzero()
        c, r = pos[:, 0], pos[:, 1]
    flat = blocks.reshape(rows * cols, bh, bw).index_select(0, r * cols + c)
    values = flat.reshape(-1) if kind in ("csr", "csc") else flat
    return _make(kind, tc.stack([r, c]), values, tuple(x.shape), (bh, bw))


def to_compressed(self, kind, blocksize):
    """self (a dense, COO or compressed 2-D tensor) in the compressed layout
    ``kind`` ("csr", "csc", "bsr", "bsc"; blocksize None for the first two):
    Tensor.to_sparse_csr and the others."""
    blocked = blocksize is not None
    if isinstance(self, SparseCompressedTensor) and self._kind == kind and (
            not blocked or tuple(blocksize) == self._blocksize):
        return self
    dense = self.to_dense() if isinstance(self, SparseTensor) else self
    return _compress(dense, kind, blocksize if blocked else (1, 1))


FUNCTIONS = {"sparse_csr": sparse_csr, "sparse_csc": sparse_csc, "sparse_bsr": sparse_bsr,
             "sparse_bsc": sparse_bsc}


def install(namespace):
    """Adds the layouts to ``namespace``, where absent."""
    for name, value in FUNCTIONS.items():
        namespace.setdefault(name, value)
