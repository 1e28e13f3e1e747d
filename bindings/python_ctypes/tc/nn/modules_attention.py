"""MultiheadAttention, TransformerEncoderLayer and TransformerEncoder, as
torch.nn's (PyTorch 1.13): the same parameter names (in_proj_weight,
in_proj_bias, out_proj.weight, ...), so state_dicts load both ways. They are
compositions of linear, scaled_dot_product_attention, softmax, layer_norm and
dropout."""
import copy
import math
from typing import Callable, Optional, Tuple, Union

from . import functional as F
from . import init
from .modules import Dropout, LayerNorm, Linear, Module, ModuleList, Parameter
from .._tensor import Tensor, empty, zeros


def _float_mask(mask: Optional[Tensor], like: Tensor) -> Optional[Tensor]:
    """A bool mask (True = not allowed) as -inf/0 of like's dtype; a float mask as is."""
    if mask is None:
        return None
    if mask.dtype.name == "bool":
        return zeros(tuple(mask.shape), dtype=like.dtype, device=like.device).masked_fill(mask, float("-inf"))
    return mask


class MultiheadAttention(Module):
    """Multi-head attention (torch.nn.MultiheadAttention).

    Args:
        embed_dim: the model's width E.
        num_heads: heads (E must divide evenly).
        dropout: dropout on the attention weights while training.
        bias: whether the projections have biases.
        add_bias_kv, add_zero_attn: not supported (must be False).
        kdim, vdim: key and value widths (default E).
        batch_first: inputs (N, L, E) rather than (L, N, E).
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device=None, dtype=None):
        super().__init__()
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv and add_zero_attn are not supported")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        dt = dtype if dtype is not None else None
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim, dtype=dt))
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim, dtype=dt))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim, dtype=dt))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim, dtype=dt))
            self.in_proj_weight = None
        self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dt)) if bias else None
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        if dtype is not None:
            self.out_proj.to(dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def _projections(self):
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            wq, wk, wv = w.narrow(0, 0, e), w.narrow(0, e, e), w.narrow(0, 2 * e, e)
        else:
            wq, wk, wv = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b.narrow(0, 0, e), b.narrow(0, e, e), b.narrow(0, 2 * e, e))
        return (wq, bq), (wk, bk), (wv, bv)

    def forward(self, query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor] = None,
                need_weights: bool = True, attn_mask: Optional[Tensor] = None,
                average_attn_weights: bool = True) -> Tuple[Tensor, Optional[Tensor]]:
        """Attends query to key/value.

        Args:
            query: (L, N, E), (N, L, E) with batch_first, or unbatched (L, E).
            key, value: (S, N, kdim/vdim) likewise.
            key_padding_mask: (N, S) (or (S,) unbatched); bool True = ignore that key, or float added.
            need_weights: also return the attention weights.
            attn_mask: (L, S) or (N * num_heads, L, S); bool True = not allowed, or float added.
            average_attn_weights: average the returned weights over the heads.

        Returns:
            (attn_output of query's layout, weights (N, L, S) or (N, H, L, S), or None).
        """
        unbatched = query.dim() == 2
        if unbatched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
            if attn_mask is not None and attn_mask.dim() == 3:
                attn_mask = attn_mask  # (H, L, S): one batch of heads already
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        n, tgt_len, e = query.shape
        src_len = key.shape[1]
        h, d = self.num_heads, self.head_dim
        (wq, bq), (wk, bk), (wv, bv) = self._projections()
        q = F.linear(query, wq, bq).reshape(n, tgt_len, h, d).transpose(1, 2)
        k = F.linear(key, wk, bk).reshape(n, src_len, h, d).transpose(1, 2)
        v = F.linear(value, wv, bv).reshape(n, src_len, h, d).transpose(1, 2)
        mask = _float_mask(attn_mask, q)
        if mask is not None and mask.dim() == 3:
            mask = mask.reshape(n, h, tgt_len, src_len)
        kpm = _float_mask(key_padding_mask, q)
        if kpm is not None:
            kpm = kpm.reshape(n, 1, 1, src_len)
            mask = kpm if mask is None else mask + kpm
        p = self.dropout if self.training else 0.0
        weights = None
        if need_weights:
            scores = (q * (1.0 / math.sqrt(d))) @ k.transpose(-2, -1)
            if mask is not None:
                scores = scores + mask
            attn = scores.softmax(-1)
            if p > 0.0:
                attn = F.dropout(attn, p, True)
            out = attn @ v
            weights = attn.sum(1) / h if average_attn_weights else attn
            if unbatched:
                weights = weights.squeeze(0)
        else:
            out = F.scaled_dot_product_attention(q, k, v, mask, p, False)
        out = self.out_proj(out.transpose(1, 2).reshape(n, tgt_len, e))
        if unbatched:
            out = out.squeeze(0)
        elif not self.batch_first:
            out = out.transpose(0, 1)
        return out, weights


def _activation(activation: Union[str, Callable]) -> Callable:
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if callable(activation):
        return activation
    raise RuntimeError("activation should be relu/gelu, not %s" % (activation,))


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block (torch.nn.TransformerEncoderLayer).

    Args:
        d_model: the model's width.
        nhead: attention heads.
        dim_feedforward: the feed-forward block's width.
        dropout: dropout probability (attention weights, residual branches, feed-forward).
        activation: "relu", "gelu" or a callable.
        layer_norm_eps: the norms' eps.
        batch_first: inputs (N, S, E) rather than (S, N, E).
        norm_first: pre-norm (norm, then attention/feed-forward) rather than post-norm.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable] = "relu", layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        if dtype is not None:
            self.to(dtype)

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor]) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Encodes src.

        Args:
            src: (S, N, E), or (N, S, E) with batch_first.
            src_mask: attention mask (S, S), as MultiheadAttention's attn_mask.
            src_key_padding_mask: (N, S), as MultiheadAttention's key_padding_mask.

        Returns:
            A tensor of src's shape.
        """
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x


def _clone_module(module: Module) -> Module:
    """A deep copy of module with its own parameters and buffers (the same values)."""
    new = copy.copy(module)
    for attr in ("_parameters", "_buffers", "_modules"):
        object.__setattr__(new, attr, type(module.__dict__[attr])(module.__dict__[attr]))
    for name, p in module._parameters.items():
        if p is not None:
            q = Parameter(p.detach().clone(), p.requires_grad)
            new._parameters[name] = q
            object.__setattr__(new, name, q)
    for name, b in module._buffers.items():
        if b is not None:
            c = b.detach().clone()
            new._buffers[name] = c
            object.__setattr__(new, name, c)
    for name, m in module._modules.items():
        if m is not None:
            c = _clone_module(m)
            new._modules[name] = c
            object.__setattr__(new, name, c)
    return new


class TransformerEncoder(Module):
    """A stack of num_layers copies of encoder_layer (torch.nn.TransformerEncoder).

    Args:
        encoder_layer: the layer copied (each copy starts with its parameters' values).
        num_layers: how many.
        norm: an optional final norm module.
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True):
        super().__init__()
        self.layers = ModuleList([_clone_module(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src: Tensor, mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Runs src through every layer, then the norm.

        Args:
            src: as TransformerEncoderLayer's.
            mask: attention mask for every layer.
            src_key_padding_mask: key padding mask for every layer.

        Returns:
            A tensor of src's shape.
        """
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out
