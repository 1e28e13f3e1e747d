"""torch.nn's lazy modules (1.13) and SyncBatchNorm.

A lazy module holds UninitializedParameter placeholders (empty, shape (0,))
until its first call, which reads in_features / in_channels / num_features
from the input, builds the parameters of the module it stands for (with that
module's initialization) and turns into it (``cls_to_become``), as torch's
LazyModuleMixin does. Loading a state dict before the first call is not
supported here (torch materializes from the checkpoint's shapes).

SyncBatchNorm is BatchNorm over inputs of any rank >= 2 whose training-mode
statistics are those of the whole batch across the processes of a
tc.distributed group (its mean and variance all-reduced in the forward, the
gradient's two channel sums in the backward, as torch's); without an
initialized group of more than one process it is BatchNorm."""
from typing import Optional

import tc as _tc

from ..autograd import Function
from .._tensor import Tensor, empty
from .modules import Linear, Module, Parameter
from .modules_layers import (BatchNorm1d, BatchNorm2d, Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d,
                             InstanceNorm1d, InstanceNorm2d, _BatchNorm)
from .modules_3d import BatchNorm3d, Conv3d, ConvTranspose3d, InstanceNorm3d

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d", "SyncBatchNorm"]


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (torch.nn.UninitializedParameter):
    an empty placeholder that a lazy module replaces on its first call."""

    __slots__ = ()

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        return Parameter.__new__(cls, empty(0, dtype=dtype, device=device), requires_grad)

    def __init__(self, requires_grad: bool = True, device=None, dtype=None):
        pass

    def __repr__(self):
        return "<UninitializedParameter>"

    __str__ = __repr__


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (torch.nn.UninitializedBuffer); only
    its type matters: lazy modules here replace their buffers whole."""

    __slots__ = ()


def _move(module: Module, args, kwargs) -> None:
    """Module.to(*args, **kwargs), and the floating buffers to its dtype (as torch's
    lazy modules make their running statistics in the module's dtype)."""
    Module.to(module, *args, **kwargs)
    dtypes = [a for a in args if isinstance(a, _tc.dtype)] + ([kwargs["dtype"]] if "dtype" in kwargs else [])
    if not dtypes:
        return
    for name, b in list(module._buffers.items()):
        if b is not None and b.is_floating_point():
            module.register_buffer(name, b.to(dtypes[-1]))


def is_lazy(param) -> bool:
    """Whether param is an UninitializedParameter placeholder."""
    return isinstance(param, UninitializedParameter)


class LazyModuleMixin:
    """The lazy behaviour (torch.nn.modules.lazy.LazyModuleMixin): the first
    call runs ``initialize_parameters(*args)`` and then becomes ``cls_to_become``."""

    cls_to_become = None

    def has_uninitialized_params(self) -> bool:
        """Whether any parameter of this module is still a placeholder."""
        return any(is_lazy(p) for p in self._parameters.values())

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Builds the parameters from the first input; each lazy class defines it."""
        raise NotImplementedError("initialize_parameters is not implemented for {}".format(type(self).__name__))

    def _become(self, built: Module) -> None:
        """Takes the parameters, buffers and settings of ``built`` (a module of
        cls_to_become made with the inferred sizes), keeping self's hooks."""
        kept = {k: v for k, v in self.__dict__.items() if k.startswith("_forward") or k == "_backward_hooks"
                or k == "training" or k == "_modules"}
        self.__dict__.update({k: v for k, v in built.__dict__.items() if k not in kept})
        device = self.__dict__.pop("_lazy_device", None)
        dtype = self.__dict__.pop("_lazy_dtype", None)
        moves = self.__dict__.pop("_lazy_to", [])
        if self.cls_to_become is not None:
            object.__setattr__(self, "__class__", self.cls_to_become)
        if device is not None or dtype is not None:
            moves.insert(0, (tuple(a for a in (device, dtype) if a is not None), {}))
        for args, kwargs in moves:
            _move(self, args, kwargs)

    def to(self, *args, **kwargs):
        """Before the first call, records the move for the parameters still to
        be made; after it, :meth:`Module.to`.

        Returns:
            Module: self.
        """
        if self.has_uninitialized_params():
            self.__dict__.setdefault("_lazy_to", []).append((args, kwargs))
            return self
        return Module.to(self, *args, **kwargs)

    def __call__(self, *args, **kwargs):
        """Initializes the parameters from the first input, then runs the module."""
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
        return Module.__call__(self, *args, **kwargs)


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is the last size of the first input (torch.nn.LazyLinear).

    Args:
        out_features: the output size.
        bias: learn an additive bias.
        device, dtype: where and of what the parameters are.
    """
    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self._lazy_device, self._lazy_dtype = device, dtype
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None

    def initialize_parameters(self, input: Tensor) -> None:
        """Builds weight [out_features, input.shape[-1]] (and bias) as Linear's."""
        self._become(Linear(input.shape[-1], self.out_features, self.bias is not None))


class _LazyConvMixin(LazyModuleMixin):
    """The lazy convolutions: in_channels from dim 1 (dim 0 when unbatched)."""
    _n = 2

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None, output_padding=0):
        Module.__init__(self)
        if padding_mode != "zeros" and self.cls_to_become not in (Conv3d,):
            raise NotImplementedError("tc.nn.{} has no padding_mode; only 'zeros' is supported".format(
                self.cls_to_become.__name__))
        self.in_channels, self.out_channels = 0, out_channels
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.groups, self.padding_mode, self.output_padding = groups, padding_mode, output_padding
        self._lazy_device, self._lazy_dtype = device, dtype
        # built once now to check the arguments as the real module would
        self._build(groups)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.bias = UninitializedParameter(device=device, dtype=dtype) if bias else None

    def _build(self, in_channels: int) -> Module:
        cls = self.cls_to_become
        kw = dict(stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups,
                  bias=self.__dict__.get("bias", True) is not None)
        if cls in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d):
            kw["output_padding"] = self.output_padding
        if cls is Conv3d:
            kw["padding_mode"] = self.padding_mode
        return cls(in_channels, self.out_channels, self.kernel_size, **kw)

    def initialize_parameters(self, input: Tensor, *args) -> None:
        """Builds the weight and bias for in_channels = the input's channel count."""
        unbatched = input.ndim == self._n + 1
        self._become(self._build(input.shape[0] if unbatched else input.shape[1]))


class LazyConv1d(_LazyConvMixin, Conv1d):
    """A Conv1d whose in_channels comes from the first input (torch.nn.LazyConv1d)."""
    cls_to_become, _n = Conv1d, 1


class LazyConv2d(_LazyConvMixin, Conv2d):
    """A Conv2d whose in_channels comes from the first input (torch.nn.LazyConv2d)."""
    cls_to_become, _n = Conv2d, 2


class LazyConv3d(_LazyConvMixin, Conv3d):
    """A Conv3d whose in_channels comes from the first input (torch.nn.LazyConv3d)."""
    cls_to_become, _n = Conv3d, 3


class _LazyConvTransposeMixin(_LazyConvMixin):
    """Transposed convolutions' argument order: output_padding before groups, dilation last."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        super().__init__(out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device,
                         dtype, output_padding)


class LazyConvTranspose1d(_LazyConvTransposeMixin, ConvTranspose1d):
    """A ConvTranspose1d whose in_channels comes from the first input (torch.nn.LazyConvTranspose1d)."""
    cls_to_become, _n = ConvTranspose1d, 1


class LazyConvTranspose2d(_LazyConvTransposeMixin, ConvTranspose2d):
    """A ConvTranspose2d whose in_channels comes from the first input (torch.nn.LazyConvTranspose2d)."""
    cls_to_become, _n = ConvTranspose2d, 2


class LazyConvTranspose3d(_LazyConvTransposeMixin, ConvTranspose3d):
    """A ConvTranspose3d whose in_channels comes from the first input (torch.nn.LazyConvTranspose3d)."""
    cls_to_become, _n = ConvTranspose3d, 3


class _LazyNormMixin(LazyModuleMixin):
    """The lazy norms: num_features = the input's dim 1 (as torch's, also for unbatched input).
    As torch's, the lazy instance norms too default to affine=True and track_running_stats=True."""
    _affine_default = True
    _track_default = True

    def __init__(self, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: Optional[bool] = None,
                 track_running_stats: Optional[bool] = None, device=None, dtype=None):
        Module.__init__(self)
        affine = self._affine_default if affine is None else affine
        track = self._track_default if track_running_stats is None else track_running_stats
        self.num_features, self.eps, self.momentum = 0, eps, momentum
        self.affine, self.track_running_stats = affine, track
        self._lazy_device, self._lazy_dtype = device, dtype
        self.weight = UninitializedParameter(device=device, dtype=dtype) if affine else None
        self.bias = UninitializedParameter(device=device, dtype=dtype) if affine else None
        self.running_mean = self.running_var = self.num_batches_tracked = None

    def has_uninitialized_params(self) -> bool:
        """Whether the module still waits for its first input."""
        return self.num_features == 0

    def initialize_parameters(self, input: Tensor) -> None:
        """Builds the parameters and running statistics for num_features = input.shape[1]."""
        self._become(self.cls_to_become(input.shape[1], self.eps, self.momentum, self.affine,
                                        self.track_running_stats))


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """A BatchNorm1d whose num_features comes from the first input (torch.nn.LazyBatchNorm1d)."""
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """A BatchNorm2d whose num_features comes from the first input (torch.nn.LazyBatchNorm2d)."""
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """A BatchNorm3d whose num_features comes from the first input (torch.nn.LazyBatchNorm3d)."""
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormMixin, InstanceNorm1d):
    """An InstanceNorm1d whose num_features comes from the first input (torch.nn.LazyInstanceNorm1d)."""
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormMixin, InstanceNorm2d):
    """An InstanceNorm2d whose num_features comes from the first input (torch.nn.LazyInstanceNorm2d)."""
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormMixin, InstanceNorm3d):
    """An InstanceNorm3d whose num_features comes from the first input (torch.nn.LazyInstanceNorm3d)."""
    cls_to_become = InstanceNorm3d


def _channel_sums(t: Tensor) -> Tensor:
    """[N, C, *] -> [C]: the sum over every dim but 1."""
    return t.transpose(0, 1).reshape(t.shape[1], -1).sum(1)


class _SyncBatchNormFn(Function):
    """Training-mode batch norm over the batch of every rank of a group
    (torch's SyncBatchNorm function): the count, mean and squared deviations
    combined with two all-reduces; the backward all-reduces the channel sums
    of dy and dy * (x - mean). weight and bias get this rank's gradient (DDP
    averages them)."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        """Normalizes input with the group's batch statistics, updating the running ones."""
        with _tc.no_grad():  # the Function is the graph node: nothing inside is recorded
            return _SyncBatchNormFn._forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum,
                                             group)

    @staticmethod
    def _forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        import tc.distributed as dist
        C = input.shape[1]
        n_local = input.numel() // C if C else 0
        shape = (1, C) + (1,) * (input.ndim - 2)
        local_mean = _channel_sums(input) / float(max(n_local, 1))
        packed = _tc.cat([_tc.full((1,), float(n_local), dtype=input.dtype, device=input.device),
                          local_mean * float(n_local)])
        dist.all_reduce(packed, group=group)
        count = float(packed[0].item())
        if count <= 1:
            raise ValueError("Expected more than 1 value per channel when training, got input size {}".format(
                list(input.shape)))
        mean = packed.narrow(0, 1, C) / count
        # squared deviations from the global mean: local ones plus the shift of the local mean
        m2 = _channel_sums((input - local_mean.reshape(shape)) ** 2) + (local_mean - mean) ** 2 * float(n_local)
        dist.all_reduce(m2, group=group)
        var = m2 / count
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.copy_(running_mean * (1.0 - momentum) + mean.to(running_mean.dtype) * momentum)
            running_var.copy_(running_var * (1.0 - momentum)
                              + (m2 / (count - 1.0)).to(running_var.dtype) * momentum)
        xhat = (input - mean.reshape(shape)) * invstd.reshape(shape)
        out = xhat
        if weight is not None:
            out = out * weight.reshape(shape)
        if bias is not None:
            out = out + bias.reshape(shape)
        ctx.group, ctx.count = group, count
        ctx.has_weight, ctx.has_bias = weight is not None, bias is not None
        ctx.save_for_backward(xhat, invstd, weight)
        return out

    @staticmethod
    def backward(ctx, grad):
        """The input's gradient from the group's channel sums; weight's and bias' local."""
        with _tc.no_grad():
            return _SyncBatchNormFn._backward(ctx, grad)

    @staticmethod
    def _backward(ctx, grad):
        import tc.distributed as dist
        xhat, invstd, weight = ctx.saved_tensors
        C = xhat.shape[1]
        shape = (1, C) + (1,) * (xhat.ndim - 2)
        sum_dy = _channel_sums(grad)
        sum_dy_xhat = _channel_sums(grad * xhat)
        grad_weight = sum_dy_xhat if ctx.has_weight else None
        grad_bias = sum_dy if ctx.has_bias else None
        both = _tc.cat([sum_dy, sum_dy_xhat])
        dist.all_reduce(both, group=ctx.group)
        mean_dy = (both.narrow(0, 0, C) / ctx.count).reshape(shape)
        mean_dy_xhat = (both.narrow(0, C, C) / ctx.count).reshape(shape)
        scale = invstd if weight is None else invstd * weight
        grad_input = (grad - mean_dy - xhat * mean_dy_xhat) * scale.reshape(shape)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None


class SyncBatchNorm(_BatchNorm):
    """Batch normalization of [N, C, *] with statistics shared across the
    processes of a tc.distributed group in training (torch.nn.SyncBatchNorm);
    without a group of more than one process, BatchNorm. Unlike torch's, it
    runs on CPU tensors too.

    Args:
        num_features: C.
        eps, momentum, affine, track_running_stats: as BatchNorm's.
        process_group: the group to synchronize over (None: the global one).
        device, dtype: where and of what the parameters are.
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: Optional[float] = 0.1, affine: bool = True,
                 track_running_stats: bool = True, process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats)
        self.process_group = process_group
        if device is not None or dtype is not None:
            self.to(*(a for a in (device, dtype) if a is not None))

    def forward(self, input: Tensor) -> Tensor:
        """Applies batch normalization to the input.

        Args:
            input (Tensor): [N, C, *].

        Returns:
            Tensor: the output.
        """
        if input.ndim < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.ndim))
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        from . import functional as F
        import tc.distributed as dist
        factor = self._momentum()
        bn_training = self.training or self.running_mean is None
        use_running = not self.training or self.track_running_stats
        group = self.process_group
        if bn_training and self.training and dist.is_initialized() and dist.get_world_size(group) > 1:
            return _SyncBatchNormFn.apply(input, self.weight, self.bias,
                                          self.running_mean if use_running else None,
                                          self.running_var if use_running else None, self.eps, factor, group)
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            factor, self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group=None) -> Module:
        """module with every BatchNorm*d in its tree replaced by a SyncBatchNorm
        sharing its parameters and running statistics (torch's classmethod).

        Args:
            module: the module (tree) to convert.
            process_group: kept on the new modules.

        Returns:
            Module: the converted module (a new one when module itself is a BatchNorm).
        """
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = cls(module.num_features, module.eps, module.momentum, module.affine, module.track_running_stats,
                      process_group)
            if module.affine:
                out.weight, out.bias = module.weight, module.bias
            if module.track_running_stats:
                for name in ("running_mean", "running_var", "num_batches_tracked"):
                    out.register_buffer(name, getattr(module, name))
            object.__setattr__(out, "training", module.training)
        for name, child in list(module._modules.items()):
            if child is not None:
                out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
