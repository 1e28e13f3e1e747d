"""torch.nn's 3-D layers and the remaining window layers (1.13): Conv3d,
ConvTranspose3d, 3-D pooling and norms, max unpooling, power-average and
fractional max pooling, Fold/Unfold. The functions are tc.nn.functional's
(functional_nd.py: composed, correct, not fast)."""
import math
from typing import List, Optional, Tuple

from .._tensor import Tensor
from . import functional_nd as FN
from . import init
from .modules import Module, _param
from .modules_layers import _BatchNorm, _InstanceNorm, _PoolNd

__all__ = ["Conv3d", "ConvTranspose3d", "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d",
           "BatchNorm3d", "InstanceNorm3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "LPPool1d", "LPPool2d",
           "FractionalMaxPool2d", "FractionalMaxPool3d", "Fold", "Unfold"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


# ---------------------------------------------------------------- convolutions

class _Conv3dBase(Module):
    """Weight, bias and settings of Conv3d / ConvTranspose3d, checked and
    initialized as torch's _ConvNd (kaiming_uniform_(a=sqrt(5)), bias
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = weight.shape[1] * kernel elements)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride, padding, dilation,
                 transposed: bool, output_padding, groups: int, bias: bool, padding_mode: str,
                 device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding, {"valid", "same"}))
            if padding == "same" and any(s != 1 for s in FN._ntuple(stride, 3, "stride")):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(
                set(_PADDING_MODES), padding_mode))
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = FN._ntuple(kernel_size, 3, "kernel_size")
        self.stride = FN._ntuple(stride, 3, "stride")
        self.padding = padding if isinstance(padding, str) else FN._ntuple(padding, 3, "padding")
        self.dilation = FN._ntuple(dilation, 3, "dilation")
        self.transposed = transposed
        self.output_padding = FN._ntuple(output_padding, 3, "output_padding")
        self.groups, self.padding_mode = groups, padding_mode
        shape = ((in_channels, out_channels // groups) if transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = _param(shape, lambda t: None)
        self.bias = _param((out_channels,), lambda t: None) if bias else None
        if dtype is not None or device is not None:
            self.to(*(a for a in (device, dtype) if a is not None))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-initializes weight and bias as torch's _ConvNd.reset_parameters."""
        init.kaiming_uniform_(self.weight, math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels, self.out_channels, self.kernel_size,
                                                      self.stride)
        if self.padding != (0,) * 3:
            s += ", padding={}".format(self.padding)
        if self.dilation != (1,) * 3:
            s += ", dilation={}".format(self.dilation)
        if self.output_padding != (0,) * 3:
            s += ", output_padding={}".format(self.output_padding)
        if self.groups != 1:
            s += ", groups={}".format(self.groups)
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={}".format(self.padding_mode)
        return s


class Conv3d(_Conv3dBase):
    """3-D convolution over [N, C, D, H, W] or [C, D, H, W] (torch.nn.Conv3d).

    Args:
        in_channels, out_channels: C and O.
        kernel_size, stride, dilation: an int or a triple.
        padding: an int, a triple, "valid" or "same" (stride 1).
        groups: splits the channels.
        bias: a learnable [O] bias.
        padding_mode: "zeros", "reflect", "replicate" or "circular".
        device, dtype: where and of what the parameters are.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, False, 0, groups, bias,
                         padding_mode, device, dtype)

    def _reversed_padding(self) -> List[int]:
        """F.pad's spec of the padding (last dim first), 'same' odd totals on the right."""
        if isinstance(self.padding, str):
            if self.padding == "valid":
                return [0] * 6
            pads = FN._same_pads(self.kernel_size, self.dilation)
        else:
            pads = [(p, p) for p in self.padding]
        return [v for lo_hi in reversed(pads) for v in lo_hi]

    def forward(self, input: Tensor) -> Tensor:
        """Applies the convolution to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        if self.padding_mode != "zeros":
            from .._shape_ops import pad
            x = pad(input, self._reversed_padding(), self.padding_mode)
            return FN.conv3d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
        return FN.conv3d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


def _output_padding(input: Tensor, output_size, stride, padding, kernel_size, dilation, n: int) -> Tuple[int, ...]:
    """torch's _ConvTransposeNd._output_padding: the output_padding that gives output_size."""
    if output_size is None:
        return None
    output_size = list(output_size)
    k = input.ndim - 2
    if len(output_size) == k + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError("ConvTranspose{D}: for {}D input, output_size must have {} or {} elements (got {})".format(
            k, n, n + 2, len(output_size), D=n))
    out = []
    for d in range(n):
        dim = input.ndim - n + d
        min_size = ((input.shape[dim] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel_size[d] - 1) + 1)
        max_size = min_size + stride[d] - 1
        if not min_size <= output_size[d] <= max_size:
            raise ValueError("requested an output size of {}, but valid sizes range from {} to {} (for an input of "
                             "{})".format(output_size, min_size, max_size, list(input.shape[2:])))
        out.append(output_size[d] - min_size)
    return tuple(out)


class ConvTranspose3d(_Conv3dBase):
    """3-D transposed convolution over [N, C, D, H, W] or [C, D, H, W]
    (torch.nn.ConvTranspose3d); weight [C, O/groups, kD, kH, kW].

    Args:
        in_channels, out_channels: C and O.
        kernel_size, stride, padding, output_padding, dilation: an int or a triple.
        groups: splits the channels.
        bias: a learnable [O] bias.
        padding_mode: only "zeros".
        device, dtype: where and of what the parameters are.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None,
                 dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, True, output_padding,
                         groups, bias, padding_mode, device, dtype)

    def forward(self, input: Tensor, output_size: Optional[List[int]] = None) -> Tensor:
        """Applies the transposed convolution to the input.

        Args:
            input (Tensor): the input.
            output_size (list of int, optional): the wanted output size (it sets output_padding).

        Returns:
            Tensor: the output.
        """
        op = _output_padding(input, output_size, self.stride, self.padding, self.kernel_size, self.dilation, 3)
        return FN.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                   self.output_padding if op is None else op, self.groups, self.dilation)


# ---------------------------------------------------------------- pooling

class MaxPool3d(_PoolNd):
    """3-D max pooling of [N, C, D, H, W] or [C, D, H, W] (torch.nn.MaxPool3d).

    Args:
        kernel_size, stride (None: kernel_size), padding, dilation: an int or a triple.
        return_indices: also return the argmax (for MaxUnpool3d).
        ceil_mode: rounds the output size up.
    """
    _fn, _options = "max_pool3d", ("kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices")

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__(kernel_size=kernel_size, stride=stride if stride is not None else kernel_size,
                         padding=padding, dilation=dilation, ceil_mode=ceil_mode, return_indices=return_indices)


class AvgPool3d(_PoolNd):
    """3-D average pooling of [N, C, D, H, W] or [C, D, H, W] (torch.nn.AvgPool3d).

    Args:
        kernel_size, stride (None: kernel_size), padding: an int or a triple.
        ceil_mode: rounds the output size up.
        count_include_pad: whether padded zeros count in the divisor.
        divisor_override: a fixed divisor, or None.
    """
    _fn, _options = "avg_pool3d", ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                   "divisor_override")

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: Optional[int] = None):
        super().__init__(kernel_size=kernel_size, stride=stride if stride is not None else kernel_size,
                         padding=padding, ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                         divisor_override=divisor_override)


class AdaptiveAvgPool3d(_PoolNd):
    """Adaptive average pooling of [N, C, D, H, W] or [C, D, H, W] to output_size, an int or a triple
    (None keeps a dim) (torch.nn.AdaptiveAvgPool3d)."""
    _fn, _options = "adaptive_avg_pool3d", ("output_size",)

    def __init__(self, output_size):
        super().__init__(output_size=output_size)


class AdaptiveMaxPool3d(_PoolNd):
    """Adaptive max pooling of [N, C, D, H, W] or [C, D, H, W] (torch.nn.AdaptiveMaxPool3d); (values, indices)
    with return_indices."""
    _fn, _options = "adaptive_max_pool3d", ("output_size", "return_indices")

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__(output_size=output_size, return_indices=return_indices)


class LPPool1d(_PoolNd):
    """1-D power-average pooling of [N, C, L] (torch.nn.LPPool1d).

    Args:
        norm_type: p.
        kernel_size, stride (None: kernel_size): ints.
        ceil_mode: rounds the output size up.
    """
    _fn, _options = "lp_pool1d", ("norm_type", "kernel_size", "stride", "ceil_mode")

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__(norm_type=norm_type, kernel_size=kernel_size, stride=stride, ceil_mode=ceil_mode)


class LPPool2d(LPPool1d):
    """2-D power-average pooling of [N, C, H, W] (torch.nn.LPPool2d); kernel_size and stride an int or a pair."""
    _fn = "lp_pool2d"


class _MaxUnpoolNd(Module):
    """Base of MaxUnpool1d/2d/3d: keeps kernel_size, stride and padding as n-tuples."""
    _n = 1

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = FN._ntuple(kernel_size, self._n, "kernel_size")
        self.stride = FN._ntuple(stride if stride is not None else kernel_size, self._n, "stride")
        self.padding = FN._ntuple(padding, self._n, "padding")

    def forward(self, input: Tensor, indices: Tensor, output_size: Optional[List[int]] = None) -> Tensor:
        """Places the input at indices (from the max pooling) in a zero tensor.

        Args:
            input (Tensor): the pooled values.
            indices (Tensor): the pooling's indices.
            output_size (list of int, optional): the output size, else the default.

        Returns:
            Tensor: the unpooled tensor.
        """
        f = getattr(FN, "max_unpool%dd" % self._n)
        return f(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "kernel_size={}, stride={}, padding={}".format(self.kernel_size, self.stride, self.padding)


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of MaxPool1d (torch.nn.MaxUnpool1d).

    Args:
        kernel_size, stride (None: kernel_size), padding: ints, as the pooling's.
    """
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of MaxPool2d (torch.nn.MaxUnpool2d).

    Args:
        kernel_size, stride (None: kernel_size), padding: an int or a pair, as the pooling's.
    """
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of MaxPool3d (torch.nn.MaxUnpool3d).

    Args:
        kernel_size, stride (None: kernel_size), padding: an int or a triple, as the pooling's.
    """
    _n = 3


class _FractionalMaxPoolNd(Module):
    """Base of FractionalMaxPool2d/3d: the checks of torch's constructors."""
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples=None):
        super().__init__()
        n = self._n
        self.kernel_size = FN._ntuple(kernel_size, n, "kernel_size")
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = FN._ntuple(output_size, n, "output_size") if output_size is not None else None
        if output_ratio is not None:
            ratio = (output_ratio,) * n if not hasattr(output_ratio, "__iter__") else tuple(output_ratio)
            self.output_ratio = ratio
        else:
            self.output_ratio = None
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError("%s requires specifying either an output size, or a pooling ratio" % name)
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError("output_ratio must be between 0 and 1 (got {})".format(output_ratio))

    def forward(self, input: Tensor):
        """Applies fractional max pooling to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor, or (values, indices) with return_indices.
        """
        f = getattr(FN, "fractional_max_pool%dd" % self._n)
        return f(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                 _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of [N, C, H, W] or [C, H, W] (torch.nn.FractionalMaxPool2d).

    Args:
        kernel_size: an int or a pair.
        output_size: an int or a pair, or None with output_ratio.
        output_ratio: a float or a pair in (0, 1).
        return_indices: also return the argmax.
        _random_samples: fixed [N, C, 2] samples in [0, 1) (a buffer), else fresh ones each call.
    """
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of [N, C, D, H, W] or [C, D, H, W] (torch.nn.FractionalMaxPool3d); arguments as
    FractionalMaxPool2d's with triples."""
    _n = 3


class Unfold(Module):
    """Extracts sliding local blocks as columns (torch.nn.Unfold): [N, C, H, W] -> [N, C*kH*kW, L].

    Args:
        kernel_size, dilation, padding, stride: an int or a pair.
    """

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        """Unfolds the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the columns.
        """
        return FN.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "kernel_size={}, dilation={}, padding={}, stride={}".format(self.kernel_size, self.dilation,
                                                                            self.padding, self.stride)


class Fold(Module):
    """Sums columns of sliding blocks into an image (torch.nn.Fold): [N, C*kH*kW, L] -> [N, C, H, W].

    Args:
        output_size: (H, W), an int or a pair.
        kernel_size, dilation, padding, stride: an int or a pair.
    """

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input: Tensor) -> Tensor:
        """Folds the columns.

        Args:
            input (Tensor): the columns.

        Returns:
            Tensor: the image.
        """
        return FN.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """Returns the module's settings as shown inside ``repr(module)``."""
        return "output_size={}, kernel_size={}, dilation={}, padding={}, stride={}".format(
            self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


# ---------------------------------------------------------------- norms

class BatchNorm3d(_BatchNorm):
    """Batch normalization of [N, C, D, H, W] (torch.nn.BatchNorm3d).

    Args:
        num_features: C.
        eps: added to the variance.
        momentum: the running stats' update factor; None = cumulative average.
        affine: learnable weight (ones) and bias (zeros).
        track_running_stats: keep running_mean/running_var/num_batches_tracked buffers.
    """
    _dims = (5,)


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of [N, C, D, H, W] or unbatched [C, D, H, W] (torch.nn.InstanceNorm3d).

    Args:
        num_features: C.
        eps: added to the variance.
        momentum: the running stats' update factor.
        affine: learnable weight and bias (default False).
        track_running_stats: keep running stats, used in eval mode (default False).
    """
    _dims = (5,)

    def forward(self, input: Tensor) -> Tensor:
        """Applies instance normalization to the input.

        Args:
            input (Tensor): the input.

        Returns:
            Tensor: the output.
        """
        if input.ndim == 4:
            return super().forward(input.unsqueeze(0)).squeeze(0)
        if input.ndim != 5:
            raise ValueError("expected 4D or 5D input (got {}D input)".format(input.ndim))
        return super().forward(input)

