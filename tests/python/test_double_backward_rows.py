"""Second derivatives of every differentiable elementwise row of ops/ops.toml
(float64): tc.autograd.grad with create_graph=True, differentiated again,
against PyTorch 1.13's double backward and against central differences of
tc's own first derivative.

For y = f(x) with upstream gradient v and a second direction w, the first
pass gives gx = J(x)^T v; the second differentiates s = sum(w * gx) with
respect to x (a Hessian-vector product) and to v (J w). Rows whose double
backward is deliberately not implemented are listed in NOT_TWICE with the
reason, and checked to raise instead."""
import pytest

import tc
from conftest import need
from op_rows_generated import BINARY as BINARY_ROWS
from op_rows_generated import UNARY as UNARY_ROWS
from op_rows_generated import sample

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")

R = np.random.default_rng(7)
TOL = dict(rtol=1e-6, atol=1e-8)

# Rows whose second derivative libtc does not compute, and why. Each raises
# NotImplementedError naming its node when differentiated twice.
NOT_TWICE = {
    # The gradient with respect to a is not implemented even at first order
    # (PyTorch has none either); b's is differentiated twice below.
}

def torch_fn(path):
    f = torch
    for part in path.split("."):
        f = getattr(f, part)
    return f


def to_np(t):
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def tc_second(f, xs, v, w, wrt_v=True):
    """(d s / d xs..., d s / d v) for s = sum(w * grad(f(xs), xs[0], v))."""
    ts = [tc.tensor(a, requires_grad=True) for a in xs]
    tv = tc.tensor(v, requires_grad=wrt_v)
    y = f(*ts)
    gx = tc.autograd.grad(y, ts, tv, create_graph=True)
    s = sum((g * tc.tensor(w)).sum() for g in gx)
    wrt = ts + ([tv] if wrt_v else [])
    return [None if g is None else to_np(g) for g in tc.autograd.grad(s, wrt, allow_unused=True)]


def torch_second(f, xs, v, w):
    ts = [torch.tensor(a, requires_grad=True) for a in xs]
    tv = torch.tensor(v, requires_grad=True)
    y = f(*ts)
    gx = torch.autograd.grad(y, ts, tv, create_graph=True)
    s = sum((g * torch.tensor(w)).sum() for g in gx)
    return [None if g is None else g.detach().numpy() for g in torch.autograd.grad(s, ts + [tv], allow_unused=True)]


def fd_second(f, xs, v, w, eps=1e-6):
    """Central differences of x -> sum(w * J(x)^T v) (tc's first derivative)
    along a random direction u, for each input: returns [(u, estimate)]."""
    out = []
    for i in range(len(xs)):
        u = R.standard_normal(xs[i].shape)

        def s_at(xi):
            args = [tc.tensor(a, requires_grad=True) for a in xs]
            args[i] = tc.tensor(xi, requires_grad=True)
            gx = tc.autograd.grad(f(*args), args, tc.tensor(v))
            return sum(float((g * tc.tensor(w)).sum().item()) for g in gx)

        out.append((u, (s_at(xs[i] + eps * u) - s_at(xs[i] - eps * u)) / (2 * eps)))
    return out


def check_row(f_tc, f_th, xs, name):
    y = f_th(*[torch.tensor(a) for a in xs])
    v = R.standard_normal(tuple(y.shape))
    w = R.standard_normal(xs[0].shape)
    got = tc_second(f_tc, xs, v, w)
    for (u, est), g in zip(fd_second(f_tc, xs, v, w), got):
        g = np.zeros(u.shape) if g is None else g  # None: the first derivative does not depend on it
        np.testing.assert_allclose(float((g * u).sum()), est, rtol=1e-4, atol=1e-5, err_msg=name)
    try:
        want = torch_second(f_th, xs, v, w)
    except (RuntimeError, NotImplementedError):
        return  # PyTorch 1.13 cannot differentiate this row twice: finite differences only
    shapes = [a.shape for a in xs] + [v.shape]
    for g, h, shape in zip(got, want, shapes):
        # None: the first derivative does not depend on it (a zero second derivative)
        g = np.zeros(shape) if g is None else g
        h = np.zeros(shape) if h is None else h
        np.testing.assert_allclose(g, h, err_msg=name, **TOL)


UNARY_TWICE = [r for r in UNARY_ROWS if r[3] and r[6] is not None and r[0] not in NOT_TWICE]


@pytest.mark.parametrize("row", UNARY_TWICE, ids=[r[0] for r in UNARY_TWICE])
def test_unary_row_twice(row):
    name, _, domain, _, _, _, path = row
    need("tc_" + name, "tc_autograd_grad")
    th = torch_fn(path)
    x = sample(domain, (3, 4), R)
    if name in ("abs", "relu", "relu6", "hardtanh", "hardsigmoid", "hardswish", "leaky_relu", "elu", "celu",
                "selu", "sign", "floor", "ceil", "round", "trunc", "frac"):
        x = x + np.sign(x) * 0.05  # away from the kinks, where finite differences straddle them
    check_row(lambda a: getattr(tc, name)(a), th, [x], name)


BINARY_TWICE = [r for r in BINARY_ROWS if r[1] == "binary" and r[4] and r[5] is not None
                and r[0] not in NOT_TWICE]
# Only b has a gradient (a's is not implemented at first order, as in PyTorch).
ONLY_B = {"igamma", "igammac"}
# No gradient for either input at first order (PyTorch's not_implemented).
NEITHER = {"nextafter"}


@pytest.mark.parametrize("row", BINARY_TWICE, ids=[r[0] for r in BINARY_TWICE])
def test_binary_row_twice(row):
    name, _, _, (dom_a, dom_b), _, path = row
    need("tc_" + name, "tc_autograd_grad")
    if name in NEITHER:
        pytest.skip("%s has no gradient at first order (as in PyTorch)" % name)
    th = torch_fn(path)
    a, b = sample(dom_a, (3, 4), R), sample(dom_b, (4,), R)  # b broadcast: the sum over rows is recorded too
    if name in ("maximum", "minimum", "fmod", "remainder", "floor_divide", "copysign"):
        b = b + np.sign(b) * 0.3
    if name in ONLY_B:
        a_t = tc.tensor(a)
        check_row(lambda bb: getattr(tc, name)(a_t, bb), lambda bb: th(torch.tensor(a), bb), [b], name)
        return
    check_row(lambda aa, bb: getattr(tc, name)(aa, bb), th, [a, b], name)


def test_not_twice_list_raises():
    """Every row NOT_TWICE names raises NotImplementedError naming its node
    when differentiated twice (none at present: the list is the one place
    to add such rows)."""
    for name in NOT_TWICE:
        x = tc.tensor(sample("all", (3,), R), requires_grad=True)
        (gx,) = tc.autograd.grad(getattr(tc, name)(x).sum(), x, create_graph=True)
        with pytest.raises(NotImplementedError, match="derivative"):
            tc.autograd.grad(gx.sum(), x)
