"""Whole models trained a few steps from the same weights give torch 1.13's
losses step by step: a GPT block (token and position embeddings, pre-LN
causal MultiheadAttention, GELU MLP, AdamW) and a hand-written LSTM cell
unrolled over 8 steps (sigmoid/tanh gates, RMSprop). The models are written
once against a tiny namespace (`nn` and `F` of either library)."""
import pytest

import tc
import tc.nn as tnn
import tc.nn.functional as TF

np = pytest.importorskip("numpy")
torch = pytest.importorskip("torch")


def copy_weights(m_tc, m_th):
    sd = {k: tc.tensor(v.detach().numpy()) for k, v in m_th.state_dict().items()}
    res = m_tc.load_state_dict(sd)
    assert not res.missing_keys and not res.unexpected_keys


def gpt_block(nn, F, vocab, d, heads, ctx):
    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(ctx, d)
            self.ln1 = nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.ln2 = nn.LayerNorm(d)
            self.fc = nn.Linear(d, 4 * d)
            self.proj = nn.Linear(4 * d, d)
            self.ln_f = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, idx, pos, causal, targets):
            x = self.tok(idx) + self.pos(pos)
            h = self.ln1(x)
            x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
            x = x + self.proj(F.gelu(self.fc(self.ln2(x))))
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
    return Gpt()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_gpt_block_adamw_losses_match_torch(dtype):
    vocab, d, heads, ctx, batch = 11, 16, 4, 6, 3
    torch.manual_seed(0)
    m_th = gpt_block(torch.nn, torch.nn.functional, vocab, d, heads, ctx).to(getattr(torch, dtype))
    m_tc = gpt_block(tnn, TF, vocab, d, heads, ctx)
    m_tc.to(getattr(tc, dtype))
    copy_weights(m_tc, m_th)
    r = np.random.default_rng(0)
    causal = np.triu(np.ones((ctx, ctx), dtype=bool), 1)
    pos = np.arange(ctx, dtype=np.int64)[None, :].repeat(batch, 0)
    opt_th = torch.optim.AdamW(m_th.parameters(), lr=3e-3, weight_decay=0.1)
    opt_tc = tc.optim.AdamW(m_tc.parameters(), lr=3e-3, weight_decay=0.1)
    tol = 1e-10 if dtype == "float64" else 2e-5
    losses = []
    for _ in range(5):
        data = r.integers(0, vocab, (batch, ctx + 1))
        args_th = [torch.tensor(data[:, :-1]), torch.tensor(pos), torch.tensor(causal), torch.tensor(data[:, 1:])]
        args_tc = [tc.tensor(data[:, :-1]), tc.tensor(pos), tc.tensor(causal), tc.tensor(data[:, 1:])]
        opt_th.zero_grad()
        opt_tc.zero_grad()
        l_th, l_tc = m_th(*args_th), m_tc(*args_tc)
        assert abs(l_tc.item() - l_th.item()) <= tol * max(1.0, abs(l_th.item())), (l_tc.item(), l_th.item())
        losses.append(l_th.item())
        l_th.backward()
        l_tc.backward()
        opt_th.step()
        opt_tc.step()
    assert losses[-1] < losses[0]  # it learns: the comparison is not of a constant


def lstm_model(nn, hidden, inputs):
    class Lstm(nn.Module):
        def __init__(self):
            super().__init__()
            self.w_ih = nn.Linear(inputs, 4 * hidden)
            self.w_hh = nn.Linear(hidden, 4 * hidden, bias=False)
            self.out = nn.Linear(hidden, 1)

        def forward(self, xs, h, c):
            for t in range(xs.shape[1]):
                gates = self.w_ih(xs[:, t]) + self.w_hh(h)
                i = gates.narrow(1, 0, hidden).sigmoid()
                f = gates.narrow(1, hidden, hidden).sigmoid()
                g = gates.narrow(1, 2 * hidden, hidden).tanh()
                o = gates.narrow(1, 3 * hidden, hidden).sigmoid()
                c = f * c + i * g
                h = o * c.tanh()
            return self.out(h)
    return Lstm()


def test_lstm_cell_unrolled_rmsprop_losses_match_torch():
    hidden, inputs, batch, steps = 5, 3, 4, 8
    torch.manual_seed(1)
    m_th = lstm_model(torch.nn, hidden, inputs).double()
    m_tc = lstm_model(tnn, hidden, inputs)
    m_tc.to(tc.float64)
    copy_weights(m_tc, m_th)
    opt_th = torch.optim.RMSprop(m_th.parameters(), lr=1e-2, momentum=0.5)
    opt_tc = tc.optim.RMSprop(m_tc.parameters(), lr=1e-2, momentum=0.5)
    r = np.random.default_rng(1)
    xs, y = r.standard_normal((batch, steps, inputs)), r.standard_normal((batch, 1))
    h0, c0 = np.zeros((batch, hidden)), np.zeros((batch, hidden))
    losses = []
    for _ in range(6):
        opt_th.zero_grad()
        opt_tc.zero_grad()
        l_th = torch.nn.functional.mse_loss(m_th(*map(torch.tensor, (xs, h0, c0))), torch.tensor(y))
        l_tc = TF.mse_loss(m_tc(*map(tc.tensor, (xs, h0, c0))), tc.tensor(y))
        assert abs(l_tc.item() - l_th.item()) <= 1e-10 * max(1.0, abs(l_th.item()))
        losses.append(l_th.item())
        l_th.backward()
        l_tc.backward()
        opt_th.step()
        opt_tc.step()
    assert losses[-1] < losses[0]
