"""torch.nn.Module semantics that models rely on without saying so: conversions
(.to, .double, .cuda ...) change parameters in place, so tied weights stay tied,
an optimizer made before keeps training the model and hooks survive; state
dicts name every path of a tied tensor and load strictly both ways with
PyTorch's; Tensor.data assignment keeps the tensor's identity."""
import pytest

import tc
import tc.nn as nn


class TiedLM(nn.Module):
    """A tiny language model whose output layer shares the embedding (GPT-2's tying)."""

    def __init__(self, vocab=11, d=6):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.ln = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, idx):
        return self.lm_head(self.ln(self.wte(idx)))


def _batch():
    idx = tc.tensor([[1, 4, 2, 7], [3, 3, 9, 0]])
    return idx, tc.tensor([4, 2, 7, 5, 3, 9, 0, 1])


def _train(model, opt, steps, dtype=None):
    idx, tgt = _batch()
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        logits = model(idx)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


@pytest.mark.parametrize("conv", ["to_cpu", "to_float64", "double", "float", "to_tensor"])
def test_conversions_keep_parameters_and_ties(conv):
    tc.manual_seed(0)
    m = TiedLM()
    w = m.wte.weight
    before = {n: p for n, p in m.named_parameters()}
    {"to_cpu": lambda: m.to("cpu"), "to_float64": lambda: m.to(tc.float64), "double": m.double,
     "float": m.float, "to_tensor": lambda: m.to(tc.zeros(1, dtype=tc.float64))}[conv]()
    assert m.lm_head.weight is m.wte.weight is w
    assert {n: p for n, p in m.named_parameters()} == before
    want = tc.float32 if conv in ("to_cpu", "float") else tc.float64
    assert all(p.dtype == want for p in m.parameters())
    assert len(list(m.parameters())) == 3  # the tied weight once


def test_optimizer_made_before_to_keeps_training_the_model():
    tc.manual_seed(0)
    m = TiedLM()
    opt = tc.optim.SGD(m.parameters(), lr=0.5, momentum=0.9)
    first = _train(m, opt, 2)
    m.to("cpu").double()  # after the optimizer has momentum state in float32
    rest = _train(m, opt, 8)
    assert m.wte.weight.dtype == tc.float64
    assert rest[-1] < first[0] - 0.5, (first, rest)  # still learning: the optimizer steps the model's tensors


def test_optimizer_made_after_to():
    tc.manual_seed(0)
    m = TiedLM().double()
    opt = tc.optim.Adam(m.parameters(), lr=0.05)
    losses = _train(m, opt, 10)
    assert losses[-1] < losses[0] - 0.5


def test_training_after_to_matches_torch_step_by_step(torch):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 3))
    m = nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    opt = tc.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    x = torch.linspace(-1, 1, 20).reshape(4, 5)
    y = torch.tensor([0, 2, 1, 2])
    for step in range(6):
        if step == 2:  # both convert mid-training, optimizers made before
            tm.double()
            m.double()
            x = x.double()
        for model, o, xi, yi, lib in ((tm, topt, x, y, torch), (m, opt, tc.tensor(x.numpy()), tc.tensor(y.numpy()), tc)):
            o.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(xi), yi)
            loss.backward()
            o.step()
        for (k, a), b in zip(tm.state_dict().items(), m.state_dict().values()):
            assert b.dtype == (tc.float64 if step >= 2 else tc.float32)
            assert abs(a.numpy() - b.numpy()).max() < 1e-5, (step, k)


def test_gradients_and_buffers_are_converted():
    m = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    m(tc.randn(5, 3)).sum().backward()
    m.double()
    lin, bn = m[0], m[1]
    assert lin.weight.grad is not None and lin.weight.grad.dtype == tc.float64
    assert bn.running_mean.dtype == tc.float64 and bn._buffers["running_mean"] is bn.running_mean
    assert bn.num_batches_tracked.dtype == tc.int64  # integer buffers keep their dtype
    m.type(tc.float32)
    assert bn.running_var.dtype == tc.float32


def test_hooks_on_parameters_survive_to():
    m = nn.Linear(3, 2)
    seen = []
    m.weight.register_hook(lambda g: seen.append(g.dtype))
    m.double()
    m(tc.randn(4, 3, dtype=tc.float64)).sum().backward()
    assert seen == [tc.float64]


def test_a_failed_conversion_changes_nothing():
    m = TiedLM()
    with pytest.raises(TypeError, match="floating point"):
        m.to(tc.int64)
    calls = []

    def fails_on_the_third(t):
        calls.append(t)
        if len(calls) == 3:
            raise RuntimeError("no")
        return t.double()
    with pytest.raises(RuntimeError, match="no"):
        m._apply(fails_on_the_third)
    assert all(p.dtype == tc.float32 for p in m.parameters())


def test_a_graph_recorded_before_to_refuses_backward():
    m = nn.Linear(3, 2)
    y = m(tc.randn(4, 3)).sum()
    m.double()
    with pytest.raises(RuntimeError, match="data replaced"):
        y.backward()


def test_tied_state_dict_names_both_and_loads_torch_strictly(torch):
    class TorchTied(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = torch.nn.Embedding(11, 6)
            self.ln = torch.nn.LayerNorm(6)
            self.lm_head = torch.nn.Linear(6, 11, bias=False)
            self.lm_head.weight = self.wte.weight

    t = TorchTied()
    m = TiedLM()
    assert list(m.state_dict()) == list(t.state_dict())  # both names of the tied weight
    m.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in t.state_dict().items()}, strict=True)
    assert m.lm_head.weight is m.wte.weight
    assert abs(m.wte.weight.detach().numpy() - t.wte.weight.detach().numpy()).max() == 0
    t2 = TorchTied()
    t2.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m.state_dict().items()}, strict=True)
    assert abs(t2.lm_head.weight.detach().numpy() - m.wte.weight.detach().numpy()).max() == 0
    # remove_duplicate (torch 2.0's argument) lists a tied tensor under every name.
    names = [n for n, _ in m.named_parameters(remove_duplicate=False)]
    assert names == ["wte.weight", "ln.weight", "ln.bias", "lm_head.weight"]
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]


def test_non_persistent_buffers_and_assignment_rules():
    m = nn.Module()
    m.register_buffer("kept", tc.zeros(2))
    m.register_buffer("scratch", tc.zeros(2), persistent=False)
    assert list(m.state_dict()) == ["kept"]
    assert [n for n, _ in m.named_buffers()] == ["kept", "scratch"]
    m.kept = tc.ones(3)  # assigning a tensor to a buffer's name replaces the buffer
    assert m._buffers["kept"].shape == (3,)
    m.w = nn.Parameter(tc.zeros(2))
    with pytest.raises(TypeError, match="cannot assign"):
        m.w = tc.zeros(2)
    m.w = None
    assert "w" in m._parameters and list(m.parameters()) == []


def test_shared_module_is_visited_once_and_named_under_each_path():
    shared = nn.Linear(2, 2)
    m = nn.Sequential(shared, nn.ReLU(), shared)
    assert len(list(m.modules())) == 3
    assert len(list(m.parameters())) == 2
    assert list(m.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    m.double()
    assert m[0].weight.dtype == tc.float64 and m[2] is shared


def test_zero_grad_set_to_none_false_zeroes_in_place():
    m = nn.Linear(2, 2)
    m(tc.ones(1, 2)).sum().backward()
    g = m.weight.grad
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is not None and m.weight.grad.abs().sum().item() == 0 and g.abs().sum().item() == 0


def test_tensor_data_assignment_keeps_identity():
    p = nn.Parameter(tc.zeros(2, 3))
    opt = tc.optim.SGD([p], lr=1.0)
    p.data = tc.ones(4, dtype=tc.float64)
    assert p.shape == (4,) and p.dtype == tc.float64 and p.requires_grad
    (p * 2).sum().backward()
    opt.step()
    assert p.tolist() == [-1.0, -1.0, -1.0, -1.0]
    with pytest.raises(tc.DTypeError):
        p.data = tc.zeros(2, dtype=tc.int64)
    with pytest.raises(TypeError):
        p.data = [1.0]
    x = tc.zeros(3)
    assert x.to("cpu") is x and x.to(tc.float32) is x


def test_replacing_the_data_of_a_grad_is_refused_at_the_next_accumulation():
    x = tc.zeros(3, requires_grad=True)
    (x * 2).sum().backward()
    x.grad.data = tc.zeros(5)  # the .grad tensor itself now has another shape
    with pytest.raises(RuntimeError, match="cannot be added"):
        (x * 2).sum().backward()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_an_optimizer_refuses_a_parameter_converted_to_a_dtype_it_cannot_step():
    p, q = nn.Parameter(tc.ones(2)), nn.Parameter(tc.ones(2))
    opt = tc.optim.SGD([q, p], lr=1.0)
    q.grad = tc.ones(2)
    p.data = tc.ones(2, dtype=tc.float16)
    p.grad = tc.ones(2, dtype=tc.float16)
    with pytest.raises(tc.DTypeError, match="float16"):
        opt.step()
    assert q.tolist() == [1.0, 1.0]  # refused before anything was written
