"""The recurrent layers' fused path (one op per layer and direction on the CPU, float32 and
float64, src/cpu/rnn_fused.cpp) against PyTorch 1.13: gradients that reach only some of the
outputs, float32 at a size where the GEMMs block, a second backward with and without
retain_graph, in-place changes of a saved weight, and inference under no_grad."""
import pytest

import tc
import tc.nn as nn

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=t.dtype._np).reshape(tuple(t.shape))


def close(a, b, rtol=1e-9, atol=1e-11):
    assert tuple(a.shape) == tuple(b.shape), (tuple(a.shape), tuple(b.shape))
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol)


def pair(cls_name, *args, dtype=torch.float64, **kwargs):
    torch.manual_seed(0)
    ref = getattr(torch.nn, cls_name)(*args, **kwargs).to(dtype)
    ours = getattr(nn, cls_name)(*args, dtype=tc.float64 if dtype == torch.float64 else tc.float32, **kwargs)
    ours.load_state_dict({k: tc.tensor(v.numpy()) for k, v in ref.state_dict().items()})
    return ours, ref


MODES = [("LSTM", {}), ("GRU", {}), ("RNN", {}), ("RNN", dict(nonlinearity="relu"))]


@pytest.mark.parametrize("cls_name,kwargs", MODES)
@pytest.mark.parametrize("use", ["output", "h_n", "c_n"])
def test_gradient_through_one_output_only(cls_name, kwargs, use):
    if use == "c_n" and cls_name != "LSTM":
        pytest.skip("only an LSTM has a cell state")
    rng = np.random.default_rng(3)
    ours, ref = pair(cls_name, 3, 5, num_layers=2, bidirectional=True, **kwargs)
    a = rng.standard_normal((4, 2, 3))
    x_tc, x_ref = tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (o_tc, s_tc), (o_ref, s_ref) = ours(x_tc), ref(x_ref)
    pick = {"output": lambda o, s: o, "h_n": lambda o, s: s[0] if isinstance(s, tuple) else s,
            "c_n": lambda o, s: s[1]}[use]
    w = rng.standard_normal(tuple(pick(o_ref, s_ref).shape))
    (pick(o_tc, s_tc) * tc.tensor(w)).sum().backward()
    (pick(o_ref, s_ref) * torch.tensor(w)).sum().backward()
    close(x_tc.grad, x_ref.grad)
    grads = dict(ref.named_parameters())
    for k, p in ours.named_parameters():
        close(p.grad, grads[k].grad)


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU"])
def test_float32_values_and_grads(cls_name):
    ours, ref = pair(cls_name, 24, 40, num_layers=2, dtype=torch.float32)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((9, 6, 24)).astype(np.float32)
    x_tc, x_ref = tc.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    o_tc, _ = ours(x_tc)
    o_ref, _ = ref(x_ref)
    close(o_tc, o_ref, rtol=1e-4, atol=2e-5)
    w = rng.standard_normal(tuple(o_ref.shape)).astype(np.float32)
    (o_tc * tc.tensor(w)).sum().backward()
    (o_ref * torch.tensor(w)).sum().backward()
    close(x_tc.grad, x_ref.grad, rtol=1e-3, atol=1e-4)
    grads = dict(ref.named_parameters())
    for k, p in ours.named_parameters():
        close(p.grad, grads[k].grad, rtol=1e-3, atol=1e-4)


def test_second_backward_needs_retain_graph():
    ours, ref = pair("LSTM", 3, 4)
    x = tc.randn(5, 2, 3, dtype=tc.float64)
    out, _ = ours(x)
    loss = out.sum()
    loss.backward(retain_graph=True)
    first = ours.weight_hh_l0.grad.clone()
    loss.backward()
    close(ours.weight_hh_l0.grad, first * 2)
    out, _ = ours(x)
    loss = out.sum()
    loss.backward()
    with pytest.raises(RuntimeError):
        loss.backward()


def test_in_place_change_of_a_saved_weight_is_refused():
    ours, _ = pair("GRU", 3, 4)
    out, _ = ours(tc.randn(5, 2, 3, dtype=tc.float64))
    with tc.no_grad():
        ours.weight_hh_l0.mul_(2)
    with pytest.raises(RuntimeError):
        out.sum().backward()


@pytest.mark.parametrize("cls_name", ["LSTM", "GRU"])
def test_no_grad_gives_the_same_values(cls_name):
    ours, ref = pair(cls_name, 3, 4, bidirectional=True)
    a = np.random.default_rng(5).standard_normal((6, 2, 3))
    with tc.no_grad():
        o_tc, _ = ours(tc.tensor(a))
    assert not o_tc.requires_grad
    o_ref, _ = ref(torch.tensor(a))
    close(o_tc, o_ref)
