"""The package's API: loading, init, flags, creation, properties, indexing,
conversions, repr, autograd basics."""
import gc
import os
import subprocess
import sys

import pytest

import tc
from conftest import REPO, need

PKG = os.path.join(REPO, "bindings", "python_ctypes")


def run_python(code, **env):
    e = dict(os.environ, PYTHONPATH=PKG)
    e.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e)


# ---------------------------------------------------------------- loading and init

def test_library_and_versions():
    assert os.path.exists(tc.library_path)
    assert tc.abi_version() == tc._decls.TC_ABI_VERSION
    assert tc.version() == "%d.%d.%d" % (tc._decls.TC_VERSION_MAJOR, tc._decls.TC_VERSION_MINOR,
                                         tc._decls.TC_VERSION_PATCH)


def test_missing_library_import_error_names_paths():
    r = run_python("import tc", TC_LIBRARY="/nonexistent/libtc.so")
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "/nonexistent/libtc.so" in r.stderr and "not found" in r.stderr


def test_wrong_library_import_error(tmp_path):
    # A real shared library that is not libtc.
    import glob
    libm = (glob.glob("/lib/*/libm.so.6") + glob.glob("/usr/lib/*/libm.so.6"))[0]
    r = run_python("import tc", TC_LIBRARY=libm)
    assert r.returncode != 0 and "ImportError" in r.stderr and "not libtc" in r.stderr


def test_abi_mismatch_import_error(monkeypatch):
    # The same library, but bindings expecting another ABI version.
    monkeypatch.setattr(tc._lib, "EXPECTED_ABI", 999)
    with pytest.raises(ImportError) as ei:
        tc._lib.load()
    msg = str(ei.value)
    assert "%s (ABI version %d, expected 999)" % (tc.library_path, tc.abi_version()) in msg, msg


def test_import_initializes_and_exit_shuts_down():
    out = ctypes_is_initialized()
    assert out == 1
    r = run_python("import tc, atexit; x = tc.ones(3); print(tc.flags['live_tensors'])",
                   TC_LIBRARY=tc.library_path)
    assert r.returncode == 0 and r.stdout.strip() == "1", r.stderr


def ctypes_is_initialized():
    import ctypes
    v = ctypes.c_int32()
    tc._lib.lib.tc_is_initialized(ctypes.byref(v))
    return v.value


def test_init_report_and_config():
    rep = tc.init_report()
    names = [s["name"] for s in rep]
    assert names[:4] == ["core", "cpu", "random", "autograd"] and "cuda" in names
    for s in rep[:4]:
        assert s["state"] == "ok" and s["required"] and s["duration_ms"] >= 0
    cuda = rep[names.index("cuda")]
    assert cuda["state"] in ("lazy", "ok", "failed", "skipped")
    assert not cuda["required"]
    assert "core" in str(rep)
    cfg = tc.config()
    assert "0.1.0" in cfg and len(cfg) > 50


def test_flags_mapping():
    keys = tc.flags.keys()
    for k in ("has_cuda", "num_threads", "grad_enabled", "default_dtype", "live_tensors"):
        assert k in keys and k in tc.flags
        assert isinstance(tc.flags[k], int)
    assert "num_threads" in tc.flags.settable() and "has_cuda" not in tc.flags.settable()
    with pytest.raises(KeyError):
        tc.flags["nope"]
    with pytest.raises(tc.InvalidArgumentError):
        tc.flags["has_cuda"] = 1  # read-only
    assert dict(tc.flags.items())["has_openmp"] == 1


def test_num_threads():
    old = tc.get_num_threads()
    try:
        tc.set_num_threads(1)
        assert tc.get_num_threads() == 1 == tc.get_flag("num_threads")
        with pytest.raises(ValueError):
            tc.set_num_threads(0)
    finally:
        tc.set_num_threads(old)


def test_manual_seed_reproducible():
    tc.manual_seed(123)
    a = tc.rand(5).tolist()
    tc.manual_seed(123)
    b = tc.rand(5).tolist()
    assert a == b and tc.initial_seed() == 123
    assert all(0.0 <= v < 1.0 for v in a)
    assert tc.rand(5).tolist() != a


def test_cuda_queries():
    assert isinstance(tc.cuda.is_available(), bool)
    assert tc.cuda.device_count() >= (1 if tc.cuda.is_available() else 0)
    if not tc.cuda.is_available():
        assert tc.cuda.device_count() == 0


def test_default_dtype():
    assert tc.get_default_dtype() is tc.float32
    tc.set_default_dtype(tc.float64)
    try:
        assert tc.tensor([1.5]).dtype is tc.float64
        assert tc.zeros(2).dtype is tc.float64
    finally:
        tc.set_default_dtype(tc.float32)


# ---------------------------------------------------------------- creation

def test_tensor_inference():
    need("tc_to_dtype")
    assert tc.tensor([1, 2]).dtype is tc.int64
    assert tc.tensor([1.0, 2]).dtype is tc.float32
    assert tc.tensor([True, False]).dtype is tc.bool
    assert tc.tensor(3.5).shape == () and tc.tensor(3.5).item() == 3.5
    assert tc.tensor([[1, 2], [3, 4]], dtype=tc.float64).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert tc.tensor([]).shape == (0,)
    with pytest.raises(ValueError):
        tc.tensor([[1, 2], [3]])
    assert tc.tensor([1.5, 2.5], dtype=tc.float16).tolist() == [1.5, 2.5]
    assert tc.tensor([1.0, 2.0], dtype=tc.bfloat16).to(tc.float32).tolist() == [1.0, 2.0]
    assert tc.tensor([1, 200], dtype=tc.uint8).tolist() == [1, 200]


def test_tensor_from_numpy_copies(np):
    need("tc_clone")
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    t = tc.tensor(a)
    assert t.dtype is tc.int32 and t.shape == (2, 3)
    a[0, 0] = 100
    assert t.tolist()[0][0] == 0


def test_factories():
    assert tc.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert tc.ones((2,), dtype=tc.int32).tolist() == [1, 1]
    assert tc.full((2, 2), 7).dtype is tc.int64 and tc.full((2, 2), 7.5).tolist() == [[7.5, 7.5]] * 2
    assert tc.arange(5).tolist() == [0, 1, 2, 3, 4] and tc.arange(5).dtype is tc.int64
    assert tc.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert tc.empty(3, 4).shape == (3, 4)
    x = tc.randn(100, dtype=tc.float64)
    assert x.dtype is tc.float64
    xs = x.tolist()
    assert abs(sum(xs) / 100) < 0.5
    like = tc.ones(2, 3, dtype=tc.float64)
    for f in (tc.zeros_like, tc.ones_like, tc.empty_like, tc.rand_like, tc.randn_like):
        y = f(like)
        assert y.shape == (2, 3) and y.dtype is tc.float64
    assert tc.full_like(like, 2).tolist() == [[2.0] * 3] * 2
    assert tc.zeros(2, requires_grad=True).requires_grad if not _missing("tc_tensor_set_requires_grad") else True


def _missing(name):
    return not hasattr(tc._lib.lib, name)


def test_properties():
    t = tc.zeros(2, 3, 4, dtype=tc.float64)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tc.Size) and repr(t.shape) == "tc.Size([2, 3, 4])"
    assert t.size() == t.shape and t.size(1) == 3 and t.size(-1) == 4
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.dtype is tc.float64 and t.element_size() == 8
    assert t.stride() == (12, 4, 1) and t.strides == (12, 4, 1)
    assert t.is_contiguous() and t.storage_offset() == 0
    assert t.device == tc.device("cpu") and str(t.device) == "cpu" and not t.is_cuda
    assert t.data_ptr() != 0


def test_item_and_tolist():
    assert tc.tensor([3]).item() == 3 and isinstance(tc.tensor([3]).item(), int)
    assert tc.tensor([True]).item() is True
    assert tc.tensor([[1.5]]).item() == 1.5
    with pytest.raises(tc.TcError):
        tc.zeros(2).item()
    assert float(tc.tensor(2.5)) == 2.5 and int(tc.tensor(7)) == 7
    assert tc.tensor(0).tolist() == 0


def test_repr_like_pytorch():
    assert repr(tc.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(tc.tensor([1, 2])) == "tensor([1, 2])"
    assert "dtype=float64" in repr(tc.tensor([1.0], dtype=tc.float64))


def test_to_dtype():
    need("tc_to_dtype", "tc_to_device", "tc_tensor_same")
    t = tc.tensor([1.7, -2.2])
    assert t.to(tc.int64).tolist() == [1, -2]
    assert t.to(dtype=tc.float64).dtype is tc.float64
    assert t.double().dtype is tc.float64 and t.long().dtype is tc.int64 and t.int().dtype is tc.int32
    assert t.bool().tolist() == [True, True] and t.half().dtype is tc.float16
    assert t.to("cpu").tolist() == t.tolist()
    assert t.to(tc.float32).is_same(t)  # nothing changes: the same tensor
    assert t.to(tc.ones(1, dtype=tc.float64)).dtype is tc.float64


def test_dtype_objects():
    assert repr(tc.float32) == "tc.float32" and tc.float is tc.float32 and tc.long is tc.int64
    assert tc.float32.is_floating_point and not tc.int64.is_floating_point
    assert tc.promote_types(tc.int32, tc.float32) is tc.float32
    assert tc.promote_types(tc.int8, tc.uint8) is tc.int16


def test_handle_freed_exactly_once():
    gc.collect()
    before = tc.flags["live_handles"]
    ts = [tc.zeros(3) for _ in range(10)]
    assert tc.flags["live_handles"] == before + 10
    t = ts[0]
    t.__del__()  # an explicit call, then the real one at collection: one free
    assert tc.flags["live_handles"] == before + 9
    del ts, t
    gc.collect()
    assert tc.flags["live_handles"] == before


def test_cpu_allocator_statistics():
    # 1 MiB of float32 counted while alive, not after (the cache holds the
    # block then); the peak keeps it until reset to what is allocated now.
    gc.collect()
    before = tc.flags["cpu_allocated_bytes"]
    tc.flags["cpu_peak_allocated_bytes"] = 0
    assert tc.flags["cpu_peak_allocated_bytes"] == before
    t = tc.empty(256, 1024)
    assert tc.flags["cpu_allocated_bytes"] == before + 2 ** 20
    del t
    gc.collect()
    assert tc.flags["cpu_allocated_bytes"] == before
    assert tc.flags["cpu_peak_allocated_bytes"] >= before + 2 ** 20
    tc.flags["cpu_peak_allocated_bytes"] = 0
    assert tc.flags["cpu_peak_allocated_bytes"] == before
    with pytest.raises(ValueError, match="only 0"):
        tc.flags["cpu_peak_allocated_bytes"] = 5


# ---------------------------------------------------------------- indexing (views)

def test_indexing_views():
    need("tc_select", "tc_slice", "tc_unsqueeze")
    t = tc.arange(24).reshape(2, 3, 4)
    assert t[1].tolist() == [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]]
    assert t[1, 2, 3].item() == 23 and t[-1, -1, -1].item() == 23
    assert t[:, 1].tolist() == [[4, 5, 6, 7], [16, 17, 18, 19]]
    assert t[0, :, ::2].tolist() == [[0, 2], [4, 6], [8, 10]]
    assert t[0, 1:, 1:3].tolist() == [[5, 6], [9, 10]]
    assert t[..., 0].tolist() == [[0, 4, 8], [12, 16, 20]]
    assert t[None].shape == (1, 2, 3, 4) and t[:, None, ..., None].shape == (2, 1, 3, 4, 1)
    assert t[0, ..., 1:2].shape == (3, 1)
    assert t[5:].shape == (0, 3, 4)
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]
    with pytest.raises(ValueError):
        t[::-1]
    v = t[1, :, 2]
    v.fill_(-1)  # a view: writes show in the base
    assert t[1, :, 2].tolist() == [-1, -1, -1] and t[0, 0, 2].item() == 2
    assert t[tc.tensor([1, 0])].shape == (2, 3, 4)
    assert [r.tolist() for r in tc.arange(4).reshape(2, 2)] == [[0, 1], [2, 3]]


def test_setitem():
    need("tc_select", "tc_slice", "tc_copy_", "tc_fill_")
    t = tc.zeros(3, 4)
    t[1] = 5.0
    t[:, 0] = tc.tensor([1.0, 2.0, 3.0])
    assert t.tolist() == [[1.0, 0, 0, 0], [2.0, 5, 5, 5], [3.0, 0, 0, 0]]


def test_shape_ops():
    need("tc_reshape", "tc_view", "tc_transpose", "tc_permute", "tc_narrow", "tc_squeeze", "tc_unsqueeze",
         "tc_expand", "tc_contiguous", "tc_clone")
    t = tc.arange(6).reshape(2, 3)
    assert t.view(3, 2).tolist() == [[0, 1], [2, 3], [4, 5]]
    assert t.reshape(-1).shape == (6,)
    tt = t.t()
    assert tt.tolist() == [[0, 3], [1, 4], [2, 5]] and not tt.is_contiguous()
    assert tt.contiguous().is_contiguous()
    with pytest.raises(tc.ShapeError):
        tt.view(6)
    assert tt.reshape(6).tolist() == [0, 3, 1, 4, 2, 5]
    assert t.permute(1, 0).tolist() == tt.tolist() and t.T.tolist() == tt.tolist()
    assert t.narrow(1, 1, 2).tolist() == [[1, 2], [4, 5]]
    assert t.unsqueeze(0).shape == (1, 2, 3) and t.unsqueeze(0).squeeze().shape == (2, 3)
    assert t.unsqueeze(1).squeeze(1).shape == (2, 3)
    assert tc.ones(3, 1).expand(3, 4).shape == (3, 4) and tc.ones(3, 1).expand(-1, 2).stride() == (1, 0)
    c = t.clone()
    c.fill_(0)
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.flatten().shape == (6,) and tc.zeros(2, 3, 4).flatten(1).shape == (2, 12)


# ---------------------------------------------------------------- operators, autograd

def test_operators_and_scalars():
    need("tc_add", "tc_mul", "tc_sub", "tc_div", "tc_pow", "tc_add_scalar", "tc_rsub_scalar",
         "tc_rdiv_scalar", "tc_neg", "tc_eq", "tc_lt")
    a = tc.tensor([1.0, 2.0, 3.0])
    b = tc.tensor([4.0, 5.0, 6.0])
    assert (a + b).tolist() == [5, 7, 9] and (a - b).tolist() == [-3, -3, -3]
    assert (a * b).tolist() == [4, 10, 18] and (b / a).tolist() == [4, 2.5, 2]
    assert (a ** 2).tolist() == [1, 4, 9] and (2 ** a).tolist() == [2, 4, 8]
    assert (a + 1).tolist() == [2, 3, 4] and (1 - a).tolist() == [0, -1, -2]
    assert (6 / a).tolist() == [6, 3, 2] and (-a).tolist() == [-1, -2, -3]
    assert (a + 0.5).dtype is tc.float32 and (a * 2).dtype is tc.float32
    i = tc.tensor([1, 2, 3])
    assert (i + 1).dtype is tc.int64 and (i + 0.5).dtype is tc.float32  # floats give the default dtype
    assert (i / 2).dtype is tc.float32
    assert (i.to(tc.int32) + 1).dtype is tc.int32  # a 0-d int64 does not widen int32
    assert (a == b).dtype is tc.bool and (a < 2.5).tolist() == [True, True, False]
    assert (a == 2).tolist() == [False, True, False] and (a != a).tolist() == [False] * 3
    c = a.clone()
    c += 1
    c *= 2
    c -= b
    c /= 2
    assert c.tolist() == [0.0, 0.5, 1.0]
    assert abs(a).tolist() == a.tolist()
    m = tc.ones(2, 3)
    assert (m @ tc.ones(3, 4)).shape == (2, 4)


def test_autograd_basics():
    need("tc_mul", "tc_add", "tc_sum", "tc_backward", "tc_tensor_grad")
    x = tc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    y = (x * x + x).sum()
    assert not y.is_leaf and y.grad_fn is not None and "Backward" in y.grad_fn.name()
    y.backward()
    assert x.grad.tolist() == [3.0, 5.0, 7.0]
    x.grad = None
    assert x.grad is None
    d = x.detach()
    assert not d.requires_grad and d.tolist() == x.tolist()
    z = x * 2
    z.retain_grad()
    z.sum().backward()
    assert z.grad.tolist() == [1.0, 1.0, 1.0]
    w = x * 3
    w.backward(tc.tensor([1.0, 0.0, 2.0]))
    assert x.grad.tolist() == [2 + 3.0, 2 + 0.0, 2 + 6.0]


def test_no_grad_and_enable_grad():
    need("tc_mul", "tc_set_grad_enabled")
    x = tc.ones(2, requires_grad=True)
    with tc.no_grad():
        assert not tc.is_grad_enabled()
        assert not (x * 2).requires_grad
        with tc.enable_grad():
            assert tc.is_grad_enabled() and (x * 2).requires_grad
        assert not tc.is_grad_enabled()
    assert tc.is_grad_enabled() and (x * 2).requires_grad

    @tc.no_grad()
    def f():
        return (x * 2).requires_grad

    assert f() is False and tc.is_grad_enabled()
    tc.set_grad_enabled(False)
    assert not tc.is_grad_enabled()
    tc.set_grad_enabled(True)
    with tc.set_grad_enabled(False):
        assert not tc.is_grad_enabled()
    assert tc.is_grad_enabled()


# ---------------------------------------------------------------- coverage

def test_every_header_function_is_used_by_the_package():
    """Each tc.h function is called somewhere in the package (by its full name,
    or by the short name the op factories (_binary, _unary, _inplace) prefix
    with "tc_")."""
    import glob
    import re

    files = glob.glob(os.path.join(PKG, "tc", "**", "*.py"), recursive=True)
    src = "".join(open(f).read() for f in files if not f.endswith("_decls.py"))
    short = set(re.findall(r'_(?:binary|rbinary|unary|inplace)\("(\w+)"(?:, "(\w+)")?', src))
    short_names = {"tc_" + n for pair in short for n in pair if n}
    # Functions the package deliberately leaves to other bindings, with why.
    not_for_python = {
        # Tensor.__del__ frees each handle at once: queueing them for one
        # batched call was measured no faster from Python (docs/PERF_PYTHON.md).
        "tc_tensor_free_many",
    }
    unused = [n for n in tc._decls.FUNCTIONS
              if n not in short_names and n not in not_for_python and not re.search(r'[".]%s\b' % n, src)]
    assert unused == []
    assert not_for_python <= set(tc._decls.FUNCTIONS), "an exempted function left tc.h"


def test_registries_match_the_library():
    for d in tc._DTYPES:
        assert tc._core.library_dtype_info(d) == (d.name, d.itemsize)
        assert tc._core.to_dtype(d.name) is d
    assert tc._core.to_dtype("long") is tc.int64 and tc._core.to_dtype("double") is tc.float64
    assert str(tc.device("cpu")) == "cpu" and repr(tc.device("cpu")) == "device(type='cpu')"
    with pytest.raises(tc.TcError):
        tc.device("tpu")


def test_last_error_and_is_initialized():
    assert tc.is_initialized()
    with pytest.raises(tc.TcError) as ei:
        tc.set_flag("definitely_not_a_flag", 3)
    code, msg = tc.last_error()
    assert code == ei.value.code and msg == ei.value.message and "definitely_not_a_flag" in msg


@pytest.mark.skipif(not tc.cuda.is_available(), reason="no usable CUDA GPU (tc.cuda.is_available() is False)")
def test_cuda_tensors():
    x = tc.arange(6, dtype=tc.float32).reshape(2, 3)
    g = x.cuda()
    assert g.device == tc.device("cuda:0") and g.is_cuda and g.__dlpack_device__() == (2, 0)
    assert g.cpu().tolist() == x.tolist()
    with pytest.raises(TypeError):
        g.numpy()
    stats = tc.cuda.memory_stats()
    assert stats["allocated_bytes"] >= 24


def test_cuda_unavailable_reports_reason():
    if tc.cuda.is_available():
        pytest.skip("CUDA is available here")
    assert tc.cuda.device_count() == 0
    with pytest.raises((tc.NotCompiledError, tc.UnavailableError)):
        tc.zeros(2, device="cuda")


def test_release_library_has_no_allocation_failure_hook():
    """libtc.so carries no test hooks: TC_FAIL_ALLOC_AT=1 does not make
    `import tc` raise OutOfMemoryError, and there is no fail_alloc_at flag
    (allocation-failure injection lives in the test build, tc_static)."""
    env = dict(os.environ, TC_LIBRARY=tc.library_path, TC_FAIL_ALLOC_AT="1")
    code = "import tc; t = tc.zeros(4096); print(t.numel(), 'fail_alloc_at' in tc.flags)"
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60,
                         cwd=os.path.join(REPO, "bindings", "python_ctypes"))
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["4096", "False"], res.stdout
    assert "fail_alloc_at" not in tc.flags
