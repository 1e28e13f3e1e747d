"""Expected values for bindings/rust/tc/tests/nn_modules.rs, from PyTorch 1.13.

Every tensor is a fixed pattern sin(i * a + b) (float64), which the Rust test
rebuilds the same way; each layer's output y is reduced by a fixed pattern
weight to a scalar loss whose gradients are printed. Run with
/usr/bin/python3 tests/rust/nn_modules_expected.py and paste the output into
the test.
"""
import math

import torch
import torch.nn.functional as F


def pat(n, a, b, *shape):
    return torch.sin(torch.arange(n, dtype=torch.float64) * a + b).reshape(*shape)


def emit(name, t):
    vals = ", ".join(repr(float(v)) for v in t.detach().reshape(-1).tolist())
    print("const %s: [f64; %d] = [%s];" % (name, t.numel(), vals))


def leaf(t):
    return t.clone().requires_grad_(True)


def backward(y, a=0.9, b=0.3):
    (y * pat(y.numel(), a, b, *y.shape)).sum().backward()


# Linear(3, 2)
w, bias, x = leaf(pat(6, 0.7, 0.1, 2, 3)), leaf(pat(2, 1.3, 0.2, 2)), leaf(pat(12, 0.37, 0.5, 4, 3))
y = F.linear(x, w, bias)
backward(y)
emit("LINEAR_Y", y), emit("LINEAR_GW", w.grad), emit("LINEAR_GB", bias.grad), emit("LINEAR_GX", x.grad)

# LayerNorm([4]), eps 1e-5
w, bias, x = leaf(1 + 0.1 * pat(4, 0.5, 0.0, 4)), leaf(pat(4, 0.8, 1.0, 4)), leaf(pat(12, 0.61, 0.2, 3, 4))
y = F.layer_norm(x, [4], w, bias, 1e-5)
backward(y)
emit("LN_Y", y), emit("LN_GW", w.grad), emit("LN_GB", bias.grad), emit("LN_GX", x.grad)

# Embedding(5, 3), indices [1, 4, 1, 0]
w = leaf(pat(15, 0.45, 0.3, 5, 3))
y = F.embedding(torch.tensor([1, 4, 1, 0]), w)
backward(y)
emit("EMB_Y", y), emit("EMB_GW", w.grad)

# Conv2d(2, 3, kernel [2, 2], stride [2, 1], padding [1, 0])
w, bias, x = leaf(pat(24, 0.29, 0.4, 3, 2, 2, 2)), leaf(pat(3, 1.1, 0.7, 3)), leaf(pat(18, 0.53, 0.9, 1, 2, 3, 3))
y = F.conv2d(x, w, bias, stride=(2, 1), padding=(1, 0))
backward(y)
emit("CONV_Y", y), emit("CONV_GW", w.grad), emit("CONV_GB", bias.grad), emit("CONV_GX", x.grad)

# BatchNorm2d(2): two training steps, then eval
bn = torch.nn.BatchNorm2d(2).double()
with torch.no_grad():
    bn.weight.copy_(1 + 0.2 * pat(2, 0.9, 0.1, 2))
    bn.bias.copy_(pat(2, 0.4, 0.6, 2))
x1 = leaf(pat(24, 0.31, 0.2, 3, 2, 2, 2))
y = bn(x1)
backward(y)
emit("BN_Y1", y), emit("BN_GX1", x1.grad), emit("BN_GW", bn.weight.grad), emit("BN_GB", bn.bias.grad)
bn(2 * pat(16, 0.77, 0.5, 2, 2, 2, 2) + 1)
emit("BN_RUNNING_MEAN", bn.running_mean), emit("BN_RUNNING_VAR", bn.running_var)
bn.eval()
emit("BN_EVAL_Y", bn(pat(8, 0.66, 0.1, 1, 2, 2, 2)))

# CausalSelfAttention(d=4, heads=2) on [2, 3, 4] (torch 1.13 has no
# scaled_dot_product_attention: written out)
qw, qb = leaf(pat(48, 0.23, 0.1, 12, 4)), leaf(pat(12, 0.5, 0.3, 12))
pw, pb = leaf(pat(16, 0.41, 0.2, 4, 4)), leaf(pat(4, 0.9, 0.8, 4))
x = leaf(pat(24, 0.57, 0.3, 2, 3, 4))
b, t, d, h = 2, 3, 4, 2
q, k, v = F.linear(x, qw, qb).split(d, dim=2)
q, k, v = (z.reshape(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
scores = q @ k.transpose(-2, -1) / math.sqrt(d // h)
scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
att = scores.softmax(-1) @ v
y = F.linear(att.transpose(1, 2).reshape(b, t, d), pw, pb)
backward(y)
emit("ATTN_Y", y), emit("ATTN_GQW", qw.grad), emit("ATTN_GQB", qb.grad), emit("ATTN_GPW", pw.grad)
emit("ATTN_GX", x.grad)

# LSTM(2, 3, bidirectional) and GRU(2, 3, num_layers=2), float64, sequence-first
# (4, 2, 2): weight k of _flat_weights is pat(numel, 0.3 + 0.1 k, 0.05 k) / 2.
for kind, name in ((torch.nn.LSTM, "LSTM"), (torch.nn.GRU, "GRU")):
    m = (kind(2, 3, bidirectional=True) if kind is torch.nn.LSTM else kind(2, 3, num_layers=2)).double()
    with torch.no_grad():
        for k, w in enumerate(m._flat_weights):
            w.copy_(pat(w.numel(), 0.3 + 0.1 * k, 0.05 * k, *w.shape) / 2)
    x = leaf(pat(16, 0.43, 0.7, 4, 2, 2))
    out = m(x)
    y, hn = out[0], (out[1][0] if kind is torch.nn.LSTM else out[1])
    backward(y)
    emit(name + "_Y", y), emit(name + "_HN", hn), emit(name + "_GX", x.grad), emit(name + "_GW0", m._flat_weights[0].grad)

# The word-language-model recipe (pytorch/examples word_language_model: Embedding ->
# RNN -> Linear decoder tied to the embedding, SGD with gradient clipping 0.25,
# truncated BPTT with the hidden state detached between batches), tiny and with
# patterned weights: parameter k of named_parameters() is pat(numel, 0.21 + 0.07 k,
# 0.1 k) / 3; the tokens are (7 i + 3) % 20; float64.
for mode in ("LSTM", "GRU", "RNN_TANH"):
    ntoken, nhid, nlayers, bptt, batch = 20, 8, 2, 5, 2

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = torch.nn.Embedding(ntoken, nhid)
            self.rnn = (getattr(torch.nn, mode)(nhid, nhid, nlayers) if mode != "RNN_TANH"
                        else torch.nn.RNN(nhid, nhid, nlayers, nonlinearity="tanh"))
            self.decoder = torch.nn.Linear(nhid, ntoken)
            self.decoder.weight = self.encoder.weight

    m = Model().double()
    with torch.no_grad():
        for k, (_, p) in enumerate(m.named_parameters()):
            p.copy_(pat(p.numel(), 0.21 + 0.07 * k, 0.1 * k, *p.shape) / 3)
    data = torch.tensor([(7 * i + 3) % ntoken for i in range(batch * (3 * bptt + 1))])
    data = data.view(batch, -1).t().contiguous()  # batchify: (steps, batch)
    hidden, losses = None, []
    for i in range(0, 3 * bptt, bptt):
        x, y = data[i:i + bptt], data[i + 1:i + 1 + bptt].reshape(-1)
        if hidden is not None:
            hidden = tuple(h.detach() for h in hidden) if mode == "LSTM" else hidden.detach()
        m.zero_grad()
        out, hidden = m.rnn(m.encoder(x), hidden)
        loss = F.cross_entropy(m.decoder(out).view(-1, ntoken), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 0.25)
        with torch.no_grad():
            for p in m.parameters():
                p.add_(p.grad, alpha=-1.0)
        losses.append(loss)
    emit("WORD_LM_" + mode, torch.stack(losses))

# The recipe's TransformerModel (Embedding * sqrt(ninp) -> sinusoidal positions ->
# nn.TransformerEncoder of post-norm ReLU layers with the causal mask and a final
# LayerNorm, as nn.Transformer builds it -> an untied Linear decoder ->
# log_softmax, NLL loss), three SGD steps with clipping, dropout 0, float64:
# parameter k of named_parameters() is pat(numel, 0.21 + 0.07 k, 0.1 k) / 3, the
# tokens as above. The position table is computed in float64 (the Rust module
# computes it so; the recipe's float32 table differs by rounding only).
ntoken, ninp, nhead, nhid, nlayers, bptt, batch = 20, 8, 2, 16, 2, 5, 2


class TransformerLm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.input_emb = torch.nn.Embedding(ntoken, ninp)
        layer = torch.nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout=0.0)
        self.encoder = torch.nn.TransformerEncoder(layer, nlayers, torch.nn.LayerNorm(ninp),
                                                   enable_nested_tensor=False)
        self.decoder = torch.nn.Linear(ninp, ntoken)
        position = torch.arange(0, 50, dtype=torch.float64).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, ninp, 2, dtype=torch.float64) * (-math.log(10000.0) / ninp))
        pe = torch.zeros(50, ninp, dtype=torch.float64)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(1))

    def forward(self, src):
        mask = torch.log(torch.tril(torch.ones(len(src), len(src), dtype=torch.float64)))
        x = self.input_emb(src) * math.sqrt(ninp) + self.pe[:len(src)]
        return F.log_softmax(self.decoder(self.encoder(x, mask=mask)), dim=-1)


m = TransformerLm().double()
with torch.no_grad():
    for k, (_, p) in enumerate(m.named_parameters()):
        p.copy_(pat(p.numel(), 0.21 + 0.07 * k, 0.1 * k, *p.shape) / 3)
data = torch.tensor([(7 * i + 3) % ntoken for i in range(batch * (3 * bptt + 1))]).view(batch, -1).t().contiguous()
losses = []
for i in range(0, 3 * bptt, bptt):
    x, y = data[i:i + bptt], data[i + 1:i + 1 + bptt].reshape(-1)
    m.zero_grad()
    loss = F.nll_loss(m(x).view(-1, ntoken), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(m.parameters(), 0.25)
    with torch.no_grad():
        for p in m.parameters():
            p.add_(p.grad, alpha=-1.0)
    losses.append(loss)
emit("WORD_LM_TRANSFORMER", torch.stack(losses))
