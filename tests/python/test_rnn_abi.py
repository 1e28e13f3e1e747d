"""tc.lstm / tc.gru / tc.rnn_tanh / tc.rnn_relu (one tc_rnn call each) against
torch 1.13's functions of the same names: outputs, final states and the
gradients of input, states and every weight, in float64, over layers,
directions, batch_first, biases, projections and unbatched input."""
import itertools

import pytest

import tc

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")


def _weights(mode, input_size, hidden, layers, bidir, biases, proj, gen):
    g = {"lstm": 4, "gru": 3}.get(mode, 1)
    out = proj or hidden
    ws = []
    for layer in range(layers):
        for _ in range(2 if bidir else 1):
            ws.append(gen(g * hidden, input_size if layer == 0 else out * (2 if bidir else 1)))
            ws.append(gen(g * hidden, out))
            if biases:
                ws += [gen(g * hidden), gen(g * hidden)]
            if proj:
                ws.append(gen(proj, hidden))
    return ws


CASES = [
    # mode, layers, bidirectional, batch_first, biases, proj, batched, states
    ("lstm", 2, True, False, True, 0, True, True),
    ("lstm", 1, False, True, False, 2, True, True),
    ("lstm", 2, False, False, True, 0, False, False),
    ("gru", 2, True, True, True, 0, True, True),
    ("gru", 1, False, False, False, 0, False, True),
    ("rnn_tanh", 2, True, False, True, 0, True, False),
    ("rnn_relu", 1, False, True, True, 0, True, True),
]


@pytest.mark.parametrize("mode,layers,bidir,batch_first,biases,proj,batched,states", CASES)
def test_matches_torch_values_and_gradients(mode, layers, bidir, batch_first, biases, proj, batched, states):
    rng = np.random.default_rng(7)
    T, B, I, H = 4, 3, 5, 3

    def gen(*shape):
        return rng.uniform(-0.7, 0.7, size=shape)
    shape = ((B, T, I) if batch_first else (T, B, I)) if batched else (T, I)
    arrays = [gen(*shape)] + _weights(mode, I, H, layers, bidir, biases, proj, gen)
    cells = layers * (2 if bidir else 1)
    if states:
        st = (cells, B) if batched else (cells,)
        arrays.append(gen(*st, proj or H))
        if mode == "lstm":
            arrays.append(gen(*st, H))
    tt = [torch.tensor(a, requires_grad=True) for a in arrays]
    ct = [tc.tensor(a, requires_grad=True) for a in arrays]
    nw = len(arrays) - 1 - (0 if not states else (2 if mode == "lstm" else 1))

    def run(lib, xs):
        x, ws = xs[0], xs[1:1 + nw]
        rest = list(xs[1 + nw:])
        args = (ws, biases, layers, 0.0, True, bidir, batch_first)
        if lib is torch:
            # torch.lstm & co. take batched input only (nn.LSTM adds the batch dim); tc's take both
            if not batched:
                x, rest = x.unsqueeze(1), [r.unsqueeze(1) for r in rest]
            if not rest:
                z = torch.zeros(cells, x.shape[0 if batch_first else 1], proj or H, dtype=torch.float64)
                rest = [z, torch.zeros(cells, z.shape[1], H, dtype=torch.float64)] if mode == "lstm" else [z]
        if mode == "lstm":
            outs = list(lib.lstm(x, rest, *args))
        else:
            outs = list(getattr(lib, mode)(x, rest[0] if rest else None, *args))
        if lib is torch and not batched:
            outs = [o.squeeze(1) for o in outs]
        return outs
    tout, cout = run(torch, tt), run(tc, ct)
    assert len(tout) == len(cout)
    for a, b in zip(tout, cout):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-10, atol=1e-12)
    wsum = [rng.uniform(-1, 1, size=tuple(a.shape)) for a in tout]
    sum(((a * torch.tensor(w)).sum() for a, w in zip(tout, wsum)), torch.zeros((), dtype=torch.float64)).backward()
    total = None
    for b, w in zip(cout, wsum):
        s = (b * tc.tensor(w)).sum()
        total = s if total is None else total + s
    total.backward()
    for i, (a, b) in enumerate(zip(tt, ct)):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg="input %d" % i)


def test_float32_and_dropout_between_layers_in_training():
    x = tc.randn(5, 2, 3)
    ws = [tc.randn(*s) * 0.3 for s in [(8, 3), (8, 2), (8,), (8,), (8, 2), (8, 2), (8,), (8,)]]
    out, h, c = tc.lstm(x, [], ws, True, 2, 0.5, True, False, False)
    assert out.dtype == tc.float32 and tuple(out.shape) == (5, 2, 2) and tuple(c.shape) == (2, 2, 2)
    # dropout only while training: eval runs are repeatable
    a = tc.lstm(x, [], ws, True, 2, 0.5, False, False, False)[0]
    b = tc.lstm(x, [], ws, True, 2, 0.5, False, False, False)[0]
    assert a.tolist() == b.tolist()


def test_errors_name_the_sizes():
    ws = [tc.randn(6, 3), tc.randn(6, 2)]
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 4"):
        tc.gru(tc.randn(2, 1, 4), None, ws, False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 1, 2\), got \[1, 1, 3\]"):
        tc.gru(tc.randn(2, 1, 3), tc.randn(1, 1, 3), ws, False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="weights"):
        tc.gru(tc.randn(2, 1, 3), None, ws, False, 2, 0.0, False, False, False)
