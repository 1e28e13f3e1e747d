"""The binary ops and activations against PyTorch 1.13: values and
dtypes (float32, float64, integers, bool, Python scalars on either side),
operators (% // & | ^ << >> and their reflected and in-place forms),
gradients (float64, against torch.autograd), broadcasting, non-contiguous,
0-d and empty inputs, and PyTorch's errors."""
import math

import pytest

import tc
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional

need("tc_atan2", "tc_isclose", "tc_prelu", "tc_glu", "tc_eq_scalar")

TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=2e-6, atol=2e-6)}
NP = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
      "uint8": np.uint8, "bool": np.bool_}


def tcify(a):
    """A tc tensor with a numpy array's values and dtype."""
    if a.size == 0:  # tolist() loses the shape of an empty array
        return tc.zeros(*a.shape, dtype=getattr(tc, str(a.dtype)))
    return tc.tensor(a.tolist(), dtype=getattr(tc, str(a.dtype)))


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.tolist(), dtype=NP[t.dtype.name]).reshape(tuple(t.shape))


def same(a, b, exact=False):
    """a: tc result, b: torch result: shape, dtype and values (NaN == NaN)."""
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    x, y = to_np(a), to_np(b)
    if exact or a.dtype.name not in TOL:
        np.testing.assert_array_equal(x, y)
    else:
        np.testing.assert_allclose(x.astype(np.float64), y.astype(np.float64), **TOL[a.dtype.name])


def floats(shape, dtype, seed, lo=-4, hi=4):
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


FLOAT_OPS = ["atan2", "fmod", "remainder", "floor_divide", "copysign", "hypot", "logaddexp", "logaddexp2"]
INT_OPS = ["fmod", "remainder", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FLOAT_OPS)
def test_float_ops_broadcast_and_noncontiguous(name, dtype):
    a, b = floats((3, 4), dtype, 1), floats((4,), dtype, 2)
    b[1] = 0.0  # division by zero: inf/nan as torch
    a[0, 0], a[1, 1] = np.inf, np.nan
    same(getattr(tc, name)(tcify(a), tcify(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    # Non-contiguous (transposed) operands, 0-d and empty.
    at = tcify(a.T.copy()).t()
    same(getattr(tc, name)(at, tcify(a)), getattr(torch, name)(torch.tensor(a.T.copy()).t(), torch.tensor(a)))
    s = np.array(1.5, dtype=dtype)
    same(getattr(tc, name)(tcify(s), tcify(b)), getattr(torch, name)(torch.tensor(s), torch.tensor(b)))
    e = np.zeros((0, 4), dtype=dtype)
    same(getattr(tc, name)(tcify(e), tcify(b)), getattr(torch, name)(torch.tensor(e), torch.tensor(b)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
@pytest.mark.parametrize("name", INT_OPS)
def test_integer_ops(name, dtype):
    g = np.random.default_rng(3)
    lo = 0 if dtype == "uint8" else -100
    a = g.integers(lo, 100, size=(5, 6)).astype(dtype)
    b = g.integers(lo, 100, size=(6,)).astype(dtype)
    b[b == 0] = 7
    if dtype == "int8":
        a[0, :2], b[:2] = -128, -1  # -128 // -1 wraps
    same(getattr(tc, name)(tcify(a), tcify(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)), exact=True)


@pytest.mark.parametrize("dtype", ["int64", "int16", "int8", "uint8"])
def test_shifts(dtype):
    g = np.random.default_rng(4)
    bits = np.dtype(dtype).itemsize * 8
    a = g.integers(0 if dtype == "uint8" else -50, 50, size=(4, 5)).astype(dtype)
    b = g.integers(0, bits, size=(5,)).astype(dtype)  # counts PyTorch 1.13 defines
    ta, tb = torch.tensor(a), torch.tensor(b)
    same(tcify(a) << tcify(b), ta << tb, exact=True)
    same(tcify(a) >> tcify(b), ta >> tb, exact=True)
    same(tc.bitwise_left_shift(tcify(a), tcify(b)), torch.bitwise_left_shift(ta, tb), exact=True)


def test_div_rounding_modes():
    a = torch.tensor([-7.5, 7.5, -3.0, 3.0, 1.0, -1.0, 0.0])
    b = torch.tensor([2.0, -2.0, 2.0, 2.0, 0.0, 0.0, 0.0])
    for mode in (None, "trunc", "floor"):
        same(tc.div(tc.tensor(a.tolist()), tc.tensor(b.tolist()), rounding_mode=mode),
             torch.div(a, b, rounding_mode=mode))
        same(tc.tensor(a.tolist()).div(2, rounding_mode=mode), a.div(2, rounding_mode=mode))
    ia, ib = torch.tensor([-7, 7, -8, 9]), torch.tensor([2, -2, 3, 4])
    for mode in ("trunc", "floor"):
        same(tc.tensor(ia.tolist()).div(tc.tensor(ib.tolist()), rounding_mode=mode),
             torch.div(ia, ib, rounding_mode=mode), exact=True)
        same(tc.tensor(ia.tolist()).div(2, rounding_mode=mode), torch.div(ia, 2, rounding_mode=mode), exact=True)
    same(tc.tensor(ia.tolist()).div(tc.tensor(ib.tolist())), ia.div(ib))  # true division: float32
    with pytest.raises(ValueError):
        tc.tensor([1.0]).div(2, rounding_mode="round")


def test_integer_division_by_zero_raises():
    for f in (lambda a, b: a // b, lambda a, b: a % b, tc.fmod, lambda a, b: a.div(b, rounding_mode="trunc")):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            f(tc.tensor([1, 2]), tc.tensor([1, 0]))
        with pytest.raises(ZeroDivisionError):
            f(tc.tensor([1, 2]), tc.tensor(0))
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.tensor([1]) // torch.tensor([0])  # what PyTorch raises


def test_operators_with_python_scalars():
    ti, tt = tc.tensor([-7, 3, 4, -4]), torch.tensor([-7, 3, 4, -4])
    tf, ft = tc.tensor([-7.5, 3.0, 4.25]), torch.tensor([-7.5, 3.0, 4.25])
    cases = [
        (lambda x: x % 3, True), (lambda x: x % 3.5, False), (lambda x: 2 % x, True), (lambda x: x // 2, True),
        (lambda x: 1 // x, True), (lambda x: x & 3, True), (lambda x: 3 & x, True), (lambda x: x | 8, True),
        (lambda x: 8 | x, True), (lambda x: x ^ 5, True), (lambda x: 5 ^ x, True), (lambda x: x << 2, True),
        (lambda x: 1 << (x & 7), True), (lambda x: x >> 1, True), (lambda x: 256 >> (x & 7), True),
        (lambda x: x == 3.0, True), (lambda x: x == 3, True), (lambda x: x < 3.5, True), (lambda x: x >= -4.0, True),
        (lambda x: x != 4.0, True), (lambda x: x > 0.5, True), (lambda x: x <= 3, True),
    ]
    for f, exact in cases:
        same(f(ti), f(tt), exact=exact)
    for f in (lambda x: x % 2.5, lambda x: 10.0 % x, lambda x: x // 2, lambda x: 7.0 // x, lambda x: x == 3.0,
              lambda x: x < 3.1, lambda x: x > 4.25):
        same(f(tf), f(ft))
    # bool tensors: & | ^ stay bool; comparisons with a float
    bt, bb = tc.tensor([True, False, True]), torch.tensor([True, False, True])
    same(bt & tc.tensor([True, True, False]), bb & torch.tensor([True, True, False]), exact=True)
    same(bt ^ True, bb ^ True, exact=True)
    same(bt == 1.0, bb == 1.0, exact=True)


def test_where_with_scalars():
    c = tc.tensor([True, False, True])
    cases = [(tc.tensor([1, 2, 3]), 0.0), (tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64), 0.0),
             (tc.tensor([1, 2, 3]), 5), (0.5, tc.tensor([1.0, 2.0, 3.0]))]
    for x, y in cases:
        tx = torch.tensor(x.tolist(), dtype=getattr(torch, x.dtype.name)) if isinstance(x, tc.Tensor) else x
        ty = torch.tensor(y.tolist(), dtype=getattr(torch, y.dtype.name)) if isinstance(y, tc.Tensor) else y
        same(tc.where(c, x, y), torch.where(torch.tensor([True, False, True]), tx, ty))


def test_inplace_forms():
    for op in ("__ifloordiv__", "__imod__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"):
        x, tx = tc.tensor([-7, 3, 12, 5]), torch.tensor([-7, 3, 12, 5])
        y = getattr(x, op)(3)
        getattr(tx, op)(3)
        assert y is x
        same(x, tx, exact=True)
    x = tc.tensor([1.5, -2.5])
    v = x._version if hasattr(x, "_version") else None
    x //= 2
    same(x, torch.tensor([0.0, -2.0]))
    if v is not None:
        assert x._version > v
    x = tc.tensor([5, 7])
    with pytest.raises(RuntimeError):
        x //= 2.5  # the float result does not fit int64 (torch raises too)
    with pytest.raises(RuntimeError):
        torch.tensor([5, 7]).__ifloordiv__(2.5)
    a = tc.tensor([1.0, 5.0, 9.0])
    a.clamp_(min=tc.tensor([2.0, 2.0, 2.0]), max=6.0)
    same(a, torch.tensor([2.0, 5.0, 6.0]))
    a.lerp_(tc.tensor([0.0, 0.0, 0.0]), 0.5)
    same(a, torch.tensor([1.0, 2.5, 3.0]))


def test_logical_and_bool_maximum():
    a = torch.tensor([1.5, 0.0, float("nan"), 0.0])
    b = torch.tensor([0, 0, 3, -2])
    for name in ("logical_and", "logical_or", "logical_xor"):
        same(getattr(tc, name)(tc.tensor(a.tolist()), tc.tensor(b.tolist())), getattr(torch, name)(a, b),
             exact=True)
    ba, bb = torch.tensor([True, True, False, False]), torch.tensor([True, False, True, False])
    for name in ("maximum", "minimum", "bitwise_and", "bitwise_or", "bitwise_xor"):
        same(getattr(tc, name)(tc.tensor(ba.tolist()), tc.tensor(bb.tolist())), getattr(torch, name)(ba, bb),
             exact=True)


def test_isclose_and_allclose():
    x = torch.tensor([1.0, 1.0, math.nan, math.nan, math.inf, math.inf, 1e-9, 100.0], dtype=torch.float64)
    y = torch.tensor([1.0 + 1e-6, 1.1, math.nan, 1.0, math.inf, -math.inf, 0.0, 100.001], dtype=torch.float64)
    tx, ty = tc.tensor(x.tolist(), dtype=tc.float64), tc.tensor(y.tolist(), dtype=tc.float64)
    for kw in ({}, dict(equal_nan=True), dict(rtol=1e-4, atol=0.0), dict(rtol=0.0, atol=0.0)):
        same(tc.isclose(tx, ty, **kw), torch.isclose(x, y, **kw), exact=True)
        same(tx.isclose(ty, **kw), x.isclose(y, **kw), exact=True)
    assert tc.allclose(tx[:1], ty[:1]) == torch.allclose(x[:1], y[:1]) is True
    assert tc.allclose(tx, ty) == torch.allclose(x, y) is False
    assert tc.allclose(tx[2:3], ty[2:3], equal_nan=True) == torch.allclose(x[2:3], y[2:3], equal_nan=True)
    with pytest.raises(tc.DTypeError):
        tc.isclose(tx, tc.tensor([1.0]))  # dtypes differ, as torch refuses
    with pytest.raises(ValueError):
        tc.isclose(tx, ty, rtol=-1.0)


def _grads(f_tc, f_torch, arrays):
    """Values and float64 gradients of f against torch.autograd, with the same upstream gradient."""
    ins = [tc.tensor(a.tolist(), dtype=tc.float64, requires_grad=True) for a in arrays]
    tins = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out, tout = f_tc(*ins), f_torch(*tins)
    same(out, tout)
    up = np.random.default_rng(9).standard_normal(tuple(tout.shape))
    out.backward(tc.tensor(up.tolist(), dtype=tc.float64))
    tout.backward(torch.tensor(up))
    for i, ti in zip(ins, tins):
        same(i.grad, ti.grad)


@pytest.mark.parametrize("name", ["atan2", "fmod", "remainder", "copysign", "hypot", "logaddexp", "logaddexp2"])
def test_gradients_against_torch(name):
    g = np.random.default_rng(5)
    a = g.uniform(-3, 3, size=(3, 4))
    b = g.uniform(0.5, 2, size=(4,)) * np.array([1, -1, 1, -1])
    _grads(getattr(tc, name), getattr(torch, name), [a, b])


def test_composed_gradients_against_torch():
    g = np.random.default_rng(6)
    a, b, w = g.standard_normal((2, 3)), g.standard_normal((3,)), g.uniform(-0.5, 1.5, size=(2, 1))
    _grads(tc.lerp, torch.lerp, [a, b, w])
    _grads(lambda x, y: tc.lerp(x, y, 0.7), lambda x, y: torch.lerp(x, y, 0.7), [a, b])
    t2 = g.uniform(0.5, 2, size=(2, 1))
    _grads(lambda x, y, z: tc.addcmul(x, y, z, value=-0.5), lambda x, y, z: torch.addcmul(x, y, z, value=-0.5),
           [a, b, t2])
    _grads(lambda x, y, z: tc.addcdiv(x, y, z, value=2), lambda x, y, z: torch.addcdiv(x, y, z, value=2), [a, b, t2])
    x4 = g.standard_normal((2, 3, 4))
    _grads(F.prelu, TF.prelu, [x4, g.uniform(-0.5, 0.5, size=(3,))])
    _grads(F.prelu, TF.prelu, [x4, np.array([0.25])])
    _grads(lambda x: F.glu(x, 1), lambda x: TF.glu(x, 1), [g.standard_normal((3, 4))])
    lo, hi = g.uniform(-1.5, -0.5, size=(3,)), g.uniform(0.5, 1.5, size=(2, 1))
    _grads(lambda x, y, z: tc.clamp(x, min=y, max=z), lambda x, y, z: torch.clamp(x, min=y, max=z), [a, lo, hi])
    _grads(lambda x, y: x.clamp(min=y), lambda x, y: x.clamp(min=y), [a, lo])
    _grads(lambda x, y: x.clamp(max=y), lambda x, y: x.clamp(max=y), [a, hi])


def test_clamp_tensor_bounds_dtypes_and_nan():
    x = torch.tensor([1, 5, 3])
    same(tc.clamp(tc.tensor([1, 5, 3]), min=tc.tensor([2.0, 2.0, 2.0])), torch.clamp(x, min=torch.tensor([2.0] * 3)))
    n = float("nan")
    a, lo = torch.tensor([n, 1.0, 1.0]), torch.tensor([0.0, n, 0.0])
    same(tc.clamp(tc.tensor(a.tolist()), min=tc.tensor(lo.tolist())), torch.clamp(a, min=lo))
    same(tc.clamp(tc.tensor(a.tolist()), max=tc.tensor(lo.tolist())), torch.clamp(a, max=lo))
    same(tc.tensor([1.0, 5.0]).clamp(min=2.0), torch.tensor([1.0, 5.0]).clamp(min=2.0))  # the scalar path stays


def test_prelu_glu_modules_and_errors():
    m = tc.nn.PReLU(3, init=0.1)
    tm = torch.nn.PReLU(3, init=0.1)
    assert [p.shape for p in m.parameters()] == [tuple(p.shape) for p in tm.parameters()]
    x = np.random.default_rng(7).standard_normal((2, 3, 5)).astype(np.float32)
    same(m(tcify(x)), tm(torch.tensor(x)))
    same(tc.nn.PReLU()(tcify(x)), torch.nn.PReLU()(torch.tensor(x)))
    y = m(tcify(x)).sum()
    y.backward()
    assert m.weight.grad is not None and tuple(m.weight.grad.shape) == (3,)
    same(tc.nn.GLU()(tcify(x[..., :4])), torch.nn.GLU()(torch.tensor(x[..., :4])))
    same(tc.nn.GLU(dim=1)(tcify(x[:, :2])), torch.nn.GLU(dim=1)(torch.tensor(x[:, :2])))
    with pytest.raises(tc.ShapeError):
        F.glu(tcify(x), -1)  # size 5 is odd
    with pytest.raises(tc.ShapeError):
        F.prelu(tcify(x), tc.tensor([0.1, 0.2]))  # 2 weights for 3 channels
    with pytest.raises(tc.DTypeError):
        F.prelu(tc.tensor([-1, 2]), tc.tensor([0.5]))


def test_errors_like_torch():
    with pytest.raises(tc.DTypeError):
        tc.tensor([1.0]) & tc.tensor([1.0])
    with pytest.raises(tc.DTypeError):
        tc.tensor([True]) << tc.tensor([True])
    with pytest.raises(tc.DTypeError):
        tc.hypot(tc.tensor([3]), tc.tensor([4]))
    with pytest.raises(tc.DTypeError):
        tc.addcdiv(tc.tensor([1]), tc.tensor([1]), tc.tensor([2]))
    same(tc.addcmul(tc.tensor([1]), tc.tensor([2]), tc.tensor([3]), value=2),
         torch.addcmul(torch.tensor([1]), torch.tensor([2]), torch.tensor([3]), value=2), exact=True)
    with pytest.raises(tc.ShapeError):
        tc.atan2(tc.tensor([[1.0, 2.0, 3.0]]), tc.tensor([1.0, 2.0]))


def test_docstrings():
    for f in (tc.div, tc.clamp, tc.isclose, tc.allclose, tc.lerp, tc.addcmul, tc.addcdiv, F.prelu, F.glu,
              tc.nn.PReLU, tc.nn.GLU, tc.atan2, tc.remainder, tc.bitwise_and, tc.logical_xor):
        assert f.__doc__ and f.__doc__.strip(), f
