"""nn.MultiheadAttention (every option), F.multi_head_attention_forward, the
transformer encoder/decoder layers and stacks and nn.Transformer against
torch 1.13: torch's state_dict loads strictly into the tc module, then the
outputs, attention weights and gradients (inputs and parameters, float64)
agree; constructor and forward errors have torch's types; and the
word_language_model example's Transformer trains like torch step by step."""
import importlib.util
import os

import pytest

import tc
import tc.nn as nn
import tc.nn.functional as F
from conftest import REPO

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


# ---------------------------------------------------------------- helpers
def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def close(a, b, rtol=1e-9, atol=1e-11, what=""):
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol, err_msg=what)


def twin(make_th, make_tc, seed=0):
    """A float64 torch module and the tc module holding its weights (strict load)."""
    torch.manual_seed(seed)
    th = make_th().double()
    m = make_tc()
    assert list(m.state_dict()) == list(th.state_dict())  # the same keys in the same order
    m.to(tc.float64)
    m.load_state_dict({k: tc.tensor(v.detach().numpy()) for k, v in th.state_dict().items()}, strict=True)
    return th, m


def pair(a, grad=True):
    """The same array as a torch and a tc tensor (float64 leaves requiring grad; bools as they are)."""
    if a.dtype == bool:
        return torch.tensor(a), tc.tensor(a)
    return torch.tensor(a, requires_grad=grad), tc.tensor(a, requires_grad=grad)


def compare_grads(th, m, ths, tcs, rtol=1e-8, atol=1e-10):
    for a, b in zip(ths, tcs):
        if a.grad is None:
            assert b.grad is None
        else:
            close(b.grad, a.grad, rtol, atol, "input grad")
    grads = dict(m.named_parameters())
    for name, p in th.named_parameters():
        if p.grad is None:
            assert grads[name].grad is None or not np.any(to_np(grads[name].grad)), name
        else:
            close(grads[name].grad, p.grad, rtol, atol, name)


R = np.random.default_rng(7)


def rand(*shape):
    return R.standard_normal(shape)


# ---------------------------------------------------------------- MultiheadAttention
MHA_CONFIGS = {
    "plain": dict(),
    "no_bias": dict(bias=False),
    "bias_kv": dict(add_bias_kv=True),
    "zero_attn": dict(add_zero_attn=True),
    "bias_kv_zero_attn_kvdim": dict(add_bias_kv=True, add_zero_attn=True, kdim=5, vdim=3),
    "kvdim": dict(kdim=5, vdim=7),
    "kdim_only_no_bias": dict(kdim=6, bias=False),
}


@pytest.mark.parametrize("config", sorted(MHA_CONFIGS))
def test_mha_state_dict_keys_and_shapes_match_torch(config):
    th = torch.nn.MultiheadAttention(8, 2, **MHA_CONFIGS[config])
    m = nn.MultiheadAttention(8, 2, **MHA_CONFIGS[config])
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in th.state_dict().items()]
    assert m._qkv_same_embed_dim == th._qkv_same_embed_dim
    for name in ("in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias",
                 "bias_k", "bias_v"):
        assert (getattr(m, name) is None) == (getattr(th, name) is None), name
    # torch's initialization: zero biases, Xavier bounds.
    if m.in_proj_bias is not None:
        assert not np.any(to_np(m.in_proj_bias)) and not np.any(to_np(m.out_proj.bias))
    w = m.in_proj_weight if m.in_proj_weight is not None else m.q_proj_weight
    bound = np.sqrt(6.0 / (w.shape[0] + w.shape[1]))
    assert np.abs(to_np(w)).max() <= bound and np.abs(to_np(w)).max() > bound / 2


def _mask(kind, shape):
    if kind == "bool":
        m = R.random(shape) < 0.3
        m[..., 0] = False  # no row fully masked
        return m
    if kind == "float":
        m = R.standard_normal(shape)
        m[R.random(shape) < 0.2] = -np.inf
        m[..., 0] = 0.0
        return m
    return None


@pytest.mark.parametrize("config,batch_first,attn_kind,attn_3d,kpm_kind", [
    ("plain", False, None, False, None),
    ("plain", True, "bool", False, "bool"),
    ("plain", False, "float", True, "bool"),
    ("plain", True, "bool", True, "float"),
    ("plain", False, None, False, "float"),
    ("no_bias", True, "float", False, None),
    ("bias_kv", False, "bool", False, "bool"),
    ("bias_kv", True, "float", True, None),
    ("zero_attn", False, "float", False, "bool"),
    ("bias_kv_zero_attn_kvdim", True, "bool", True, "bool"),
    ("kvdim", False, "float", False, "bool"),
    ("kdim_only_no_bias", True, None, False, "bool"),
], ids=str)
def test_mha_matches_torch(config, batch_first, attn_kind, attn_3d, kpm_kind):
    cfg = MHA_CONFIGS[config]
    e, h, n, L, S = 8, 2, 3, 4, 5
    th, m = twin(lambda: torch.nn.MultiheadAttention(e, h, batch_first=batch_first, **cfg),
                 lambda: nn.MultiheadAttention(e, h, batch_first=batch_first, **cfg))
    kdim, vdim = cfg.get("kdim", e), cfg.get("vdim", e)

    def lay(l_, d):
        return (n, l_, d) if batch_first else (l_, n, d)
    q, k, v = rand(*lay(L, e)), rand(*lay(S, kdim)), rand(*lay(S, vdim))
    attn = _mask(attn_kind, (n * h, L, S) if attn_3d else (L, S))
    kpm = _mask(kpm_kind, (n, S))
    for need_weights, average in ((True, True), (True, False), (False, True)):
        qh, qt = pair(q)
        kh, kt = pair(k)
        vh, vt = pair(v)
        masks_h = {"attn_mask": None if attn is None else torch.tensor(attn),
                   "key_padding_mask": None if kpm is None else torch.tensor(kpm)}
        masks_t = {"attn_mask": None if attn is None else tc.tensor(attn),
                   "key_padding_mask": None if kpm is None else tc.tensor(kpm)}
        out_h, w_h = th(qh, kh, vh, need_weights=need_weights, average_attn_weights=average, **masks_h)
        out_t, w_t = m(qt, kt, vt, need_weights=need_weights, average_attn_weights=average, **masks_t)
        assert tuple(out_t.shape) == tuple(out_h.shape)
        close(out_t, out_h)
        if need_weights:
            assert tuple(w_t.shape) == tuple(w_h.shape)
            close(w_t, w_h)
        else:
            assert w_t is None
        g = rand(*out_h.shape)
        th.zero_grad()
        m.zero_grad()
        out_h.backward(torch.tensor(g))
        out_t.backward(tc.tensor(g))
        compare_grads(th, m, (qh, kh, vh), (qt, kt, vt))


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("sharing", ["self", "kv"])
def test_mha_packed_projection_paths_match_torch(batch_first, sharing):
    """query is key is value (one projection) and key is value (two): same values and gradients."""
    th, m = twin(lambda: torch.nn.MultiheadAttention(6, 3, batch_first=batch_first),
                 lambda: nn.MultiheadAttention(6, 3, batch_first=batch_first), seed=1)
    x, y = rand(2, 5, 6), rand(2, 4, 6)
    if not batch_first:
        x, y = x.transpose(1, 0, 2).copy(), y.transpose(1, 0, 2).copy()
    xh, xt = pair(x)
    yh, yt = pair(y)
    causal = np.triu(np.ones((x.shape[1 if batch_first else 0],) * 2, dtype=bool), 1)
    if sharing == "self":
        out_h = th(xh, xh, xh, attn_mask=torch.tensor(causal))[0]
        out_t = m(xt, xt, xt, attn_mask=tc.tensor(causal))[0]
    else:
        out_h = th(yh, xh, xh)[0]
        out_t = m(yt, xt, xt)[0]
    close(out_t, out_h)
    (out_h * out_h).sum().backward()
    (out_t * out_t).sum().backward()
    compare_grads(th, m, (xh, yh), (xt, yt))


@pytest.mark.parametrize("attn_3d", [False, True])
def test_mha_unbatched_matches_torch(attn_3d):
    th, m = twin(lambda: torch.nn.MultiheadAttention(6, 3, add_bias_kv=True, batch_first=True),
                 lambda: nn.MultiheadAttention(6, 3, add_bias_kv=True, batch_first=True), seed=2)
    q, k = rand(4, 6), rand(5, 6)
    attn = _mask("float", (3, 4, 5) if attn_3d else (4, 5))
    kpm = _mask("bool", (5,))
    qh, qt = pair(q)
    kh, kt = pair(k)
    for average in (True, False):
        out_h, w_h = th(qh, kh, kh, key_padding_mask=torch.tensor(kpm), attn_mask=torch.tensor(attn),
                        average_attn_weights=average)
        out_t, w_t = m(qt, kt, kt, key_padding_mask=tc.tensor(kpm), attn_mask=tc.tensor(attn),
                       average_attn_weights=average)
        assert tuple(out_t.shape) == (4, 6) and tuple(w_t.shape) == tuple(w_h.shape)
        close(out_t, out_h)
        close(w_t, w_h)
    out_h.sum().backward()
    out_t.sum().backward()
    compare_grads(th, m, (qh, kh), (qt, kt))


def test_mha_float_attn_mask_plus_float_key_padding_mask_are_added():
    """Documented: a float key_padding_mask is added. torch 1.13 drops it when
    attn_mask is float too (masked_fill with a float mask fills nothing), so the
    reference is torch given the sum as one 3-D attn_mask."""
    th, m = twin(lambda: torch.nn.MultiheadAttention(6, 2), lambda: nn.MultiheadAttention(6, 2), seed=8)
    n, L, S = 2, 3, 4
    q, k = rand(L, n, 6), rand(S, n, 6)
    attn, kpm = rand(L, S), _mask("float", (n, S))
    merged = np.stack([attn + kpm[b] for b in range(n) for _ in range(2)])
    out_h, w_h = th(torch.tensor(q), torch.tensor(k), torch.tensor(k), attn_mask=torch.tensor(merged))
    out_t, w_t = m(tc.tensor(q), tc.tensor(k), tc.tensor(k), attn_mask=tc.tensor(attn),
                   key_padding_mask=tc.tensor(kpm))
    close(out_t, out_h)
    close(w_t, w_h)


def test_mha_float32_and_dtype_argument():
    torch.manual_seed(3)
    th = torch.nn.MultiheadAttention(8, 4, kdim=3, vdim=5)
    m = nn.MultiheadAttention(8, 4, kdim=3, vdim=5)
    m.load_state_dict({k: tc.tensor(v.numpy()) for k, v in th.state_dict().items()})
    q, k, v = (rand(*s).astype(np.float32) for s in ((4, 2, 8), (6, 2, 3), (6, 2, 5)))
    out_h, w_h = th(torch.tensor(q), torch.tensor(k), torch.tensor(v))
    out_t, w_t = m(tc.tensor(q), tc.tensor(k), tc.tensor(v))
    assert out_t.dtype == tc.float32
    close(out_t, out_h, rtol=1e-5, atol=1e-6)
    close(w_t, w_h, rtol=1e-5, atol=1e-6)
    m64 = nn.MultiheadAttention(8, 4, add_bias_kv=True, dtype=tc.float64)
    assert {p.dtype for p in m64.parameters()} == {tc.float64}


def test_mha_dropout_only_while_training():
    tc.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = tc.tensor(rand(5, 3, 8).astype(np.float32))
    m.eval()
    a, b = m(x, x, x)[0], m(x, x, x)[0]
    assert a.tolist() == b.tolist()
    m.train()
    for need_weights in (True, False):
        c, w = m(x, x, x, need_weights=need_weights)
        assert not np.allclose(to_np(c), to_np(a))
    # The returned per-head weights are the dropped-out ones: some are zeros.
    w = m(x, x, x, average_attn_weights=False)[1]
    assert np.any(to_np(w) == 0.0)


def test_multi_head_attention_forward_matches_torch_with_static_kv():
    TF = torch.nn.functional
    e, h, n, L, S = 8, 2, 3, 4, 6
    arrays = dict(w_in=rand(3 * e, e), b_in=rand(3 * e), w_out=rand(e, e), b_out=rand(e),
                  q=rand(L, n, e), k=rand(S, n, e), sk=rand(n * h, S, e // h), sv=rand(n * h, S, e // h))
    hs = {k_: pair(v_) for k_, v_ in arrays.items()}
    th_ = {k_: v_[0] for k_, v_ in hs.items()}
    tc_ = {k_: v_[1] for k_, v_ in hs.items()}
    kpm = _mask("bool", (n, S))
    out_h, w_h = TF.multi_head_attention_forward(
        th_["q"], th_["k"], th_["k"], e, h, th_["w_in"], th_["b_in"], None, None, False, 0.0, th_["w_out"],
        th_["b_out"], key_padding_mask=torch.tensor(kpm), static_k=th_["sk"], static_v=th_["sv"])
    out_t, w_t = F.multi_head_attention_forward(
        tc_["q"], tc_["k"], tc_["k"], e, h, tc_["w_in"], tc_["b_in"], None, None, False, 0.0, tc_["w_out"],
        tc_["b_out"], key_padding_mask=tc.tensor(kpm), static_k=tc_["sk"], static_v=tc_["sv"])
    close(out_t, out_h)
    close(w_t, w_h)
    (out_h.sum() + w_h.pow(2).sum()).backward()
    (out_t.sum() + w_t.pow(2).sum()).backward()
    for name in arrays:
        if th_[name].grad is not None:
            close(tc_[name].grad, th_[name].grad, 1e-8, 1e-10, name)


def _errors(fn_th, fn_tc):
    """Runs both; both must raise, the same exception type; returns tc's exception."""
    with pytest.raises(Exception) as eh:
        fn_th()
    with pytest.raises(Exception) as et:
        fn_tc()
    assert type(et.value) is type(eh.value), (et.value, eh.value)
    return et.value


def test_mha_constructor_errors_match_torch():
    e = _errors(lambda: torch.nn.MultiheadAttention(10, 3), lambda: nn.MultiheadAttention(10, 3))
    assert isinstance(e, AssertionError) and "divisible" in str(e)


@pytest.mark.parametrize("case", ["attn_2d_shape", "attn_3d_shape", "attn_4d", "attn_int", "kpm_int",
                                  "kpm_shape", "kpm_rank", "query_4d", "key_rank",
                                  "embed_dim", "kv_shape"])
def test_mha_forward_errors_match_torch(case):
    e, h, n, L, S = 8, 2, 3, 4, 5
    q, k = rand(L, n, e), rand(S, n, e)
    kw = {}
    args = [q, k, k]
    if case == "attn_2d_shape":
        kw["attn_mask"] = np.zeros((L, S + 1), dtype=bool)
    elif case == "attn_3d_shape":
        kw["attn_mask"] = np.zeros((n, L, S))
    elif case == "attn_4d":
        kw["attn_mask"] = np.zeros((1, n * h, L, S))
    elif case == "attn_int":
        kw["attn_mask"] = np.zeros((L, S), dtype=np.int64)
    elif case == "kpm_int":
        kw["key_padding_mask"] = np.zeros((n, S), dtype=np.int64)
    elif case == "kpm_shape":
        kw["key_padding_mask"] = np.zeros((n, S + 1), dtype=bool)
    elif case == "kpm_rank":
        kw["key_padding_mask"] = np.zeros((n, 1, S), dtype=bool)
    elif case == "query_4d":
        args = [q[None], k[None], k[None]]
    elif case == "key_rank":
        args = [q, k[:, 0], k[:, 0]]
    elif case == "embed_dim":
        args = [rand(L, n, e + 2), k, k]
    elif case == "kv_shape":
        args = [q, k, rand(S + 1, n, e)]
    torch.manual_seed(0)
    th = torch.nn.MultiheadAttention(e, h).double()
    m = nn.MultiheadAttention(e, h)
    m.to(tc.float64)
    err = _errors(lambda: th(*[torch.tensor(a) for a in args], **{k_: torch.tensor(v) for k_, v in kw.items()}),
                  lambda: m(*[tc.tensor(a) for a in args], **{k_: tc.tensor(v) for k_, v in kw.items()}))
    if case == "attn_2d_shape":
        assert "(4, 6)" in str(err).replace("[", "(").replace("]", ")") and "(4, 5)" in str(err)


# ---------------------------------------------------------------- transformer layers and stacks
def _layer_pair(kind, seed=0, **kw):
    th_cls, tc_cls = getattr(torch.nn, kind), getattr(nn, kind)
    kw_th = dict(kw)
    if callable(kw.get("activation")):
        kw_th["activation"] = torch.nn.functional.gelu if kw["activation"] is F.gelu else torch.tanh
    return twin(lambda: th_cls(8, 2, dim_feedforward=12, dropout=0.0, **kw_th),
                lambda: tc_cls(8, 2, dim_feedforward=12, dropout=0.0, **kw), seed=seed)


def _tanh(x):
    return x.tanh()


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation,batch_first", [("relu", False), ("gelu", True), (F.gelu, False),
                                                    (_tanh, True)], ids=["relu", "gelu", "F.gelu", "tanh"])
def test_encoder_layer_matches_torch(norm_first, activation, batch_first):
    th, m = _layer_pair("TransformerEncoderLayer", activation=activation, batch_first=batch_first,
                        norm_first=norm_first, layer_norm_eps=1e-4)
    n, s = 2, 5
    x = rand(n, s, 8) if batch_first else rand(s, n, 8)
    mask = _mask("float", (s, s))
    kpm = _mask("bool", (n, s))
    xh, xt = pair(x)
    for mode in ("train", "eval"):
        getattr(th, mode)()
        getattr(m, mode)()
        yh = th(xh, src_mask=torch.tensor(mask), src_key_padding_mask=torch.tensor(kpm))
        yt = m(xt, src_mask=tc.tensor(mask), src_key_padding_mask=tc.tensor(kpm))
        close(yt, yh)
    th.zero_grad()
    m.zero_grad()
    (yh * yh).sum().backward()
    (yt * yt).sum().backward()
    compare_grads(th, m, (xh,), (xt,))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_matches_torch(norm_first, batch_first):
    th, m = _layer_pair("TransformerDecoderLayer", seed=1, activation="gelu", batch_first=batch_first,
                        norm_first=norm_first)
    n, t, s = 3, 4, 6

    def lay(l_):
        return rand(n, l_, 8) if batch_first else rand(l_, n, 8)
    (th_t, tc_t), (th_m, tc_m) = pair(lay(t)), pair(lay(s))
    masks = dict(tgt_mask=np.triu(np.full((t, t), -np.inf), 1), memory_mask=_mask("bool", (n * 2, t, s)),
                 tgt_key_padding_mask=_mask("bool", (n, t)), memory_key_padding_mask=_mask("float", (n, s)))
    yh = th(th_t, th_m, **{k: torch.tensor(v) for k, v in masks.items()})
    yt = m(tc_t, tc_m, **{k: tc.tensor(v) for k, v in masks.items()})
    close(yt, yh)
    (yh.pow(3)).sum().backward()
    (yt.pow(3)).sum().backward()
    compare_grads(th, m, (th_t, th_m), (tc_t, tc_m))


def test_unbatched_layers_match_torch():
    th, m = _layer_pair("TransformerDecoderLayer", seed=2)
    the, me = _layer_pair("TransformerEncoderLayer", seed=3)
    (xh, xt), (mh, mt) = pair(rand(4, 8)), pair(rand(5, 8))
    kpm = _mask("bool", (5,))
    close(me(mt, src_key_padding_mask=tc.tensor(kpm)), the(mh, src_key_padding_mask=torch.tensor(kpm)))
    yh = th(xh, mh, memory_key_padding_mask=torch.tensor(kpm))
    yt = m(xt, mt, memory_key_padding_mask=tc.tensor(kpm))
    assert tuple(yt.shape) == (4, 8)
    close(yt, yh)


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_and_decoder_stacks_match_torch(batch_first):
    def make(lib):
        enc_layer = lib.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=batch_first)
        dec_layer = lib.TransformerDecoderLayer(8, 2, 16, 0.0, batch_first=batch_first, norm_first=True)
        enc = lib.TransformerEncoder(enc_layer, 2, norm=lib.LayerNorm(8), enable_nested_tensor=False)
        dec = lib.TransformerDecoder(dec_layer, 3, norm=lib.LayerNorm(8))
        return lib.ModuleList([enc, dec])
    th, m = twin(lambda: make(torch.nn), lambda: make(nn), seed=4)
    assert len(m[0].layers) == 2 and len(m[1].layers) == 3 and m[0].num_layers == 2
    # The copies are independent parameters.
    assert m[1].layers[0].linear1.weight is not m[1].layers[1].linear1.weight
    n, s, t = 2, 5, 3
    src = rand(n, s, 8) if batch_first else rand(s, n, 8)
    tgt = rand(n, t, 8) if batch_first else rand(t, n, 8)
    (sh, st), (gh, gt) = pair(src), pair(tgt)
    kpm = np.zeros((n, s), dtype=bool)
    kpm[1, 3:] = True
    memh = th[0](sh, mask=torch.tensor(np.triu(np.full((s, s), -np.inf), 1)),
                 src_key_padding_mask=torch.tensor(kpm))
    memt = m[0](st, mask=tc.tensor(np.triu(np.full((s, s), -np.inf), 1)), src_key_padding_mask=tc.tensor(kpm))
    close(memt, memh)
    yh = th[1](gh, memh, memory_key_padding_mask=torch.tensor(kpm))
    yt = m[1](gt, memt, memory_key_padding_mask=tc.tensor(kpm))
    close(yt, yh)
    (yh * yh).sum().backward()
    (yt * yt).sum().backward()
    compare_grads(th, m, (sh, gh), (st, gt))


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_encoder_eval_without_grad_zeroes_padding_like_torchs_nested_tensor_path():
    """torch's nested-tensor path (eval, no autograd, batch-first, padding mask
    only) leaves zeros at padded positions before the final norm; so does tc."""
    def make(lib, **kw):
        layer = lib.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True)
        return lib.TransformerEncoder(layer, 2, norm=lib.LayerNorm(8), **kw)
    for kw in ({}, {"enable_nested_tensor": False}):
        th, m = twin(lambda: make(torch.nn, **kw), lambda: make(nn, **kw), seed=5)
        th.eval()
        m.eval()
        x = rand(3, 6, 8)
        kpm = np.zeros((3, 6), dtype=bool)
        kpm[0, 4:] = True
        kpm[2, 1:] = True
        with torch.no_grad():
            yh = th(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
        with tc.no_grad():
            yt = m(tc.tensor(x), src_key_padding_mask=tc.tensor(kpm))
        close(yt, yh, rtol=1e-7, atol=1e-9)
        bias = to_np(m.norm.bias)
        padded_rows = to_np(yt)[kpm]
        assert np.allclose(padded_rows, bias) == (not kw)


@pytest.mark.parametrize("norm_first,batch_first", [(False, False), (True, True)])
def test_transformer_matches_torch(norm_first, batch_first):
    make = lambda lib: lib.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,  # noqa: E731
                                       dim_feedforward=16, dropout=0.0, activation="gelu",
                                       batch_first=batch_first, norm_first=norm_first)
    th, m = twin(lambda: make(torch.nn), lambda: make(nn), seed=6)
    n, s, t = 2, 5, 4
    src = rand(n, s, 8) if batch_first else rand(s, n, 8)
    tgt = rand(n, t, 8) if batch_first else rand(t, n, 8)
    (sh, st), (gh, gt) = pair(src), pair(tgt)
    causal_th = torch.nn.Transformer.generate_square_subsequent_mask(t).double()
    causal_tc = nn.Transformer.generate_square_subsequent_mask(t).to(tc.float64)
    kpm = _mask("bool", (n, s))
    tkpm = np.zeros((n, t), dtype=bool)
    tkpm[0, -1] = True
    mmask = rand(t, s)
    for mode in ("train", "eval"):
        getattr(th, mode)()
        getattr(m, mode)()
        yh = th(sh, gh, tgt_mask=causal_th, src_key_padding_mask=torch.tensor(kpm),
                memory_key_padding_mask=torch.tensor(kpm), tgt_key_padding_mask=torch.tensor(tkpm),
                memory_mask=torch.tensor(mmask))
        yt = m(st, gt, tgt_mask=causal_tc, src_key_padding_mask=tc.tensor(kpm),
               memory_key_padding_mask=tc.tensor(kpm), tgt_key_padding_mask=tc.tensor(tkpm),
               memory_mask=tc.tensor(mmask))
        close(yt, yh)
    (yh * yh).sum().backward()
    (yt * yt).sum().backward()
    compare_grads(th, m, (sh, gh), (st, gt))


def test_generate_square_subsequent_mask_matches_torch():
    for sz in (1, 4):
        a = nn.Transformer.generate_square_subsequent_mask(sz)
        b = torch.nn.Transformer.generate_square_subsequent_mask(sz)
        assert a.dtype == tc.float32 and tuple(a.shape) == (sz, sz)
        assert a.tolist() == b.tolist()


def test_transformer_custom_encoder_decoder_and_init():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1)
    model = nn.Transformer(d_model=8, nhead=2, custom_encoder=enc, custom_decoder=dec)
    assert model.encoder is enc and model.decoder is dec
    th = torch.nn.Transformer(d_model=8, nhead=2, custom_encoder=torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16), 1), custom_decoder=torch.nn.TransformerDecoder(
        torch.nn.TransformerDecoderLayer(8, 2, 16), 1))
    assert list(model.state_dict()) == list(th.state_dict())
    # _reset_parameters: Xavier-uniform for every matrix, the custom modules' too.
    w = model.encoder.layers[0].linear1.weight
    bound = np.sqrt(6.0 / (16 + 8))
    assert np.abs(to_np(w)).max() <= bound
    full = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16)
    th_full = torch.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2,
                                   dim_feedforward=16)
    assert list(full.state_dict()) == list(th_full.state_dict())
    assert full.d_model == 8 and full.nhead == 2 and full.batch_first is False


def test_transformer_forward_and_constructor_errors_match_torch():
    th = torch.nn.Transformer(8, 2, 1, 1, 16)
    m = nn.Transformer(8, 2, 1, 1, 16)
    x = rand(5, 2, 8).astype(np.float32)
    for src, tgt in ((x, rand(4, 3, 8).astype(np.float32)), (x, rand(4, 2, 6).astype(np.float32))):
        e = _errors(lambda: th(torch.tensor(src), torch.tensor(tgt)), lambda: m(tc.tensor(src), tc.tensor(tgt)))
        assert isinstance(e, RuntimeError)
    e = _errors(lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
                lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh"))
    assert isinstance(e, RuntimeError) and "tanh" in str(e)
    _errors(lambda: torch.nn.TransformerDecoderLayer(9, 2), lambda: nn.TransformerDecoderLayer(9, 2))
    layer_h, layer_t = torch.nn.TransformerEncoderLayer(8, 2, 16), nn.TransformerEncoderLayer(8, 2, 16)
    bad = np.zeros((2, 5), dtype=np.int64)
    e = _errors(lambda: layer_h(torch.tensor(x), src_key_padding_mask=torch.tensor(bad)),
                lambda: layer_t(tc.tensor(x), src_key_padding_mask=tc.tensor(bad)))
    assert isinstance(e, AssertionError)


def test_old_import_paths_and_exports():
    from tc.nn import modules_attention
    assert modules_attention.TransformerEncoderLayer is nn.TransformerEncoderLayer
    assert modules_attention.TransformerEncoder is nn.TransformerEncoder
    for name in ("MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerDecoder",
                 "TransformerEncoderLayer", "TransformerDecoderLayer"):
        assert name in nn.__all__
    assert F.multi_head_attention_forward is not None
    with pytest.raises(AttributeError):
        modules_attention.NoSuchThing  # noqa: B018


def test_clones_keep_tied_parameters_tied():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(4, 4)
            self.b = nn.Linear(4, 4)
            self.b.weight = self.a.weight

        def forward(self, x, **kw):
            return self.b(self.a(x))
    stack = nn.TransformerDecoder(Tied(), 2)
    l0, l1 = stack.layers[0], stack.layers[1]
    assert l0.a.weight is l0.b.weight and l0.a.weight is not l1.a.weight
    assert to_np(l0.a.weight).tolist() == to_np(l1.a.weight).tolist()


# ---------------------------------------------------------------- the word_language_model example
def _load_example(backend, monkeypatch):
    monkeypatch.setenv("TC_EXAMPLE_BACKEND", backend)
    path = os.path.join(REPO, "examples", "word_language_model.py")
    spec = importlib.util.spec_from_file_location("wlm_" + backend, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_word_language_model_transformer_trains_like_torch(monkeypatch):
    ex_tc = _load_example("tc", monkeypatch)
    ex_th = _load_example("torch", monkeypatch)
    assert ex_tc.torch is tc and ex_th.torch is torch
    args = ex_tc.parse_args(["--emsize", "16", "--nhid", "24", "--nlayers", "2", "--nhead", "2",
                             "--dropout", "0", "--lr", "5", "--bptt", "6"])
    data = os.path.join(REPO, "examples", "data", "tinyshakespeare.txt.gz")
    corpus_tc, corpus_th = ex_tc.Corpus(data, 60), ex_th.Corpus(data, 60)
    assert corpus_tc.train.tolist() == corpus_th.train.tolist()
    ntokens = len(corpus_tc.dictionary)
    torch.manual_seed(0)
    model_th = ex_th.build_model("Transformer", ntokens, args)
    model_tc = ex_tc.build_model("Transformer", ntokens, args)
    # The same keys; not the same order: tc's Module moves a reassigned
    # submodule (TransformerModel's decoder) to the end, torch keeps its place.
    assert sorted(model_tc.state_dict()) == sorted(model_th.state_dict())
    model_tc.load_state_dict({k: tc.tensor(v.numpy()) for k, v in model_th.state_dict().items()}, strict=True)
    train_tc, train_th = ex_tc.batchify(corpus_tc.train, 4), ex_th.batchify(corpus_th.train, 4)
    losses = []
    for ex, model, data_ in ((ex_tc, model_tc, train_tc), (ex_th, model_th, train_th)):
        opt = ex.torch.optim.SGD(model.parameters(), lr=args.lr)
        losses.append(ex.train_epoch(model, data_, ntokens, args.bptt, 4, ex.nn.NLLLoss(), opt, args.clip,
                                     max_batches=3))
    assert len(losses[0]) == 3
    np.testing.assert_allclose(losses[0], losses[1], rtol=2e-5)
    assert losses[0][0] != losses[0][2]  # the steps change the model
    val_tc = ex_tc.evaluate(model_tc, ex_tc.batchify(corpus_tc.valid, 2), ntokens, args.bptt, 2, tc.nn.NLLLoss())
    val_th = ex_th.evaluate(model_th, ex_th.batchify(corpus_th.valid, 2), ntokens, args.bptt, 2,
                            torch.nn.NLLLoss())
    assert val_tc == pytest.approx(val_th, rel=2e-5)


@pytest.mark.parametrize("kind,tied", [("LSTM", False), ("LSTM", True), ("GRU", True), ("GRU", False),
                                       ("RNN_TANH", False), ("RNN_TANH", True), ("RNN_RELU", True)])
def test_word_language_model_rnns_train_like_torch(kind, tied, monkeypatch):
    if not hasattr(nn, kind.split("_")[0]):
        pytest.skip("tc.nn.%s is not there yet" % kind.split("_")[0])
    ex_tc = _load_example("tc", monkeypatch)
    ex_th = _load_example("torch", monkeypatch)
    args = ex_tc.parse_args(["--model", kind, "--emsize", "12", "--nhid", "12", "--nlayers", "2", "--dropout", "0",
                             "--lr", "5", "--bptt", "5"] + (["--tied"] if tied else []))
    data = os.path.join(REPO, "examples", "data", "tinyshakespeare.txt.gz")
    corpus_tc, corpus_th = ex_tc.Corpus(data, 60), ex_th.Corpus(data, 60)
    ntokens = len(corpus_tc.dictionary)
    torch.manual_seed(1)
    model_th = ex_th.build_model(kind, ntokens, args)
    model_tc = ex_tc.build_model(kind, ntokens, args)
    sd = {k: tc.tensor(v.numpy()) for k, v in model_th.state_dict().items()}
    if tied:
        # Both libraries share the tensor; tc's state_dict lists it once.
        assert model_tc.decoder.weight is model_tc.encoder.weight
        sd = {k: v for k, v in sd.items() if k in model_tc.state_dict()}
    model_tc.load_state_dict(sd, strict=True)
    losses = []
    for ex, model, corpus in ((ex_tc, model_tc, corpus_tc), (ex_th, model_th, corpus_th)):
        opt = ex.torch.optim.SGD(model.parameters(), lr=args.lr)
        losses.append(ex.train_epoch(model, ex.batchify(corpus.train, 3), ntokens, args.bptt, 3, ex.nn.NLLLoss(),
                                     opt, args.clip, max_batches=3))
    np.testing.assert_allclose(losses[0], losses[1], rtol=2e-5)
    assert losses[0][0] != losses[0][2]  # the steps change the model
    # The trained models agree on the validation text too (hidden state carried, eval mode).
    val = [ex.evaluate(model, ex.batchify(corpus.valid, 2), ntokens, args.bptt, 2, ex.nn.NLLLoss())
           for ex, model, corpus in ((ex_tc, model_tc, corpus_tc), (ex_th, model_th, corpus_th))]
    assert val[0] == pytest.approx(val[1], rel=2e-5)


def test_word_language_model_runs_end_to_end():
    import subprocess
    import sys
    env = dict(os.environ, TC_LIBRARY=tc.library_path, TC_EXAMPLE_BACKEND="tc")
    script = os.path.join(REPO, "examples", "word_language_model.py")
    res = subprocess.run([sys.executable, script, "--lines", "300", "--emsize", "16", "--nhid", "16",
                          "--nlayers", "1", "--epochs", "2", "--max-batches", "3", "--batch_size", "4",
                          "--bptt", "8"], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "| End of training | test loss" in res.stdout and "valid loss" in res.stdout
    bad = subprocess.run([sys.executable, script, "--emsize", "15", "--nhead", "2"], capture_output=True,
                         text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "usage:" in bad.stderr
