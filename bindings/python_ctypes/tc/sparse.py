"""tc.sparse, like torch.sparse: products of sparse COO tensors (see
tc/_sparse.py) with dense ones."""
from ._sparse import SparseTensor, mm, sparse_coo_tensor, smm, spmm, sspaddmm

__all__ = ["SparseTensor", "addmm", "mm", "smm", "sparse_coo_tensor", "spmm", "sspaddmm"]


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1 and dense mat and mat2 (torch.sparse.addmm).

    Returns:
        Tensor: dense.
    """
    return mat * beta + mm(mat1, mat2) * alpha

