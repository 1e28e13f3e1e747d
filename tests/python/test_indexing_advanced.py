"""Tensor.__getitem__/__setitem__ with advanced indices (integer tensors,
lists, bool masks, Python bools) mixed with basic ones, against PyTorch 1.13:
shapes, values and dtypes of gets and sets, gradients through both, and the
errors PyTorch raises for bad indices."""
import pytest

import tc
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not hasattr(tc._lib.lib, "tc_index"), reason="libtc lacks tc_index")


def both(shape, dtype="float64", seed=0):
    """The same random values as a tc and a torch tensor."""
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape) if dtype.startswith("float") else r.integers(-5, 5, shape)
    a = a.astype(dtype)
    return tc.tensor(a), torch.tensor(a)


def key_pair(spec):
    """spec -> (tc key, torch key): ("I", data) an int64 tensor, ("I32", data)
    int32 (int64 for torch 1.13, which refuses int32 indices), ("B", data) a bool tensor, other entries as they are (ints,
    slices, None, Ellipsis, Python lists and bools)."""
    def one(k):
        if isinstance(k, tuple) and k and k[0] in ("I", "I32", "B"):
            dt = {"I": (tc.int64, torch.int64), "I32": (tc.int32, torch.int64), "B": (tc.bool, torch.bool)}[k[0]]
            return tc.tensor(k[1], dtype=dt[0]), torch.tensor(k[1], dtype=dt[1])
        return k, k
    if not isinstance(spec, tuple) or (spec and spec[0] in ("I", "I32", "B")):
        a, b = one(spec)
        return a, b
    pairs = [one(k) for k in spec]
    return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist()).reshape(tuple(t.shape))


def same(a, b):
    assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
    assert a.dtype.name == str(b.dtype).replace("torch.", ""), (a.dtype, b.dtype)
    np.testing.assert_allclose(to_np(a).astype(np.float64), to_np(b).astype(np.float64), rtol=1e-12, atol=0)


M3 = [[True, False, True], [False, False, True]]
GET_CASES = [
    ((5,), ("I", [0, 4, -1, 2, 2])),
    ((5,), [1, 3]),
    ((5,), ("I", [[0, 1], [4, -5]])),
    ((5,), ("B", [True, False, True, True, False])),
    ((5,), [True, False, True, True, False]),
    ((5,), ("I", [])),
    ((3, 4), ("I", [2, 0])),
    ((3, 4), (slice(None), [0, 2])),
    ((3, 4), (slice(None), ("I32", [3, -1]))),
    ((3, 4), ([0, 2], [1, 3])),
    ((3, 4), (("I", [[0], [2]]), ("I", [1, 3]))),
    ((3, 4), (1, [0, 3])),
    ((3, 4), ([0, 2], 1)),
    ((3, 4), (slice(1, None), [0, 0, 1])),
    ((3, 4), (Ellipsis, [1])),
    ((3, 4), (None, [0, 1])),
    ((3, 4), ("B", [True, False, True]),),
    ((3, 4), ("B", [[True, False, True, False]] * 3)),
    ((3, 4), (slice(None), ("B", [True, False, True, False]))),
    ((3, 4), True),
    ((3, 4), False),
    ((3, 4), (True, slice(None), [0])),
    ((2, 3, 4), (slice(None), [0, 2], [1, 3])),
    ((2, 3, 4), ([0, 1], slice(None), [1, 3])),
    ((2, 3, 4), ([1], slice(None), ("I", [[1], [3]]))),
    ((2, 3, 4), (0, slice(None), [1, 2])),
    ((2, 3, 4), ([0, 1], 0, [1, 2])),
    ((2, 3, 4), (Ellipsis, [0, 3], None)),
    ((2, 3, 4), (("B", M3), slice(None))),
    ((2, 3, 4), (slice(None), ("B", [[True, False, True, False]] * 3))),
    ((2, 3, 4), ([1, 0], ("B", [True, False, True]))),
    ((2, 3, 4), (slice(None, None, 2), [2], slice(1, 3))),
    ((2, 3, 4), (("I", [[0, 1], [1, 0]]), ("I", [[0], [2]]), slice(None))),
    ((2, 0, 3), (slice(None), ("I", []))),
    ((2, 0, 3), ([1, 0],)),
    ((4, 5), (("I", 2),)),
]


@pytest.mark.parametrize("shape,spec", GET_CASES, ids=[str(c) for c in range(len(GET_CASES))])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
def test_getitem_matches_torch(shape, spec, dtype):
    a, ta = both(shape, dtype)
    k, tk = key_pair(spec)
    same(a[k], ta[tk])


def test_getitem_non_contiguous():
    a, ta = both((4, 6))
    a, ta = a.t(), ta.t()  # [6, 4], strided
    same(a[[5, 0, 2], 1:], ta[[5, 0, 2], 1:])
    same(a[:, [3, 0]], ta[:, [3, 0]])
    b, tb = both((3, 1))
    e, te = b.expand(3, 5), tb.expand(3, 5)  # stride 0
    same(e[[2, 0], [4, 1]], te[[2, 0], [4, 1]])


def test_getitem_bool_tensor():
    a = tc.tensor([[True, False], [False, True]])
    ta = torch.tensor([[True, False], [False, True]])
    same(a[[1, 0]], ta[[1, 0]])
    same(a[a], ta[ta])


def test_getitem_zero_dim():
    a, ta = both(())
    same(a[None], ta[None])
    same(a[True], ta[True])
    same(a[False], ta[False])
    same(a[tc.tensor(True)], ta[torch.tensor(True)])


SET_CASES = [
    ((5,), ("I", [0, 4, -1]), 7.0),
    ((5,), ("B", [True, False, True, True, False]), -1.0),
    ((3, 4), (slice(None), [0, 2]), 5.0),
    ((3, 4), (slice(None), [0, 2]), "col"),
    ((3, 4), ([0, 2], [1, 3]), "vec2"),
    ((3, 4), ("B", [[True, False, True, False]] * 3), 0.0),
    ((3, 4), ("B", [True, False, True]), "row"),
    ((3, 4), (1, [0, 3]), "vec2"),
    ((3, 4), (slice(1, None), [0, 1]), "lead1"),
    ((2, 3, 4), (slice(None), [0, 2], [1, 3]), "vec2"),
    ((2, 3, 4), ([0, 1], slice(None), [1, 3]), 3.0),
    ((2, 3, 4), (Ellipsis, [3]), "col3"),
    ((2, 3, 4), (("B", M3),), "row"),
]


def value_pair(v, dtype):
    if not isinstance(v, str):
        return v, v
    shapes = {"col": (3, 2), "vec2": (2,), "row": (4,), "lead1": (1, 2, 2), "col3": (2, 3, 1)}
    return both(shapes[v], dtype, seed=7)


@pytest.mark.parametrize("shape,spec,value", SET_CASES, ids=[str(c) for c in range(len(SET_CASES))])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_setitem_matches_torch(shape, spec, value, dtype):
    a, ta = both(shape, dtype)
    k, tk = key_pair(spec)
    v, tv = value_pair(value, dtype)
    a[k] = v
    ta[tk] = tv
    same(a, ta)


def test_setitem_on_view_writes_base():
    a, ta = both((3, 4))
    v = a[1:]
    tv = ta[1:]
    v[[0, 1], [3, 0]] = 9.0
    tv[[0, 1], [3, 0]] = 9.0
    same(a, ta)


def test_setitem_value_dtype_must_match_like_torch():
    a, ta = both((3, 4))
    with pytest.raises(RuntimeError):
        ta[:, [1]] = torch.tensor([[1], [2], [3]])
    with pytest.raises(Exception, match="dtypes match"):
        a[:, [1]] = tc.tensor([[1], [2], [3]])  # int64 values into float64
    a[:, [1]] = [[1], [2], [3]]  # a list takes a's dtype, as in torch
    ta[:, [1]] = torch.tensor([[1], [2], [3]], dtype=torch.float64)
    same(a, ta)


def test_setitem_duplicates_last_writer():
    a, ta = both((4,))
    a[[1, 1, 1]] = tc.tensor([1.0, 2.0, 3.0], dtype=tc.float64)
    ta[[1, 1, 1]] = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    same(a, ta)


def test_iadd_through_index():
    a, ta = both((3, 4))
    a[:, [0, 2]] += 1
    ta[:, [0, 2]] += 1
    same(a, ta)
    # Repeated indices: get -> add -> set, so each position gets 1 once.
    a[[0, 0], [1, 1]] += 1
    ta[[0, 0], [1, 1]] += 1
    same(a, ta)


def test_index_put_accumulate_matches_torch():
    a, ta = both((3, 4))
    i, ti = key_pair(("I", [0, 2, 0, 0]))
    v, tv = both((4, 4), seed=3)
    same(a.index_put([i], v, accumulate=True), ta.index_put((ti,), tv, accumulate=True))
    a.index_put_([i, None], v, accumulate=True)
    ta.index_put_((ti,), tv, accumulate=True)
    same(a, ta)


def test_get_gradient_matches_torch():
    for spec in [(slice(None), [0, 2, 2]), ([0, 2, 0], [1, 3, 1]), (("B", [True, False, True]),),
                 (Ellipsis, ("I", [[1, 1], [0, 3]]))]:
        a, ta = both((3, 4))
        a.requires_grad = True
        ta.requires_grad_(True)
        k, tk = key_pair(spec)
        r, tr = a[k], ta[tk]
        g, tg = both(tuple(tr.shape), seed=5)
        r.backward(g)
        tr.backward(tg)
        same(a.grad, ta.grad)


@pytest.mark.parametrize("accumulate", [False, True])
def test_set_gradient_matches_torch(accumulate):
    a, ta = both((3, 4))
    v, tv = both((2,), seed=2)
    for x in (a, ta, v, tv):
        x.requires_grad_(True)
    x, tx = a * 2, ta * 2
    idx, tidx = key_pair(("I", [0, 2]))
    x.index_put_([idx, tc.tensor([1, 1])], v, accumulate=accumulate)
    tx.index_put_((tidx, torch.tensor([1, 1])), tv, accumulate=accumulate)
    same(x, tx)
    assert x.grad_fn is not None
    g, tg = both((3, 4), seed=4)
    (x * g).sum().backward()
    (tx * tg).sum().backward()
    same(a.grad, ta.grad)
    same(v.grad, tv.grad)


def test_setitem_gradient_with_clone():
    a, ta = both((3, 4))
    v, tv = both((3, 1), seed=2)
    for x in (a, ta, v, tv):
        x.requires_grad_(True)
    x, tx = a.clone(), ta.clone()
    x[:, [1, 3]] = v
    tx[:, [1, 3]] = tv
    x[x > 0.5] = 0.0
    tx[tx > 0.5] = 0.0
    x.sum().backward()
    tx.sum().backward()
    same(a.grad, ta.grad)
    same(v.grad, tv.grad)


def test_index_put_functional_gradient():
    a, ta = both((3, 4))
    v, tv = both((3, 2), seed=2)
    for x in (a, ta, v, tv):
        x.requires_grad_(True)
    idx = [None, tc.tensor([3, 3])]
    r = a.index_put(idx, v, accumulate=False)
    tr = ta.index_put((torch.arange(3)[:, None], torch.tensor([3, 3])), tv)  # torch's form of [:, [3, 3]]
    same(r, tr)
    g, tg = both((3, 4), seed=9)
    r.backward(g)
    tr.backward(tg)
    same(a.grad, ta.grad)
    same(v.grad, tv.grad)


@pytest.mark.parametrize("spec,match", [
    (("I", [3]), "index 3 is out of bounds for dimension 0 with size 3"),
    ((slice(None), ("I", [-5])), "index -5 is out of bounds for dimension 1 with size 4"),
    (([0, 1], [0, 1, 2]), "shape mismatch"),
    (("B", [True, False]), "does not match the shape of the indexed tensor"),
    ((0, 0, [0]), "too many indices"),
])
def test_errors_like_torch(spec, match):
    a, ta = both((3, 4))
    k, tk = key_pair(spec)
    with pytest.raises(Exception):
        ta[tk]
    with pytest.raises(Exception, match=match):
        a[k]
    with pytest.raises(Exception):
        a[k] = 1.0


def test_float_index_rejected():
    a, _ = both((3,))
    with pytest.raises(IndexError):
        a[tc.tensor([0.0])]


def test_index_put_refuses_leaf_and_shared_memory():
    a, _ = both((3, 4))
    a.requires_grad = True
    with pytest.raises(Exception, match="leaf"):
        a[[0]] = 1.0
    y = a.exp()  # exp saves its output: y's memory is shared with the graph
    with pytest.raises(Exception, match="shares its memory"):
        y[[0]] = 1.0
    with tc.no_grad():
        b = a.detach().clone()
        b[[0]] = 1.0
        assert b[0].tolist() == [1.0] * 4


def test_version_counter_bumps():
    need("tc_index_put_")
    a, _ = both((3,))
    v0 = a._version
    a[[0]] = 1.0
    assert a._version > v0


def test_int64_index_exact():
    a = tc.tensor([2**62 + 1, 5], dtype=tc.int64)
    assert a[[0]].tolist() == [2**62 + 1]


def test_setitem_values_sharing_memory():
    a, ta = both((2, 3))
    a[[1, 0]] = a  # the values are read before any is written
    ta[[1, 0]] = ta.clone()
    same(a, ta)
