"""dense + sparse COO (SparseTensor.__radd__, tc/_sparse.py) against PyTorch 1.13: a dense
result with PyTorch's values and dtype, and sparse + dense still refused."""
import numpy as np
import pytest

import tc

torch = pytest.importorskip("torch")

INDICES = np.array([[0, 1, 2, 2], [1, 0, 2, 0]])


def _pair(values_dtype):
    values = np.array([1, 2, 3, 4]).astype(values_dtype)
    got = tc.sparse_coo_tensor(tc.from_numpy(INDICES), tc.from_numpy(values), (3, 3))
    want = torch.sparse_coo_tensor(torch.from_numpy(INDICES), torch.from_numpy(values), (3, 3))
    return got, want


@pytest.mark.parametrize("values_dtype", [np.int64, np.float32])
def test_dense_plus_sparse_is_dense(values_dtype):
    got_s, want_s = _pair(values_dtype)
    got = tc.eye(3) + got_s
    want = torch.eye(3) + want_s
    assert not want.is_sparse and not getattr(got, "is_sparse", False)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_sparse_plus_dense_is_refused_as_in_pytorch():
    got_s, want_s = _pair(np.float32)
    with pytest.raises(RuntimeError):
        want_s + torch.eye(3)
    with pytest.raises(RuntimeError):
        got_s + tc.eye(3)
