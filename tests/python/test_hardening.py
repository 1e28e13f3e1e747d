"""Python-side hardening: integers past int64 raise instead of
wrapping through ctypes; list-of-tensor calls keep their temporaries alive;
huge kernels fail fast; read-only numpy/DLPack memory gives read-only
tensors that libtc refuses to write."""
import ctypes
import gc

import pytest

import tc
from tc import _decls as D
from tc import _interop as I
from tc.nn import functional as F

np = pytest.importorskip("numpy")

BIG = 2**64
INT64_MAX = 2**63 - 1


def overflows(f, *args, **kwargs):
    """Asserts f(*args) raises tc.IntOverflowError, both an OverflowError and
    a RuntimeError (what PyTorch raises)."""
    with pytest.raises(tc.IntOverflowError) as ei:
        f(*args, **kwargs)
    assert isinstance(ei.value, OverflowError) and isinstance(ei.value, RuntimeError)
    assert "Overflow when unpacking long" in str(ei.value)


# ================================================================ integers past int64

@pytest.mark.parametrize("make", [tc.zeros, tc.ones, tc.empty, tc.rand, tc.randn])
def test_shapes_past_int64_raise(make):
    overflows(make, BIG + 3)  # used to give shape (3,)
    overflows(make, (2, BIG))
    overflows(make, [2**63])
    overflows(make, -(2**63) - 1)


def test_shape_methods_past_int64_raise():
    x = tc.ones(2, 3)
    overflows(x.reshape, BIG + 6)
    overflows(x.view, 6, BIG)
    overflows(x.expand, BIG + 2, 3)
    overflows(x.permute, BIG, 0)
    overflows(x.new_zeros, BIG)
    overflows(tc.full, (BIG,), 1.0)
    overflows(tc.full, BIG, 1.0)


def test_dims_past_int64_raise(torch):
    x = tc.ones(3, 4)
    calls = [
        lambda m, t: t.sum(dim=BIG),  # used to sum dim 0
        lambda m, t: t.mean(dim=BIG),
        lambda m, t: t.std(dim=BIG),
        lambda m, t: t.softmax(BIG),
        lambda m, t: t.log_softmax(BIG + 1),
        lambda m, t: t.transpose(0, BIG),
        lambda m, t: t.unsqueeze(BIG),
        lambda m, t: t.squeeze(BIG),
        lambda m, t: t.select(0, BIG),
        lambda m, t: t[BIG],
        lambda m, t: t.narrow(0, BIG, 1),
        lambda m, t: t.argmax(dim=BIG),
        lambda m, t: t.max(dim=BIG),
        lambda m, t: t.split(BIG),
        lambda m, t: t.chunk(BIG),
    ]
    tx = torch.ones(3, 4)
    for call in calls:
        with pytest.raises(RuntimeError):  # PyTorch: "Overflow when unpacking long"
            call(torch, tx)
        overflows(call, tc, x)
    overflows(x.sum, dim=(1, BIG))
    overflows(F.one_hot, tc.tensor([0, 1]), BIG)


def test_integer_scalars_past_int64_raise_like_torch(torch):
    """PyTorch 1.13 refuses an int it cannot unpack as a C long even next to a
    floating tensor (it does not turn it into 1.8e19)."""
    for dtype, tdtype in ((tc.float32, torch.float32), (tc.int64, torch.int64)):
        x, tx = tc.ones(3, dtype=dtype), torch.ones(3, dtype=tdtype)
        for v in (BIG, 2**63, -(2**63) - 1):
            for op in (lambda a: a + v, lambda a: v - a, lambda a: a * v, lambda a: a / v,
                       lambda a: a == v, lambda a: a.clamp(max=v), lambda a: a.fill_(v)):
                with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
                    op(tx)
                overflows(op, x)
        assert x.tolist() == tx.tolist()  # the failed fill_ changed nothing
    overflows(tc.arange, BIG)
    overflows(tc.full, (2,), BIG)
    overflows(tc.zeros(2, dtype=tc.int64).add_, BIG)


def test_integer_scalars_at_the_int64_edge_are_exact(torch):
    """Integers past 2**53 reach int64 tensors exactly (not through a
    double, which rounds 2**63 - 1 up and out of range)."""
    xi, txi = tc.zeros(2, dtype=tc.int64), torch.zeros(2, dtype=torch.int64)
    for v in (INT64_MAX, -(2**63), 2**53 + 1, -(2**62) - 3):
        assert (xi + v).tolist() == (txi + v).tolist() == [v, v]
        assert (v - xi).tolist() == [v, v]
        assert tc.full((2,), v).tolist() == torch.full((2,), v).tolist() == [v, v]
        assert tc.zeros(2, dtype=tc.int64).fill_(v).tolist() == [v, v]
        assert (tc.ones(1) * v).item() == (torch.ones(1) * v).item()  # float: rounds like PyTorch


def test_num_threads_past_int64_raises_and_keeps_the_setting():
    before = tc.get_num_threads()
    overflows(tc.set_num_threads, BIG + 1)  # used to set 1
    with pytest.raises(tc.IntOverflowError):
        tc.flags["num_threads"] = BIG + 1
    assert tc.get_num_threads() == before


def test_manual_seed_range_like_torch(torch):
    overflows(tc.manual_seed, BIG)
    with pytest.raises(RuntimeError):
        torch.manual_seed(BIG)
    tc.manual_seed(-1)  # PyTorch takes negative seeds modulo 2**64
    assert tc.initial_seed() == BIG - 1
    tc.manual_seed(BIG - 1)
    assert tc.initial_seed() == BIG - 1
    tc.manual_seed(0)


def test_slice_bounds_past_int64_clamp_like_python(torch):
    x, rows = tc.arange(12).reshape(3, 4), [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    for key in (slice(None, BIG), slice(BIG, None), slice(-BIG, 2), slice(1, -BIG), slice(-(2**70), None, 2)):
        assert x[key].tolist() == rows[key], key  # used to wrap: x[:2**64] was empty
        assert x[:, key].tolist() == [r[key] for r in rows], key
    tx = torch.arange(12).reshape(3, 4)
    assert x[:BIG].tolist() == tx[:BIG].tolist() and x[BIG:].shape == tuple(tx[BIG:].shape)


def test_floats_where_integers_go_raise_type_error(torch):
    x = tc.ones(2, 3)
    with pytest.raises(TypeError):
        torch.ones(2, 3).softmax(1.5)
    with pytest.raises(TypeError):
        x.softmax(1.5)
    with pytest.raises(TypeError):
        tc.zeros(2.5)
    with pytest.raises(TypeError):
        tc.zeros((2, 2.0))
    with pytest.raises(TypeError):
        tc.nn.Conv2d(1, 1, 2.5)


def test_bools_and_numpy_integers_still_work(torch):
    x = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    tx = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    assert tc.zeros(np.int64(3)).shape == (3,)
    assert tc.zeros((np.int32(2), np.uint8(3))).shape == (2, 3)
    assert x.sum(dim=np.int64(1)).tolist() == tx.sum(dim=1).tolist()
    assert x.sum(dim=(np.int64(0), 1)).item() == tx.sum().item()
    assert x.sum(dim=1, keepdim=np.bool_(True)).shape == (3, 1)
    assert x.sum(True).tolist() == tx.sum(1).tolist()  # dim=True is dim 1
    assert x.transpose(0, True).shape == (4, 3)
    assert (x + np.int64(2)).tolist() == (tx + 2).tolist()
    assert x.reshape(np.int64(4), np.int32(3)).shape == (4, 3)
    assert x[np.int64(1)].tolist() == tx[1].tolist()
    assert x.narrow(0, np.int64(1), np.int64(2)).tolist() == tx.narrow(0, 1, 2).tolist()
    assert [t.shape for t in x.split(np.int64(2))] == [(2, 4), (1, 4)]
    assert tc.full(np.int64(2), 7).tolist() == [7, 7]
    assert tc.nn.Conv2d(1, 1, np.int64(3)).weight.shape == (1, 1, 3, 3)
    tc.set_num_threads(np.int64(tc.get_num_threads()))


def test_every_declared_integer_parameter_is_range_checked():
    """Not only the Python helpers: any call through the declared functions
    (tc._lib.lib.tc_*) refuses an integer out of its C type's range."""
    plain = (ctypes.c_int64, ctypes.c_int32, ctypes.c_uint64, ctypes.c_uint32)
    lib = tc._lib.lib
    checked = 0
    for name in D.FUNCTIONS:
        f = getattr(lib, name, None)
        if f is None:
            continue
        assert not any(t in plain for t in f.argtypes), name
        checked += any(issubclass(t, plain) for t in f.argtypes if isinstance(t, type))
    assert checked > 50
    x = tc.ones(2, 2)
    out = ctypes.c_void_p()
    with pytest.raises(ctypes.ArgumentError, match="Overflow"):
        lib.tc_softmax(x._h, BIG, ctypes.byref(out))
    with pytest.raises(ctypes.ArgumentError, match="Overflow"):
        lib.tc_set_flag(b"num_threads", BIG + 1)
    assert out.value is None
    assert lib.tc_softmax(x._h, np.int64(-1), ctypes.byref(out)) == 0
    lib.tc_tensor_free(out)


# ================================================================ lists of tensors

def _rows(n):
    """A generator of fresh temporaries (nothing else references them)."""
    base = tc.arange(n * 3, dtype=tc.float32).reshape(n, 3)
    return (base[i] * 1.0 for i in range(n))


def test_cat_and_stack_of_generators_keep_the_temporaries_alive():
    expected = list(range(12))
    for _ in range(3):
        gc.collect()
        assert tc.cat(_rows(4)).tolist() == [float(v) for v in expected]
        assert tc.stack(_rows(4)).reshape(-1).tolist() == [float(v) for v in expected]
        assert tc.stack((t for t in _rows(4)), dim=1).shape == (3, 4)
        assert tc.concat(_rows(2), dim=0).shape == (6,)


def test_cat_and_stack_of_a_tensor_iterate_its_rows():
    x = tc.arange(12, dtype=tc.float32).reshape(3, 4)
    assert tc.stack(x).tolist() == x.tolist()  # used to be InvalidHandleError
    assert tc.stack(x, dim=1).tolist() == x.t().tolist()
    assert tc.cat(x).tolist() == x.reshape(-1).tolist()


def test_cat_and_stack_refuse_non_tensors():
    x = tc.ones(2)
    for f in (tc.cat, tc.stack):
        with pytest.raises(TypeError, match="element 1"):
            f([x, 1.0])
        with pytest.raises(TypeError):
            f([x, [1.0, 2.0]])


def test_optimizer_takes_a_generator_and_refuses_non_tensors():
    model = tc.nn.Linear(2, 1)
    opt = tc.optim.SGD((p for p in model.parameters()), lr=0.1)
    model(tc.ones(3, 2)).sum().backward()
    before = model.bias.tolist()
    opt.step()
    assert model.bias.tolist() != before
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        tc.optim.SGD([model.weight, 3], lr=0.1)


# ================================================================ huge kernels

def test_huge_conv_kernels_fail_at_once():
    with pytest.raises(MemoryError):  # tc.OutOfMemoryError, from the allocation, not a loop
        tc.nn.Conv2d(1, 1, 2**31)
    with pytest.raises(MemoryError):
        tc.nn.Conv2d(1, 1, (1, 2**40))
    with pytest.raises(MemoryError):
        tc.nn.Conv2d(3, 8, 2**32)  # numel past int64
    overflows(tc.nn.Conv2d, 1, 1, 2**63)  # used to wrap negative
    overflows(tc.nn.Conv2d, 1, 1, (3, BIG + 3))  # used to wrap to 3
    with pytest.raises(ValueError, match="pair"):
        tc.nn.Conv2d(1, 1, range(10**15))  # never iterated past 3 items
    with pytest.raises(ValueError):
        tc.nn.Conv2d(1, 1, (3, 3, 3))


def test_huge_kernels_in_functions_and_pooling_fail_at_once():
    x, w = tc.ones(1, 1, 4, 4), tc.ones(1, 1, 2, 2)
    for pool in (F.max_pool2d, F.avg_pool2d):
        with pytest.raises(tc.InvalidArgumentError):
            pool(x, 2**40)
        overflows(pool, x, BIG)
        overflows(pool, x, 2, stride=BIG + 1)
    with pytest.raises(tc.InvalidArgumentError):
        tc.nn.MaxPool2d(2**40)(x)
    with pytest.raises(tc.InvalidArgumentError):
        tc.nn.AvgPool2d((2, 2**40))(x)
    with pytest.raises(tc.InvalidArgumentError):
        F.conv2d(x, w, padding=2**40)
    overflows(F.conv2d, x, w, stride=BIG)
    overflows(F.conv2d, x, w, dilation=(1, BIG))
    overflows(F.conv2d, x, w, groups=BIG + 1)
    overflows(tc.nn.MaxPool2d(BIG), x)


# ================================================================ read-only memory

VALUES = [1.0, 2.0, 3.0, 4.0]


@pytest.fixture
def immutable():
    """(bytes, a read-only float32 array over them)."""
    data = np.array(VALUES, dtype=np.float32).tobytes()
    a = np.frombuffer(data, dtype=np.float32)
    assert not a.flags.writeable
    return data, a


@pytest.fixture
def memmap(tmp_path):
    """(path, a read-only float32 memmap of it)."""
    path = tmp_path / "values.bin"
    np.array(VALUES, dtype=np.float32).tofile(path)
    m = np.memmap(path, dtype=np.float32, mode="r", shape=(4,))
    assert not m.flags.writeable
    yield path, m
    del m


def _writes(t):
    return {
        "add_": lambda: t.add_(1),
        "mul_": lambda: t.mul_(2.0),
        "fill_": lambda: t.fill_(0),
        "zero_": lambda: t.zero_(),
        "setitem": lambda: t.__setitem__(0, 1),
        "setitem_slice": lambda: t.__setitem__(slice(1, 3), tc.tensor([9.0, 9.0])),
        "copy_": lambda: t.copy_(tc.zeros(4)),
        "iadd": lambda: t.__iadd__(tc.ones(4)),
        "uniform_": lambda: t.uniform_(),
        "normal_": lambda: t.normal_(),
        "init.constant_": lambda: tc.nn.init.constant_(t, 5.0),
    }


def _libtc_refuses_writes():
    """Whether the loaded libtc refuses a write into a read-only tensor (tried
    on memory that a write cannot harm)."""
    a = np.zeros(2, dtype=np.float32)
    a.flags.writeable = False
    try:
        tc.from_numpy(a).fill_(1.0)
    except tc.InvalidArgumentError:
        return True
    return False


def _assert_write_refused(t, write):
    with pytest.raises(tc.ReadOnlyError) as ei:
        write()
    e = ei.value
    assert isinstance(e, tc.InvalidArgumentError) and isinstance(e, RuntimeError)
    assert e.code == D.TC_ERR_INVALID_ARGUMENT and "read-only" in e.message


def test_from_numpy_of_frombuffer_is_read_only(immutable):
    data, a = immutable
    t = tc.from_numpy(a)
    assert t.is_readonly and t.data_ptr() == a.ctypes.data  # still zero-copy
    assert t[1:].is_readonly and t.reshape(2, 2).is_readonly  # views share the storage
    assert t.tolist() == VALUES


def test_from_numpy_of_writable_arrays_is_not_read_only():
    for a in (np.array(VALUES, dtype=np.float32), np.frombuffer(bytearray(16), dtype=np.float32)):
        t = tc.from_numpy(a)
        assert not t.is_readonly
        t.add_(1)
        assert a[0] == t[0].item()
    assert not tc.ones(2).is_readonly


@pytest.mark.parametrize("write", sorted(_writes(None)))
def test_writes_into_frombuffer_bytes_are_refused(immutable, write):
    data, a = immutable
    before = bytes(data)
    t = tc.from_numpy(a)
    _assert_write_refused(t, _writes(t)[write])
    assert data == before and t.tolist() == VALUES
    view = t[1:3]
    _assert_write_refused(view, lambda: view.fill_(0))  # views share the read-only storage
    assert data == before


@pytest.mark.parametrize("write", ["add_", "fill_", "zero_", "setitem", "copy_"])
def test_writes_into_a_read_only_memmap_are_refused(memmap, write):
    if not _libtc_refuses_writes():
        pytest.skip("this libtc writes into read-only tensors: writing into the read-only mapping "
                    "would kill the test run (SIGSEGV); the frombuffer tests fail instead")
    path, m = memmap
    t = tc.from_numpy(m)
    assert t.is_readonly
    _assert_write_refused(t, _writes(t)[write])  # used to segfault
    assert t.tolist() == VALUES
    assert np.fromfile(path, dtype=np.float32).tolist() == VALUES


def test_out_of_place_ops_on_read_only_tensors_work(immutable, memmap):
    for a in (immutable[1], memmap[1]):
        t = tc.from_numpy(a)
        assert (t + 1).tolist() == [v + 1 for v in VALUES] and not (t + 1).is_readonly
        assert (t * t).sum().item() == sum(v * v for v in VALUES)
        assert t.exp().log().allclose(t)
        c = t.clone()
        assert not c.is_readonly
        c.add_(1)
        assert c.tolist() == [v + 1 for v in VALUES] and t.tolist() == VALUES
        assert not tc.tensor(a).is_readonly  # tc.tensor copies
        assert t.to(tc.float64).tolist() == VALUES


def test_read_only_tensors_in_autograd_and_optimizers(immutable):
    data, a = immutable
    before = bytes(data)
    w = tc.nn.Parameter(tc.from_numpy(a))
    assert w.is_readonly
    (w * 2).sum().backward()  # reading it, and its grad, work
    assert w.grad.tolist() == [2.0] * 4
    opt = tc.optim.SGD([w], lr=0.1)
    _assert_write_refused(w, opt.step)
    assert data == before and w.tolist() == VALUES


def test_numpy_of_a_read_only_tensor_is_not_writeable(immutable):
    t = tc.from_numpy(immutable[1])
    for out in (t.numpy(), np.asarray(t), t[1:].numpy()):
        assert not out.flags.writeable
        with pytest.raises(ValueError):
            out[0] = 1.0
    assert t.numpy().tolist() == VALUES
    assert tc.ones(2).numpy().flags.writeable


def test_readonly_flag_set_by_hand_and_empty_arrays():
    a = np.arange(4, dtype=np.float64)
    a.flags.writeable = False
    assert tc.from_numpy(a).is_readonly
    e = np.zeros((0, 3), dtype=np.float32)
    e.flags.writeable = False
    t = tc.from_numpy(e)
    assert t.shape == (0, 3) and t.is_readonly
    assert not t.numpy().flags.writeable
    assert not tc.tensor(e).is_readonly


def test_from_numpy_frees_the_tensor_when_marking_it_fails(monkeypatch, immutable):
    """If tc_tensor_set_readonly fails, the handle is freed at once (libtc
    calls the deleter, the array is no longer lent) and no writable tensor
    escapes."""
    gc.collect()
    lent = I.lent_count()
    monkeypatch.setattr(I, "_set_readonly_f", lambda h: D.TC_ERR_INTERNAL)
    with pytest.raises(tc.InternalError):
        tc.from_numpy(immutable[1])
    assert I.lent_count() == lent
    monkeypatch.undo()
    t = tc.from_numpy(immutable[1])
    assert I.lent_count() == lent + 1 and t.is_readonly
    del t
    gc.collect()
    assert I.lent_count() == lent


def test_dlpack_keeps_read_only(immutable):
    t = tc.from_numpy(immutable[1])
    u = tc.from_dlpack(t.__dlpack__(max_version=(1, 0)))  # versioned: carries the flag
    assert u.is_readonly and u.data_ptr() == t.data_ptr() and u.tolist() == VALUES
    assert tc.from_dlpack(t).is_readonly
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()  # legacy capsules cannot say read-only: refused, like numpy
    with pytest.raises(BufferError):
        tc.to_dlpack(t)
    c = tc.from_dlpack(t.__dlpack__(copy=True))
    assert not c.is_readonly and c.tolist() == VALUES
    w = tc.ones(3)
    assert not tc.from_dlpack(w.__dlpack__(max_version=(1, 0))).is_readonly
    assert not tc.from_dlpack(tc.to_dlpack(w)).is_readonly


def test_writes_into_a_read_only_dlpack_import_are_refused(immutable):
    data, a = immutable
    before = bytes(data)
    u = tc.from_dlpack(tc.from_numpy(a).__dlpack__(max_version=(1, 0)))
    _assert_write_refused(u, lambda: u.fill_(7))
    assert data == before


def test_torch_cannot_import_a_read_only_tensor_writable(torch, immutable):
    t = tc.from_numpy(immutable[1])
    with pytest.raises(BufferError):
        torch.utils.dlpack.from_dlpack(t)
    assert torch.utils.dlpack.from_dlpack(t.clone()).tolist() == VALUES
