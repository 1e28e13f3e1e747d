"""Sparse COO tensors (tc/_sparse.py, tc.sparse) against torch's: layout
queries, coalescing, conversions, the sparse x dense products with their
gradients (float64), and the errors of sparse-only methods."""
import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")


def close(a, b, rtol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


IDX = [[0, 0, 1, 2, 0], [2, 2, 0, 1, 1]]
VAL = [1.0, 2.0, 3.0, -1.5, 0.5]


def both(size=(3, 4), grad=False):
    a = tc.sparse_coo_tensor(IDX, tc.tensor(VAL, dtype=tc.float64), size, requires_grad=grad)
    b = torch.sparse_coo_tensor(IDX, torch.tensor(VAL, dtype=torch.float64), size, requires_grad=grad)
    return a, b


def test_construction_and_queries():
    a, b = both()
    assert a.is_sparse and a.layout is tc.sparse_coo and isinstance(a, tc.Tensor)
    assert tuple(a.shape) == tuple(b.shape) and a.dtype == tc.float64
    assert (a.sparse_dim(), a.dense_dim(), a._nnz()) == (b.sparse_dim(), b.dense_dim(), b._nnz())
    assert a.is_coalesced() == b.is_coalesced() is False
    with pytest.raises(RuntimeError):
        a.indices()
    close(a.to_dense(), b.to_dense())
    c, d = a.coalesce(), b.coalesce()
    assert c.is_coalesced() and c._nnz() == d._nnz()
    close(c.indices(), d.indices())
    close(c.values(), d.values())
    inferred = tc.sparse_coo_tensor(IDX, VAL)
    assert tuple(inferred.shape) == tuple(torch.sparse_coo_tensor(IDX, VAL).shape)
    for bad in (lambda: tc.sparse_coo_tensor(IDX, VAL, (2, 4)), lambda: tc.sparse_coo_tensor(IDX, VAL[:3]),
                lambda: tc.sparse_coo_tensor([[0, -1]], [1.0, 2.0])):
        with pytest.raises(RuntimeError):
            bad()


def test_to_sparse_and_sparse_mask():
    x = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0], [0.0, 0.0, 0.0]])
    a, b = tc.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    for sd in (None, 1, 2):
        sa, sb = a.to_sparse(sd) if sd else a.to_sparse(), b.to_sparse(sd) if sd else b.to_sparse()
        close(sa.indices(), sb.indices())
        close(sa.values(), sb.values())
        assert sa.dense_dim() == sb.dense_dim()
    close(a.to_sparse_coo().to_dense(), x)
    mask_a, mask_b = both((3, 3))
    ma, mb = a.sparse_mask(mask_a.coalesce()), b.sparse_mask(mask_b.coalesce())
    close(ma.to_dense(), mb.to_dense())
    ma.to_dense().sum().backward()
    mb.to_dense().sum().backward()
    close(a.grad, b.grad)
    close(a.to_dense(), x)  # a dense tensor is its own dense form


def test_products_and_gradients():
    dense = np.random.default_rng(1).standard_normal((4, 2))
    for op in ("sparse.mm", "spmm"):
        a, b = both(grad=op == "sparse.mm")  # torch.spmm has no gradient for the sparse side
        da, db = tc.tensor(dense, requires_grad=True), torch.tensor(dense, requires_grad=True)
        fa = tc.sparse.mm if op == "sparse.mm" else tc.spmm
        fb = torch.sparse.mm if op == "sparse.mm" else torch.spmm
        ra, rb = fa(a, da), fb(b, db)
        close(ra, rb)
        (ra * ra).sum().backward()
        (rb * rb).sum().backward()
        close(da.grad, db.grad)
        if op == "sparse.mm":
            close(a.grad.to_dense(), b.grad.to_dense())
    a, b = both()
    close(a @ tc.tensor(dense), b.to_dense() @ torch.tensor(dense))
    sa, sb = tc.smm(a, tc.tensor(dense)), torch.smm(b, torch.tensor(dense))
    assert sa.is_sparse and sb.is_sparse
    close(sa.to_dense(), sb.to_dense())
    close(a.smm(tc.tensor(dense)).to_dense(), sb.to_dense())
    base_idx, base_val = [[0, 2], [1, 0]], [5.0, -2.0]
    inp_a = tc.sparse_coo_tensor(base_idx, tc.tensor(base_val, dtype=tc.float64), (3, 2))
    inp_b = torch.sparse_coo_tensor(base_idx, torch.tensor(base_val, dtype=torch.float64), (3, 2))
    ra = tc.sspaddmm(inp_a, a, tc.tensor(dense), beta=0.5, alpha=2.0)
    rb = torch.sspaddmm(inp_b, b, torch.tensor(dense), beta=0.5, alpha=2.0)
    assert ra.is_sparse
    close(ra.to_dense(), rb.to_dense())
    close(inp_a.sspaddmm(a, tc.tensor(dense)).to_dense(), inp_b.sspaddmm(b, torch.tensor(dense)).to_dense())
    with pytest.raises(RuntimeError):
        tc.sparse.mm(a, tc.zeros(3, 2, dtype=tc.float64))


def test_arithmetic_and_transpose():
    a, b = both()
    close((a * 2).to_dense(), (b * 2).to_dense())
    close((a + a).to_dense(), (b + b).to_dense())
    close((-a).to_dense(), (-b).to_dense())
    with pytest.raises(RuntimeError):
        a + tc.ones(3, 4, dtype=tc.float64)
    with pytest.raises(RuntimeError):
        b + torch.ones(3, 4, dtype=torch.float64)
    close(a.t().to_dense(), b.t().to_dense())
    close(a.sum(), b.coalesce().values().sum())
    assert a.to(tc.float32).dtype == tc.float32


def test_unsupported_and_dense_errors():
    a, _ = both()
    with pytest.raises(NotImplementedError):
        a.exp()
    with pytest.raises(NotImplementedError):
        a.view(12)
    d = tc.zeros(2, 2)
    for name in ("indices", "values", "coalesce", "is_coalesced", "sparse_dim", "dense_dim", "_nnz"):
        with pytest.raises(NotImplementedError):
            getattr(d, name)()
        with pytest.raises(NotImplementedError):
            getattr(torch.zeros(2, 2), name)()
    assert not d.is_sparse
