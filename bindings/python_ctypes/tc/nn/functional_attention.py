"""tc.nn.functional.multi_head_attention_forward, as PyTorch 1.13's: the
math of nn.MultiheadAttention with every option (packed or separate input
projections, bias_k/bias_v, add_zero_attn, static keys and values, bool or
float masks), with torch's shape checks and exception types.

The public function takes PyTorch's sequence-first layout, (L, N, E); the work
is done batch-first, (N, L, E), by _attention, which nn.MultiheadAttention
calls directly (so batch_first modules need no transposes). Heads are a dim of
their own, (N, H, L, D), rather than torch's (N * H, L, D): the same numbers,
and it is the layout tc's fused scaled_dot_product_attention takes."""
import math
import warnings
from typing import Optional, Tuple

from .. import _core as K
from .._tensor import Tensor, cat, zeros
from . import functional as F


def _is_float(t: Tensor) -> bool:
    return t.is_floating_point()


def _is_bool(t: Tensor) -> bool:
    return t.dtype.name == "bool"


def check_key_padding_mask_dtype(key_padding_mask: Optional[Tensor]) -> None:
    """Raises AssertionError, as torch does, unless key_padding_mask is None, bool or floating."""
    if key_padding_mask is not None and not (_is_bool(key_padding_mask) or _is_float(key_padding_mask)):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


def mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Optional[Tensor],
                    attn_mask: Optional[Tensor], num_heads: int) -> bool:
    """Checks the ranks of the inputs (AssertionError, as torch's _mha_shape_check).

    Returns:
        bool: whether the input is batched (3-D query) rather than unbatched (2-D).
    """
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 "%d-D and %d-D tensors respectively" % (key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D "
                                 "but found %d-D tensor instead" % key_padding_mask.dim())
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                 "but found %d-D tensor instead" % attn_mask.dim())
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 "%d-D and %d-D tensors respectively" % (key.dim(), value.dim()))
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                                 "but found %d-D tensor instead" % key_padding_mask.dim())
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     "but found %d-D tensor instead" % attn_mask.dim())
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError("Expected `attn_mask` shape to be %s but got %s" % (expected, attn_mask.shape))
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received %d-D query tensor"
                         % query.dim())


def _pad_one(t: Tensor) -> Tensor:
    """t with one zero (False for bool) appended to its last dim, as torch's pad(t, (0, 1))."""
    return cat([t, zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)], -1)


def _project(query: Tensor, key: Tensor, value: Tensor, same_qk: bool, same_kv: bool, e: int,
             in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor], use_separate_proj_weight: bool,
             q_proj_weight: Optional[Tensor], k_proj_weight: Optional[Tensor],
             v_proj_weight: Optional[Tensor]) -> Tuple[Tensor, Tensor, Tensor]:
    """The input projections, as torch's _in_projection_packed / _in_projection: one
    matrix product for self-attention (q is k is v), two when k is v."""
    b = in_proj_bias
    bq, bk, bv = (None, None, None) if b is None else b.chunk(3)
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w = in_proj_weight
        if same_kv and same_qk:
            return tuple(F.linear(query, w, b).chunk(3, -1))
        if same_kv:
            w_q, w_kv = w.narrow(0, 0, e), w.narrow(0, e, 2 * e)
            b_kv = None if b is None else b.narrow(0, e, 2 * e)
            k, v = F.linear(key, w_kv, b_kv).chunk(2, -1)
            return F.linear(query, w_q, bq), k, v
        wq, wk, wv = w.chunk(3)
        return F.linear(query, wq, bq), F.linear(key, wk, bk), F.linear(value, wv, bv)
    for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
        if w is None:
            raise AssertionError("use_separate_proj_weight is True but %s_proj_weight is None" % name)
    eq, ek, ev = query.shape[-1], key.shape[-1], value.shape[-1]
    for what, w, want in (("query", q_proj_weight, (eq, eq)), ("key", k_proj_weight, (eq, ek)),
                          ("value", v_proj_weight, (eq, ev))):
        if tuple(w.shape) != want:
            raise AssertionError("expecting %s weights shape of %s, but got %s" % (what, want, w.shape))
    return (F.linear(query, q_proj_weight, bq), F.linear(key, k_proj_weight, bk),
            F.linear(value, v_proj_weight, bv))


def _check_attn_mask(attn_mask: Tensor, n: int, h: int, tgt_len: int, src_len: int) -> Tensor:
    """attn_mask checked as torch does, as (1, 1, L, S) or (N, H, L, S); byte masks become bool."""
    if attn_mask.dtype.name == "uint8":
        warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.")
        attn_mask = attn_mask.to(K.bool_)
    elif not (_is_float(attn_mask) or _is_bool(attn_mask)):
        raise AssertionError("Only float, byte, and bool types are supported for attn_mask, not %s"
                             % attn_mask.dtype)
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError("The shape of the 2D attn_mask is %s, but should be %s."
                               % (attn_mask.shape, (tgt_len, src_len)))
        return attn_mask.reshape(1, 1, tgt_len, src_len)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (n * h, tgt_len, src_len):
            raise RuntimeError("The shape of the 3D attn_mask is %s, but should be %s."
                               % (attn_mask.shape, (n * h, tgt_len, src_len)))
        # torch's (N * H) index is batch-major: b * H + head.
        return attn_mask.reshape(n, h, tgt_len, src_len)
    raise RuntimeError("attn_mask's dimension %d is not supported" % attn_mask.dim())


def _merge_masks(attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor], n: int,
                 src_len: int, dtype) -> Optional[Tensor]:
    """One additive float mask broadcasting to (N, H, L, S), or None, merged as torch
    does: a bool key_padding_mask sets -inf; with a bool attn_mask, a float
    key_padding_mask counts as bool (nonzero = ignore); two float masks are added;
    a bool mask becomes 0 / -inf of the queries' dtype."""
    mask = attn_mask
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (n, src_len):
            raise AssertionError("expecting key_padding_mask shape of %s, but got %s"
                                 % ((n, src_len), key_padding_mask.shape))
        kpm = key_padding_mask.reshape(n, 1, 1, src_len)
        if mask is None:
            mask = kpm
        elif _is_bool(mask):
            mask = mask.logical_or(kpm if _is_bool(kpm) else kpm != 0)
        elif _is_bool(kpm):
            shape = tuple(max(a, b) for a, b in zip(mask.shape, kpm.shape))
            mask = mask.expand(*shape).masked_fill(kpm.expand(*shape), float("-inf"))
        else:
            # Both float: added, as documented. (torch 1.13 calls masked_fill with
            # the float mask, which silently fills nothing: the padding is lost.)
            mask = mask + kpm
    if mask is not None and _is_bool(mask):
        mask = zeros(tuple(mask.shape), dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    return mask


def attention(query: Tensor, key: Tensor, value: Tensor, num_heads: int, in_proj_weight: Optional[Tensor],
              in_proj_bias: Optional[Tensor], bias_k: Optional[Tensor], bias_v: Optional[Tensor],
              add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
              training: bool, key_padding_mask: Optional[Tensor], need_weights: bool,
              attn_mask: Optional[Tensor], use_separate_proj_weight: bool, q_proj_weight: Optional[Tensor],
              k_proj_weight: Optional[Tensor], v_proj_weight: Optional[Tensor], static_k: Optional[Tensor],
              static_v: Optional[Tensor], average_attn_weights: bool, same_qk: bool,
              same_kv: bool, embed_dim_to_check: int) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention on batched, batch-first inputs, as torch's
    multi_head_attention_forward (which runs sequence-first).

    Args:
        query: (N, L, E); key, value: (N, S, kdim), (N, S, vdim); key_padding_mask (N, S);
        attn_mask (L, S) or (N * H, L, S); same_qk / same_kv: whether the caller's query
        is its key and its key its value (one packed projection then).
        The rest as multi_head_attention_forward's.

    Returns:
        (output (N, L, E), weights (N, L, S) or (N, H, L, S) or None).
    """
    n, tgt_len, embed_dim = query.shape
    if key_padding_mask is not None and not (_is_bool(key_padding_mask) or _is_float(key_padding_mask)):
        raise AssertionError("only bool and floating types of key_padding_mask are supported")
    if embed_dim != embed_dim_to_check:
        raise AssertionError("was expecting embedding dimension of %d, but got %d" % (embed_dim_to_check, embed_dim))
    h = num_heads
    d = embed_dim // h
    if d * h != embed_dim:
        raise AssertionError("embed_dim %d not divisible by num_heads %d" % (embed_dim, h))
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError("key's sequence and batch dims %s do not match value's %s"
                                 % (tuple(key.shape[:2]), tuple(value.shape[:2])))
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError("key shape %s does not match value shape %s" % (key.shape, value.shape))
    q, k, v = _project(query, key, value, same_qk, same_kv, embed_dim, in_proj_weight, in_proj_bias,
                       use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight)
    src_len = key.shape[1]
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, n, h, tgt_len, src_len)

    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key." if static_k is not None
                                 else "bias cannot be added to static value.")
        # bias_k is (1, 1, E): one more key (and value) position for every batch entry.
        k = cat([k, bias_k.reshape(1, 1, embed_dim).expand(n, 1, embed_dim)], 1)
        v = cat([v, bias_v.reshape(1, 1, embed_dim).expand(n, 1, embed_dim)], 1)
        if attn_mask is not None:
            attn_mask = _pad_one(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_one(key_padding_mask)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    # (N, L, E) -> (N, H, L, D): views; the matmuls read the strides.
    q = q.reshape(n, tgt_len, h, d).transpose(1, 2)
    heads = []
    for name, t, static in (("k", k, static_k), ("v", v, static_v)):
        if static is None:
            heads.append(t.reshape(n, t.shape[1], h, d).transpose(1, 2))
            continue
        if static.shape[0] != n * h:
            raise AssertionError("expecting static_%s.size(0) of %d, but got %d" % (name, n * h, static.shape[0]))
        if static.shape[2] != d:
            raise AssertionError("expecting static_%s.size(2) of %d, but got %d" % (name, d, static.shape[2]))
        heads.append(static.reshape(n, h, static.shape[1], d))
    k, v = heads

    if add_zero_attn:
        k = cat([k, zeros((n, h, 1, d), dtype=k.dtype, device=k.device)], 2)
        v = cat([v, zeros((n, h, 1, d), dtype=v.dtype, device=v.device)], 2)
        if attn_mask is not None:
            attn_mask = _pad_one(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_one(key_padding_mask)

    mask = _merge_masks(attn_mask, key_padding_mask, n, k.shape[2], q.dtype)
    p = dropout_p if training else 0.0
    weights = None
    if need_weights:
        # torch's order: scale q, add the mask to q k^T, softmax, dropout.
        scores = (q / math.sqrt(d)) @ k.transpose(-2, -1)
        if mask is not None:
            scores = scores + mask
        attn = scores.softmax(-1)
        if p > 0.0:
            attn = F.dropout(attn, p, True)
        out = attn @ v
        weights = attn.sum(1) / h if average_attn_weights else attn
    else:
        # The fused op (one call: scores, mask, softmax, dropout, product).
        out = F.scaled_dot_product_attention(q, k, v, mask, p, False)
    out = F.linear(out.transpose(1, 2).reshape(n, tgt_len, embed_dim), out_proj_weight, out_proj_bias)
    return out, weights


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Optional[Tensor], in_proj_bias: Optional[Tensor],
                                 bias_k: Optional[Tensor], bias_v: Optional[Tensor], add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Optional[Tensor],
                                 training: bool = True, key_padding_mask: Optional[Tensor] = None,
                                 need_weights: bool = True, attn_mask: Optional[Tensor] = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Optional[Tensor] = None,
                                 k_proj_weight: Optional[Tensor] = None, v_proj_weight: Optional[Tensor] = None,
                                 static_k: Optional[Tensor] = None, static_v: Optional[Tensor] = None,
                                 average_attn_weights: bool = True) -> Tuple[Tensor, Optional[Tensor]]:
    """Multi-head attention (torch.nn.functional.multi_head_attention_forward).

    Args:
        query: (L, N, E) or unbatched (L, E); key, value: (S, N, kdim/vdim) or (S, kdim/vdim).
        embed_dim_to_check: E, checked against query.
        num_heads: H (E must divide evenly).
        in_proj_weight, in_proj_bias: the packed (3E, E) projection and its (3E,) bias.
        bias_k, bias_v: (1, 1, E) key and value appended to the sequence, or None.
        add_zero_attn: append a zero key and value (after the heads split).
        dropout_p: dropout on the attention weights when training.
        out_proj_weight, out_proj_bias: the output projection.
        training: apply dropout.
        key_padding_mask: (N, S) or (S,); bool True = ignore that key, or float added.
        need_weights: also return the attention weights.
        attn_mask: (L, S) or (N * H, L, S); bool True = not allowed, or float added.
        use_separate_proj_weight: use q/k/v_proj_weight rather than in_proj_weight.
        q_proj_weight, k_proj_weight, v_proj_weight: (E, E), (E, kdim), (E, vdim).
        static_k, static_v: (N * H, S, E / H) keys and values used as they are.
        average_attn_weights: average the returned weights over the heads.

    Returns:
        (attn_output (L, N, E) or (L, E), weights (N, L, S) / (N, H, L, S) (without N
        when unbatched) or None).
    """
    batched = mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    same_qk, same_kv = query is key, key is value
    if batched:
        query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
    else:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    out, weights = attention(query, key, value, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                             add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask,
                             need_weights, attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight,
                             v_proj_weight, static_k, static_v, average_attn_weights, same_qk, same_kv,
                             embed_dim_to_check)
    if not batched:
        return out.squeeze(0), (weights.squeeze(0) if weights is not None else None)
    return out.transpose(0, 1), weights
