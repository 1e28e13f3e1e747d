"""The transformer pieces against PyTorch 1.13: layer_norm, rms_norm (torch
1.13 lacks it: its formula), scaled_dot_product_attention (likewise: the
documented formula), tril/triu, masked_fill, bmm, cumsum, topk, multinomial;
LayerNorm/RMSNorm modules; gradient clipping; learning-rate schedulers;
optimizer parameter groups; and one GPT block trained for a few AdamW steps
from the same weights in both libraries."""
import math
import os
import sys

import pytest

import tc
import tc.nn.functional as F
from conftest import REPO, need
from test_parity import R, parity, randn

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")
TF = torch.nn.functional


# ---------------------------------------------------------------- ops

@pytest.mark.parametrize("shape,normalized", [((4, 6), (6,)), ((2, 3, 4), (3, 4)), ((5,), (5,))], ids=str)
@pytest.mark.parametrize("affine", [False, True])
def test_layer_norm(shape, normalized, affine):
    need("tc_layer_norm")
    if affine:
        parity(lambda x, w, b: F.layer_norm(x, normalized, w, b, 1e-5),
               lambda x, w, b: TF.layer_norm(x, normalized, w, b, 1e-5),
               [randn(*shape) * 3 + 1, randn(*normalized), randn(*normalized)])
    else:
        parity(lambda x: F.layer_norm(x, normalized), lambda x: TF.layer_norm(x, normalized), [randn(*shape)])


def _torch_rms_norm(x, normalized, w=None, eps=1e-6):
    dims = tuple(range(-len(normalized), 0))
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    return y * w if w is not None else y


def test_rms_norm_matches_its_formula():
    need("tc_rms_norm")
    parity(lambda x, w: F.rms_norm(x, (4,), w, 1e-6), lambda x, w: _torch_rms_norm(x, (4,), w),
           [randn(3, 4), randn(4)])
    parity(lambda x: F.rms_norm(x, (2, 3), eps=1e-6), lambda x: _torch_rms_norm(x, (2, 3)), [randn(4, 2, 3)])


def test_norm_modules():
    need("tc_layer_norm", "tc_rms_norm")
    ln = tc.nn.LayerNorm(8)
    assert ln.weight.tolist() == [1.0] * 8 and ln.bias.tolist() == [0.0] * 8
    assert [n for n, _ in ln.named_parameters()] == ["weight", "bias"]
    x = np.asarray(randn(3, 8), dtype=np.float32)
    np.testing.assert_allclose(np.asarray(ln(tc.tensor(x)).tolist()),
                               torch.nn.LayerNorm(8)(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)
    rms = tc.nn.RMSNorm(8, eps=1e-6)
    np.testing.assert_allclose(np.asarray(rms(tc.tensor(x)).tolist()),
                               _torch_rms_norm(torch.tensor(x), (8,)).numpy(), rtol=1e-5, atol=1e-5)
    assert tc.nn.LayerNorm(4, elementwise_affine=False).weight is None


@pytest.mark.parametrize("diagonal", [-1, 0, 2])
def test_tril_triu(diagonal):
    need("tc_tril", "tc_triu")
    parity(lambda a: a.tril(diagonal), lambda a: a.tril(diagonal), [randn(2, 3, 4)])
    parity(lambda a: tc.triu(a, diagonal), lambda a: torch.triu(a, diagonal), [randn(4, 3)])
    assert tc.ones(3, 3, dtype=tc.bool).triu(1).tolist() == torch.ones(3, 3, dtype=torch.bool).triu(1).tolist()


def test_masked_fill():
    need("tc_masked_fill")
    mask = R.random((1, 4)) > 0.5
    parity(lambda a, m: a.masked_fill(m, -2.5), lambda a, m: a.masked_fill(m, -2.5), [randn(3, 4), mask])
    parity(lambda a, m: a.masked_fill(m, float("-inf")).softmax(-1),
           lambda a, m: a.masked_fill(m, float("-inf")).softmax(-1), [randn(3, 4), np.eye(4, dtype=bool)[:3] == 0])


def test_bmm():
    need("tc_bmm")
    parity(lambda a, b: a.bmm(b), lambda a, b: a.bmm(b), [randn(3, 2, 4), randn(3, 4, 5)])
    parity(lambda a, b: tc.bmm(a, b), lambda a, b: torch.bmm(a, b), [randn(2, 3, 3), randn(2, 3, 1)])


def test_addmm_baddbmm():
    need("tc_addmm", "tc_baddbmm")
    parity(lambda i, a, b: tc.addmm(i, a, b, beta=0.5, alpha=2.0), lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2.0),
           [randn(3), randn(2, 4), randn(4, 3)])
    parity(lambda i, a, b: i.baddbmm(a, b, beta=-1.0), lambda i, a, b: i.baddbmm(a, b, beta=-1.0),
           [randn(2, 3), randn(4, 2, 5), randn(4, 5, 3)])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(dim):
    need("tc_cumsum")
    parity(lambda a: a.cumsum(dim), lambda a: a.cumsum(dim), [randn(3, 4, 2)])
    ints = R.integers(-5, 5, (3, 4, 2))
    assert tc.tensor(ints).cumsum(dim).tolist() == torch.tensor(ints).cumsum(dim).tolist()
    assert tc.tensor(ints).to(tc.int32).cumsum(dim).dtype == tc.int64


@pytest.mark.parametrize("k,dim,largest", [(2, -1, True), (1, 0, False), (3, 1, True)], ids=str)
def test_topk(k, dim, largest):
    need("tc_topk")
    a = R.permutation(60).reshape(3, 4, 5).astype(np.float64)  # distinct values: one right answer
    parity(lambda x: tuple(x.topk(k, dim, largest)), lambda x: tuple(x.topk(k, dim, largest)), [a])


def test_multinomial():
    need("tc_multinomial")
    tc.manual_seed(3)
    p = tc.tensor([[0.1, 0.0, 0.6, 0.3], [0.0, 0.0, 1.0, 0.0]])
    s = p.multinomial(20000, replacement=True)
    assert s.shape == (2, 20000) and s.dtype == tc.int64
    counts = np.bincount(np.asarray(s[0].tolist()), minlength=4) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.0, 0.6, 0.3], atol=0.015)
    assert set(s[1].tolist()) == {2}
    draws = tc.tensor([1.0, 5.0, 2.0, 0.5, 3.0]).multinomial(5)
    assert sorted(draws.tolist()) == [0, 1, 2, 3, 4]
    with pytest.raises(tc.TcError):
        tc.tensor([1.0, 0.0]).multinomial(2)


def _torch_attention(q, k, v, mask=None, is_causal=False):
    """PyTorch 2's documented formula (torch 1.13 has no
    scaled_dot_product_attention)."""
    L, S = q.shape[-2], k.shape[-2]
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(torch.ones(L, S, dtype=torch.bool).tril(0).logical_not(), float("-inf"))
    if mask is not None:
        bias = bias.masked_fill(mask.logical_not(), float("-inf")) if mask.dtype == torch.bool else bias + mask
    w = (q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]) + bias).softmax(-1)
    return w @ v


@pytest.mark.parametrize("mode", ["none", "causal", "bool", "additive"])
def test_scaled_dot_product_attention(mode):
    need("tc_scaled_dot_product_attention")
    q, k, v = randn(2, 3, 5, 4), randn(2, 3, 6, 4), randn(2, 3, 6, 3)
    if mode in ("none", "causal"):
        c = mode == "causal"
        parity(lambda q_, k_, v_: F.scaled_dot_product_attention(q_, k_, v_, is_causal=c),
               lambda q_, k_, v_: _torch_attention(q_, k_, v_, is_causal=c), [q, k, v])
        return
    m = R.random((5, 6)) > 0.3 if mode == "bool" else randn(5, 6)
    if mode == "bool":
        m[:, 0] = True  # no row fully masked
    parity(lambda q_, k_, v_, m_: F.scaled_dot_product_attention(q_, k_, v_, m_),
           lambda q_, k_, v_, m_: _torch_attention(q_, k_, v_, m_), [q, k, v, m], grad_args=(0, 1, 2))


def test_gelu_tanh_is_composed_correctly():
    parity(lambda x: F.gelu(x, approximate="tanh"), lambda x: TF.gelu(x, approximate="tanh"), [randn(4, 5) * 3])


# ---------------------------------------------------------------- training utilities

def _pair(shapes, seed=0):
    g = np.random.default_rng(seed)
    arrays = [g.standard_normal(s) for s in shapes]
    tps = [tc.nn.Parameter(tc.tensor(a)) for a in arrays]
    ths = [torch.nn.Parameter(torch.tensor(a)) for a in arrays]
    return arrays, tps, ths


def _set_grads(tps, ths, seed=1):
    """The same random gradients on both sides (through backward: tc's
    .grad is read-only)."""
    g = np.random.default_rng(seed)
    for a, b in zip(tps, ths):
        gr = g.standard_normal(tuple(b.shape)) * 3
        a.grad = None
        b.grad = None
        (a * tc.tensor(gr)).sum().backward()
        (b * torch.tensor(gr)).sum().backward()


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm(norm_type, max_norm):
    _, tps, ths = _pair([(3, 4), (4,), (2, 2, 2)])
    _set_grads(tps, ths)
    n_tc = tc.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    n_th = torch.nn.utils.clip_grad_norm_(ths, max_norm, norm_type)
    assert abs(n_tc.item() - n_th.item()) <= 1e-10 * n_th.item()
    for a, b in zip(tps, ths):
        np.testing.assert_allclose(np.asarray(a.grad.tolist()), b.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_clip_grad_value():
    _, tps, ths = _pair([(3, 4), (5,)])
    _set_grads(tps, ths)
    tc.nn.utils.clip_grad_value_(tps, 0.7)
    torch.nn.utils.clip_grad_value_(ths, 0.7)
    for a, b in zip(tps, ths):
        assert a.grad.tolist() == b.grad.tolist()


def _schedules(lib, opt):
    s = lib.optim.lr_scheduler
    return {
        "lambda": lambda: s.LambdaLR(opt, lambda e: 0.9 ** e),
        "linear": lambda: s.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=7),
        "cosine": lambda: s.CosineAnnealingLR(opt, T_max=10, eta_min=0.01),
        "sequential": lambda: s.SequentialLR(opt, [s.LinearLR(opt, start_factor=0.01, total_iters=5),
                                                   s.CosineAnnealingLR(opt, T_max=20, eta_min=1e-3)],
                                             milestones=[5]),
    }


@pytest.mark.parametrize("name", ["lambda", "linear", "cosine", "sequential"])
def test_lr_schedulers_match_torch(name):
    _, tps, ths = _pair([(2, 2), (3,)])
    groups_tc = [{"params": [tps[0]]}, {"params": [tps[1]], "lr": 0.05}]
    groups_th = [{"params": [ths[0]]}, {"params": [ths[1]], "lr": 0.05}]
    o_tc, o_th = tc.optim.SGD(groups_tc, lr=0.1), torch.optim.SGD(groups_th, lr=0.1)
    s_tc, s_th = _schedules(tc, o_tc)[name](), _schedules(torch, o_th)[name]()
    for step in range(30):
        assert s_tc.get_last_lr() == pytest.approx(s_th.get_last_lr(), rel=1e-12, abs=1e-15), step
        assert [g["lr"] for g in o_tc.param_groups] == pytest.approx([g["lr"] for g in o_th.param_groups],
                                                                      rel=1e-12, abs=1e-15)
        o_tc.step()
        o_th.step()
        s_tc.step()
        s_th.step()


def test_param_groups_have_their_own_options():
    arrays, tps, ths = _pair([(3, 4), (4,), (4, 2)])

    def groups(ps):
        return [{"params": [ps[0], ps[2]], "weight_decay": 0.1}, {"params": [ps[1]], "weight_decay": 0.0, "lr": 0.02}]

    o_tc = tc.optim.AdamW(groups(tps), lr=0.01, betas=(0.9, 0.95))
    o_th = torch.optim.AdamW(groups(ths), lr=0.01, betas=(0.9, 0.95))
    assert len(o_tc.param_groups) == 2 and o_tc.param_groups[1]["weight_decay"] == 0.0
    assert o_tc.param_groups[1]["lr"] == 0.02
    for step in range(5):
        _set_grads(tps, ths, seed=step)
        o_tc.step()
        o_th.step()
    for a, b in zip(tps, ths):
        np.testing.assert_allclose(np.asarray(a.tolist()), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    sd = o_tc.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert set(sd["state"]) == {0, 1, 2}
    with pytest.raises(ValueError):
        tc.optim.SGD([{"params": [tps[0]]}, {"params": [tps[0]]}], lr=0.1)


def test_param_groups_state_dict_round_trip():
    _, a, _ = _pair([(3, 4), (4,)])
    _, b, _ = _pair([(3, 4), (4,)])

    def make(ps):
        return tc.optim.AdamW([{"params": [ps[0]]}, {"params": [ps[1]], "weight_decay": 0.0, "lr": 0.5}], lr=0.1)

    o_a = make(a)
    for step in range(3):
        for p in a:
            p.grad = None
            (p * p).sum().backward()
        o_a.step()
    o_b = make(b)
    o_b.load_state_dict(o_a.state_dict())
    with tc.no_grad():
        for x, y in zip(b, a):
            x.copy_(y)
    for o, ps in ((o_a, a), (o_b, b)):
        for p in ps:
            p.grad = None
            (p * p).sum().backward()
        o.step()
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert o_b.param_groups[1]["lr"] == 0.5 and o_b.param_groups[1]["weight_decay"] == 0.0


# ---------------------------------------------------------------- a GPT block, step by step

sys.path.insert(0, os.path.join(REPO, "examples"))


class TorchBlock(torch.nn.Module):
    """examples/train_gpt.py's Block in PyTorch (attention by its formula)."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, 4 * d)
        self.fc_proj = torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        y = _torch_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc_proj(TF.gelu(self.fc(self.ln2(x))))


_TC_TO_TORCH = {"ln1.weight": "ln1.weight", "ln1.bias": "ln1.bias", "attn.qkv.weight": "qkv.weight",
                "attn.qkv.bias": "qkv.bias", "attn.proj.weight": "proj.weight", "attn.proj.bias": "proj.bias",
                "ln2.weight": "ln2.weight", "ln2.bias": "ln2.bias", "mlp.fc.weight": "fc.weight",
                "mlp.fc.bias": "fc.bias", "mlp.proj.weight": "fc_proj.weight", "mlp.proj.bias": "fc_proj.bias"}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gpt_block_trains_like_torch(dtype):
    need("tc_layer_norm", "tc_scaled_dot_product_attention", "tc_optimizer_adam")
    import train_gpt
    tc.manual_seed(0)
    d, heads, b, t = 32, 4, 3, 8
    old = tc.get_default_dtype()
    tc.set_default_dtype(getattr(tc, dtype))
    try:
        block = train_gpt.Block(d, heads)
    finally:
        tc.set_default_dtype(old)
    ref = TorchBlock(d, heads).to(getattr(torch, dtype))
    g = np.random.default_rng(5)
    with torch.no_grad():
        params = dict(ref.named_parameters())
        for name, p in block.named_parameters():
            a = g.standard_normal(tuple(p.shape)) * (0.3 if p.ndim == 2 else 0.1) + (1.0 if "ln" in name and name.endswith("weight") else 0.0)
            with tc.no_grad():
                p.copy_(tc.tensor(a, dtype=dtype))
            params[_TC_TO_TORCH[name]].copy_(torch.tensor(a))
    tc_params, th_params = list(block.parameters()), [params[_TC_TO_TORCH[n]] for n, _ in block.named_parameters()]
    o_tc = tc.optim.AdamW([{"params": [p for p in tc_params if p.ndim == 2], "weight_decay": 0.1},
                           {"params": [p for p in tc_params if p.ndim < 2], "weight_decay": 0.0}], lr=1e-2)
    o_th = torch.optim.AdamW([{"params": [p for p in th_params if p.ndim == 2], "weight_decay": 0.1},
                              {"params": [p for p in th_params if p.ndim < 2], "weight_decay": 0.0}], lr=1e-2)
    rtol = 1e-10 if dtype == "float64" else 1e-4
    for step in range(5):
        x = g.standard_normal((b, t, d))
        target = g.standard_normal((b, t, d))
        l_tc = F.mse_loss(block(tc.tensor(x, dtype=dtype)), tc.tensor(target, dtype=dtype))
        l_th = TF.mse_loss(ref(torch.tensor(x, dtype=getattr(torch, dtype))),
                           torch.tensor(target, dtype=getattr(torch, dtype)))
        assert l_tc.item() == pytest.approx(l_th.item(), rel=rtol), step
        o_tc.zero_grad()
        o_th.zero_grad()
        l_tc.backward()
        l_th.backward()
        n_tc = tc.nn.utils.clip_grad_norm_(tc_params, 1.0).item()
        n_th = torch.nn.utils.clip_grad_norm_(th_params, 1.0).item()
        assert n_tc == pytest.approx(n_th, rel=rtol * 10)
        o_tc.step()
        o_th.step()
    for (name, p), q in zip(block.named_parameters(), th_params):
        a, b_ = np.asarray(p.tolist()), q.detach().numpy()
        if name == "attn.qkv.bias" and dtype == "float32":
            # The key bias's gradient is 0 analytically (softmax ignores a
            # constant added to a row of scores): rounding noise, which Adam
            # scales up to +-lr, in either library. Compare the q and v parts.
            a, b_ = np.concatenate([a[:d], a[2 * d:]]), np.concatenate([b_[:d], b_[2 * d:]])
        np.testing.assert_allclose(a, b_, rtol=rtol * 10, atol=rtol, err_msg=name)


def test_train_gpt_bad_arguments_exit_2():
    import subprocess
    env = dict(os.environ, TC_LIBRARY=tc.library_path)
    script = os.path.join(REPO, "examples", "train_gpt.py")
    for args in (["--steps", "0"], ["--heads", "3"], ["--bogus"], ["--lr", "x"]):
        res = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, env=env, timeout=120)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert "usage:" in res.stderr


def test_train_gpt_runs_end_to_end_on_a_tiny_model():
    import re
    import subprocess
    env = dict(os.environ, TC_LIBRARY=tc.library_path)
    script = os.path.join(REPO, "examples", "train_gpt.py")
    res = subprocess.run([sys.executable, script, "--steps", "4", "--warmup", "1", "--eval-every", "2",
                          "--eval-iters", "1", "--final-eval-iters", "2", "--sample", "30", "--layers", "1",
                          "--d", "16", "--heads", "2", "--context", "8", "--batch", "2", "--threads", "1",
                          "--max-val-loss", "10"], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert re.search(r"step +4/4  train_loss [\d.]+  val_loss [\d.]+", res.stdout), res.stdout
    assert re.search(r"final val_loss [\d.]+ \(2 batches\) after 4 steps", res.stdout), res.stdout
    sample = res.stdout.split("---- sample ----\n")[1].split("\n----------------")[0]
    assert len(sample) == 30
