from ._tensor_base import full
"""The neural-network ops PyTorch also exposes at the top level (torch.X)
with ATen's signatures, which differ from torch.nn.functional's: integer
reductions (0 none, 1 mean, 2 sum; the losses default to 0, unreduced, as
torch 1.13's top-level bindings do, unlike torch.nn.functional), batch_norm's weight/bias before the
running statistics, a trailing cudnn_enabled flag, pooling that always
returns (values, indices). Each maps onto tc.nn.functional; FUNCTIONS holds
them by name."""
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _F():
    from .nn import functional
    return functional


def _reduction(r):
    """ATen's integer reduction as F's string (strings pass through)."""
    if isinstance(r, str):
        return r
    if r not in _REDUCTIONS:
        raise RuntimeError("%d is not a valid value for reduction" % r)
    return _REDUCTIONS[r]


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by ``indices`` (torch.embedding; note weight
    comes first). A negative padding_idx means none; the gradient is always
    dense (tc has no sparse gradients), its values are those of sparse=True.

    Args:
        weight (Tensor): (num_embeddings, dim).
        indices (Tensor): int64 indices.
        padding_idx (int): the row whose gradient stays zero (< 0: none).
        scale_grad_by_freq (bool): not supported by tc (raises if True).
        sparse (bool): accepted; the gradient is dense.

    Returns:
        Tensor: indices.shape + (dim,).
    """
    if scale_grad_by_freq:
        raise NotImplementedError("tc.embedding: scale_grad_by_freq=True is not supported")
    return _F().embedding(indices, weight, padding_idx if padding_idx is not None and padding_idx >= 0 else None)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    """Batch normalization with ATen's argument order (torch.batch_norm).

    Args:
        input (Tensor): (N, C, ...).
        weight, bias (Tensor or None): the affine parameters (C,).
        running_mean, running_var (Tensor or None): running statistics, updated when training.
        training (bool): use (and update) batch statistics.
        momentum (float): the running-average factor.
        eps (float): added to the variance.
        cudnn_enabled (bool): ignored (tc picks its kernels itself).

    Returns:
        Tensor: the normalized input.
    """
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """Layer normalization over the trailing ``normalized_shape`` dims (torch.layer_norm).

    Returns:
        Tensor: the normalized input.
    """
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """Group normalization (torch.group_norm).

    Returns:
        Tensor: the normalized input.
    """
    return _F().group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """Instance normalization with ATen's argument order (torch.instance_norm).

    Returns:
        Tensor: the normalized input.
    """
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def kl_div(input, target, reduction=0, *, log_target=False):
    """The KL divergence loss (torch.kl_div): reduction 0 (default) keeps
    every element, 1 is the mean over all elements (not "batchmean"), 2 the sum.

    Returns:
        Tensor: the loss.
    """
    import warnings
    with warnings.catch_warnings():  # F warns that "mean" is not "batchmean"; ATen's op does not
        warnings.simplefilter("ignore")
        return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """The CTC loss (torch.ctc_loss; per sequence by default; reduction 1
    divides each loss by its target length, then averages).

    Returns:
        Tensor: the loss.
    """
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                         zero_infinity)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The generic convolution (torch.convolution): 1-, 2- or 3-D after the
    weight's dims, transposed or not.

    Args:
        input (Tensor): (N, C_in, *spatial).
        weight (Tensor): (C_out, C_in / groups, *kernel), or (C_in, C_out / groups, *kernel) transposed.
        bias (Tensor or None): (C_out,).
        stride, padding, dilation, output_padding (sequence of int): one per spatial dim.
        transposed (bool): a transposed convolution.
        groups (int): the number of groups.

    Returns:
        Tensor: the output.
    """
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError("convolution: expected a 3-, 4- or 5-D weight, got %d-D" % weight.ndim)
    F = _F()
    stride, padding, dilation, output_padding = (tuple(x) if not isinstance(x, int) else (x,) * n
                                                 for x in (stride, padding, dilation, output_padding))
    if transposed:
        f = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return f(input, weight, bias, stride, padding, output_padding, groups, dilation)
    f = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return f(input, weight, bias, stride, padding, dilation, groups)


def feature_dropout(input, p, train):
    """Drops whole feature maps (dims 0 and 1 pick one; it is zeroed with
    probability p, kept ones are scaled by 1 / (1 - p)), torch.feature_dropout.

    Args:
        input (Tensor): (N, C, ...), at least 2-D.
        p (float): the drop probability.
        train (bool): identity when False.

    Returns:
        Tensor: the result.
    """
    if p < 0 or p > 1:
        raise RuntimeError("dropout probability has to be between 0 and 1, but got %s" % p)
    if not train or p == 0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        return input * 0
    from ._shape_ops import bernoulli
    keep = bernoulli(full(tuple(input.shape[:2]) + (1,) * (input.ndim - 2), 1.0 - p, dtype=input.dtype,
                          device=input.device))
    return input * keep / (1.0 - p)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Randomized leaky ReLU (torch.rrelu): slopes uniform in [lower, upper]
    when training, their mean otherwise.

    Returns:
        Tensor: the result.
    """
    from ._factory_keywords import _with_generator
    with _with_generator(generator):
        return _F().rrelu(input, lower, upper, training)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling returning (values, indices) (torch.max_pool1d_with_indices;
    an empty stride means kernel_size).

    Returns:
        tuple of Tensor: (values, int64 indices).
    """
    if stride is not None and not isinstance(stride, int) and len(stride) == 0:
        stride = None
    return _F().max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def adaptive_max_pool1d(input, output_size):
    """Adaptive 1-D max pooling returning (values, indices) (torch.adaptive_max_pool1d).

    Returns:
        tuple of Tensor: (values, int64 indices).
    """
    return _F().adaptive_max_pool1d(input, output_size, True)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """BCE on logits (torch.binary_cross_entropy_with_logits: pos_weight before reduction).

    Returns:
        Tensor: the loss.
    """
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """The cosine embedding loss (torch.cosine_embedding_loss).

    Returns:
        Tensor: the loss.
    """
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """The hinge embedding loss (torch.hinge_embedding_loss).

    Returns:
        Tensor: the loss.
    """
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """The margin ranking loss (torch.margin_ranking_loss).

    Returns:
        Tensor: the loss.
    """
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """The Poisson negative log likelihood loss (torch.poisson_nll_loss: every argument required).

    Returns:
        Tensor: the loss.
    """
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    """The triplet margin loss (torch.triplet_margin_loss).

    Returns:
        Tensor: the loss.
    """
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


FUNCTIONS = {f.__name__: f for f in (
    embedding, batch_norm, layer_norm, group_norm, instance_norm, kl_div, ctc_loss, convolution,
    feature_dropout, rrelu, max_pool1d_with_indices, adaptive_max_pool1d, binary_cross_entropy_with_logits,
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, poisson_nll_loss, triplet_margin_loss)}
