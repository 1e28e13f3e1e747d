"""The layer modules of torch.nn that wrap tc.nn.functional's layer
functions: norms with running statistics, 1-D/2-D and transposed
convolutions, pooling, resampling, pixel shuffle, channel dropout and
Embedding with padding_idx. Initialization as PyTorch's."""
import itertools
import math
from typing import Optional, Sequence, Tuple, Union

from .. import _tensor as _T
from .._core import no_grad
from .._ints import to_int64
from .._tensor import Tensor
from . import functional as F
from . import init
from .modules import Module, Parameter, _param

IntOrPair = Union[int, Sequence[int]]

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "Conv1d", "Conv2d",
           "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "Upsample", "PixelShuffle",
           "PixelUnshuffle", "Dropout2d", "Embedding"]


def _ones(n: int) -> Parameter:
    return _param((n,), init.ones_)


def _zeros(n: int) -> Parameter:
    return _param((n,), init.zeros_)


# ---------------------------------------------------------------- norms

class _NormBase(Module):
    """Base of the batch and instance norm modules: affine parameters and running statistics."""
    def __init__(self, num_features: int, eps: float, momentum: Optional[float], affine: bool,
                 track_running_stats: bool):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = _ones(num_features) if affine else None
        self.bias = _zeros(num_features) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", _T.zeros(num_features))
            self.register_buffer("running_var", _T.ones(num_features))
            self.register_buffer("num_batches_tracked", _T.tensor(0, dtype="int64"))
        else:
            self.running_mean = self.running_var = self.num_batches_tracked = None

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batch tracked."""
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def _momentum(self) -> float:
        """The update factor of this step; momentum None is the cumulative average."""
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                return 1.0 / float(self.num_batches_tracked.item())
        return 0.0 if self.momentum is None else self.momentum

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s" % (
            self.num_features, self.eps, self.momentum, self.affine, self.track_running_stats)


class _BatchNorm(_NormBase):
    """Base of BatchNorm1d/2d/3d."""
    _dims: Tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def forward(self, input: Tensor) -> Tensor:
        """Applies batch normalization (batch statistics in training mode, running ones in eval mode) to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        if len(input.shape) not in self._dims:
            raise ValueError("expected %s input (got %dD input)" % (" or ".join("%dD" % d for d in self._dims),
                                                                   len(input.shape)))
        factor = self._momentum()
        # Batch statistics in training, and in eval when no running stats are kept.
        bn_training = self.training or self.running_mean is None
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalization of [N, C] or [N, C, L] (torch.nn.BatchNorm1d).

    Args:
        num_features: C.
        eps: added to the variance.
        momentum: the running stats' update factor; None = cumulative average.
        affine: learnable weight (ones) and bias (zeros).
        track_running_stats: keep running_mean/running_var/num_batches_tracked buffers.
    """
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization of [N, C, H, W] (torch.nn.BatchNorm2d); arguments as BatchNorm1d."""
    _dims = (4,)


class _InstanceNorm(_NormBase):
    """Base of InstanceNorm1d/2d/3d."""
    _dims: Tuple[int, ...] = ()

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False):
        super().__init__(num_features, eps, momentum, affine, track_running_stats)

    def forward(self, input: Tensor) -> Tensor:
        """Applies instance normalization to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        if len(input.shape) != self._dims[0]:
            raise ValueError("expected %dD input (got %dD input)" % (self._dims[0], len(input.shape)))
        factor = self._momentum()
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats, factor, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of [N, C, L] (torch.nn.InstanceNorm1d); affine and running stats off by default."""
    _dims = (3,)


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of [N, C, H, W] (torch.nn.InstanceNorm2d).

    Args:
        num_features: C.
        eps: added to the variance.
        momentum: the running stats' update factor.
        affine: learnable weight and bias (default False).
        track_running_stats: keep running stats, used in eval mode (default False).
    """
    _dims = (4,)


class GroupNorm(Module):
    """Group normalization (torch.nn.GroupNorm).

    Args:
        num_groups: divides num_channels.
        num_channels: C.
        eps: added to the variance.
        affine: learnable per-channel weight (ones) and bias (zeros).
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self.weight = _ones(num_channels) if affine else None
        self.bias = _zeros(num_channels) if affine else None

    def forward(self, input: Tensor) -> Tensor:
        """Applies group normalization to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "%d, %d, eps=%s, affine=%s" % (self.num_groups, self.num_channels, self.eps, self.affine)


# ---------------------------------------------------------- convolutions

def _tuple(v, n: int) -> Tuple[int, ...]:
    """n int64 values from an int or an n-sequence; F._pair's checks (int64
    range, no floats, at most a few items of an iterable looked at)."""
    if n == 2:
        return F._pair(v)
    if hasattr(v, "__index__"):
        return (to_int64(v),)
    items = tuple(itertools.islice(v, 2))
    if len(items) != 1:
        raise ValueError("expected an int or a 1-tuple, got %r" % (items,))
    return (to_int64(items[0]),)


class _ConvNd(Module):
    """Base of the convolution modules: holds weight, bias and the settings."""
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride, padding, dilation, groups: int,
                 bias: bool, n: int, transposed: bool, output_padding=0):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError("in_channels and out_channels must be divisible by groups")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError("Invalid padding string %r, should be one of {'valid', 'same'}" % (padding,))
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        if isinstance(padding, str) and padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation, self.output_padding = _tuple(dilation, n), _tuple(output_padding, n)
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        # PyTorch's reset_parameters: kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), ..)
        # with fan_in = weight.shape[1] * kernel elements.
        self.weight = _param(shape, lambda t: init.kaiming_uniform_(t, math.sqrt(5)))
        fan_in = shape[1] * math.prod(self.kernel_size)
        bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
        self.bias = _param((out_channels,), lambda t: init.uniform_(t, -bound, bound)) if bias else None

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "%d, %d, kernel_size=%s, stride=%s, padding=%s" % (
            self.in_channels, self.out_channels, self.kernel_size, self.stride, self.padding)


class Conv1d(_ConvNd):
    """1-D convolution over [N, C, L] (torch.nn.Conv1d); padding an int, "valid" or "same"."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1,
                 padding: Union[str, int] = 0, dilation: int = 1, groups: int = 1, bias: bool = True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, 1, False)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the convolution to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        pad = self.padding if isinstance(self.padding, str) else self.padding[0]
        return F.conv1d(input, self.weight, self.bias, self.stride[0], pad, self.dilation[0], self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over [N, C, H, W] (torch.nn.Conv2d); padding an int, a pair, "valid" or "same".

    Args:
        in_channels, out_channels: C and O.
        kernel_size, stride, dilation: an int or a pair.
        padding: an int, a pair, "valid" or "same" (stride 1).
        groups: splits the channels.
        bias: a learnable [O] bias.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: Union[str, IntOrPair] = 0, dilation: IntOrPair = 1, groups: int = 1, bias: bool = True):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, 2, False)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the convolution to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class ConvTranspose1d(_ConvNd):
    """1-D transposed convolution over [N, C, L] (torch.nn.ConvTranspose1d); weight [C, O/groups, k]."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int = 1, padding: int = 0,
                 output_padding: int = 0, groups: int = 1, bias: bool = True, dilation: int = 1):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, 1, True,
                         output_padding)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the transposed convolution to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride[0], self.padding[0],
                                  self.output_padding[0], self.groups, self.dilation[0])


class ConvTranspose2d(_ConvNd):
    """2-D transposed convolution over [N, C, H, W] (torch.nn.ConvTranspose2d); weight [C, O/groups, kH, kW].

    Args:
        in_channels, out_channels: C and O.
        kernel_size, stride, padding, output_padding, dilation: an int or a pair.
        groups: splits the channels.
        bias: a learnable [O] bias.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: IntOrPair, stride: IntOrPair = 1,
                 padding: IntOrPair = 0, output_padding: IntOrPair = 0, groups: int = 1, bias: bool = True,
                 dilation: IntOrPair = 1):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, 2, True,
                         output_padding)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the transposed convolution to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                                  self.groups, self.dilation)


# -------------------------------------------------------------- pooling

class _PoolNd(Module):
    """Base of the pooling modules: keeps the options (torch.nn's attribute
    names) and calls tc.nn.functional's ``_fn`` with them, in the order
    ``_options`` gives (the function's positional order)."""
    _fn = ""
    _options: Tuple[str, ...] = ()

    def __init__(self, **options):
        super().__init__()
        for name in self._options:
            setattr(self, name, options[name])

    def forward(self, input: Tensor):
        """Applies the pooling to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output, or (values, indices) for a max pooling made with return_indices.
        """
        return getattr(F, self._fn)(input, *(getattr(self, name) for name in self._options))

    def extra_repr(self) -> str:
        """The options, as ``name=value`` pairs, for the module's repr."""
        return ", ".join("%s=%s" % (name, getattr(self, name)) for name in self._options)


class MaxPool1d(_PoolNd):
    """1-D max pooling of [N, C, L] (torch.nn.MaxPool1d)."""
    _fn, _options = "max_pool1d", ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

    def __init__(self, kernel_size: int, stride: Optional[int] = None, padding: int = 0, dilation: int = 1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                         ceil_mode=ceil_mode, return_indices=return_indices)


class MaxPool2d(_PoolNd):
    """2-D max pooling of [N, C, H, W] (torch.nn.MaxPool2d), with dilation, ceil_mode and return_indices."""
    _fn, _options = "max_pool2d", ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

    def __init__(self, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
                 dilation: IntOrPair = 1, return_indices: bool = False, ceil_mode: bool = False):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
                         ceil_mode=ceil_mode, return_indices=return_indices)


class AvgPool1d(_PoolNd):
    """1-D average pooling of [N, C, L] (torch.nn.AvgPool1d)."""
    _fn, _options = "avg_pool1d", ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")

    def __init__(self, kernel_size: int, stride: Optional[int] = None, padding: int = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad)


class AvgPool2d(_PoolNd):
    """2-D average pooling of [N, C, H, W] (torch.nn.AvgPool2d), with ceil_mode, count_include_pad and
    divisor_override."""
    _fn, _options = "avg_pool2d", ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                   "divisor_override")

    def __init__(self, kernel_size: IntOrPair, stride: Optional[IntOrPair] = None, padding: IntOrPair = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True, divisor_override: Optional[int] = None):
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                         count_include_pad=count_include_pad, divisor_override=divisor_override)


class AdaptiveAvgPool1d(_PoolNd):
    """Adaptive average pooling of [N, C, L] or [C, L] to output_size (torch.nn.AdaptiveAvgPool1d)."""
    _fn, _options = "adaptive_avg_pool1d", ("output_size",)

    def __init__(self, output_size: int):
        super().__init__(output_size=output_size)


class AdaptiveAvgPool2d(_PoolNd):
    """Adaptive average pooling of [N, C, H, W] or [C, H, W] to output_size, an int or a pair
    (torch.nn.AdaptiveAvgPool2d)."""
    _fn, _options = "adaptive_avg_pool2d", ("output_size",)

    def __init__(self, output_size):
        super().__init__(output_size=output_size)


class AdaptiveMaxPool1d(_PoolNd):
    """Adaptive max pooling of [N, C, L] or [C, L] (torch.nn.AdaptiveMaxPool1d); (values, indices) with
    return_indices."""
    _fn, _options = "adaptive_max_pool1d", ("output_size", "return_indices")

    def __init__(self, output_size: int, return_indices: bool = False):
        super().__init__(output_size=output_size, return_indices=return_indices)


class AdaptiveMaxPool2d(_PoolNd):
    """Adaptive max pooling of [N, C, H, W] or [C, H, W] (torch.nn.AdaptiveMaxPool2d); (values, indices) with
    return_indices."""
    _fn, _options = "adaptive_max_pool2d", ("output_size", "return_indices")

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size=output_size, return_indices=return_indices)


# ------------------------------------------------------------ resampling

class Upsample(Module):
    """Resampling by size or scale_factor (torch.nn.Upsample): modes "nearest", "linear", "bilinear"."""

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners: Optional[bool] = None):
        super().__init__()
        self.size, self.scale_factor, self.mode, self.align_corners = size, scale_factor, mode, align_corners

    def forward(self, input: Tensor) -> Tensor:
        """Applies the resampling to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners)


class PixelShuffle(Module):
    """[*, C*r^2, H, W] -> [*, C, H*r, W*r] (torch.nn.PixelShuffle)."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """Applies the pixel shuffle to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Module):
    """[*, C, H*r, W*r] -> [*, C*r^2, H, W] (torch.nn.PixelUnshuffle)."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """Applies the pixel unshuffle to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.pixel_unshuffle(input, self.downscale_factor)


class Dropout2d(Module):
    """Zeroes whole channels of [N, C, *] with probability p in training (torch.nn.Dropout2d)."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError("dropout probability has to be between 0 and 1, but got %s" % p)
        self.p = p

    def forward(self, input: Tensor) -> Tensor:
        """Applies channel dropout (identity in eval mode) to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.dropout2d(input, self.p, self.training)


class Embedding(Module):
    """A lookup table [num_embeddings, embedding_dim], N(0, 1) initialized (torch.nn.Embedding).

    Args:
        num_embeddings, embedding_dim: the table's shape.
        padding_idx: a row initialized to zeros that gets no gradient, or None.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: Optional[int] = None):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.weight = _param((num_embeddings, embedding_dim), init.normal_)
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx].fill_(0.0)

    def forward(self, input: Tensor) -> Tensor:
        """Applies the embedding lookup to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        return F.embedding(input, self.weight, self.padding_idx)
