"""tc.autograd.graph (saved_tensors_hooks, save_on_cpu,
disable_saved_tensors_hooks) against torch.autograd.graph (PyTorch 1.13):
how often the hooks run for a small MLP, conv and norm graph, the gradients
they give (also when pack changes the tensor, and under create_graph), nesting,
when packed objects are freed, and the errors."""
import gc
import weakref

import numpy as np
import pytest

import tc
from conftest import need

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _needs_hooks():
    need("tc_saved_tensors_hooks_push", "tc_saved_tensors_hooks_pop")


def _pair(shape, seed, requires_grad=True):
    a = np.random.RandomState(seed).randn(*shape)
    return (tc.tensor(a, dtype=tc.float64).requires_grad_(requires_grad),
            torch.tensor(a, dtype=torch.float64).requires_grad_(requires_grad))


def _close(a, b, tol=1e-10):
    assert a is not None and b is not None
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


class _Counting:
    """A pack/unpack pair for library `lib` that counts its calls."""

    def __init__(self, lib, pack=None):
        self.lib, self.packs, self.unpacks = lib, 0, 0
        self._pack = pack

    def pack(self, x):
        self.packs += 1
        return self._pack(x) if self._pack else x

    def unpack(self, x):
        self.unpacks += 1
        return x

    def hooks(self):
        return self.lib.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)


def _mlp(lib, params, x):
    F = lib.nn.functional
    w1, b1, w2, b2 = params
    h = lib.tanh(F.linear(x, w1, b1))
    h = F.relu(h * h)
    return F.mse_loss(F.linear(h, w2, b2), lib.zeros(x.shape[0], 2, dtype=x.dtype))


def _conv(lib, params, x):
    F = lib.nn.functional
    w, b = params
    y = F.relu(F.conv2d(x, w, b, padding=1))
    return (y * y).sum()


def _norm(lib, params, x):
    F = lib.nn.functional
    g, b = params
    y = F.group_norm(x, 2, g, b)
    return lib.sigmoid(y).sum() + x.exp().mean()


_GRAPHS = {
    "mlp": (_mlp, [(5, 3), (5,), (2, 5), (2,)], (4, 3)),
    "conv": (_conv, [(3, 2, 3, 3), (3,)], (2, 2, 6, 6)),
    "norm": (_norm, [(4,), (4,)], (2, 4, 3)),
}


@pytest.mark.parametrize("name", sorted(_GRAPHS))
def test_hooks_run_as_often_as_torch_and_grads_match(name):
    graph, param_shapes, x_shape = _GRAPHS[name]
    pairs = [_pair(s, 10 + i) for i, s in enumerate(param_shapes)] + [_pair(x_shape, 1)]
    results = {}
    for k, lib in ((0, tc), (1, torch)):
        leaves = [p[k] for p in pairs]
        c = _Counting(lib)
        with c.hooks():
            loss = graph(lib, leaves[:-1], leaves[-1])
        assert c.unpacks == 0
        packs = c.packs
        loss.backward()
        results[k] = (packs, c.unpacks, loss, [t.grad for t in leaves])
    (tp, tu, tl, tg), (rp, ru, rl, rg) = results[0], results[1]
    assert rp > 0
    assert (tp, tu) == (rp, ru)
    _close(tl, rl)
    for a, b in zip(tg, rg):
        _close(a, b)


def test_pack_returning_a_changed_tensor_changes_gradients_as_torch():
    (a, ta), (b, tb) = _pair((4,), 1), _pair((4,), 2)
    for lib, x, y in ((tc, a, b), (torch, ta, tb)):
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t):
            out = (x * y.sin()).sum()
        out.backward()
    _close(a.grad, ta.grad)
    _close(b.grad, tb.grad)
    # The doubling is visible: without hooks the gradients differ.
    np.testing.assert_allclose(a.grad.numpy(), 2 * tb.detach().sin().numpy(), rtol=1e-12)


def test_the_hooks_of_the_forward_are_used_not_those_of_the_backward():
    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        c = _Counting(lib)
        y = (x * x).sum()
        with c.hooks():
            y.backward()
        assert (c.packs, c.unpacks) == (0, 0)
        with c.hooks():
            z = (x * x).sum()
        z.backward()
        assert (c.packs, c.unpacks) == (2, 2)


def test_nested_contexts_use_the_innermost_pair():
    counts = {}
    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        outer, inner = _Counting(lib), _Counting(lib)
        with outer.hooks():
            y = x * x
            with inner.hooks():
                z = y.exp()
            w = (z * y).sum()
        w.backward()
        counts[lib] = (outer.packs, outer.unpacks, inner.packs, inner.unpacks)
        assert inner.packs > 0 and outer.packs > 0
    assert counts[tc] == counts[torch]


def test_create_graph_double_backward_through_packed_tensors():
    (x, tx) = _pair((5,), 3)
    got = {}
    for lib, v in ((tc, x), (torch, tx)):
        c = _Counting(lib, pack=lambda t: t.clone())
        with c.hooks():
            y = (v * v * v * v.sin()).sum()
        (g,) = lib.autograd.grad(y, v, create_graph=True)
        g.sum().backward()
        got[lib] = (g, c.packs, c.unpacks)
    _close(got[tc][0], got[torch][0])
    _close(x.grad, tx.grad)
    assert got[tc][1:] == got[torch][1:]


def test_hooks_active_during_the_double_backward_see_its_saved_tensors():
    # (How many tensors the recorded backward saves is the backward formulas'
    # business: torch's mul saves an operand only when the other one requires
    # grad, libtc's always; so the counts are compared with the forward's.)
    (x, tx) = _pair((4,), 5)
    for lib, v in ((tc, x), (torch, tx)):
        c = _Counting(lib)
        with c.hooks():
            y = (v * v * v).sum()
            forward_packs = c.packs
            (g,) = lib.autograd.grad(y, v, create_graph=True)
            assert c.unpacks == forward_packs
            assert c.packs > forward_packs  # the recorded backward's own saved tensors
            h = (g * g).sum()
        h.backward()
        assert c.unpacks >= c.packs
    _close(x.grad, tx.grad)


def test_custom_function_saved_tensors_go_through_the_hooks():
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a ** 3

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 3 * a * a * g
        return Cube

    (x, tx) = _pair((3,), 7)
    counts = {}
    for lib, v in ((tc, x), (torch, tx)):
        c = _Counting(lib, pack=lambda t: t * 2)
        with c.hooks():
            y = make(lib).apply(v).sum()
        y.backward()
        counts[lib] = (c.packs, c.unpacks)
    assert counts[tc] == counts[torch] == (1, 1)
    _close(x.grad, tx.grad)


def test_save_on_cpu_gives_the_same_gradients():
    graph, param_shapes, x_shape = _GRAPHS["mlp"]
    pairs = [_pair(s, 20 + i) for i, s in enumerate(param_shapes)] + [_pair(x_shape, 2)]
    plain = [p[0] for p in pairs]
    graph(tc, plain[:-1], plain[-1]).backward()
    copies = [t.detach().clone().requires_grad_(True) for t in plain]
    with tc.autograd.graph.save_on_cpu():
        loss = graph(tc, copies[:-1], copies[-1])
    loss.backward()
    for a, b in zip(copies, plain):
        _close(a.grad, b.grad, tol=0)
    assert issubclass(tc.autograd.graph.save_on_cpu, tc.autograd.graph.saved_tensors_hooks)


def test_packed_objects_are_freed_after_backward_and_with_the_graph():
    class Box:
        def __init__(self, t):
            self.t = t

    for lib in (tc, torch):
        refs = []

        def pack(t):
            box = Box(t)
            refs.append(weakref.ref(box))
            return box

        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda b: b.t):
            y = (x * x.exp()).sum()
            z = (x * x).sum()
        assert refs and all(r() is not None for r in refs)
        y.backward(retain_graph=True)
        assert all(r() is not None for r in refs)
        y.backward()
        del y
        gc.collect()
        alive = [r() is not None for r in refs]
        assert alive == [False] * (len(refs) - 2) + [True, True]  # z's graph keeps its two
        del z
        gc.collect()
        assert all(r() is None for r in refs)


class _HookError(Exception):
    pass


def test_exception_in_pack_is_torchs_runtime_error_naming_it():
    # torch 1.13 raises what a saved-tensor hook raised as a RuntimeError
    # "<type>: <message>"; tc also chains the original as __cause__.
    def pack(_):
        raise _HookError("no packing")

    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            with pytest.raises(RuntimeError, match="^_HookError: no packing") as info:
                x * x
            if lib is tc:
                assert isinstance(info.value.__cause__, _HookError)
            # Ops that save nothing are unaffected.
            (x + 1).sum()
            if lib is tc:
                assert tc.autograd.graph._hooks_depth() == 1
        if lib is tc:
            assert tc.autograd.graph._hooks_depth() == 0
        (x * x).sum().backward()  # the stack was popped: no hook any more


def test_exception_in_unpack_is_torchs_runtime_error_from_backward():
    def unpack(_):
        raise KeyError("no unpacking")

    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
            y = (x * x).sum()
        with pytest.raises(RuntimeError, match="^KeyError: 'no unpacking'") as info:
            y.backward()
        if lib is tc:
            assert isinstance(info.value.__cause__, KeyError)
    # A BaseException that is not an Exception (KeyboardInterrupt) is not wrapped.
    def interrupt(_):
        raise KeyboardInterrupt()

    x = tc.ones(3, dtype=tc.float64, requires_grad=True)
    with tc.autograd.graph.saved_tensors_hooks(lambda t: t, interrupt):
        y = (x * x).sum()
    with pytest.raises(KeyboardInterrupt):
        y.backward()


@pytest.mark.parametrize("bad", [None, 3.0, "text"])
def test_unpack_returning_a_non_tensor_is_a_type_error(bad):
    messages = []
    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: bad):
            y = (x * x).sum()
        with pytest.raises(TypeError) as info:
            y.backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_pack_modifying_its_input_in_place_is_an_error():
    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
            with pytest.raises(RuntimeError, match="pack hook is modifying its input in place"):
                y * y


def test_backward_twice_after_the_tokens_were_freed_is_an_error():
    for lib in (tc, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (x * x).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="(?i)backward through the graph a second time"):
            y.backward()


def test_disable_saved_tensors_hooks():
    for lib in (tc, torch):
        G = lib.autograd.graph
        with G.disable_saved_tensors_hooks("hooks are off here"):
            with pytest.raises(RuntimeError, match="^hooks are off here$"):
                with G.save_on_cpu():
                    pass
            with G.disable_saved_tensors_hooks("inner"):
                with pytest.raises(RuntimeError, match="^inner$"):
                    G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            with pytest.raises(RuntimeError, match="^hooks are off here$"):
                G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        with G.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


def test_pack_hook_sees_the_saved_tensor_and_runs_without_grad():
    seen = {}
    for lib in (tc, torch):
        x = lib.full((2,), 3.0, dtype=lib.float64, requires_grad=True)
        rows = []

        def pack(t):
            rows.append((t.detach().numpy().tolist(), t.requires_grad, (t * 2).requires_grad))
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            x.sin()
        seen[lib] = rows
    assert seen[tc] == seen[torch] == [([3.0, 3.0], True, False)]


def test_a_chain_of_packed_tensors_frees_itself_without_deadlock():
    # Each packed tensor holds the graph before it: dropping the last frees
    # tokens from inside the free of another token.
    class Box:
        def __init__(self, t):
            self.t = t

    for lib in (tc, torch):
        refs = []

        def pack(t):
            box = Box(t)
            refs.append(weakref.ref(box))
            return box

        x = lib.ones(4, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda b: b.t):
            y = x
            for _ in range(6):
                y = (y * 1.5).sin() * y
        assert len(refs) >= 12
        del y
        gc.collect()
        assert all(r() is None for r in refs)
