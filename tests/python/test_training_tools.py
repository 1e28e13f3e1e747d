"""tc.nn containers, attention and transformer modules, tc.nn.utils,
tc.optim (RMSprop, Adagrad), tc.optim.lr_scheduler and tc.utils.data against
torch 1.13: the same weights give the same outputs, gradients, optimizer
steps and learning-rate sequences."""
import math

import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F
from tc.utils.data import DataLoader, Dataset, Subset, TensorDataset, default_collate, random_split

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def load_from_torch(m_tc, m_th):
    """Copies a torch module's state dict into the tc module (names must match)."""
    sd = {k: tc.tensor(v.detach().numpy()) for k, v in m_th.state_dict().items()}
    res = m_tc.load_state_dict(sd)
    assert not res.missing_keys and not res.unexpected_keys


def close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol)


# ---------------------------------------------------------------- containers
def test_module_dict_parameter_list_and_dict_names_match_torch():
    class Tc(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"a": nn.Linear(2, 3), "b": nn.Linear(3, 1)})
            self.plist = nn.ParameterList([nn.Parameter(tc.zeros(2)), tc.ones(3)])
            self.pdict = nn.ParameterDict({"scale": nn.Parameter(tc.ones(1))})

    class Th(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = torch.nn.ModuleDict({"a": torch.nn.Linear(2, 3), "b": torch.nn.Linear(3, 1)})
            self.plist = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2)), torch.ones(3)])
            self.pdict = torch.nn.ParameterDict({"scale": torch.nn.Parameter(torch.ones(1))})

    a, b = Tc(), Th()
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    assert list(a.state_dict()) == list(b.state_dict())
    load_from_torch(a, b)
    assert len(a.heads) == 2 and "a" in a.heads and list(a.heads.keys()) == ["a", "b"]
    assert len(a.plist) == 2 and isinstance(a.plist[1], nn.Parameter) and a.plist[-1].requires_grad
    a.plist.append(tc.zeros(4))
    assert "plist.2" in dict(a.named_parameters())
    a.pdict["bias"] = tc.zeros(2)
    assert "pdict.bias" in dict(a.named_parameters())
    del a.pdict["bias"]
    assert "pdict.bias" not in dict(a.named_parameters())
    assert len(list(a.parameters())) == 8  # heads 4, plist 3, pdict 1


# ---------------------------------------------------------------- nn.utils
def test_parameters_to_vector_and_back():
    m = nn.Linear(3, 2)
    v = nn.utils.parameters_to_vector(m.parameters())
    assert tuple(v.shape) == (8,)
    close(v[:6], m.weight.reshape(-1))
    nn.utils.vector_to_parameters(tc.arange(8, dtype="float32"), m.parameters())
    assert m.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.tolist() == [6.0, 7.0]
    with pytest.raises(RuntimeError):
        nn.utils.vector_to_parameters(tc.zeros(7), m.parameters())


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(norm_type):
    g = np.random.default_rng(3).standard_normal((2, 5)) * 3
    a, b = tc.tensor(np.zeros((2, 5)), requires_grad=True), torch.zeros(2, 5, dtype=torch.float64,
                                                                         requires_grad=True)
    (a * tc.tensor(g)).sum().backward()
    (b * torch.tensor(g)).sum().backward()
    n1 = nn.utils.clip_grad_norm_([a], 1.5, norm_type)
    n2 = torch.nn.utils.clip_grad_norm_([b], 1.5, norm_type)
    assert abs(n1.item() - n2.item()) < 1e-9
    close(a.grad, b.grad, rtol=1e-12)
    nn.utils.clip_grad_value_([a], 0.1)
    torch.nn.utils.clip_grad_value_([b], 0.1)
    close(a.grad, b.grad, rtol=1e-12)


# ---------------------------------------------------------------- attention
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("kv_dims", [None, (5, 7)], ids=["same", "kdim_vdim"])
def test_multihead_attention_matches_torch(batch_first, kv_dims):
    torch.manual_seed(0)
    kdim, vdim = kv_dims or (None, None)
    th = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, kdim=kdim, vdim=vdim).double()
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first, kdim=kdim, vdim=vdim)
    assert sorted(m.state_dict()) == sorted(th.state_dict())
    m.to(tc.float64)
    load_from_torch(m, th)
    r = np.random.default_rng(1)
    n, L, S = 3, 4, 5
    q = r.standard_normal((n, L, 8) if batch_first else (L, n, 8))
    k = r.standard_normal((n, S, kdim or 8) if batch_first else (S, n, kdim or 8))
    v = r.standard_normal((n, S, vdim or 8) if batch_first else (S, n, vdim or 8))
    kpm = np.zeros((n, S), dtype=bool)
    kpm[0, -2:] = True
    attn_mask = np.triu(np.ones((L, S), dtype=bool), 2)
    for need_weights in (True, False):
        qt, kt, vt = (tc.tensor(x, requires_grad=True) for x in (q, k, v))
        qh, kh, vh = (torch.tensor(x, requires_grad=True) for x in (q, k, v))
        out, w = m(qt, kt, vt, key_padding_mask=tc.tensor(kpm), need_weights=need_weights,
                   attn_mask=tc.tensor(attn_mask))
        out_h, w_h = th(qh, kh, vh, key_padding_mask=torch.tensor(kpm), need_weights=need_weights,
                        attn_mask=torch.tensor(attn_mask))
        close(out, out_h)
        if need_weights:
            close(w, w_h)
        else:
            assert w is None
        gout = r.standard_normal(tuple(out_h.shape))
        out.backward(tc.tensor(gout))
        out_h.backward(torch.tensor(gout))
        for a, b in zip((qt, kt, vt), (qh, kh, vh)):
            close(a.grad, b.grad)


def test_multihead_attention_unbatched_float_mask_and_per_head_weights():
    torch.manual_seed(1)
    th = torch.nn.MultiheadAttention(6, 3).double()
    m = nn.MultiheadAttention(6, 3)
    m.to(tc.float64)
    load_from_torch(m, th)
    r = np.random.default_rng(2)
    x = r.standard_normal((4, 6))
    fmask = r.standard_normal((4, 4))
    out, w = m(tc.tensor(x), tc.tensor(x), tc.tensor(x), attn_mask=tc.tensor(fmask))
    out_h, w_h = th(torch.tensor(x), torch.tensor(x), torch.tensor(x), attn_mask=torch.tensor(fmask))
    close(out, out_h)
    close(w, w_h)
    xb = r.standard_normal((4, 2, 6))
    _, w = m(tc.tensor(xb), tc.tensor(xb), tc.tensor(xb), average_attn_weights=False)
    _, w_h = th(torch.tensor(xb), torch.tensor(xb), torch.tensor(xb), average_attn_weights=False)
    close(w, w_h)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_encoder_matches_torch(norm_first, activation):
    torch.manual_seed(2)
    layer_h = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation=activation,
                                               batch_first=True, norm_first=norm_first)
    enc_h = torch.nn.TransformerEncoder(layer_h, 2, norm=torch.nn.LayerNorm(8), enable_nested_tensor=False).double()
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, activation=activation,
                                       batch_first=True, norm_first=norm_first)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8))
    enc.to(tc.float64)
    assert sorted(enc.state_dict()) == sorted(enc_h.state_dict())
    load_from_torch(enc, enc_h)
    # The copies are independent: changing one layer leaves the other alone.
    assert enc.layers[0].linear1.weight._h != enc.layers[1].linear1.weight._h
    r = np.random.default_rng(3)
    x = r.standard_normal((2, 5, 8))
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[1, 3:] = True
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    xt, xh = tc.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    enc.train()
    enc_h.train()  # dropout 0: the slow path in torch, same math
    y = enc(xt, mask=tc.tensor(mask), src_key_padding_mask=tc.tensor(kpm))
    yh = enc_h(xh, mask=torch.tensor(mask), src_key_padding_mask=torch.tensor(kpm))
    close(y, yh)
    y.sum().backward()
    yh.sum().backward()
    close(xt.grad, xh.grad)
    grads = dict(enc.named_parameters())
    for name, p in enc_h.named_parameters():
        close(grads[name].grad, p.grad, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- optimizers
def _run_optimizer(make_tc, make_th, steps=5, groups=False):
    r = np.random.default_rng(4)
    w0, b0 = r.standard_normal((3, 4)), r.standard_normal(3)
    x, y = r.standard_normal((6, 4)), r.standard_normal((6, 3))
    wt, bt = tc.tensor(w0, requires_grad=True), tc.tensor(b0, requires_grad=True)
    wh, bh = torch.tensor(w0, requires_grad=True), torch.tensor(b0, requires_grad=True)
    opt = make_tc([{"params": [wt]}, {"params": [bt], "lr": 0.05}] if groups else [wt, bt])
    opt_h = make_th([{"params": [wh]}, {"params": [bh], "lr": 0.05}] if groups else [wh, bh])
    for _ in range(steps):
        opt.zero_grad()
        opt_h.zero_grad()
        F.mse_loss(F.linear(tc.tensor(x), wt, bt), tc.tensor(y)).backward()
        torch.nn.functional.mse_loss(torch.nn.functional.linear(torch.tensor(x), wh, bh), torch.tensor(y)).backward()
        opt.step()
        opt_h.step()
        close(wt, wh, rtol=1e-10, atol=1e-12)
        close(bt, bh, rtol=1e-10, atol=1e-12)
    return opt, opt_h


@pytest.mark.parametrize("kw", [{}, {"momentum": 0.9}, {"centered": True}, {"momentum": 0.5, "centered": True,
                                                                            "weight_decay": 0.1, "alpha": 0.9}],
                         ids=str)
def test_rmsprop_matches_torch(kw):
    opt, opt_h = _run_optimizer(lambda p: tc.optim.RMSprop(p, lr=0.01, **kw),
                                lambda p: torch.optim.RMSprop(p, lr=0.01, **kw))
    sd, sd_h = opt.state_dict(), opt_h.state_dict()
    assert set(sd["state"][0]) == set(sd_h["state"][0])
    close(sd["state"][0]["square_avg"], sd_h["state"][0]["square_avg"], rtol=1e-10)


@pytest.mark.parametrize("kw", [{}, {"lr_decay": 0.1}, {"weight_decay": 0.2, "initial_accumulator_value": 0.5}],
                         ids=str)
def test_adagrad_matches_torch(kw):
    opt, opt_h = _run_optimizer(lambda p: tc.optim.Adagrad(p, lr=0.1, **kw),
                                lambda p: torch.optim.Adagrad(p, lr=0.1, **kw), groups=True)
    close(opt.state_dict()["state"][1]["sum"], opt_h.state_dict()["state"][1]["sum"], rtol=1e-10)


def test_rmsprop_adagrad_state_dicts_round_trip():
    for make in (lambda p: tc.optim.RMSprop(p, lr=0.01, momentum=0.9, centered=True),
                 lambda p: tc.optim.Adagrad(p, lr=0.1, lr_decay=0.01)):
        w = tc.tensor([1.0, -2.0], requires_grad=True)
        opt = make([w])
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        sd = opt.state_dict()
        w2 = tc.tensor(w.tolist(), requires_grad=True)
        opt2 = make([w2])
        opt2.load_state_dict(sd)
        for o, p in ((opt, w), (opt2, w2)):
            o.zero_grad()
            (p * p).sum().backward()
            o.step()
        assert w.tolist() == w2.tolist()
    with pytest.raises(ValueError):
        tc.optim.RMSprop([tc.zeros(1, requires_grad=True)], lr=-1.0)


# ---------------------------------------------------------------- schedulers
def _lrs(make_sched, opt, n=11):  # OneCycleLR: total_steps 12, steps 0..11
    s = make_sched(opt)
    out = []
    for _ in range(n):
        out.append(list(s.get_last_lr()))
        opt.step()
        s.step()
    return out


@pytest.mark.parametrize("name, kw", [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=12)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], epochs=3, steps_per_epoch=4, anneal_strategy="linear",
                        three_phase=True)),
], ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("optim", ["SGD", "Adam"])
def test_schedulers_match_torch(name, kw, optim):
    opt_kw = {"momentum": 0.9} if optim == "SGD" else {}
    w, wh = tc.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    b, bh = tc.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = getattr(tc.optim, optim)([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, **opt_kw)
    opt_h = getattr(torch.optim, optim)([{"params": [wh]}, {"params": [bh], "lr": 0.01}], lr=0.1, **opt_kw)
    got = _lrs(lambda o: getattr(tc.optim.lr_scheduler, name)(o, **kw), opt)
    want = _lrs(lambda o: getattr(torch.optim.lr_scheduler, name)(o, **kw), opt_h)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if name == "OneCycleLR":  # momentum (or beta1) cycles too, in the C optimizer's own state
        key = "momentum" if optim == "SGD" else "betas"
        assert opt.param_groups[0][key] == pytest.approx(opt_h.param_groups[0][key])
        c_names = opt.state_dict()["param_groups"][0]
        assert c_names[key] == pytest.approx(opt_h.param_groups[0][key])


def test_one_cycle_lr_errors_as_torch():
    opt = tc.optim.SGD([tc.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="total_steps"):
        tc.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    s = tc.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 4 times"):  # torch counts the first step too
        s.step()


def test_step_lr_closed_form_epoch():
    opt = tc.optim.SGD([tc.zeros(1, requires_grad=True)], lr=1.0)
    s = tc.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    s.step(5)
    assert s.get_last_lr() == pytest.approx([0.01])


# ---------------------------------------------------------------- data
def test_tensor_dataset_and_dataloader_batches_like_torch():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10, dtype=np.int64)
    ds = TensorDataset(tc.tensor(x), tc.tensor(y))
    ds_h = torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(y))
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)):
        got = list(DataLoader(ds, **kw))
        want = list(torch.utils.data.DataLoader(ds_h, **kw))
        assert len(got) == len(want) == len(DataLoader(ds, **kw))
        for a, b in zip(got, want):
            for u, v in zip(a, b):
                np.testing.assert_array_equal(to_np(u), v.numpy())
                assert u.dtype.name == str(v.dtype).replace("torch.", "")


def test_dataloader_shuffle_is_a_permutation_reproducible_by_seed():
    ds = TensorDataset(tc.arange(17, dtype="int64"))
    tc.manual_seed(5)
    first = [int(v) for (b,) in DataLoader(ds, batch_size=4, shuffle=True) for v in b.tolist()]
    tc.manual_seed(5)
    again = [int(v) for (b,) in DataLoader(ds, batch_size=4, shuffle=True) for v in b.tolist()]
    assert sorted(first) == list(range(17)) and first == again and first != list(range(17))
    g = tc.Generator().manual_seed(11)
    a = [int(v) for (b,) in DataLoader(ds, batch_size=5, shuffle=True, generator=g) for v in b.tolist()]
    state = tc.get_rng_state()
    g.manual_seed(11)
    b = [int(v) for (b,) in DataLoader(ds, batch_size=5, shuffle=True, generator=g) for v in b.tolist()]
    assert a == b and sorted(a) == list(range(17))
    assert tc.get_rng_state().tolist() == state.tolist()  # a given generator leaves the default one alone


def test_default_collate_matches_torch():
    samples = [{"x": np.float32(i), "n": i, "f": float(i) / 2, "b": i % 2 == 0, "s": "s%d" % i,
                "pair": (i, [float(i), 2.0])} for i in range(3)]
    tc_samples = [dict(s, x=tc.tensor([s["x"], 1.0])) for s in samples]
    th_samples = [dict(s, x=torch.tensor([s["x"], 1.0])) for s in samples]
    got, want = default_collate(tc_samples), torch.utils.data.default_collate(th_samples)
    assert set(got) == set(want)
    for k in ("x", "n", "f", "b"):
        np.testing.assert_array_equal(to_np(got[k]), want[k].numpy())
        assert got[k].dtype.name == str(want[k].dtype).replace("torch.", ""), k
    assert got["s"] == want["s"]
    np.testing.assert_array_equal(to_np(got["pair"][0]), want["pair"][0].numpy())
    np.testing.assert_array_equal(to_np(got["pair"][1][0]), want["pair"][1][0].numpy())
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [1]])


def test_custom_dataset_collate_fn_subset_and_random_split():
    class Squares(Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return i * i

    ds = Squares()
    assert [b.tolist() for b in DataLoader(ds, batch_size=4)] == [[0, 1, 4, 9], [16, 25, 36, 49], [64, 81]]
    assert list(DataLoader(ds, batch_size=5, collate_fn=sum)) == [30, 255]
    assert [Subset(ds, [3, 1])[i] for i in range(2)] == [9, 1]
    parts = random_split(ds, [3, 7], generator=tc.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    fr = random_split(ds, [0.34, 0.33, 0.33])
    assert [len(p) for p in fr] == [len(p) for p in torch.utils.data.random_split(range(10), [0.34, 0.33, 0.33])]
    with pytest.raises(ValueError):
        random_split(ds, [3, 3])
