"""tc.nn.functional's remaining layer functions of torch.nn.functional 1.13,
composed from tc ops (autograd from those): the shrink/threshold activations,
softmin, rrelu, the channel and alpha dropouts, embedding_bag, bilinear,
local response normalization, channel shuffle, the deprecated upsample_*
forms and gumbel_softmax."""
import math
import warnings
from typing import Optional

import tc as _tc

from ..autograd import Function
from .._tensor import Tensor
from .._shape_ops import pad
from . import functional_layers as _FL

__all__ = ["threshold", "threshold_", "hardshrink", "softshrink", "tanhshrink", "softmin", "rrelu", "rrelu_",
           "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout3d", "embedding_bag", "bilinear",
           "local_response_norm", "channel_shuffle", "native_channel_shuffle", "upsample_nearest",
           "upsample_bilinear", "gumbel_softmax", "conv_tbc", "pdist", "relu_", "elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_"]


def _scalar(x: Tensor, v: float) -> Tensor:
    return _tc.full((), float(v), dtype=x.dtype, device=x.device)


# ---------------------------------------------------------------- activations

def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """input where input > threshold, else value (torch.nn.functional.threshold).

    Args:
        input: the input.
        threshold: the bound.
        value: what replaces the elements at or below it.
        inplace: accepted for PyTorch compatibility; a new tensor is returned.

    Returns:
        A tensor shaped like input.
    """
    return _tc.where(input > threshold, input, _scalar(input, value))


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """threshold written into input itself."""
    out = globals()["threshold"](input, threshold, value)
    input.copy_(out)
    return input


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input where |input| > lambd, else 0 (torch.nn.functional.hardshrink).

    Args:
        input: the input.
        lambd: the bound.

    Returns:
        A tensor shaped like input.
    """
    return _tc.where((input > lambd).logical_or(input < -lambd), input, _scalar(input, 0.0))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """input - lambd above lambd, input + lambd below -lambd, 0 between
    (torch.nn.functional.softshrink).

    Args:
        input: the input.
        lambd: the bound, >= 0.

    Returns:
        A tensor shaped like input.
    """
    if lambd < 0:
        raise RuntimeError("lambda must be greater or equal to 0, but found to be %s." % lambd)
    zero = _scalar(input, 0.0)
    return _tc.where(input > lambd, input - lambd, _tc.where(input < -lambd, input + lambd, zero))


def tanhshrink(input: Tensor) -> Tensor:
    """input - tanh(input) (torch.nn.functional.tanhshrink)."""
    return input - input.tanh()


def _softmax_dim(name: str, ndim: int) -> int:
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to include dim=X as an "
                  "argument.".format(name), stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """softmax(-input) along dim (torch.nn.functional.softmin).

    Args:
        input: the input.
        dim: the dim (None: torch's deprecated implicit choice, with a warning).
        dtype: cast the input to it first.

    Returns:
        A tensor shaped like input.
    """
    if dim is None:
        dim = _softmax_dim("softmin", input.ndim)
    if dtype is not None:
        input = input.to(dtype)
    return (-input).softmax(dim)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU (torch.nn.functional.rrelu): in training, each
    element <= 0 is multiplied by its own slope drawn uniformly from
    [lower, upper] (tc's generator); otherwise the slope is (lower + upper) / 2.

    Args:
        input: the input.
        lower, upper: the slope range.
        training: draw the slopes.
        inplace: accepted for PyTorch compatibility; a new tensor is returned.

    Returns:
        A tensor shaped like input.
    """
    if not training:
        return input.leaky_relu((lower + upper) / 2.0)
    with _tc.no_grad():
        slope = _tc.rand(*input.shape, dtype=input.dtype, device=input.device) * (upper - lower) + lower
    return _tc.where(input > 0, input, input * slope)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """rrelu written into input itself."""
    input.copy_(rrelu(input, lower, upper, training))
    return input


def _inplace(name: str):
    def f(input, *args, **kwargs):
        from . import functional as F
        out = getattr(F, name)(input, *args, **kwargs)
        input.copy_(out)
        return input

    f.__name__ = f.__qualname__ = name + "_"
    f.__doc__ = "tc.nn.functional.%s written into input itself (returns input)." % name
    return f


relu_ = _inplace("relu")
elu_ = _inplace("elu")
celu_ = _inplace("celu")
selu_ = _inplace("selu")
leaky_relu_ = _inplace("leaky_relu")
hardtanh_ = _inplace("hardtanh")


# ---------------------------------------------------------------- dropouts

def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


def _dropout_impl(input: Tensor, p: float, training: bool, feature: bool, alpha: bool) -> Tensor:
    """ATen's _dropout_impl: the noise is per element or, for the feature
    forms, per (sample, channel); the alpha forms keep SELU's mean and variance."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input * _scalar(input, 0.0)
    if feature and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = (tuple(input.shape[:2]) + (1,) * (input.ndim - 2)) if feature else tuple(input.shape)
    with _tc.no_grad():
        keep = _tc.bernoulli(_tc.full(shape, 1.0 - p, dtype=input.dtype, device=input.device))
        if alpha:
            a_const = 1.7580993408473766
            a = 1.0 / math.sqrt((a_const * a_const * p + 1) * (1 - p))
            b = (keep - 1.0) * (a_const * a) + a_const * a * p
            noise = keep * a
        else:
            noise = keep / (1.0 - p)
    out = input * noise
    return out + b if alpha else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout (torch.nn.functional.alpha_dropout): dropped elements are set
    to SELU's negative saturation and all are affinely rescaled so that the mean
    and variance are kept.

    Args:
        input: the input.
        p: the drop probability.
        training: apply it (identity otherwise).
        inplace: accepted for PyTorch compatibility; a new tensor is returned.

    Returns:
        A tensor shaped like input.
    """
    _check_p(p)
    return _dropout_impl(input, p, training, False, True)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """alpha_dropout of whole channels of [N, C, *] (torch.nn.functional.feature_alpha_dropout)."""
    _check_p(p)
    return _dropout_impl(input, p, training, True, True)


def _channel_dropout(input: Tensor, p: float, training: bool, batched_ndim: int) -> Tensor:
    # an unbatched input (one dim fewer) is treated as a batch of one
    batched = input.ndim == batched_ndim
    x = input if batched else input.unsqueeze(0)
    out = _dropout_impl(x, p, training, True, False)
    return out if batched else out.squeeze(0)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of [N, C, L] or [C, L] with probability p, scaling
    the rest by 1/(1-p) (torch.nn.functional.dropout1d).

    Returns:
        A tensor shaped like input.
    """
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError("dropout1d: Expected 2D or 3D input, but received a {}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).".format(input.ndim))
    return _channel_dropout(input, p, training, 3)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] with probability
    p, scaling the rest by 1/(1-p) (torch.nn.functional.dropout3d).

    Returns:
        A tensor shaped like input.
    """
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn("dropout3d: Received a {}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead.".format(input.ndim))
    return _channel_dropout(input, p, training, 5)


# ---------------------------------------------------------------- embedding_bag

class _ScaleGrad(Function):
    """Identity forward; the gradient multiplied by a fixed factor (scale_grad_by_freq)."""

    @staticmethod
    def forward(ctx, x, scale):
        """Returns x unchanged."""
        ctx.save_for_backward(scale)
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        """grad * scale."""
        scale, = ctx.saved_tensors
        return grad * scale, None


def _renorm_rows(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """torch.embedding_renorm_: the rows of weight that input uses, rescaled in
    place to norm max_norm where their norm exceeds it."""
    with _tc.no_grad():
        rows = _tc.unique(input.reshape(-1))
        w = weight.index_select(0, rows)
        norms = w.abs().pow(norm_type).sum(1).pow(1.0 / norm_type)
        scale = _tc.where(norms > max_norm, max_norm / (norms + 1e-7), _scalar(w, 1.0))
        weight[rows] = w * scale.unsqueeze(1)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Optional[Tensor] = None, max_norm: Optional[float] = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Optional[Tensor] = None, include_last_offset: bool = False,
                  padding_idx: Optional[int] = None) -> Tensor:
    """Sums, means or maxes of bags of embeddings, as torch.nn.functional.embedding_bag.

    Args:
        input: int64 indices, [B, L] (B bags of L) or 1-D with offsets.
        weight: [num_embeddings, dim].
        offsets: 1-D int64 starts of the bags in a 1-D input.
        max_norm: rows used are first renormalized in place to at most this norm.
        norm_type: the p of that norm.
        scale_grad_by_freq: divide each row's gradient by its count in input.
        mode: "sum", "mean" or "max".
        sparse: sparse gradients are not supported (NotImplementedError).
        per_sample_weights: weights of the elements (mode "sum" only).
        include_last_offset: offsets has one more entry, the end of the last bag.
        padding_idx: an index that is left out of every bag.

    Returns:
        [B, dim]; an empty bag gives zeros.
    """
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same shape as "
                         "the input ({})".format(tuple(per_sample_weights.shape), tuple(input.shape)))
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type {}".format(type(offsets)))
        B, L = input.shape
        starts = [b * L for b in range(B)]
        ends = [b * L + L for b in range(B)]
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = [int(v) for v in offsets.tolist()]
        T = input.shape[0]
        if include_last_offset:
            if not offs:
                raise RuntimeError("embedding_bag: offsets must have at least one element with include_last_offset")
            starts, ends = offs[:-1], offs[1:]
        else:
            starts, ends = offs, offs[1:] + [T]
        if offs and offs[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               "from position 0. However, got %d" % offs[0])
        if any(a > b for a, b in zip(starts, ends)) or any(e > T for e in ends):
            raise RuntimeError("offsets[-1] can not be greater than input's length %d" % T)
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.ndim))
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported by tc")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  "supported for mode='sum' (got mode='{}'). Please open a feature request on "
                                  "GitHub.".format(mode))
    num, dim = weight.shape
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError("padding_idx must be within the number of embeddings, -%d to %d, but got %d"
                               % (num, num - 1, padding_idx))
        padding_idx %= num
    T = input.shape[0]
    B = len(starts)
    device = weight.device
    rows = _FL.embedding(input, weight)  # [T, dim]
    if scale_grad_by_freq and T:
        with _tc.no_grad():
            counts = _tc.zeros(num, dtype=weight.dtype, device=device).index_add(
                0, input, _tc.ones(T, dtype=weight.dtype, device=device))
            scale = (1.0 / counts.index_select(0, input)).unsqueeze(1)
        rows = _ScaleGrad.apply(rows, scale)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    # The bags as a dense [B, maxlen] table of element positions; position T is
    # an extra row that stands for "no element".
    lens = [e - s for s, e in zip(starts, ends)]
    maxlen = max(lens, default=0)
    table = [[s + j if j < n else T for j in range(maxlen)] for s, n in zip(starts, lens)]
    pos = _tc.tensor(table, dtype=_tc.int64, device=device).reshape(B, maxlen)
    with _tc.no_grad():
        valid = pos < T
        if padding_idx is not None and T:
            ext_idx = _tc.cat([input, _tc.full((1,), -1, dtype=input.dtype, device=device)])
            valid = valid.logical_and(ext_idx.index_select(0, pos.reshape(-1)).reshape(B, maxlen) != padding_idx)
        count = valid.sum(1).to(weight.dtype).unsqueeze(1)  # [B, 1]
    ext = _tc.cat([rows, _tc.zeros(1, dim, dtype=rows.dtype, device=device)])
    dense = ext.index_select(0, pos.reshape(-1)).reshape(B, maxlen, dim)
    zero = _scalar(dense, 0.0)
    if mode == "max":
        masked = _tc.where(valid.unsqueeze(2), dense, _scalar(dense, float("-inf")))
        if maxlen == 0:
            return _tc.zeros(B, dim, dtype=weight.dtype, device=device)
        with _tc.no_grad():
            idx = masked.argmax(1, keepdim=True)
        best = masked.gather(1, idx).squeeze(1)
        return _tc.where(count > 0, best, zero)
    total = _tc.where(valid.unsqueeze(2), dense, zero).sum(1)
    if mode == "sum":
        return total
    return total / count.clamp(min=1.0)


# ---------------------------------------------------------------- bilinear, LRN, shuffles

def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Optional[Tensor] = None) -> Tensor:
    """y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]
    (torch.nn.functional.bilinear).

    Args:
        input1: [..., in1].
        input2: [..., in2] (the same leading shape).
        weight: [out, in1, in2].
        bias: [out] or None.

    Returns:
        [..., out].
    """
    if input1.ndim != input2.ndim:
        raise RuntimeError("bilinear(): input dimensions do not match: got %d and %d" % (input1.ndim, input2.ndim))
    if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise RuntimeError("bilinear(): input batch dimensions do not match: got %s and %s"
                           % (list(input1.shape), list(input2.shape)))
    if weight.ndim != 3:
        raise RuntimeError("bilinear(): weight must be 3-dimensional, got %d" % weight.ndim)
    o, i, j = weight.shape
    if input1.shape[-1] != i:
        raise RuntimeError("bilinear(): input1 size does not match weight size: got %d but expected %d"
                           % (input1.shape[-1], i))
    if input2.shape[-1] != j:
        raise RuntimeError("bilinear(): input2 size does not match weight size: got %d but expected %d"
                           % (input2.shape[-1], j))
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, i)
    x2 = input2.reshape(-1, 1, j)
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i, o * j)).reshape(-1, o, j)
    y = (t * x2).sum(-1)
    if bias is not None:
        y = y + bias
    return y.reshape(lead + (o,))


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta
    (torch.nn.functional.local_response_norm; the window is centred, the
    mean divides by size with zeros outside).

    Args:
        input: [N, C, *] (3-D or more).
        size: the channel window.
        alpha, beta, k: the constants.

    Returns:
        A tensor shaped like input.
    """
    if input.ndim < 3:
        raise ValueError("Expected 3D or higher dimensionality input (got {} dimensions)".format(input.ndim))
    if input.numel() == 0:
        return input
    C = input.shape[1]
    sq = input * input
    padded = pad(sq, [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2])
    acc = None
    for j in range(size):
        part = padded.narrow(1, j, C)
        acc = part if acc is None else acc + part
    div = (acc / float(size)).mul(alpha).add(k).pow(beta)
    return input / div


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """[N, g*c, *] -> the channels regrouped as [N, c*g, *] (torch.nn.functional.channel_shuffle).

    Args:
        input: at least 3-D.
        groups: g, dividing the channels.

    Returns:
        A tensor shaped like input.
    """
    if input.ndim < 3:
        raise RuntimeError("channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           "sizes %s" % (list(input.shape),))
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of groups:%d" % groups)
    C = input.shape[1]
    if C % groups:
        raise RuntimeError("Number of channels must be divisible by groups. Got %d channels and %d groups."
                           % (C, groups))
    N = input.shape[0]
    rest = tuple(input.shape[2:])
    return input.reshape((N, groups, C // groups) + rest).transpose(1, 2).reshape((N, C) + rest)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """The same as channel_shuffle (torch.nn.functional.native_channel_shuffle)."""
    return channel_shuffle(input, groups)


# ---------------------------------------------------------------- deprecated resampling, gumbel

def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """interpolate(mode="nearest") (torch.nn.functional.upsample_nearest, deprecated)."""
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    from .functional_interp import interpolate
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """interpolate(mode="bilinear", align_corners=True) (torch.nn.functional.upsample_bilinear, deprecated)."""
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    from .functional_interp import interpolate
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Samples from the Gumbel-softmax distribution (torch.nn.functional.gumbel_softmax;
    tc's generator, so other numbers than torch's).

    Args:
        logits: unnormalized log-probabilities.
        tau: the temperature.
        hard: return one-hot samples, with the soft sample's gradient (straight through).
        eps: deprecated, unused.
        dim: the dim of the categories.

    Returns:
        A tensor shaped like logits.
    """
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    with _tc.no_grad():
        u = _tc.rand(*logits.shape, dtype=logits.dtype, device=logits.device)
        # -log(Exp(1)) with Exp(1) = -log(1 - u), 1 - u in (0, 1]
        gumbels = -((-(1.0 - u).log()).log())
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    with _tc.no_grad():
        index = y_soft.argmax(dim, keepdim=True)
        # one-hot by comparison (not scatter: libtc's scatter crashes on an index of size 1 along a dim)
        shape = [1] * logits.ndim
        shape[dim] = logits.shape[dim]
        cats = _tc.arange(logits.shape[dim], dtype=_tc.int64, device=logits.device).reshape(*shape)
        y_hard = (cats == index).to(logits.dtype)
    return y_hard - y_soft.detach() + y_soft


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution in time-batch-channel layout (torch.conv_tbc).

    Args:
        input: [T, B, C].
        weight: [k, C, O].
        bias: [O].
        pad: zeros added at both ends of T.

    Returns:
        [T_out, B, O].
    """
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    y = _FL.conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0).contiguous(), bias, 1, pad)
    return y.permute(2, 0, 1)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between the rows of input [N, M], for every pair
    i < j in row-major order (torch.nn.functional.pdist); a zero distance has
    a zero gradient, as torch's.

    Args:
        input: [N, M].
        p: the norm, >= 0 (inf: the largest difference; 0: the count of differences).

    Returns:
        [N * (N - 1) / 2].
    """
    if input.ndim != 2:
        raise RuntimeError("pdist only supports 2D tensors, got: %dD" % input.ndim)
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    if not rows:
        return _tc.zeros(0, dtype=input.dtype, device=input.device)
    ri = _tc.tensor(rows, dtype=_tc.int64, device=input.device)
    ci = _tc.tensor(cols, dtype=_tc.int64, device=input.device)
    diff = (input.index_select(0, ri) - input.index_select(0, ci)).abs()
    zero = _scalar(input, 0.0)
    if p == 0:
        # a count: differentiable with a zero gradient, as torch's
        return (diff != 0).to(input.dtype).sum(1) + diff.sum(1) * 0.0
    if p == float("inf"):
        return diff.amax(1)
    if p == 1:
        return diff.sum(1)
    total = diff.pow(p).sum(1)
    with _tc.no_grad():
        nonzero = total > 0
    # the root only where the sum is positive: no 0 * inf in the gradient at 0
    safe = _tc.where(nonzero, total, _scalar(input, 1.0))
    return _tc.where(nonzero, safe.pow(1.0 / p), zero)
