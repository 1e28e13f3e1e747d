"""tc.nn modules and tc.optim optimizers, against PyTorch."""
import math

import pytest

import tc
from tc import nn
from conftest import need

np = pytest.importorskip("numpy")


def test_module_registration_and_state_dict():
    need("tc_kaiming_uniform_", "tc_uniform_", "tc_detach", "tc_tensor_set_requires_grad")
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 3))
    names = [n for n, _ in m.named_parameters()]
    assert names == ["0.weight", "0.bias", "3.weight", "3.bias"]
    params = list(m.parameters())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad and p.is_leaf for p in params)
    assert [tuple(p.shape) for p in params] == [(8, 4), (8,), (3, 8), (3,)]
    sd = m.state_dict()
    assert list(sd) == names and not sd["0.weight"].requires_grad
    bound = 1 / math.sqrt(4)
    w = sd["0.weight"].tolist()
    assert all(-bound <= v <= bound for row in w for v in row)  # kaiming_uniform(a=sqrt(5)) bound = 1/sqrt(fan_in)
    assert m.training and m[2].training
    m.eval()
    assert not m.training and not m[2].training
    m.train()
    assert m[2].training
    assert "Linear(in_features=4, out_features=8, bias=True)" in repr(m)


def test_load_state_dict():
    need("tc_kaiming_uniform_", "tc_copy_", "tc_detach")
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    b.load_state_dict(a.state_dict())
    assert b.weight.tolist() == a.weight.tolist() and b.bias.tolist() == a.bias.tolist()
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        b.load_state_dict({"weight": a.weight})


def test_linear_conv_forward_match_torch():
    torch = pytest.importorskip("torch")
    need("tc_linear", "tc_conv2d", "tc_kaiming_uniform_")
    lin = nn.Linear(5, 3)
    tl = torch.nn.Linear(5, 3)
    with torch.no_grad():
        tl.weight.copy_(torch.tensor(lin.weight.detach().tolist()))
        tl.bias.copy_(torch.tensor(lin.bias.detach().tolist()))
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(np.array(lin(tc.tensor(x)).tolist()), tl(torch.tensor(x)).detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    conv = nn.Conv2d(2, 4, 3, stride=2, padding=1)
    tconv = torch.nn.Conv2d(2, 4, 3, stride=2, padding=1)
    with torch.no_grad():
        tconv.weight.copy_(torch.tensor(conv.weight.detach().tolist()))
        tconv.bias.copy_(torch.tensor(conv.bias.detach().tolist()))
    xi = np.random.default_rng(1).standard_normal((2, 2, 7, 7)).astype(np.float32)
    np.testing.assert_allclose(np.array(conv(tc.tensor(xi)).tolist()), tconv(torch.tensor(xi)).detach().numpy(),
                               rtol=1e-4, atol=1e-5)


def test_losses_modules():
    need("tc_cross_entropy", "tc_mse_loss")
    logits = tc.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
    target = tc.tensor([0, 2])
    ce = nn.CrossEntropyLoss()(logits, target).item()
    expect = (-(2.0 - math.log(math.exp(2.0) + math.exp(0.5) + math.exp(-1.0)))
              - (3.0 - math.log(math.exp(0.1) + math.exp(0.2) + math.exp(3.0)))) / 2
    assert abs(ce - expect) < 1e-5
    assert abs(nn.MSELoss(reduction="sum")(tc.tensor([1.0, 2.0]), tc.tensor([0.0, 0.0])).item() - 5.0) < 1e-6
    with pytest.raises(ValueError):
        nn.MSELoss(reduction="avg")


def _torch_twin(torch, params, data):
    return [torch.tensor(np.array(p.detach().tolist()), requires_grad=True) for p in params]


@pytest.mark.parametrize("kind", ["sgd", "sgd_momentum", "sgd_nesterov", "adam", "adamw"])
def test_optimizers_match_torch(kind):
    torch = pytest.importorskip("torch")
    need("tc_optimizer_sgd", "tc_optimizer_adam", "tc_optimizer_step", "tc_mse_loss", "tc_matmul")
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((4, 2))
    x = rng.standard_normal((8, 4))
    y = rng.standard_normal((8, 2))
    w = tc.tensor(w0, requires_grad=True)
    wt = torch.tensor(w0, requires_grad=True)
    make = {
        "sgd": (lambda p: tc.optim.SGD(p, lr=0.1, weight_decay=0.01),
                lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.01)),
        "sgd_momentum": (lambda p: tc.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1),
                         lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1)),
        "sgd_nesterov": (lambda p: tc.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
                         lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True)),
        "adam": (lambda p: tc.optim.Adam(p, lr=0.05, weight_decay=0.01),
                 lambda p: torch.optim.Adam(p, lr=0.05, weight_decay=0.01)),
        "adamw": (lambda p: tc.optim.AdamW(p, lr=0.05), lambda p: torch.optim.AdamW(p, lr=0.05)),
    }[kind]
    opt, opt_t = make[0]([w]), make[1]([wt])
    xt, yt = tc.tensor(x), tc.tensor(y)
    for _ in range(5):
        opt.zero_grad()
        loss = tc.nn.functional.mse_loss(xt @ w, yt)
        loss.backward()
        opt.step()
        opt_t.zero_grad()
        torch.nn.functional.mse_loss(torch.tensor(x) @ wt, torch.tensor(y)).backward()
        opt_t.step()
    np.testing.assert_allclose(np.array(w.detach().tolist()), wt.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert w.grad is not None
    opt.zero_grad()  # PyTorch 1.13's default: zeroed in place
    assert w.grad is not None and not w.grad.abs().sum().item()
    opt.zero_grad(set_to_none=True)
    assert w.grad is None


def test_optimizer_lr_and_param_groups():
    need("tc_optimizer_sgd", "tc_optimizer_get_lr", "tc_optimizer_set_lr")
    p = nn.Parameter(tc.zeros(3))
    opt = tc.optim.SGD([p], lr=0.5)
    assert opt.lr == 0.5 and opt.param_groups[0]["lr"] == 0.5
    opt.param_groups[0]["lr"] = 0.25
    assert opt.lr == 0.25
    with pytest.raises(ValueError):
        tc.optim.SGD([], lr=0.1)
    # a tensor that does not require grad is accepted and left alone at each
    # step, as torch.optim does (tc/optim/frozen_params.py)
    frozen = tc.zeros(2)
    tc.optim.SGD([frozen], lr=0.1).step()
    assert frozen.tolist() == [0.0, 0.0] and not frozen.requires_grad


def test_training_reduces_loss():
    need("tc_linear", "tc_cross_entropy", "tc_optimizer_adam", "tc_relu")
    tc.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = tc.optim.Adam(model.parameters(), lr=0.05)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2)).astype(np.float32)
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    xt, yt = tc.tensor(x), tc.tensor(y)
    losses = []
    for _ in range(150):
        loss = nn.CrossEntropyLoss()(model(xt), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    with tc.no_grad():
        acc = (model(xt).argmax(1) == yt).to(tc.int64).sum().item() / 64
    assert acc > 0.85
