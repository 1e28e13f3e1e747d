"""torch.nn's remaining element-wise and small layers (1.13): the shrink and
threshold activations, Softmin, Softmax2d, RReLU, the alpha and channel
dropouts, Unflatten, the fixed-mode upsampling layers, EmbeddingBag,
Bilinear, LocalResponseNorm, CrossMapLRN2d and ChannelShuffle."""
import math
from typing import Optional

import tc as _tc

from ..autograd import Function
from .._tensor import Tensor
from . import functional_more as FM
from . import init
from .modules import Module, Parameter, _param
from .modules_layers import Upsample as _Upsample

__all__ = ["Threshold", "Hardshrink", "Softshrink", "Tanhshrink", "Softmin", "Softmax2d", "RReLU", "AlphaDropout",
           "FeatureAlphaDropout", "Dropout1d", "Dropout3d", "Unflatten", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "Upsample", "EmbeddingBag", "Bilinear", "LocalResponseNorm", "CrossMapLRN2d",
           "ChannelShuffle"]


# ---------------------------------------------------------------- activations

class Threshold(Module):
    """y = x where x > threshold, else value (torch.nn.Threshold).

    Args:
        threshold: the bound.
        value: the replacement.
        inplace: accepted for PyTorch compatibility.
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        """Applies the threshold to the input."""
        return FM.threshold(input, self.threshold, self.value)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "threshold={}, value={}{}".format(self.threshold, self.value, ", inplace=True" if self.inplace else "")


class Hardshrink(Module):
    """y = x where |x| > lambd, else 0 (torch.nn.Hardshrink).

    Args:
        lambd: the bound (default 0.5).
    """

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        """Applies the hard shrinkage to the input."""
        return FM.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "{}".format(self.lambd)


class Softshrink(Hardshrink):
    """y = x - lambd above lambd, x + lambd below -lambd, else 0 (torch.nn.Softshrink).

    Args:
        lambd: the bound, >= 0 (default 0.5).
    """

    def forward(self, input: Tensor) -> Tensor:
        """Applies the soft shrinkage to the input."""
        return FM.softshrink(input, self.lambd)


class Tanhshrink(Module):
    """y = x - tanh(x) (torch.nn.Tanhshrink)."""

    def forward(self, input: Tensor) -> Tensor:
        """Applies x - tanh(x) to the input."""
        return FM.tanhshrink(input)


class Softmin(Module):
    """softmax(-x) along dim (torch.nn.Softmin).

    Args:
        dim: the dim (None: torch's deprecated implicit choice).
    """

    def __init__(self, dim: Optional[int] = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        """Applies softmin to the input."""
        return FM.softmin(input, self.dim)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "dim={dim}".format(dim=self.dim)


class Softmax2d(Module):
    """Softmax over the channels of [N, C, H, W] or [C, H, W] at each location (torch.nn.Softmax2d)."""

    def forward(self, input: Tensor) -> Tensor:
        """Applies softmax over dim -3 of the input."""
        assert input.ndim in (3, 4), "Softmax2d requires a 3D or 4D tensor as input"
        return input.softmax(-3)


class RReLU(Module):
    """Randomized leaky ReLU (torch.nn.RReLU): random slopes in [lower, upper]
    in training, their mean in eval mode.

    Args:
        lower, upper: the slope range (1/8, 1/3).
        inplace: accepted for PyTorch compatibility.
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        """Applies the randomized leaky ReLU to the input."""
        return FM.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "lower={}, upper={}{}".format(self.lower, self.upper, ", inplace=True" if self.inplace else "")


# ---------------------------------------------------------------- dropouts

class _DropoutNd(Module):
    """Base of the dropout modules: p checked in [0, 1]; ``_fn`` applies it."""
    _fn = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        """Applies the dropout (identity in eval mode) to the input."""
        return type(self)._fn(input, self.p, self.training)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "p={}, inplace={}".format(self.p, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout, keeping SELU's self-normalization (torch.nn.AlphaDropout).

    Args:
        p: the drop probability.
        inplace: accepted for PyTorch compatibility.
    """
    _fn = staticmethod(FM.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (torch.nn.FeatureAlphaDropout); arguments as AlphaDropout's."""
    _fn = staticmethod(FM.feature_alpha_dropout)


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of [N, C, L] or [C, L] (torch.nn.Dropout1d); arguments as AlphaDropout's."""
    _fn = staticmethod(FM.dropout1d)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of [N, C, D, H, W] or [C, D, H, W] (torch.nn.Dropout3d)."""
    _fn = staticmethod(FM.dropout3d)


# ---------------------------------------------------------------- shapes, resampling

class Unflatten(Module):
    """Splits dim into unflattened_size (torch.nn.Unflatten).

    Args:
        dim: an int (named dims are not supported by tc).
        unflattened_size: a tuple or list of ints (one may be -1).
    """

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, int):
            if not isinstance(unflattened_size, (tuple, list)):
                raise TypeError("unflattened_size must be a tuple of ints, but found type {}".format(
                    type(unflattened_size).__name__))
            for idx, elem in enumerate(unflattened_size):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element of type {} at pos "
                                    "{}".format(type(elem).__name__, idx))
        elif isinstance(dim, str):
            raise NotImplementedError("Unflatten: named dims are not supported by tc")
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        """Unflattens the input."""
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "dim={}, unflattened_size={}".format(self.dim, self.unflattened_size)


class Upsample(_Upsample):
    """Resampling by size or scale_factor with every mode of
    tc.nn.functional.interpolate (torch.nn.Upsample).

    Args:
        size: the output spatial size, or None.
        scale_factor: a float or one per spatial dim, when size is None.
        mode: "nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear" or "area".
        align_corners: for the interpolating modes.
        recompute_scale_factor: compute the size from scale_factor, then forget the factor.
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: Optional[bool] = None,
                 recompute_scale_factor: Optional[bool] = None):
        super().__init__(size, scale_factor, mode, align_corners)
        self.name = type(self).__name__
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        """Resamples the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        from .functional_interp import interpolate
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of [N, C, H, W] (torch.nn.UpsamplingNearest2d).

    Args:
        size: the output (H, W), or None.
        scale_factor: the factor, when size is None.
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling with align_corners=True of [N, C, H, W] (torch.nn.UpsamplingBilinear2d).

    Args:
        size: the output (H, W), or None.
        scale_factor: the factor, when size is None.
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


# ---------------------------------------------------------------- embeddings, bilinear

class EmbeddingBag(Module):
    """Sums, means or maxes of bags of embeddings (torch.nn.EmbeddingBag), without
    materializing the per-element embeddings' bags in torch's layout.

    Args:
        num_embeddings, embedding_dim: the table's shape.
        max_norm: used rows are renormalized in place to at most this norm.
        norm_type: the p of that norm.
        scale_grad_by_freq: divide a row's gradient by its count in the input.
        mode: "sum", "mean" or "max".
        sparse: not supported (must be False).
        _weight: an initial table, else N(0, 1).
        include_last_offset: offsets carry the end of the last bag.
        padding_idx: an index left out of every bag (its row zeroed at init).
        device, dtype: where and of what the table is.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: Optional[float] = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 _weight: Optional[Tensor] = None, include_last_offset: bool = False,
                 padding_idx: Optional[int] = None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, "padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, "padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = _param((num_embeddings, embedding_dim), lambda t: None)
            if dtype is not None or device is not None:
                self.to(*(a for a in (device, dtype) if a is not None))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self) -> None:
        """N(0, 1) weights, the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with _tc.no_grad():
                self.weight[self.padding_idx].fill_(0.0)

    def forward(self, input: Tensor, offsets: Optional[Tensor] = None,
                per_sample_weights: Optional[Tensor] = None) -> Tensor:
        """The bags' reductions.

        Args:
            input (Tensor): int64 indices, [B, L] or 1-D with offsets.
            offsets (Tensor, optional): the bags' starts in a 1-D input.
            per_sample_weights (Tensor, optional): weights of the elements (mode "sum").

        Returns:
            Tensor: [B, embedding_dim].
        """
        return FM.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                                self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                                self.padding_idx)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        s = "{}, {}".format(self.num_embeddings, self.embedding_dim)
        if self.max_norm is not None:
            s += ", max_norm={}".format(self.max_norm)
        if self.norm_type != 2:
            s += ", norm_type={}".format(self.norm_type)
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={}".format(self.scale_grad_by_freq)
        s += ", mode={}".format(self.mode)
        if self.padding_idx is not None:
            s += ", padding_idx={}".format(self.padding_idx)
        return s

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, max_norm: Optional[float] = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: Optional[int] = None) -> "EmbeddingBag":
        """An EmbeddingBag whose table is embeddings (2-D), frozen unless freeze=False.

        Returns:
            EmbeddingBag: the module.
        """
        assert embeddings.ndim == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


class Bilinear(Module):
    """y = x1^T A x2 + b (torch.nn.Bilinear): weight [out, in1, in2], bias [out],
    both U(-1/sqrt(in1), 1/sqrt(in1)).

    Args:
        in1_features, in2_features, out_features: the sizes.
        bias: learn b.
        device, dtype: where and of what the parameters are.
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = _param((out_features, in1_features, in2_features), lambda t: None)
        self.bias = _param((out_features,), lambda t: None) if bias else None
        if dtype is not None or device is not None:
            self.to(*(a for a in (device, dtype) if a is not None))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """U(-1/sqrt(in1), 1/sqrt(in1)) for weight and bias, as torch's."""
        bound = 1 / math.sqrt(self.weight.shape[1]) if self.weight.shape[1] else 0.0
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """The bilinear form of the two inputs.

        Args:
            input1 (Tensor): [..., in1_features].
            input2 (Tensor): [..., in2_features].

        Returns:
            Tensor: [..., out_features].
        """
        return FM.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "in1_features={}, in2_features={}, out_features={}, bias={}".format(
            self.in1_features, self.in2_features, self.out_features, self.bias is not None)


# ---------------------------------------------------------------- normalizations, shuffles

class LocalResponseNorm(Module):
    """Local response normalization across channels (torch.nn.LocalResponseNorm).

    Args:
        size: the channel window.
        alpha, beta, k: the constants (1e-4, 0.75, 1).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        """Normalizes the input."""
        return FM.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


def _window_matrix(C: int, lo, hi, device, dtype) -> Tensor:
    """[C, C]: row c has ones at channels lo(c)..hi(c) (clipped to [0, C))."""
    rows = []
    for c in range(C):
        a, b = max(lo(c), 0), min(hi(c), C - 1)
        rows.append([1.0 if a <= j <= b else 0.0 for j in range(C)])
    return _tc.tensor(rows, dtype=dtype, device=device).reshape(C, C)


def _over_channels(x: Tensor, m: Tensor) -> Tensor:
    """out[:, c] = sum_j m[c, j] * x[:, j] for x [N, C, H, W]."""
    return x.transpose(1, 3).matmul(m.t()).transpose(1, 3)


def _legacy_windows(C: int, size: int):
    """[C][C] 0/1 rows: the squares that torch's legacy loop sums for each
    channel, replayed (it adds channel c+pre_pad-1 and, past pre_pad, removes
    channel c-pre_pad, so channel 0 is never removed)."""
    pre_pad = int((size - 1) / 2 + 1)
    row = [1 if c < min(pre_pad, C) else 0 for c in range(C)]
    rows = [list(row)]
    for c in range(1, C):
        if c < C - pre_pad + 1:
            row[c + pre_pad - 1] += 1
        if c > pre_pad:
            row[c - pre_pad] -= 1
        rows.append(list(row))
    return rows


class _CrossMapLRN2dFn(Function):
    """torch's legacy CrossMapLRN2d (torch/nn/modules/_functions.py): its
    forward's running channel sum (which, for odd sizes, counts channel 0 once
    more at channel (size+1)/2) and its own backward formula, both kept so that
    values and gradients match torch's."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        """input * (k + alpha/size * windowed sum of squares)^-beta."""
        C = input.shape[1]
        m = _tc.tensor(_legacy_windows(C, size), dtype=input.dtype, device=input.device).reshape(C, C)
        scale = _over_channels(input * input, m) * (alpha / size) + k
        output = scale.pow(-beta) * input
        ctx.params = (size, alpha, beta)
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        """torch's legacy backward: the ratio summed over channels c-ipp..c-ipp+size-1."""
        input, output, scale = ctx.saved_tensors
        size, alpha, beta = ctx.params
        C = input.shape[1]
        ipp = int(size - (size - 1) / 2)
        m = _window_matrix(C, lambda c: c - ipp, lambda c: c - ipp + size - 1, input.device, input.dtype)
        ratio = grad_output * output / scale
        accum = _over_channels(ratio, m)
        grad = scale.pow(-beta) * grad_output - (2 * alpha * beta / size) * input * accum
        return grad, None, None, None, None


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN of [N, C, H, W] (torch.nn.CrossMapLRN2d), with torch's own gradient.

    Args:
        size: the channel window.
        alpha, beta, k: the constants (1e-4, 0.75, 1).
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        """Normalizes the input."""
        assert input.ndim == 4
        return _CrossMapLRN2dFn.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)


class ChannelShuffle(Module):
    """Regroups the channels of [N, g*c, *] as [N, c*g, *] (torch.nn.ChannelShuffle).

    Args:
        groups: g.
    """

    def __init__(self, groups: int):
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        """Shuffles the input's channels."""
        return FM.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "groups={}".format(self.groups)
