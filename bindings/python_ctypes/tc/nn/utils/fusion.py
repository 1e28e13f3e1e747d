"""torch.nn.utils.fusion: folding an evaluation-mode batch norm into the
convolution or linear layer before it."""
import copy

from ..modules import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` that computes bn(conv(x)) with bn's running statistics.

    Args:
        conv (Module): a convolution in eval mode.
        bn (Module): the batch norm after it, in eval mode.
        transpose (bool): conv is transposed (output channels in dim 1).

    Returns:
        Module: the fused convolution.
    """
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The (weight, bias) Parameters of a convolution followed by a batch norm
    with running mean bn_rm, variance bn_rv, eps, weight bn_w and bias bn_b
    (either may be None).

    Returns:
        (Parameter, Parameter): the fused weight and bias.
    """
    from ..._tensor import ones_like, zeros_like
    if conv_b is None:
        conv_b = zeros_like(bn_rm)
    if bn_w is None:
        bn_w = ones_like(bn_rm)
    if bn_b is None:
        bn_b = zeros_like(bn_rm)
    bn_var_rsqrt = (bn_rv + bn_eps).rsqrt()
    rest = [1] * (conv_w.dim() - 2)
    shape = [1, -1] + rest if transpose else [-1, 1] + rest
    conv_w = conv_w * (bn_w * bn_var_rsqrt).reshape(shape)
    conv_b = (conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b
    return Parameter(conv_w), Parameter(conv_b)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` that computes bn(linear(x)) with bn's running statistics.

    Args:
        linear (Module): a Linear in eval mode.
        bn (Module): the 1-D batch norm after it, in eval mode.

    Returns:
        Module: the fused Linear.
    """
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The (weight, bias) Parameters of a Linear followed by a batch norm.

    Returns:
        (Parameter, Parameter): the fused weight and bias.
    """
    from ..._tensor import zeros_like
    if linear_b is None:
        linear_b = zeros_like(bn_rm)
    bn_scale = bn_w * (bn_rv + bn_eps).rsqrt()
    fused_w = linear_w * bn_scale.unsqueeze(-1)
    fused_b = (linear_b - bn_rm) * bn_scale + bn_b
    return Parameter(fused_w), Parameter(fused_b)
