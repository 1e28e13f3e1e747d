"""Parity of the shape, creation and matrix ops with PyTorch 1.13: values,
dtypes and shapes, gradients (against torch's), non-contiguous, 0-d and
empty inputs, einsum over many equations, and statistical checks of the
random ops (randint, randperm, bernoulli)."""
import math

import pytest

import tc
import tc.nn.functional as F
from conftest import need

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

pytestmark = pytest.mark.usefixtures("_need_ops")


@pytest.fixture
def _need_ops():
    need("tc_flip", "tc_einsum", "tc_pad", "tc_randint")


def pair(shape, dtype="float64", seed=0, noncontig=False):
    """(tc tensor, torch tensor) with the same values."""
    rng = np.random.default_rng(seed)
    if dtype.startswith("int"):
        a = rng.integers(-5, 6, size=shape).astype(dtype)
    elif dtype == "bool":
        a = rng.integers(0, 2, size=shape).astype(bool)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    t, r = tc.tensor(a.tolist() if a.ndim else a.item(), dtype=getattr(tc, dtype if dtype != "bool" else "bool")), \
        torch.tensor(a)
    if a.size == 0:
        t = t.reshape(shape)
    if noncontig and len(shape) >= 2:
        t, r = t.transpose(0, 1).contiguous().transpose(0, 1), r.transpose(0, 1).contiguous().transpose(0, 1)
        assert not t.is_contiguous() or 1 in shape[:2]
    return t, r


def check(out, ref, tol=1e-6):
    if isinstance(ref, (tuple, list)):
        assert len(out) == len(ref)
        for o, r in zip(out, ref):
            check(o, r, tol)
        return
    assert tuple(out.shape) == tuple(ref.shape), (out.shape, ref.shape)
    assert str(out.dtype).replace("tc.", "") == str(ref.dtype).replace("torch.", ""), (out.dtype, ref.dtype)
    got = np.array(out.tolist(), dtype=np.float64) if out.numel() else np.zeros(tuple(out.shape))
    want = ref.detach().double().numpy() if ref.numel() else np.zeros(tuple(ref.shape))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def grad_parity(f_tc, f_torch, shapes, seed=1, noncontig=False):
    """f's gradients for a random weight of the output, against torch's (float64)."""
    ins = [pair(s, seed=seed + i, noncontig=noncontig) for i, s in enumerate(shapes)]
    ts = [t.detach().requires_grad_(True) for t, _ in ins]
    rs = [r.detach().clone().requires_grad_(True) for _, r in ins]
    out, ref = f_tc(*ts), f_torch(*rs)
    check(out, ref, 1e-10)
    w = np.random.default_rng(99).standard_normal(tuple(ref.shape))
    (out * tc.tensor(w.tolist() if w.ndim else float(w), dtype=tc.float64).reshape(w.shape)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for t, r in zip(ts, rs):
        check(t.grad, r.grad, 1e-10)


SHAPE_CASES = [
    ("flip", lambda x: x.flip(0, 2), lambda x: x.flip(0, 2), (2, 3, 4)),
    ("flip_neg", lambda x: tc.flip(x, [-1]), lambda x: torch.flip(x, [-1]), (2, 3)),
    ("roll", lambda x: tc.roll(x, 2, 1), lambda x: torch.roll(x, 2, 1), (2, 5)),
    ("roll_multi", lambda x: x.roll((1, -7), (0, 1)), lambda x: x.roll((1, -7), (0, 1)), (3, 4)),
    ("roll_flat", lambda x: tc.roll(x, 4), lambda x: torch.roll(x, 4), (3, 4)),
    ("repeat", lambda x: x.repeat(2, 1, 3), lambda x: x.repeat(2, 1, 3), (2, 3)),
    ("repeat_zero", lambda x: x.repeat(0, 2), lambda x: x.repeat(0, 2), (2, 3)),
    ("tile", lambda x: tc.tile(x, (2,)), lambda x: torch.tile(x, (2,)), (2, 3)),
    ("tile_more", lambda x: x.tile(2, 1, 2), lambda x: x.tile(2, 1, 2), (2, 3)),
    ("repeat_interleave", lambda x: x.repeat_interleave(2, dim=1), lambda x: x.repeat_interleave(2, dim=1), (2, 3)),
    ("repeat_interleave_flat", lambda x: tc.repeat_interleave(x, 3), lambda x: torch.repeat_interleave(x, 3),
     (2, 2)),
    ("repeat_interleave_tensor",
     lambda x: x.repeat_interleave(tc.tensor([1, 0, 3]), dim=0),
     lambda x: x.repeat_interleave(torch.tensor([1, 0, 3]), dim=0), (3, 2)),
    ("diag_1d", lambda x: tc.diag(x), lambda x: torch.diag(x), (4,)),
    ("diag_1d_k", lambda x: tc.diag(x, 2), lambda x: torch.diag(x, 2), (3,)),
    ("diag_1d_negk", lambda x: tc.diag(x, -1), lambda x: torch.diag(x, -1), (3,)),
    ("diag_2d", lambda x: x.diag(1), lambda x: x.diag(1), (3, 4)),
    ("diag_2d_neg", lambda x: x.diag(-2), lambda x: x.diag(-2), (4, 3)),
    ("diagonal", lambda x: x.diagonal(), lambda x: x.diagonal(), (3, 4)),
    ("diagonal_dims", lambda x: tc.diagonal(x, -1, 2, 0), lambda x: torch.diagonal(x, -1, 2, 0), (3, 2, 4)),
    ("diagonal_far", lambda x: x.diagonal(7), lambda x: x.diagonal(7), (3, 4)),
    ("movedim", lambda x: tc.movedim(x, 0, -1), lambda x: torch.movedim(x, 0, -1), (2, 3, 4)),
    ("movedim_multi", lambda x: x.movedim((0, 1), (2, 0)), lambda x: x.movedim((0, 1), (2, 0)), (2, 3, 4)),
    ("flatten", lambda x: x.flatten(1), lambda x: x.flatten(1), (2, 3, 4)),
    ("flatten_mid", lambda x: tc.flatten(x, 0, 1), lambda x: torch.flatten(x, 0, 1), (2, 3, 4)),
    ("unflatten", lambda x: x.unflatten(1, (2, -1)), lambda x: x.unflatten(1, (2, -1)), (2, 6)),
    ("broadcast_to", lambda x: tc.broadcast_to(x, (4, 2, 3)), lambda x: torch.broadcast_to(x, (4, 2, 3)), (2, 1)),
    ("unbind", lambda x: x.unbind(1), lambda x: x.unbind(1), (2, 3)),
    ("outer", lambda x: tc.outer(x, x * 2), lambda x: torch.outer(x, x * 2), (3,)),
    ("dot", lambda x: tc.dot(x, x.flip(0)), lambda x: torch.dot(x, x.flip(0)), (5,)),
]


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda c: c[0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_shape_values(case, dtype):
    name, f, g, shape = case
    t, r = pair(shape, dtype)
    check(f(t), g(r))


@pytest.mark.parametrize("case", SHAPE_CASES, ids=lambda c: c[0])
def test_shape_grads(case):
    name, f, g, shape = case
    if name == "unbind":
        f0, g0 = f, g
        f, g = (lambda x: tc.stack(list(f0(x)))), (lambda x: torch.stack(list(g0(x))))
    grad_parity(f, g, [shape], noncontig=len(shape) >= 2)


@pytest.mark.parametrize("case", [c for c in SHAPE_CASES if len(c[3]) >= 2], ids=lambda c: c[0])
def test_shape_noncontiguous(case):
    name, f, g, shape = case
    t, r = pair(shape, "float32", noncontig=True)
    check(f(t), g(r))


def test_bool_inputs():
    t, r = pair((3, 4), "bool")
    for f in (lambda x: x.flip(1), lambda x: x.roll(1, 0), lambda x: x.repeat(2, 1), lambda x: x.diagonal(),
              lambda x: x.repeat_interleave(2, dim=0), lambda x: x.movedim(0, 1)):
        check(f(t), f(r))


def test_zero_dim_and_empty():
    s_t, s_r = tc.tensor(3.5), torch.tensor(3.5)
    check(s_t.flip(0), s_r.flip(0))
    check(s_t.flatten(), s_r.flatten())
    check(s_t.repeat(2, 3), s_r.repeat(2, 3))
    check(tc.tile(s_t, (2,)), torch.tile(s_r, (2,)))
    check(tc.repeat_interleave(s_t, 3), torch.repeat_interleave(s_r, 3))
    check(tc.roll(s_t, 1), torch.roll(s_r, 1))
    check(tc.broadcast_to(s_t, (2, 2)), torch.broadcast_to(s_r, (2, 2)))
    e_t, e_r = tc.zeros(0, 3), torch.zeros(0, 3)
    check(e_t.flip(0, 1), e_r.flip(0, 1))
    check(e_t.roll(2, 1), e_r.roll(2, 1))
    check(e_t.repeat(2, 2), e_r.repeat(2, 2))
    check(e_t.diagonal(), e_r.diagonal())
    check(tc.diag(tc.zeros(0)), torch.diag(torch.zeros(0)))
    check(e_t.flatten(), e_r.flatten())
    assert e_t.unbind(0) == () and len(e_r.unbind(0)) == 0
    check(F.pad(e_t, (1, 1)), torch.nn.functional.pad(e_r, (1, 1)))
    check(tc.einsum("ij->j", e_t), torch.einsum("ij->j", e_r))
    check(tc.einsum("ij,jk->ik", tc.zeros(2, 0), tc.zeros(0, 3)),
          torch.einsum("ij,jk->ik", torch.zeros(2, 0), torch.zeros(0, 3)))


def test_views_share_storage():
    x = tc.arange(12.0).reshape(3, 4)
    d = x.diagonal()
    x.add_(tc.ones(3, 4))
    assert d.tolist() == [1.0, 6.0, 11.0]
    assert tc.broadcast_to(x, (2, 3, 4)).data_ptr() == x.data_ptr()


# ---------------------------------------------------------------- creation

@pytest.mark.parametrize("args", [(3,), (2, 4), (4, 2), (0,), (3, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_eye(args, dtype):
    check(tc.eye(*args, dtype=getattr(tc, dtype)), torch.eye(*args, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("args", [(0, 1, 5), (-3.5, 7.25, 11), (2, 2, 1), (1, 0, 0), (10, -10, 7), (0, 1e6, 50)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_linspace_logspace(args, dtype):
    if dtype.startswith("int") and args[2] > 1 and (int(args[1]) - int(args[0])) / (args[2] - 1) % 1:
        pytest.skip("torch 1.13's vectorized integer linspace truncates a fractional step in some lanes")
    tol = 1e-5 if dtype == "float32" else 1e-12
    check(tc.linspace(*args, dtype=getattr(tc, dtype)), torch.linspace(*args, dtype=getattr(torch, dtype)), tol)
    if abs(args[0]) < 10 and abs(args[1]) < 10 and not dtype.startswith("int"):
        for base in (10.0, 2.0, 0.5):
            want = torch.logspace(*args, base=base, dtype=getattr(torch, dtype))
            got = tc.logspace(*args, base=base, dtype=getattr(tc, dtype))
            assert tuple(got.shape) == tuple(want.shape)
            np.testing.assert_allclose(np.array(got.tolist()), want.double().numpy(), rtol=1e-5 if tol > 1e-6 else 1e-12)


def test_linspace_integer_exact_steps():
    check(tc.linspace(0, 10, 6, dtype=tc.int64), torch.linspace(0, 10, 6, dtype=torch.int64))
    check(tc.linspace(-4, 8, 4, dtype=tc.int32), torch.linspace(-4, 8, 4, dtype=torch.int32))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing):
    a, ra = pair((3,), seed=1)
    b, rb = pair((4,), seed=2)
    c, rc = pair((), seed=3)
    check(tc.meshgrid(a, b, c, indexing=indexing), torch.meshgrid(ra, rb, rc, indexing=indexing))
    check(tc.meshgrid([a], indexing=indexing), torch.meshgrid([ra], indexing=indexing))
    grad_parity(lambda x, y: tc.stack(list(tc.meshgrid(x, y, indexing=indexing))),
                lambda x, y: torch.stack(list(torch.meshgrid(x, y, indexing=indexing))), [(3,), (2,)])


# ---------------------------------------------------------------- pad

PAD_CASES = [
    ("constant", (1, 2), (2, 3)),
    ("constant", (1, 2, 0, 1, 2, 0), (2, 3, 2)),
    ("constant", (-1, 2, 1, -1), (3, 4)),
    ("constant", (-2, -1), (2, 4)),
    ("reflect", (2, 1), (2, 3, 4)),
    ("reflect", (1, 1, 2, 0), (1, 3, 4)),
    ("replicate", (3, 1), (2, 2, 3)),
    ("replicate", (1, 2, 2, 1), (1, 2, 3, 3)),
    ("circular", (2, 3), (1, 2, 4)),
    ("circular", (1, 1, 2, 1), (1, 1, 3, 3)),
]


@pytest.mark.parametrize("mode,p,shape", PAD_CASES)
def test_pad(mode, p, shape):
    t, r = pair(shape)
    kw = {"value": 2.5} if mode == "constant" else {}
    check(F.pad(t, p, mode=mode, **kw), torch.nn.functional.pad(r, p, mode=mode, **kw))
    grad_parity(lambda x: F.pad(x, p, mode=mode, **kw), lambda x: torch.nn.functional.pad(x, p, mode=mode, **kw),
                [shape], noncontig=True)


def test_pad_integer_and_errors():
    t, r = pair((2, 3), "int64")
    check(F.pad(t, (1, 1), value=7), torch.nn.functional.pad(r, (1, 1), value=7))
    with pytest.raises(tc.TcError, match="divisible by 2"):
        F.pad(t, (1,))
    with pytest.raises(tc.TcError, match="padding size should be less"):
        F.pad(tc.zeros(1, 2, 3), (3, 0), mode="reflect")
    with pytest.raises(tc.TcError, match="value"):
        F.pad(tc.zeros(1, 2, 3), (1, 0), mode="reflect", value=1.0)


# ---------------------------------------------------------------- einsum

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ba", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("ijij->ij", [(2, 3, 2, 3)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 2, 4)]),
    ("...->...", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("ij...,jk...->ik...", [(2, 3, 4), (3, 5, 4)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ij,jk,kl,lm->im", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("ab,ab,ab->a", [(3, 4), (3, 4), (3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("i,i,i->i", [(4,), (4,), (4,)]),
    ("ijk,ikj->i", [(2, 3, 4), (2, 4, 3)]),
    ("ij,kl->ijkl", [(2, 3), (4, 2)]),
    ("Ab,bA->", [(3, 4), (4, 3)]),
    ("aB,Bc->ca", [(2, 3), (3, 4)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,j->i", [(3, 1), (4,)]),
    ("abi,abi->ab", [(0, 2, 3), (0, 2, 3)]),
    ("i,->i", [(3,), ()]),
    (",->", [(), ()]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum(eq, shapes):
    ins = [pair(s, seed=i) for i, s in enumerate(shapes)]
    check(tc.einsum(eq, *[t for t, _ in ins]), torch.einsum(eq, *[r for _, r in ins]), 1e-10)
    if all(math.prod(s) > 0 for s in shapes):
        grad_parity(lambda *xs: tc.einsum(eq, *xs), lambda *xs: torch.einsum(eq, *xs), shapes)


@pytest.mark.parametrize("dtype", ["float32", "int64", "int32"])
def test_einsum_dtypes(dtype):
    a, ra = pair((2, 3), dtype, seed=1)
    b, rb = pair((3, 4), dtype, seed=2)
    check(tc.einsum("ij,jk->ik", a, b), torch.einsum("ij,jk->ik", ra, rb), 1e-5)
    check(tc.einsum("ij,jk", [a, b]), torch.einsum("ij,jk", [ra, rb]), 1e-5)
    check(tc.einsum("ij->j", a), torch.einsum("ij->j", ra), 1e-5)


def test_einsum_noncontiguous():
    a, ra = pair((3, 4), noncontig=True)
    b, rb = pair((4, 3), seed=2, noncontig=True)
    check(tc.einsum("ij,jk->ki", a, b), torch.einsum("ij,jk->ki", ra, rb), 1e-10)


@pytest.mark.parametrize("eq,shapes,msg", [
    ("ij,jk->ik", [(2, 3)], "operands"),
    ("ij->ik", [(2, 3)], "does not appear"),
    ("ij->ii", [(2, 3)], "more than once"),
    ("ijk", [(2, 3)], "number of subscripts"),
    ("ij,jk", [(2, 3), (4, 5)], "broadcast"),
    ("i.j", [(2, 3)], "ellipsis"),
    ("......", [(2, 3)], "more than one ellipsis"),
    ("i1", [(2, 3)], "invalid subscript"),
    ("ij-ji", [(2, 3)], "invalid"),
    ("ii", [(2, 3)], "repeated"),
])
def test_einsum_errors(eq, shapes, msg):
    ts = [pair(s)[0] for s in shapes]
    with pytest.raises(tc.TcError, match=msg):
        tc.einsum(eq, *ts)


# ---------------------------------------------------------------- random

def test_randint_bounds_uniform_and_seeded():
    tc.manual_seed(7)
    a = tc.randint(-3, 5, (40000,))
    tc.manual_seed(7)
    b = tc.randint(-3, 5, (40000,))
    assert a.tolist() == b.tolist() and a.dtype == tc.int64
    v = np.array(a.tolist())
    assert v.min() >= -3 and v.max() <= 4
    counts = np.bincount(v + 3, minlength=8)
    expected = len(v) / 8
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 24.3, chi2  # chi-square, 7 degrees of freedom, p = 0.001
    c = tc.randint(10, (3, 4), dtype=tc.int32)
    assert tuple(c.shape) == (3, 4) and c.dtype == tc.int32
    assert tc.randint(0, 2, (0,)).numel() == 0
    big = np.array(tc.randint(-2**62, 2**62, (1000,)).tolist())
    assert (big >= -2**62).all() and (big < 2**62).all() and len(set(big.tolist())) == 1000
    with pytest.raises(tc.TcError, match="low < high"):
        tc.randint(3, 3, (2,))
    with pytest.raises(tc.TcError, match="out of bounds"):
        tc.randint(0, 300, (2,), dtype=tc.uint8)


def test_randperm():
    tc.manual_seed(3)
    p = tc.randperm(1000)
    assert sorted(p.tolist()) == list(range(1000)) and p.dtype == tc.int64
    assert p.tolist() != list(range(1000))
    tc.manual_seed(3)
    assert tc.randperm(1000).tolist() == p.tolist()
    assert tc.randperm(0).numel() == 0 and tc.randperm(1).tolist() == [0]
    assert tc.randperm(5, dtype=tc.float32).dtype == tc.float32
    # Each of the 6 orders of 3 elements about equally often.
    counts = {}
    for _ in range(3000):
        k = tuple(tc.randperm(3).tolist())
        counts[k] = counts.get(k, 0) + 1
    assert len(counts) == 6
    chi2 = sum((c - 500) ** 2 / 500 for c in counts.values())
    assert chi2 < 20.5, chi2  # 5 degrees of freedom, p = 0.001


def test_bernoulli():
    tc.manual_seed(11)
    probs = tc.tensor([0.0, 0.2, 0.5, 0.9, 1.0], dtype=tc.float64).expand(20000, 5)
    s = tc.bernoulli(probs)
    assert s.dtype == tc.float64 and tuple(s.shape) == (20000, 5)
    m = np.array(s.mean(0).tolist())
    assert m[0] == 0 and m[4] == 1
    for got, p in zip(m[1:4], (0.2, 0.5, 0.9)):
        assert abs(got - p) < 5 * math.sqrt(p * (1 - p) / 20000)
    x = tc.zeros(50000, dtype=tc.float32)
    q = np.array(x.bernoulli(0.3).tolist())
    assert set(q.tolist()) <= {0.0, 1.0} and abs(q.mean() - 0.3) < 5 * math.sqrt(0.21 / 50000)
    assert tc.bernoulli(tc.zeros(3, dtype=tc.int64), 1.0).tolist() == [1, 1, 1]
    with pytest.raises(tc.TcError, match=r"\[0, 1\]"):
        tc.bernoulli(tc.tensor([0.5, 1.5]))
    with pytest.raises(tc.TcError):
        tc.bernoulli(tc.zeros(2), 2.0)


def test_docstrings_and_methods():
    for name in ("flip", "roll", "tile", "repeat_interleave", "diag", "diagonal", "eye", "linspace", "logspace",
                 "meshgrid", "movedim", "flatten", "unflatten", "broadcast_to", "unbind", "randint", "randperm",
                 "bernoulli", "outer", "dot", "einsum"):
        assert getattr(tc, name).__doc__, name
    assert F.pad.__doc__
    for name in ("flip", "roll", "repeat", "tile", "repeat_interleave", "diag", "diagonal", "movedim", "flatten",
                 "unflatten", "broadcast_to", "unbind", "outer", "dot", "bernoulli"):
        assert getattr(tc.Tensor, name).__doc__, name


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pads", [(-2, 3), (3, -2), (-1, -1), (-4, 2), (2, 0, -1, 1)])
def test_pad_with_negative_amounts_matches_torch(mode, pads):
    # circular crops first and wraps around what is left (PyTorch's order);
    # reflect and replicate index the uncropped input
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    shape = (1, 2, 6) if len(pads) == 2 else (1, 2, 4, 6)  # torch's non-constant modes pad the spatial dims
    x = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    want = torch.nn.functional.pad(torch.tensor(x), pads, mode=mode)
    t = tc.tensor(x, requires_grad=True)
    got = tc.nn.functional.pad(t, pads, mode=mode)
    np.testing.assert_array_equal(got.detach().numpy(), want.numpy())
    tx = torch.tensor(x, requires_grad=True)
    g = np.random.default_rng(0).standard_normal(tuple(want.shape))
    torch.nn.functional.pad(tx, pads, mode=mode).backward(torch.tensor(g))
    got.backward(tc.tensor(g))
    np.testing.assert_allclose(t.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
