"""The losses and distances of tc.nn.functional (tc.h's "More losses" ops),
with torch.nn.functional's signatures. Imported into tc.nn.functional."""
from typing import Optional

from .. import _decls as D
from .._core import fn
from .._tensor import Tensor, _call

_REDUCTIONS = {"none": D.TC_REDUCTION_NONE, "mean": D.TC_REDUCTION_MEAN, "sum": D.TC_REDUCTION_SUM}


def _reduction(reduction: str, size_average=None, reduce=None) -> int:
    """The TC_REDUCTION_* code of a reduction name, honouring PyTorch's legacy
    size_average/reduce arguments when given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError("%r is not a valid value for reduction" % (reduction,)) from None


def _h(t: Optional[Tensor]):
    return t._h if t is not None else None


def _same_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError("Using a target size (%s) that is different to the input size (%s) is deprecated. "
                         "Please ensure they have the same size." % (tuple(target.shape), tuple(input.shape)))


def cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Cross-entropy between logits and class indices or class probabilities.

    Args:
        input: logits [C], [N, C] or [N, C, d1, ...].
        target: int64 class indices ([], [N] or [N, d1, ...]) or probabilities of input's shape.
        weight: optional class weights [C].
        ignore_index: a class index whose targets add nothing (class-index targets only).
        reduction: "none", "mean" (over the weights of the targets not ignored) or "sum".
        label_smoothing: in [0, 1], mixes the target with the uniform distribution.

    Returns:
        The loss: 0-dim, or per element for reduction="none".
    """
    if isinstance(weight, str):
        # The older tc signature cross_entropy(input, target, reduction): the
        # plain fused op, every target a class ([N, C] or [C] input).
        return _call(fn("tc_cross_entropy"), input._h, target._h, _reduction(weight))
    return _call(fn("tc_cross_entropy_ex"), input._h, target._h, _h(weight), int(ignore_index),
                 float(label_smoothing), _reduction(reduction, size_average, reduce))


def nll_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """Negative log-likelihood of log-probabilities at the target classes.

    Args:
        input: log-probabilities [C], [N, C] or [N, C, d1, ...].
        target: int64 class indices ([], [N] or [N, d1, ...]).
        weight: optional class weights [C].
        ignore_index: a class index whose targets add nothing.
        reduction: "none", "mean" (divided by the weights of the targets not ignored) or "sum".

    Returns:
        The loss.
    """
    if isinstance(weight, str):  # the older tc signature nll_loss(input, target, reduction)
        return _call(fn("tc_nll_loss"), input._h, target._h, _reduction(weight))
    return _call(fn("tc_nll_loss_ex"), input._h, target._h, _h(weight), int(ignore_index),
                 _reduction(reduction, size_average, reduce))


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Mean absolute error |input - target| (input and target broadcast).

    Args:
        input, target: floating tensors.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    return _call(fn("tc_l1_loss"), input._h, target._h, _reduction(reduction, size_average, reduce))


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """Squared error below beta, absolute error above it (torch's smooth_l1_loss).

    Args:
        input, target: floating tensors.
        reduction: "none", "mean" or "sum".
        beta: the threshold (>= 0; 0 gives l1_loss).

    Returns:
        The loss.
    """
    return _call(fn("tc_smooth_l1_loss"), input._h, target._h, _reduction(reduction, size_average, reduce),
                 float(beta))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    """Huber loss: 0.5 d^2 below delta, delta (d - 0.5 delta) above it.

    Args:
        input, target: floating tensors.
        reduction: "none", "mean" or "sum".
        delta: the threshold (> 0).

    Returns:
        The loss.
    """
    return _call(fn("tc_huber_loss"), input._h, target._h, _reduction(reduction), float(delta))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Optional[Tensor] = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy between probabilities and targets (logs clamped at -100).

    Args:
        input: probabilities in [0, 1].
        target: of input's shape.
        weight: optional, broadcast to input.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    _same_size(input, target)
    return _call(fn("tc_binary_cross_entropy"), input._h, target._h, _h(weight),
                 _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Optional[Tensor] = None) -> Tensor:
    """Binary cross-entropy of sigmoid(input), computed stably from the logits.

    Args:
        input: logits.
        target: of input's shape.
        weight: optional, broadcast to input.
        reduction: "none", "mean" or "sum".
        pos_weight: optional weight of the positive term, broadcast over the last dim.

    Returns:
        The loss.
    """
    _same_size(input, target)
    return _call(fn("tc_binary_cross_entropy_with_logits"), input._h, target._h, _h(weight), _h(pos_weight),
                 _reduction(reduction, size_average, reduce))


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence of target from input (log-probabilities).

    Args:
        input: log-probabilities.
        target: probabilities (log-probabilities when log_target).
        reduction: "none", "mean", "sum" or "batchmean" (the sum divided by input.shape[0]).
        log_target: whether target holds log-probabilities.

    Returns:
        The loss.
    """
    if reduction == "batchmean":
        total = _call(fn("tc_kl_div"), input._h, target._h, D.TC_REDUCTION_SUM, 1 if log_target else 0)
        return total / input.shape[0] if input.dim() > 0 else total
    return _call(fn("tc_kl_div"), input._h, target._h, _reduction(reduction, size_average, reduce),
                 1 if log_target else 0)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Cosine similarity of x1 and x2 (broadcast) along dim.

    Args:
        x1, x2: floating tensors.
        dim: the dim of the vectors.
        eps: the smallest norm divided by.

    Returns:
        x1 and x2's broadcast shape without dim.
    """
    return _call(fn("tc_cosine_similarity"), x1._h, x2._h, int(dim), float(eps))


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm distance of x1 and x2 along the last dim: ||x1 - x2 + eps||_p.

    Args:
        x1, x2: floating tensors (broadcast).
        p: the norm's degree (>= 0, inf allowed).
        eps: added to the difference.
        keepdim: keep the last dim with size 1.

    Returns:
        The distances.
    """
    return _call(fn("tc_pairwise_distance"), x1._h, x2._h, float(p), float(eps), 1 if keepdim else 0)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input divided by its p-norm along dim (at least eps).

    Args:
        input: a floating tensor.
        p: the norm's degree (>= 0, inf allowed).
        dim: the dim normalized.
        eps: the smallest norm divided by.

    Returns:
        A tensor of input's shape.
    """
    return _call(fn("tc_normalize"), input._h, float(p), int(dim), float(eps))
