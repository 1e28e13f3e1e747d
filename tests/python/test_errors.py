"""Every status code maps to its exception class; real failures raise them
with the code, its name and libtc's message."""
import ctypes

import pytest

import tc
from tc import _decls as D
from tc._errors import error_for
from conftest import need

EXPECTED = {
    D.TC_ERR_INVALID_ARGUMENT: (tc.InvalidArgumentError, ValueError),
    D.TC_ERR_INVALID_HANDLE: (tc.InvalidHandleError, RuntimeError),
    D.TC_ERR_NOT_INITIALIZED: (tc.NotInitializedError, RuntimeError),
    D.TC_ERR_SHAPE: (tc.ShapeError, ValueError),
    D.TC_ERR_DTYPE: (tc.DTypeError, TypeError),
    D.TC_ERR_INDEX: (tc.TcIndexError, IndexError),
    D.TC_ERR_OUT_OF_MEMORY: (tc.OutOfMemoryError, MemoryError),
    D.TC_ERR_DEVICE: (tc.DeviceError, RuntimeError),
    D.TC_ERR_NOT_COMPILED: (tc.NotCompiledError, RuntimeError),
    D.TC_ERR_UNAVAILABLE: (tc.UnavailableError, RuntimeError),
    D.TC_ERR_NOT_IMPLEMENTED: (tc.TcNotImplementedError, NotImplementedError),
    D.TC_ERR_AUTOGRAD: (tc.AutogradError, RuntimeError),
    D.TC_ERR_IO: (tc.TcIOError, RuntimeError),
    D.TC_ERR_INTERNAL: (tc.InternalError, RuntimeError),
    D.TC_ERR_CALLBACK: (tc.CallbackError, RuntimeError),
    D.TC_ERR_TIMEOUT: (tc.TcTimeoutError, TimeoutError),
}


def test_every_status_code_has_a_class():
    assert set(EXPECTED) == set(range(1, D.TC_STATUS_COUNT))
    assert set(tc.ERROR_CLASSES) == set(EXPECTED)


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_status_code_to_exception(code):
    cls, builtin = EXPECTED[code]
    e = error_for(code, "the message")
    assert type(e) is cls
    assert isinstance(e, tc.TcError) and isinstance(e, builtin)
    assert e.code == code
    assert e.name == tc.status_name(code) and e.name.startswith("TC_ERR_")
    assert e.message == "the message"
    assert e.name in str(e) and "the message" in str(e)
    # Every libtc error is also a RuntimeError, what PyTorch raises for its
    # shape, dtype, argument and index checks.
    assert isinstance(e, RuntimeError)


def test_status_names_are_the_header_names():
    names = {v: k for k, v in vars(D).items() if k.startswith("TC_ERR_")}
    for code, name in names.items():
        assert tc.status_name(code) == name


def test_unknown_code_is_a_runtime_tc_error():
    e = error_for(99, "x")
    assert isinstance(e, tc.TcError) and isinstance(e, RuntimeError) and e.code == 99
    with pytest.raises(ValueError):
        error_for(0, "")


def test_freed_handle_is_invalid_handle():
    t = tc.zeros(2)
    h = t.handle
    lib = tc._lib.lib
    other = ctypes.c_void_p()
    assert lib.tc_tensor_retain(h, ctypes.byref(other)) == 0
    assert lib.tc_tensor_free(other.value) == 0
    assert lib.tc_tensor_free(other.value) == D.TC_ERR_INVALID_HANDLE  # twice: an error, no crash
    with pytest.raises(tc.InvalidHandleError) as ei:
        tc._errors.check(lib.tc_tensor_free(other.value))
    assert ei.value.code == D.TC_ERR_INVALID_HANDLE and "t" in ei.value.message
    assert t.tolist() == [0.0, 0.0]


def test_invalid_argument():
    with pytest.raises(tc.InvalidArgumentError) as ei:
        tc.set_flag("no_such_flag", 1)
    assert isinstance(ei.value, ValueError)
    assert "no_such_flag" in ei.value.message


def test_out_of_memory():
    with pytest.raises(tc.OutOfMemoryError) as ei:
        tc.empty(1 << 40, 1 << 20)
    assert isinstance(ei.value, MemoryError)


def test_dtype_error():
    with pytest.raises(tc.DTypeError) as ei:
        tc.rand(3, dtype=tc.int64)
    assert isinstance(ei.value, TypeError) and ei.value.name == "TC_ERR_DTYPE"


def test_shape_error():
    need("tc_add")
    with pytest.raises(tc.ShapeError) as ei:
        tc.ones(2, 3) + tc.ones(4)
    assert isinstance(ei.value, ValueError)
    assert "[2, 3]" in ei.value.message or "2, 3" in ei.value.message


def test_index_error():
    need("tc_select")
    with pytest.raises(IndexError) as ei:
        tc.zeros(3)[5]
    assert isinstance(ei.value, tc.TcIndexError) and ei.value.code == D.TC_ERR_INDEX


def test_not_compiled_or_unavailable():
    if tc.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises((tc.NotCompiledError, tc.UnavailableError)) as ei:
        tc.cuda.init()
    assert ei.value.message


def test_autograd_error():
    need("tc_backward", "tc_mul")
    x = tc.ones(3, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(tc.AutogradError) as ei:
        y.backward()  # the graph was freed
    assert isinstance(ei.value, RuntimeError)


def test_message_is_per_thread_and_readable():
    import threading

    msgs = {}

    def worker(i):
        try:
            tc.set_flag("bad_flag_%d" % i, 1)
        except tc.TcError as e:
            msgs[i] = e.message

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(4):
        assert "bad_flag_%d" % i in msgs[i]


def test_missing_function_error_is_not_implemented():
    e = tc.MissingFunctionError("tc_nothing")
    assert isinstance(e, NotImplementedError) and "tc_nothing" in str(e)


@pytest.mark.parametrize("make, builtin", [
    (lambda: tc.zeros(2, 3) + tc.zeros(4), ValueError),                      # shapes that do not broadcast
    (lambda: tc.zeros(2, 3).matmul(tc.zeros(2, 3)), ValueError),             # matmul shapes
    (lambda: tc.zeros(2, 3).sum(5), IndexError),                             # dim out of range
    (lambda: tc.nn.functional.cross_entropy(tc.zeros(2, 3), tc.tensor([0, 3])), IndexError),  # class 3 of 3
    (lambda: tc.nn.functional.smooth_l1_loss(tc.zeros(2), tc.zeros(2), beta=-1.0), ValueError),
    (lambda: tc.zeros(2, dtype="int64").softmax(0), TypeError),              # dtype
])
def test_errors_pytorch_raises_as_runtime_error_are_runtime_errors(make, builtin):
    """Code ported from PyTorch catches RuntimeError; libtc's errors keep their
    ValueError/IndexError/TypeError bases as well."""
    with pytest.raises(RuntimeError) as info:
        make()
    assert isinstance(info.value, tc.TcError) and isinstance(info.value, builtin)
