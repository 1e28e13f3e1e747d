"""numpy and DLPack interop: zero-copy both ways, lifetimes, deleter rules."""
import ctypes
import gc

import pytest

import tc
from tc import _interop as I
from conftest import need

np = pytest.importorskip("numpy")


def live():
    gc.collect()
    return tc.flags["live_tensors"]


# ---------------------------------------------------------------- numpy

def test_numpy_is_a_zero_copy_view():
    t = tc.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = t.numpy()
    assert a.dtype == np.float32 and a.shape == (2, 2)
    assert a.ctypes.data == t.data_ptr()
    a[0, 1] = 20.0
    assert t.tolist()[0][1] == 20.0
    del t
    gc.collect()
    assert a.tolist() == [[1.0, 20.0], [3.0, 4.0]]  # the array keeps the tensor alive


def test_numpy_of_strided_views():
    need("tc_transpose", "tc_slice")
    t = tc.arange(12, dtype=tc.float64).reshape(3, 4)
    a = t.t().numpy()
    assert a.tolist() == np.arange(12.0).reshape(3, 4).T.tolist() and not a.flags.c_contiguous
    b = t[:, ::2].numpy()
    assert b.tolist() == [[0, 2], [4, 6], [8, 10]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
                                   "bool"])
def test_numpy_dtypes_round_trip(dtype):
    a = (np.arange(6) % 3).astype(dtype).reshape(2, 3)
    t = tc.from_numpy(a)
    assert t.dtype.name == dtype and t.shape == (2, 3)
    assert t.data_ptr() == a.ctypes.data
    assert t.numpy().tolist() == a.tolist()
    assert np.asarray(t).dtype == a.dtype


def test_from_numpy_shares_and_keeps_alive():
    need("tc_fill_")
    before = I.lent_count()
    a = np.arange(6.0).reshape(2, 3)
    t = tc.from_numpy(a)
    assert I.lent_count() == before + 1
    a[1, 1] = 40.0
    assert t.tolist()[1][1] == 40.0
    t.fill_(7.0)
    assert a.tolist() == [[7.0] * 3] * 2
    del a
    gc.collect()
    assert t.tolist() == [[7.0] * 3] * 2  # the array lives while the tensor does
    del t
    gc.collect()
    assert I.lent_count() == before  # the deleter ran and dropped it


def test_from_numpy_strided_and_errors():
    a = np.arange(12.0).reshape(3, 4)[:, ::2]
    t = tc.from_numpy(a)
    assert t.tolist() == a.tolist() and t.stride() == (4, 2)
    with pytest.raises(ValueError):
        tc.from_numpy(np.arange(5.0)[::-1])
    with pytest.raises(TypeError):
        tc.from_numpy(np.arange(3, dtype=np.uint16))  # torch 1.13 has no uint16 either
    with pytest.raises(TypeError):
        tc.from_numpy([1, 2])
    assert tc.from_numpy(np.zeros((0, 3))).shape == (0, 3)


def test_numpy_refuses_requires_grad_and_bfloat16():
    need("tc_tensor_set_requires_grad", "tc_to_dtype")
    t = tc.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        t.numpy()
    assert t.detach().numpy().tolist() == [1.0, 1.0]
    assert np.asarray(t).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError):
        tc.ones(2, dtype=tc.bfloat16).numpy()
    assert np.asarray(tc.ones(2, dtype=tc.bfloat16)).dtype == np.float32


def test_array_protocol_and_numpy_ops():
    need("tc_add")
    t = tc.tensor([1.0, 2.0])
    assert np.array(t).tolist() == [1.0, 2.0]
    assert (np.ones(2) * 3 + np.asarray(t)).tolist() == [4.0, 5.0]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


# ---------------------------------------------------------------- DLPack in Python

def test_numpy_from_dlpack_zero_copy():
    t = tc.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    assert a.tolist() == [1.0, 2.0, 3.0]
    assert t.__dlpack_device__() == (1, 0)
    del t
    gc.collect()
    assert a.tolist() == [1.0, 2.0, 3.0]
    del a
    gc.collect()
    assert I.legacy_live_count() == 0


def test_tc_from_numpy_dlpack_zero_copy():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tc.from_dlpack(a)
    assert t.dtype is tc.int32 and t.data_ptr() == a.ctypes.data
    a[0, 0] = 9
    assert t.tolist()[0][0] == 9


def test_torch_round_trip():
    torch = pytest.importorskip("torch")
    x = torch.arange(12, dtype=torch.float64).reshape(3, 4)[:, 1:]
    t = tc.from_dlpack(x)
    assert t.shape == (3, 3) and t.stride() == (4, 1) and t.data_ptr() == x.data_ptr()
    x[0, 0] = -1.0
    assert t.tolist()[0][0] == -1.0
    y = torch.from_dlpack(t)  # torch 1.13 reads the legacy capsule
    assert y.data_ptr() == t.data_ptr() and y.tolist() == t.tolist()
    back = tc.from_dlpack(y)
    assert back.data_ptr() == x.data_ptr()
    for dt in (torch.float32, torch.int64, torch.uint8, torch.float16, torch.bfloat16):  # torch 1.13: no bool
        z = torch.ones(2, 3, dtype=dt)
        u = tc.from_dlpack(z)
        assert u.dtype.name == str(dt).replace("torch.", "")
        assert torch.from_dlpack(u).dtype == dt


def test_versioned_capsule_round_trip():
    before = live()
    t = tc.tensor([[1, 2], [3, 4]])
    cap = t.__dlpack__(max_version=(1, 0))
    assert I._PyCapsule_GetName(cap) == I.VERSIONED_NAME
    u = tc.from_dlpack(cap)
    assert I._PyCapsule_GetName(cap) == I.USED_VERSIONED_NAME
    with pytest.raises(ValueError):
        tc.from_dlpack(cap)  # a used capsule cannot be imported twice
    assert u.data_ptr() == t.data_ptr() and u.tolist() == [[1, 2], [3, 4]]
    del cap, t, u
    assert live() == before


def test_unconsumed_capsules_free_their_tensor():
    before = live()
    t = tc.ones(3)
    c1 = t.__dlpack__()
    c2 = t.__dlpack__(max_version=(1, 0))
    assert live() == before + 1  # exports hold references, not new tensors
    del t
    assert live() == before + 1
    del c1, c2
    assert live() == before
    assert I.legacy_live_count() == 0


# ---------------------------------------------------------------- DLPack at the C ABI

def test_c_abi_export_import_versioned():
    lib = tc._lib.lib
    before = live()
    t = tc.tensor([[1.0, 2.0, 3.0]], dtype=tc.float64)
    p = ctypes.c_void_p()
    assert lib.tc_to_dlpack(t.handle, ctypes.byref(p)) == 0
    m = ctypes.cast(p, ctypes.POINTER(I.DLManagedTensorVersioned)).contents
    assert (m.version.major, m.version.minor) == (1, 0) and m.flags == 0
    d = m.dl_tensor
    assert d.ndim == 2 and d.shape[0] == 1 and d.shape[1] == 3 and d.strides[1] == 1
    assert (d.dtype.code, d.dtype.bits, d.dtype.lanes) == (2, 64, 1) and d.device.device_type == 1
    assert d.data == t.data_ptr()
    out = ctypes.c_void_p()
    assert lib.tc_from_dlpack(p, 1, ctypes.byref(out)) == 0
    u = tc._tensor._wrap(out.value)
    assert u.tolist() == [[1.0, 2.0, 3.0]] and u.data_ptr() == t.data_ptr()
    del t
    # libtc's own export comes back as a view of t's storage: the export's
    # reference to t is dropped at the import, so only u is alive.
    assert live() == before + 1
    assert u.tolist() == [[1.0, 2.0, 3.0]]
    del u
    assert live() == before


def _legacy_struct(arr, deleted):
    """A legacy DLManagedTensor over a numpy array, with a counting deleter."""
    shape = (ctypes.c_int64 * arr.ndim)(*arr.shape)
    m = I.DLManagedTensor()
    m.dl_tensor.data = arr.ctypes.data
    m.dl_tensor.device.device_type = 1
    m.dl_tensor.ndim = arr.ndim
    m.dl_tensor.dtype.code, m.dl_tensor.dtype.bits, m.dl_tensor.dtype.lanes = 2, 32, 1
    m.dl_tensor.shape = shape
    m.dl_tensor.strides = None  # compact row-major

    def deleter(ptr):
        deleted.append(ctypes.cast(ptr, ctypes.c_void_p).value)

    cb = I._LEGACY_DELETER(deleter)
    m.deleter = cb
    return m, (shape, cb, arr)


def test_c_abi_import_legacy_calls_deleter_once():
    lib = tc._lib.lib
    deleted = []
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    m, keep = _legacy_struct(arr, deleted)
    out = ctypes.c_void_p()
    assert lib.tc_from_dlpack(ctypes.byref(m), 0, ctypes.byref(out)) == 0
    t = tc._tensor._wrap(out.value)
    assert t.tolist() == arr.tolist() and t.data_ptr() == arr.ctypes.data
    need("tc_reshape")
    v = t.reshape(6)  # a view: the buffer lives while any tensor uses it
    del t
    gc.collect()
    assert deleted == []
    del v
    gc.collect()
    assert deleted == [ctypes.addressof(m)]


def test_c_abi_import_failure_leaves_ownership():
    lib = tc._lib.lib
    deleted = []
    arr = np.zeros(4, dtype=np.float32)
    m, keep = _legacy_struct(arr, deleted)
    m.dl_tensor.dtype.lanes = 4  # unsupported
    out = ctypes.c_void_p(1234)
    rc = lib.tc_from_dlpack(ctypes.byref(m), 0, ctypes.byref(out))
    assert rc == tc._decls.TC_ERR_DTYPE
    assert deleted == []  # the caller keeps it
    m.dl_tensor.dtype.lanes = 1
    m.dl_tensor.device.device_type = 4  # OpenCL
    assert lib.tc_from_dlpack(ctypes.byref(m), 0, ctypes.byref(out)) == tc._decls.TC_ERR_NOT_IMPLEMENTED
    v = I.DLManagedTensorVersioned()
    v.version.major = 2
    assert lib.tc_from_dlpack(ctypes.byref(v), 1, ctypes.byref(out)) == tc._decls.TC_ERR_NOT_IMPLEMENTED
    assert lib.tc_from_dlpack(None, 1, ctypes.byref(out)) == tc._decls.TC_ERR_INVALID_ARGUMENT
    assert deleted == []


def test_dlpack_of_strided_offset_views():
    need("tc_slice", "tc_transpose")
    torch = pytest.importorskip("torch")
    t = tc.arange(20, dtype=tc.float32).reshape(4, 5)
    v = t[1:, ::2]  # a storage offset and a step
    a = np.from_dlpack(v)
    assert a.tolist() == np.arange(20.0).reshape(4, 5)[1:, ::2].tolist()
    assert a.ctypes.data == v.data_ptr()
    y = torch.from_dlpack(t.t())
    assert y.stride() == (1, 5) and y.tolist() == np.arange(20.0).reshape(4, 5).T.tolist()
    back = tc.from_dlpack(y[1:, 2:])
    assert back.tolist() == np.arange(20.0).reshape(4, 5).T[1:, 2:].tolist()
    assert back.stride() == (1, 5)


def test_own_export_comes_back_as_a_view_not_a_wrapper():
    # libtc's own versioned export, unedited, is imported as a view of the
    # exported tensor's storage: the import does not keep the exported tensor
    # alive, so the two cannot hold each other. Found by fuzz_abi_sequence: an
    # empty x (no memory for tc_tensor_set_grad's overlap check to see) whose
    # .grad was x's own DLPack round trip leaked both.
    base = live()
    # (x requires no grad, so the capsule exports x itself, not a detached view.)
    x = tc.zeros(0, 3)
    x.grad = tc.from_dlpack(x)
    del x
    assert live() == base
    # The same through a legacy capsule (tc.to_dlpack): the package imports
    # the libtc export it wraps.
    wrappers = I.legacy_live_count()
    x = tc.zeros(2, 0)
    x.grad = tc.from_dlpack(tc.to_dlpack(x))
    assert I.legacy_live_count() == wrappers
    del x
    assert live() == base
    t = tc.arange(12, dtype=tc.float64).reshape(3, 4)
    u = tc.from_dlpack(t[1:, ::2])
    assert u.data_ptr() == t[1:, ::2].data_ptr() and u.stride() == (4, 2)
    assert u.tolist() == [[4.0, 6.0], [8.0, 10.0]]
    u.mul_(-1)  # the same memory
    assert t.tolist()[2] == [-8.0, 9.0, -10.0, 11.0]
    del t  # u keeps the storage, not the tensor
    assert u.tolist() == [[-4.0, -6.0], [-8.0, -10.0]]
    del u
    assert live() == base
