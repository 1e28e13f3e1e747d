"""The transformer modules of torch.nn (PyTorch 1.13): TransformerEncoderLayer,
TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and
Transformer, with torch's arguments, submodule names (so state_dicts load both
ways) and post-norm / pre-norm (norm_first) blocks. Attention is
MultiheadAttention's (the fused scaled_dot_product_attention: the blocks never
ask for the weights)."""
from typing import Any, Callable, Dict, List, Optional, Union

from .. import _core as K
from .._tensor import Tensor, full
from . import functional as F
from . import init
from .functional_attention import check_key_padding_mask_dtype
from .modules import GELU, Dropout, LayerNorm, Linear, Module, ModuleList, Parameter, ReLU
from .modules_attention import MultiheadAttention


def _get_activation_fn(activation: str) -> Callable[[Tensor], Tensor]:
    """F.relu or F.gelu from its name (RuntimeError otherwise, as torch)."""
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(activation))


def _to_factory(module: Module, device, dtype) -> None:
    """Moves/converts a freshly built module's parameters (the layers here take
    no device/dtype of their own)."""
    if device is not None or dtype is not None:
        module.to(device=device, dtype=dtype)


def _clone_module(module: Module, memo: Optional[Dict[int, Any]] = None) -> Module:
    """A deep copy of module (torch's copy.deepcopy of a module): its own
    parameters and buffers with the same values, parameters shared inside
    module (tied weights) still shared inside the copy; other attributes are
    shallow copies."""
    if memo is None:
        memo = {}
    if id(module) in memo:
        return memo[id(module)]
    new = object.__new__(type(module))
    new.__dict__.update(module.__dict__)
    memo[id(module)] = new
    for attr in ("_parameters", "_buffers", "_modules"):
        object.__setattr__(new, attr, type(module.__dict__[attr])(module.__dict__[attr]))
    for name, p in module._parameters.items():
        if p is not None:
            if id(p) not in memo:
                memo[id(p)] = Parameter(p.detach().clone(), p.requires_grad)
            new._parameters[name] = memo[id(p)]
            object.__setattr__(new, name, memo[id(p)])
    for name, b in module._buffers.items():
        if b is not None:
            if id(b) not in memo:
                memo[id(b)] = b.detach().clone()
            new._buffers[name] = memo[id(b)]
            object.__setattr__(new, name, memo[id(b)])
    for name, m in module._modules.items():
        if m is not None:
            c = _clone_module(m, memo)
            new._modules[name] = c
            object.__setattr__(new, name, c)
    return new


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([_clone_module(module) for _ in range(n)])


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block (torch.nn.TransformerEncoderLayer).

    Args:
        d_model: the model's width.
        nhead: attention heads.
        dim_feedforward: the feed-forward block's width.
        dropout: dropout probability (attention weights, residual branches, feed-forward).
        activation: "relu", "gelu" or a callable (a function or a module).
        layer_norm_eps: the norms' eps.
        batch_first: inputs (N, S, E) rather than (S, N, E).
        norm_first: pre-norm (norm, then attention/feed-forward) rather than post-norm.
        device, dtype: where and of what type the parameters are.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable[[Tensor], Tensor]] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, device=None, dtype=None) -> None:
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
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # torch keeps this for its fused path; TransformerEncoder reads it below too.
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation
        _to_factory(self, device, dtype)

    def forward(self, src: Tensor, src_mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Encodes src.

        Args:
            src: (S, N, E), (N, S, E) with batch_first, or unbatched (S, E).
            src_mask: attention mask (S, S) or (N * nhead, S, S), as MultiheadAttention's attn_mask.
            src_key_padding_mask: (N, S) (or (S,)), as MultiheadAttention's key_padding_mask.

        Returns:
            A tensor of src's shape.
        """
        check_key_padding_mask_dtype(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor]) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's memory, and a feed-forward
    block (torch.nn.TransformerDecoderLayer).

    Args:
        d_model: the model's width.
        nhead: attention heads.
        dim_feedforward: the feed-forward block's width.
        dropout: dropout probability.
        activation: "relu", "gelu" or a callable.
        layer_norm_eps: the norms' eps.
        batch_first: inputs (N, T, E) rather than (T, N, E).
        norm_first: pre-norm rather than post-norm.
        device, dtype: where and of what type the parameters are.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable[[Tensor], Tensor]] = F.relu, layer_norm_eps: float = 1e-5,
                 batch_first: bool = False, norm_first: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first)
        self.linear1 = Linear(d_model, dim_feedforward)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation
        _to_factory(self, device, dtype)

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Decodes tgt attending to memory.

        Args:
            tgt: (T, N, E), (N, T, E) with batch_first, or unbatched (T, E).
            memory: the encoder's output, (S, N, E) likewise.
            tgt_mask: (T, T) or (N * nhead, T, T) self-attention mask.
            memory_mask: (T, S) or (N * nhead, T, S) mask of the attention over memory.
            tgt_key_padding_mask: (N, T) padding of tgt.
            memory_key_padding_mask: (N, S) padding of memory.

        Returns:
            A tensor of tgt's shape.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Optional[Tensor], key_padding_mask: Optional[Tensor]) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Optional[Tensor],
                   key_padding_mask: Optional[Tensor]) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _left_aligned(keep: List[List[bool]]) -> bool:
    """Whether every row is some Trues then only Falses (torch's mask_check)."""
    for row in keep:
        n = sum(1 for k in row if k)
        if not all(row[:n]):
            return False
    return True


class TransformerEncoder(Module):
    """A stack of num_layers copies of encoder_layer (torch.nn.TransformerEncoder).

    Args:
        encoder_layer: the layer copied (each copy starts with its parameters' values).
        num_layers: how many.
        norm: an optional final norm module.
        enable_nested_tensor: as torch's: in evaluation without autograd, a batch-first
            stack of post-norm TransformerEncoderLayers given only a left-aligned
            src_key_padding_mask returns zeros at the padded positions (before the
            final norm), as torch's nested-tensor path does.
        mask_check: check that the padding mask is left-aligned before taking that path.
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Optional[Module] = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def _padded_positions(self, src: Tensor, mask: Optional[Tensor],
                          src_key_padding_mask: Optional[Tensor]) -> Optional[Tensor]:
        """(N, S, 1) bool, true where torch's nested-tensor path would leave zeros, or
        None where torch would not take that path (the conditions are torch's)."""
        first = self.layers[0] if len(self.layers) else None
        if (not isinstance(first, TransformerEncoderLayer) or first.norm_first or first.training
                or not first.self_attn.batch_first or not first.self_attn._qkv_same_embed_dim
                or not first.activation_relu_or_gelu or first.norm1.eps != first.norm2.eps
                or src.dim() != 3 or not self.enable_nested_tensor or src_key_padding_mask is None
                or mask is not None or first.self_attn.num_heads % 2 == 1):
            return None
        if K.is_grad_enabled():
            args = [src] + [p for p in (first.self_attn.in_proj_weight, first.self_attn.in_proj_bias,
                                        first.self_attn.out_proj.weight, first.self_attn.out_proj.bias,
                                        first.norm1.weight, first.norm1.bias, first.norm2.weight,
                                        first.norm2.bias, first.linear1.weight, first.linear1.bias,
                                        first.linear2.weight, first.linear2.bias) if p is not None]
            if any(a.requires_grad for a in args):
                return None
        kpm = src_key_padding_mask
        padded = kpm if kpm.dtype.name == "bool" else kpm != 0
        if self.mask_check and not _left_aligned([[not v for v in row] for row in padded.tolist()]):
            return None
        return padded.unsqueeze(-1)

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
        check_key_padding_mask_dtype(src_key_padding_mask)
        padded = self._padded_positions(src, mask, src_key_padding_mask)
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if padded is not None:
            out = out.masked_fill(padded, 0.0)
        if self.norm is not None:
            out = self.norm(out)
        return out


class TransformerDecoder(Module):
    """A stack of num_layers copies of decoder_layer (torch.nn.TransformerDecoder).

    Args:
        decoder_layer: the layer copied.
        num_layers: how many.
        norm: an optional final norm module.
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Optional[Module] = None) -> None:
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Optional[Tensor] = None,
                memory_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Runs tgt (attending to memory) through every layer, then the norm.

        Args:
            tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask:
                as TransformerDecoderLayer's, passed to every layer.

        Returns:
            A tensor of tgt's shape.
        """
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            out = self.norm(out)
        return out


class Transformer(Module):
    """An encoder-decoder transformer (torch.nn.Transformer).

    Args:
        d_model: the model's width.
        nhead: attention heads.
        num_encoder_layers, num_decoder_layers: the stacks' depths.
        dim_feedforward: the feed-forward blocks' width.
        dropout: dropout probability.
        activation: "relu", "gelu" or a callable.
        custom_encoder, custom_decoder: modules used instead of the default stacks.
        layer_norm_eps: the norms' eps.
        batch_first: inputs (N, S, E) rather than (S, N, E).
        norm_first: pre-norm layers.
        device, dtype: where and of what type the parameters are.

    Every parameter with more than one dim (custom modules' too) starts Xavier-uniform, as torch's.
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: Union[str, Callable[[Tensor], Tensor]] = F.relu,
                 custom_encoder: Optional[Any] = None, custom_decoder: Optional[Any] = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 device=None, dtype=None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, device=device, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps)
            _to_factory(norm, device, dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, device=device, dtype=dtype)
            norm = LayerNorm(d_model, eps=layer_norm_eps)
            _to_factory(norm, device, dtype)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Optional[Tensor] = None,
                tgt_mask: Optional[Tensor] = None, memory_mask: Optional[Tensor] = None,
                src_key_padding_mask: Optional[Tensor] = None, tgt_key_padding_mask: Optional[Tensor] = None,
                memory_key_padding_mask: Optional[Tensor] = None) -> Tensor:
        """Encodes src, then decodes tgt attending to the encoding.

        Args:
            src: (S, N, E), (N, S, E) with batch_first, or unbatched (S, E).
            tgt: (T, N, E) likewise.
            src_mask: (S, S) or (N * nhead, S, S) encoder self-attention mask.
            tgt_mask: (T, T) or (N * nhead, T, T) decoder self-attention mask
                (generate_square_subsequent_mask(T) for causal decoding).
            memory_mask: (T, S) or (N * nhead, T, S) mask of the decoder's attention over the encoding.
            src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask: (N, S), (N, T), (N, S).

        Returns:
            A tensor of tgt's shape.

        Raises:
            RuntimeError: src and tgt batch sizes differ, or their width is not d_model.
        """
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device="cpu") -> Tensor:
        """A causal float mask (sz, sz): -inf above the diagonal, 0 elsewhere.

        Args:
            sz: the sequence length.
            device: where the mask is made.
        """
        return full((sz, sz), float("-inf"), device=device).triu(1)

    def _reset_parameters(self) -> None:
        """Xavier-uniform for every parameter of more than one dim."""
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)


__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder",
           "Transformer"]
