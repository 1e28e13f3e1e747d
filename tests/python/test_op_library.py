"""Custom op libraries from Python: tc.ops.load_library and
tc.ops.<namespace>.<name>(...), with the example library
(examples/op_library, myops::scaled_square = alpha * x^2) and the broken
libraries of tests/op_libraries (paths from ctest's environment)."""
import os

import numpy as np
import pytest

import tc

EXAMPLE = os.environ.get("TC_EXAMPLE_OP_LIBRARY")
BAD_DIR = os.environ.get("TC_TEST_OP_LIBRARY_DIR")
pytestmark = pytest.mark.skipif(not EXAMPLE or not BAD_DIR, reason="run by ctest (needs the built op libraries)")


def bad(variant):
    return os.path.join(BAD_DIR, "libbad_%s.so" % variant)


def test_load_call_and_backward():
    lib = tc.ops.load_library(EXAMPLE)
    assert tc.ops.load_library(EXAMPLE) is lib  # idempotent
    assert "myops::scaled_square" in tc.ops.op_names()
    x = tc.tensor([1.0, -2.0, 3.0], dtype=tc.float64, requires_grad=True)
    y = tc.ops.myops.scaled_square(x, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), [2.0, 8.0, 18.0])
    assert y.grad_fn.name() == "myops::scaled_squareBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, -8.0, 12.0])  # 2 * alpha * x
    # Keyword arguments, and an int where a float goes.
    z = tc.ops.myops.scaled_square(x, alpha=3)
    np.testing.assert_allclose(z.detach().numpy(), [3.0, 12.0, 27.0])
    assert "myops::scaled_square" in tc.ops.myops.scaled_square.schema
    assert EXAMPLE in tc._copy_string(tc._L.tc_config)
    assert lib.library_path() == EXAMPLE
    assert tc.ops.myops.scaled_square.library_path == EXAMPLE
    (w,) = tc.ops.call("myops::scaled_square", [x.detach()], [0.5])
    np.testing.assert_allclose(w.numpy(), [0.5, 2.0, 4.5])


def test_matches_torch():
    torch = pytest.importorskip("torch")
    tc.ops.load_library(EXAMPLE)
    data = np.random.default_rng(0).standard_normal((3, 4))
    x = tc.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    y = tc.ops.myops.scaled_square(x, -0.5)
    ty = -0.5 * tx * tx
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_wrong_arguments():
    tc.ops.load_library(EXAMPLE)
    x = tc.ones(3)
    with pytest.raises(TypeError):
        tc.ops.myops.scaled_square(x)
    with pytest.raises(TypeError):
        tc.ops.myops.scaled_square(2.0, x)
    with pytest.raises(tc.TcIndexError, match="no op named 'myops::missing'"):
        tc.ops.myops.missing(x, 1.0)


@pytest.mark.parametrize("variant,error,words", [
    ("no_entry", tc.TcIOError, "exports no tc_op_library_init"),
    ("abi", tc.InvalidArgumentError, "op library ABI version 2"),
    ("dup_within", tc.InvalidArgumentError, "registered twice"),
    ("halfway", tc.TcIOError, "bad_halfway cannot find its data file"),
])
def test_broken_libraries_register_nothing(variant, error, words):
    before = tc.ops.op_names()
    with pytest.raises(error, match=words):
        tc.ops.load_library(bad(variant))
    assert tc.ops.op_names() == before


def test_not_a_library(tmp_path):
    p = tmp_path / "libnot.so"
    p.write_text("not an ELF file")
    with pytest.raises(tc.TcIOError, match="cannot load the op library"):
        tc.ops.load_library(p)


def test_failing_callbacks():
    tc.ops.load_library(bad("callbacks"))
    x = tc.ones(3, dtype=tc.float64, requires_grad=True)
    with pytest.raises(tc.ShapeError, match="bad::fail_forward refuses"):
        tc.ops.bad.fail_forward(x)
    y = tc.ops.bad.fail_backward(x)
    with pytest.raises(tc.CallbackError, match="bad::fail_backward refuses"):
        y.sum().backward()
    a, b = tc.ops.bad.pair(x)
    assert a.shape == b.shape == (3,)
    with pytest.raises(tc.InvalidArgumentError, match="outside registration"):
        tc.ops.bad.late_register(x)
