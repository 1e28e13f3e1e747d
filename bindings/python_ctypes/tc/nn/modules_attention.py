"""MultiheadAttention, as torch.nn's (PyTorch 1.13): the same arguments, the
same parameter names (in_proj_weight or q/k/v_proj_weight, in_proj_bias,
out_proj.weight, out_proj.bias, bias_k, bias_v), so state_dicts load both
ways. The math is tc.nn.functional_attention's (linear, the fused
scaled_dot_product_attention when the weights are not wanted).

TransformerEncoderLayer and TransformerEncoder used to live here; they are in
modules_transformer now and are still importable from this module."""
import math
from typing import Optional, Tuple

from . import init
from .functional_attention import attention, check_key_padding_mask_dtype, mha_shape_check
from .modules import Linear, Module, Parameter
from .._tensor import Tensor, empty


def _xavier_normal_(t: Tensor) -> Tensor:
    """torch.nn.init.xavier_normal_ (gain 1): N(0, 2 / (fan_in + fan_out))."""
    shape = tuple(t.shape)
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
    return init.normal_(t, 0.0, math.sqrt(2.0 / float(fan_in + fan_out)))


class MultiheadAttention(Module):
    """Multi-head attention (torch.nn.MultiheadAttention).

    Args:
        embed_dim: the model's width E.
        num_heads: heads (E must divide evenly: AssertionError otherwise, as torch).
        dropout: dropout on the attention weights while training.
        bias: whether the input and output projections have biases.
        add_bias_kv: learn a key and a value (bias_k, bias_v, each (1, 1, E)) appended
            to every key/value sequence.
        add_zero_attn: append a zero key and value to every sequence (after the heads split).
        kdim, vdim: key and value widths (default E); when either differs from E the
            projections are three parameters (q/k/v_proj_weight) instead of in_proj_weight.
        batch_first: inputs (N, L, E) rather than (L, N, E).
        device, dtype: where and of what type the parameters are.
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: Optional[int] = None,
                 vdim: Optional[int] = None, batch_first: bool = False, device=None, dtype=None) -> None:
        super().__init__()
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
        # Registration order is torch's, so named_parameters() and state_dict() list
        # the same keys in the same order.
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty(embed_dim, embed_dim))
            self.k_proj_weight = Parameter(empty(embed_dim, self.kdim))
            self.v_proj_weight = Parameter(empty(embed_dim, self.vdim))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty(3 * embed_dim, embed_dim))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = Linear(embed_dim, embed_dim, bias=bias)
        if add_bias_kv:
            self.bias_k = Parameter(empty(1, 1, embed_dim))
            self.bias_v = Parameter(empty(1, 1, embed_dim))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()
        if device is not None or dtype is not None:
            self.to(device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        """torch's initialization: Xavier-uniform projections, zero biases, Xavier-normal bias_k/bias_v."""
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)
        if self.bias_k is not None:
            _xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            _xavier_normal_(self.bias_v)

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
            (attn_output of query's layout, weights (N, L, S) or (N, H, L, S) (no N when
            unbatched), or None).
        """
        check_key_padding_mask_dtype(key_padding_mask)
        batched = mha_shape_check(query, key, value, key_padding_mask, attn_mask, self.num_heads)
        same_qk, same_kv = query is key, key is value
        if not batched:
            query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif not self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        separate = not self._qkv_same_embed_dim
        out, weights = attention(
            query, key, value, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k, self.bias_v,
            self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias, self.training,
            key_padding_mask, need_weights, attn_mask, separate, self.q_proj_weight, self.k_proj_weight,
            self.v_proj_weight, None, None, average_attn_weights, same_qk, same_kv, self.embed_dim)
        if not batched:
            return out.squeeze(0), (weights.squeeze(0) if weights is not None else None)
        if not self.batch_first:
            out = out.transpose(0, 1)
        return out, weights


_MOVED = ("TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer", "TransformerDecoder",
          "Transformer")


def __getattr__(name):
    """The transformer modules, once defined here, from modules_transformer (which
    imports this module, hence the lazy look-up rather than an import at the top)."""
    if name in _MOVED:
        from . import modules_transformer
        return getattr(modules_transformer, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
