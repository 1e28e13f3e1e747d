"""Compressed sparse matrices (tc/_sparse_compressed.py: CSR, CSC, BSR,
BSC) and the in-place resizes of sparse COO tensors, against torch."""
import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

X = np.array([[0.0, 1.0, 0.0, 0.0], [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 5.0]])


def same(a, b):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("kind,args", [("csr", ()), ("csc", ()), ("bsr", ((2, 2),)), ("bsc", ((2, 2),)),
                                       ("bsr", ((1, 2),)), ("bsc", ((4, 1),))])
def test_compressed_layouts_match_torch(kind, args):
    a = getattr(tc.tensor(X), "to_sparse_" + kind)(*args)
    b = getattr(torch.tensor(X), "to_sparse_" + kind)(*args)
    assert repr(a.layout) == repr(b.layout).replace("torch", "tc")
    assert a.is_sparse is False and a.is_sparse_csr == b.is_sparse_csr
    assert a._nnz() == b._nnz()
    if kind in ("csr", "bsr"):
        same(a.crow_indices(), b.crow_indices())
        same(a.col_indices(), b.col_indices())
        with pytest.raises(NotImplementedError):
            a.ccol_indices()
    else:
        same(a.ccol_indices(), b.ccol_indices())
        same(a.row_indices(), b.row_indices())
        with pytest.raises(NotImplementedError):
            a.crow_indices()
    same(a.values(), b.values())
    same(a.to_dense(), X)
    same(a.to_sparse().to_dense(), X)


def test_compressed_products_and_gradients():
    rng = np.random.default_rng(3)
    w = rng.standard_normal((4, 3))
    xa, xb = tc.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    da, db = tc.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    ra = xa.to_sparse_csr() @ da
    rb = xb @ db  # torch 1.13 has no backward through a CSR matrix: the dense product is the reference
    same(ra, rb)
    (ra * ra).sum().backward()
    (rb * rb).sum().backward()
    same(da.grad, db.grad)
    same(xa.grad, xb.grad * (X != 0))  # only the stored elements are values of the sparse matrix
    same(tc.tensor(X).to_sparse_bsc((2, 2)).mm(tc.tensor(w)), X @ w)


def test_compressed_errors_and_dense_accessors():
    with pytest.raises(RuntimeError):
        tc.tensor(X).to_sparse_bsr((3, 3))
    with pytest.raises(RuntimeError):
        tc.zeros(2, 2, 2).to_sparse_csr()
    for name in ("crow_indices", "col_indices", "ccol_indices", "row_indices"):
        with pytest.raises(NotImplementedError):
            getattr(tc.tensor(X), name)()
        with pytest.raises(NotImplementedError):
            getattr(torch.tensor(X), name)()
    c = tc.tensor(X).to_sparse_csr()
    with pytest.raises(NotImplementedError):
        c.indices()
    assert c.to_sparse_csr() is c


def test_sparse_resizes():
    idx, val = [[0, 1], [1, 0]], [1.0, 2.0]
    a = tc.sparse_coo_tensor(idx, val, (2, 2))
    b = torch.sparse_coo_tensor(idx, val, (2, 2))
    assert a.sparse_resize_((3, 5), 2, 0) is a
    b.sparse_resize_((3, 5), 2, 0)
    same(a.to_dense(), b.to_dense())
    with pytest.raises(RuntimeError):
        a.sparse_resize_((1, 5), 2, 0)
    with pytest.raises(RuntimeError):
        b.sparse_resize_((1, 5), 2, 0)
    with pytest.raises(RuntimeError):
        a.sparse_resize_((3, 5, 2), 2, 1)
    a.sparse_resize_and_clear_((2, 3, 4), 1, 2)
    b.sparse_resize_and_clear_((2, 3, 4), 1, 2)
    assert (a._nnz(), a.sparse_dim(), a.dense_dim(), tuple(a.shape)) == (
        b._nnz(), b.sparse_dim(), b.dense_dim(), tuple(b.shape))
    same(a.to_dense(), b.to_dense())
    c = tc.sparse_coo_tensor([[0]], [1.0], (1,))
    c.sparse_resize_and_clear_((1,), 1, 0)
    c.resize_as_sparse_(tc.sparse_coo_tensor([[0, 3]], [1.0, 1.0], (6,)))
    assert tuple(c.shape) == (6,)
    with pytest.raises(NotImplementedError):
        tc.zeros(2).sparse_resize_((3,), 1, 0)
