"""Parity of the recurrent layers (tc.nn.RNN/LSTM/GRU, their cells, tc/nn/modules_rnn.py)
and of tc.nn.utils.rnn (packed sequences) with PyTorch 1.13: parameter names, shapes and
initialization, values and float64 gradients with weights copied by state_dict (both
ways), packed and unbatched input, dropout between layers, and the errors."""
import pytest

import tc
import tc.nn as nn
from tc.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence, pad_packed_sequence,
                             pad_sequence, unpack_sequence, unpad_sequence)

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn

TOL64 = dict(rtol=1e-9, atol=1e-11)
TOL32 = dict(rtol=2e-5, atol=2e-6)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=t.dtype._np).reshape(tuple(t.shape))


def close(a, b, tol=TOL64):
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    np.testing.assert_allclose(to_np(a), to_np(b), **tol)


def pair(cls_name, *args, dtype=torch.float64, **kwargs):
    """A torch module and a tc one with the torch one's weights (loaded by state_dict)."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls_name)(*args, **kwargs).to(dtype)
    ours = getattr(nn, cls_name)(*args, dtype=tc.float64 if dtype == torch.float64 else tc.float32, **kwargs)
    ours.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    return ours, ref


def leaf(a):
    """A tc leaf and a torch leaf holding the same array (both requiring grad)."""
    return tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def check_backward(outs_tc, outs_ref, leaves, mod_tc, mod_ref, rng):
    """Backpropagates the same random weighting of every output and compares the grads of
    the leaves (pairs of tc, torch tensors) and of every parameter."""
    loss_tc, loss_ref = 0, 0
    for a, b in zip(outs_tc, outs_ref):
        w = rng.standard_normal(tuple(b.shape))
        loss_tc = loss_tc + (a * tc.tensor(w)).sum()
        loss_ref = loss_ref + (b * torch.tensor(w)).sum()
    loss_tc.backward()
    loss_ref.backward()
    for a, b in leaves:
        close(a.grad, b.grad)
    grads_ref = {k: p.grad for k, p in mod_ref.named_parameters()}
    for k, p in mod_tc.named_parameters():
        close(p.grad, grads_ref[k])


CONFIGS = [
    ("RNN", {}),
    ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True)),
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(num_layers=2, bidirectional=True, proj_size=3, batch_first=True)),
    ("LSTM", dict(bias=False, proj_size=2)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(bias=False, batch_first=True)),
]


def _states(cls_name, kwargs, batch, rng, unbatched=False):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    out = kwargs.get("proj_size", 0) or 6
    shape_h = (layers, out) if unbatched else (layers, batch, out)
    shape_c = (layers, 6) if unbatched else (layers, batch, 6)
    h = leaf(rng.standard_normal(shape_h))
    if cls_name != "LSTM":
        return [h], (h[0], h[1])
    c = leaf(rng.standard_normal(shape_c))
    return [h, c], ((h[0], c[0]), (h[1], c[1]))


@pytest.mark.parametrize("cls_name,kwargs", CONFIGS)
@pytest.mark.parametrize("with_state", [False, True])
def test_values_and_grads_match_torch(cls_name, kwargs, with_state):
    rng = np.random.default_rng(1)
    ours, ref = pair(cls_name, 4, 6, **kwargs)
    shape = (3, 5, 4) if kwargs.get("batch_first") else (5, 3, 4)
    x = leaf(rng.standard_normal(shape))
    leaves = [x]
    args_tc, args_ref = (x[0],), (x[1],)
    if with_state:
        hs, (h_tc, h_ref) = _states(cls_name, kwargs, 3, rng)
        leaves += hs
        args_tc, args_ref = args_tc + (h_tc,), args_ref + (h_ref,)
    out_tc, hn_tc = ours(*args_tc)
    out_ref, hn_ref = ref(*args_ref)
    flat_tc = [out_tc] + (list(hn_tc) if cls_name == "LSTM" else [hn_tc])
    flat_ref = [out_ref] + (list(hn_ref) if cls_name == "LSTM" else [hn_ref])
    for a, b in zip(flat_tc, flat_ref):
        close(a, b)
    check_backward(flat_tc, flat_ref, leaves, ours, ref, rng)


@pytest.mark.parametrize("cls_name,kwargs", [CONFIGS[1], CONFIGS[3], CONFIGS[5]])
def test_unbatched_input(cls_name, kwargs):
    rng = np.random.default_rng(2)
    ours, ref = pair(cls_name, 4, 6, **kwargs)
    x = leaf(rng.standard_normal((5, 4)))
    hs, (h_tc, h_ref) = _states(cls_name, kwargs, None, rng, unbatched=True)
    out_tc, hn_tc = ours(x[0], h_tc)
    out_ref, hn_ref = ref(x[1], h_ref)
    flat_tc = [out_tc] + (list(hn_tc) if cls_name == "LSTM" else [hn_tc])
    flat_ref = [out_ref] + (list(hn_ref) if cls_name == "LSTM" else [hn_ref])
    for a, b in zip(flat_tc, flat_ref):
        close(a, b)
    check_backward(flat_tc, flat_ref, [x] + hs, ours, ref, rng)
    out_tc, _ = ours(x[0].detach())  # and without a state
    close(out_tc, ref(x[1].detach())[0])


@pytest.mark.parametrize("cls_name,kwargs", [CONFIGS[1], CONFIGS[2], CONFIGS[3], CONFIGS[5]])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_input_matches_torch(cls_name, kwargs, enforce_sorted):
    rng = np.random.default_rng(3)
    ours, ref = pair(cls_name, 4, 6, **kwargs)
    lengths = [5, 4, 2, 1] if enforce_sorted else [2, 5, 1, 4]
    batch_first = kwargs.get("batch_first", False)
    x = leaf(rng.standard_normal((4, 5, 4) if batch_first else (5, 4, 4)))
    hs, (h_tc, h_ref) = _states(cls_name, kwargs, 4, rng)
    p_tc = pack_padded_sequence(x[0], lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    p_ref = TR.pack_padded_sequence(x[1], lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    out_tc, hn_tc = ours(p_tc, h_tc)
    out_ref, hn_ref = ref(p_ref, h_ref)
    assert isinstance(out_tc, PackedSequence)
    assert out_tc.batch_sizes.tolist() == out_ref.batch_sizes.tolist()
    for a, b in ((out_tc.sorted_indices, out_ref.sorted_indices), (out_tc.unsorted_indices, out_ref.unsorted_indices)):
        assert (a is None and b is None) or a.tolist() == b.tolist()
    pad_tc, len_tc = pad_packed_sequence(out_tc, batch_first=batch_first)
    pad_ref, len_ref = TR.pad_packed_sequence(out_ref, batch_first=batch_first)
    assert len_tc.tolist() == len_ref.tolist()
    flat_tc = [out_tc.data, pad_tc] + (list(hn_tc) if cls_name == "LSTM" else [hn_tc])
    flat_ref = [out_ref.data, pad_ref] + (list(hn_ref) if cls_name == "LSTM" else [hn_ref])
    for a, b in zip(flat_tc, flat_ref):
        close(a, b)
    check_backward(flat_tc, flat_ref, [x] + hs, ours, ref, rng)


def test_packed_without_state_and_float32():
    rng = np.random.default_rng(4)
    ours, ref = pair("GRU", 4, 6, num_layers=2, dtype=torch.float32)
    seqs = [rng.standard_normal((n, 4)).astype(np.float32) for n in (3, 6, 1)]
    p_tc = pack_sequence([tc.tensor(s) for s in seqs], enforce_sorted=False)
    p_ref = TR.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    out_tc, h_tc = ours(p_tc)
    out_ref, h_ref = ref(p_ref)
    close(out_tc.data, out_ref.data, TOL32)
    close(h_tc, h_ref, TOL32)
    assert out_tc.data.dtype == tc.float32


def test_state_dict_loads_both_ways():
    ours = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    ref = torch.nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2)
    sd = ours.state_dict()
    assert list(sd) == list(ref.state_dict())
    ref.load_state_dict({k: torch.tensor(to_np(v)) for k, v in sd.items()})
    x = np.random.default_rng(5).standard_normal((4, 2, 3)).astype(np.float32)
    close(ours(tc.tensor(x))[0], ref(torch.tensor(x))[0], TOL32)


@pytest.mark.parametrize("cls_name,kwargs", CONFIGS)
def test_parameters_named_shaped_and_initialized_as_torch(cls_name, kwargs):
    ours = getattr(nn, cls_name)(7, 6, **kwargs)
    ref = getattr(torch.nn, cls_name)(7, 6, **kwargs)
    shapes = [(k, tuple(p.shape)) for k, p in ours.named_parameters()]
    assert shapes == [(k, tuple(p.shape)) for k, p in ref.named_parameters()]
    assert ours._flat_weights_names == ref._flat_weights_names
    assert [[tuple(p.shape) for p in ws] for ws in ours.all_weights] == \
        [[tuple(p.shape) for p in ws] for ws in ref.all_weights]
    bound = 1 / 6 ** 0.5
    values = np.concatenate([to_np(p).ravel() for p in ours.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    assert values.std() > bound / 3  # spread over the interval, not constant
    assert repr(ours) == repr(ref)


def test_flat_weights_follow_to_and_flatten_parameters_is_a_noop():
    m = nn.GRU(3, 4, num_layers=2)
    m.flatten_parameters()
    m.to(tc.float64)
    assert all(w.dtype == tc.float64 for w in m._flat_weights)
    assert [id(w) for w in m._flat_weights] == [id(getattr(m, n)) for n in m._flat_weights_names]
    out, h = m(tc.randn(2, 1, 3, dtype=tc.float64))
    assert out.dtype == tc.float64 and tuple(h.shape) == (2, 1, 4)


@pytest.mark.parametrize("cls_name,kwargs", [("RNNCell", {}), ("RNNCell", dict(nonlinearity="relu")),
                                             ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", dict(bias=False))])
def test_cells_match_torch(cls_name, kwargs):
    rng = np.random.default_rng(6)
    ours, ref = pair(cls_name, 4, 5, **kwargs)
    assert [(k, tuple(p.shape)) for k, p in ours.named_parameters()] == \
        [(k, tuple(p.shape)) for k, p in ref.named_parameters()]
    assert repr(ours) == repr(ref)
    x = leaf(rng.standard_normal((3, 4)))
    h = leaf(rng.standard_normal((3, 5)))
    leaves = [x, h]
    if cls_name == "LSTMCell":
        c = leaf(rng.standard_normal((3, 5)))
        leaves.append(c)
        outs_tc, outs_ref = list(ours(x[0], (h[0], c[0]))), list(ref(x[1], (h[1], c[1])))
    else:
        outs_tc, outs_ref = [ours(x[0], h[0])], [ref(x[1], h[1])]
    for a, b in zip(outs_tc, outs_ref):
        close(a, b)
    check_backward(outs_tc, outs_ref, leaves, ours, ref, rng)
    # unbatched, and without a state
    one = rng.standard_normal(4)
    a, b = ours(tc.tensor(one)), ref(torch.tensor(one))
    for u, v in zip(a if cls_name == "LSTMCell" else [a], b if cls_name == "LSTMCell" else [b]):
        close(u, v)


def test_dropout_between_layers_only_in_training():
    x = tc.randn(6, 2, 3)
    m = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert to_np(a).tolist() == to_np(b).tolist()
    m.train()
    c, d = m(x)[0], m(x)[0]
    assert not np.allclose(to_np(c), to_np(a)) and not np.allclose(to_np(c), to_np(d))
    one = nn.GRU(3, 8, num_layers=1)  # no layer to drop after: training changes nothing
    assert to_np(one(x)[0]).tolist() == to_np(one(x)[0]).tolist()
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 8, dropout=0.2)


def test_eval_with_dropout_matches_torch():
    ours, ref = pair("LSTM", 4, 6, num_layers=3, dropout=0.3)
    ours.eval()
    ref.eval()
    x = np.random.default_rng(7).standard_normal((5, 2, 4))
    close(ours(tc.tensor(x))[0], ref(torch.tensor(x))[0])


def _pack_cases():
    rng = np.random.default_rng(8)
    return rng.standard_normal((5, 3, 2)), rng.standard_normal((3, 5, 2))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 2], True), ([2, 5, 3], False), ([4, 4, 1], False)])
def test_pack_and_pad_match_torch(batch_first, lengths, enforce_sorted):
    a = _pack_cases()[1 if batch_first else 0]
    x_tc, x_ref = leaf(a)
    p_tc = pack_padded_sequence(x_tc, tc.tensor(lengths), batch_first, enforce_sorted)
    p_ref = TR.pack_padded_sequence(x_ref, torch.tensor(lengths), batch_first, enforce_sorted)
    close(p_tc.data, p_ref.data)
    assert p_tc.batch_sizes.tolist() == p_ref.batch_sizes.tolist() and p_tc.batch_sizes.dtype == tc.int64
    for total in (None, 7):
        pad_tc, len_tc = pad_packed_sequence(p_tc, batch_first, -1.5, total)
        pad_ref, len_ref = TR.pad_packed_sequence(p_ref, batch_first, -1.5, total)
        close(pad_tc, pad_ref)
        assert len_tc.tolist() == len_ref.tolist() and len_tc.dtype == tc.int64
    w = np.random.default_rng(9).standard_normal(tuple(pad_ref.shape))
    (pad_tc * tc.tensor(w)).sum().backward()
    (pad_ref * torch.tensor(w)).sum().backward()
    close(x_tc.grad, x_ref.grad)


def test_pad_sequence_pack_sequence_and_unpacking():
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal((n, 2)) for n in (2, 4, 1)]
    pairs = [leaf(a) for a in arrays]
    for batch_first in (False, True):
        close(pad_sequence([p[0] for p in pairs], batch_first, 3.0),
              TR.pad_sequence([p[1] for p in pairs], batch_first, 3.0))
    p_tc = pack_sequence([p[0] for p in pairs], enforce_sorted=False)
    p_ref = TR.pack_sequence([p[1] for p in pairs], enforce_sorted=False)
    close(p_tc.data, p_ref.data)
    w = rng.standard_normal(tuple(p_ref.data.shape))
    (p_tc.data * tc.tensor(w)).sum().backward()
    (p_ref.data * torch.tensor(w)).sum().backward()
    for a, b in pairs:
        close(a.grad, b.grad)
    for got, want in zip(unpack_sequence(p_tc), arrays):
        np.testing.assert_array_equal(to_np(got), want)
    padded = pad_sequence([tc.tensor(a) for a in arrays], batch_first=True)
    for got, want in zip(unpad_sequence(padded, [2, 4, 1], batch_first=True), arrays):
        np.testing.assert_array_equal(to_np(got), want)
    assert tuple(pad_sequence(tc.zeros(3, 2, 4)).shape) == tuple(TR.pad_sequence(torch.zeros(3, 2, 4)).shape)


def test_packed_sequence_is_a_namedtuple():
    p = pack_sequence([tc.ones(3, 2), tc.ones(1, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    assert sorted_indices is None and unsorted_indices is None
    assert batch_sizes.tolist() == [2, 1, 1]
    d = p.double()
    assert isinstance(d, PackedSequence) and d.data.dtype == tc.float64 and not d.is_cuda
    q = PackedSequence(data, batch_sizes, tc.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]


def _same_error(f_tc, f_ref, exact=True):
    with pytest.raises(Exception) as want:
        f_ref()
    with pytest.raises(want.type) as got:
        f_tc()
    if exact:
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("case", range(14))
def test_layer_errors_match_torch(case):
    def build(lib):
        l = lib.nn.LSTM(4, 6, 2)
        g = lib.nn.GRU(4, 6)
        z = lib.zeros
        return [
            lambda: l(z(5, 3, 5)),
            lambda: l(z(5, 3, 4, 1)),
            lambda: l(z(4)),
            lambda: l(z(5, 3, 4), (z(1, 3, 6), z(2, 3, 6))),
            lambda: l(z(5, 3, 4), (z(2, 3, 6), z(2, 2, 6))),
            lambda: l(z(5, 3, 4), (z(2, 6), z(2, 2, 6))),
            lambda: l(z(3, 4), (z(2, 3, 6), z(2, 2, 6))),
            lambda: g(z(5, 3, 4), z(2, 3, 6)),
            lambda: g(z(5, 3, 4), z(3, 6)),
            lambda: g(z(3, 4), z(1, 3, 6)),
            lambda: lib.nn.GRU(4, 6, proj_size=0),
            lambda: lib.nn.RNN(4, 6, nonlinearity="sigmoid"),
            lambda: lib.nn.LSTM(4, 6, proj_size=6),
            lambda: lib.nn.LSTM(4, 6, dropout=1.5),
        ]
    _same_error(build(tc)[case], build(torch)[case])


def test_more_constructor_errors():
    for kwargs in (dict(proj_size=-1), dict(dropout=True), dict(dropout="x")):
        _same_error(lambda: nn.LSTM(4, 6, **kwargs), lambda: torch.nn.LSTM(4, 6, **kwargs))


@pytest.mark.parametrize("case", range(8))
def test_cell_errors_match_torch(case):
    def build(lib):
        c = lib.nn.LSTMCell(4, 6)
        g = lib.nn.GRUCell(4, 6)
        r = lib.nn.RNNCell(4, 6, nonlinearity="sig")
        z = lib.zeros
        return [
            lambda: c(z(3, 5)),
            lambda: c(z(3, 4), (z(2, 6), z(3, 6))),
            lambda: c(z(3, 4), (z(3, 5), z(3, 6))),
            lambda: c(z(3, 4), (z(3, 6), z(3, 5))),
            lambda: c(z(2, 3, 4)),
            lambda: r(z(3, 4)),
            lambda: g(z(3, 4), z(2, 6)),
            lambda: g(z(4), z(1, 6)),
        ]
    _same_error(build(tc)[case], build(torch)[case])


@pytest.mark.parametrize("case", range(7))
def test_packing_errors_match_torch(case):
    def build(lib, R):
        x = lib.zeros(5, 3, 4)
        p = R.pack_padded_sequence(x, [2, 5, 2], enforce_sorted=False)
        return [
            lambda: R.pack_padded_sequence(x, [3, 5, 2]),
            lambda: R.pack_padded_sequence(x, [5, 3, 0]),
            lambda: R.pack_padded_sequence(x, [5, 3]),
            lambda: R.pad_packed_sequence(p, total_length=1),
            lambda: R.pad_sequence([]),
            lambda: R.pack_sequence([]),
            lambda: R.pad_sequence([lib.zeros(2, 3), lib.zeros(2, 4)]),
        ]
    _same_error(build(tc, nn.utils.rnn)[case], build(torch, TR)[case], exact=case < 6)


def test_length_beyond_the_padded_input_is_refused():
    with pytest.raises(RuntimeError, match="larger than the padded sequence length"):
        pack_padded_sequence(tc.zeros(5, 3, 4), [7, 3, 2])


def test_utils_rnn_is_importable_as_a_module_and_documented():
    import importlib
    mod = importlib.import_module("tc.nn.utils.rnn")
    assert mod is nn.utils.rnn
    missing = [n for n in mod.__all__ if not (getattr(mod, n).__doc__ or "").strip()]
    missing += ["PackedSequence." + n for n, v in vars(PackedSequence).items()
                if not n.startswith("_") and not (getattr(v, "__doc__", "") or "").strip()]
    assert not missing
