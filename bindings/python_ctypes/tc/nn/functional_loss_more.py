"""The margin, embedding, ranking, likelihood and CTC losses of
torch.nn.functional, composed from tc ops (autograd gives their gradients).
Imported into tc.nn.functional; the CTC loss is in functional_ctc.py."""
import math
from typing import Callable, Optional

from .. import _decls as D
from .._core import no_grad
from .._tensor import Tensor, where
from .functional_loss import _reduction, pairwise_distance


def _apply_reduction(loss: Tensor, code: int) -> Tensor:
    """loss reduced as the TC_REDUCTION_* code says (ATen's apply_loss_reduction)."""
    if code == D.TC_REDUCTION_MEAN:
        return loss.mean()
    if code == D.TC_REDUCTION_SUM:
        return loss.sum()
    return loss


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (input1 - input2) + margin), elementwise (broadcast).

    Args:
        input1, input2: the scores compared.
        target: 1 where input1 should rank higher, -1 where input2 should.
        margin: the margin.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction, size_average, reduce)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           "input1: %s, input2: %s, target: %s " % (input1.shape, input2.shape, target.shape))
    return _apply_reduction((-target * (input1 - input2) + margin).clamp_min(0), code)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """input where target is 1, max(0, margin - input) where target is -1.

    Like torch, an element whose target is neither 1 nor -1 gets both terms.

    Args:
        input: the distances.
        target: 1 or -1, broadcast with input.
        margin: the margin.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction, size_average, reduce)
    margin_term = where(target != 1, (margin - input).clamp_min(0), 0.0)
    self_term = where(target != -1, input, 0.0)
    return _apply_reduction(margin_term + self_term, code)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * input)), elementwise (the logistic loss of 2-class labels +-1).

    Args:
        input: the scores.
        target: 1 or -1, of input's shape.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction, size_average, reduce)
    # log1p(exp(.)) rather than softplus: softplus returns its argument past
    # 20, which torch's soft_margin_loss does not.
    return _apply_reduction((-input * target).exp().log1p(), code)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1.

    Args:
        input1, input2: [N, D] with a target [N], or [D] with a 0-dim target.
        target: 1 or -1.
        margin: in [-1, 1].
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction, size_average, reduce)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with sizes %s and %s."
                           % (list(input1.shape), list(input2.shape)))
    if tdim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with sizes %s and %s."
                           % (list(input1.shape), list(input2.shape)))
    # ATen's formula: each squared norm gets 1e-12 before the product's root.
    prod = (input1 * input2).sum(tdim)
    mag1 = (input1 * input1).sum(tdim) + 1e-12
    mag2 = (input2 * input2).sum(tdim) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    pos = where(target == 1, 1 - cos, 0.0)
    neg = where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _apply_reduction(pos + neg, code)


def _class_targets(input: Tensor, target: Tensor):
    """(input as [N, C], target as [N], whether input was 1-D) for the
    multi-class margin losses, with ATen's shape checks."""
    if input.dim() > 2 or (input.dim() >= 1 and input.numel() == 0 and input.shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s"
                           % (list(input.shape),))
    vector = input.dim() <= 1
    x = input.reshape(1, -1) if vector else input
    nframe = x.shape[0]
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError("inconsistent target size, expected %d but got %s" % (nframe, list(target.shape)))
    return x, target.reshape(-1), vector


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Optional[Tensor] = None, size_average=None, reduce=None,
                      reduction: str = "mean") -> Tensor:
    """The multi-class hinge loss: for each sample, the sum over the classes
    j != y of max(0, margin - x[y] + x[j])^p (times weight[y]), divided by C.

    Args:
        input: scores [C] or [N, C].
        target: int64 class indices [] / [1] or [N].
        p: 1 or 2.
        margin: the margin.
        weight: optional class weights [C].
        reduction: "none", "mean" or "sum".

    Returns:
        The loss ([N] for "none").
    """
    code = _reduction(reduction, size_average, reduce)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x, y, vector = _class_targets(input, target)
    n, c = x.shape
    if weight is not None and weight.numel() != c:
        raise RuntimeError("inconsistent weight size, expected %d but got %s" % (c, list(weight.shape)))
    _check_class_range(y, c)
    y = y.reshape(n, 1)
    z = (x - x.gather(1, y) + margin).clamp_min(0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight.gather(0, y.reshape(-1)).reshape(n, 1)
    from .._tensor import arange
    not_target = arange(c, device=x.device).reshape(1, c) != y
    loss = where(not_target, z, 0.0).sum(1) / c
    if vector and code == D.TC_REDUCTION_NONE:
        # torch keeps a 1-D input's frame dim only when its target had one.
        return loss if target.dim() == 1 else loss.reshape(())
    return _apply_reduction(loss, code)


def _check_class_range(y: Tensor, c: int, message: str = "target out of range") -> None:
    """RuntimeError(message) when a class index is outside [0, c), as ATen's."""
    if y.numel() and (y.min().item() < 0 or y.max().item() >= c):
        raise RuntimeError(message)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """The multi-label hinge loss: for each sample, the sum over its target
    classes j and the other classes k of max(0, 1 - (x[j] - x[k])), divided by C.

    Args:
        input: scores [C] or [N, C].
        target: int64 of input's shape: the target classes, then -1 (the rest is ignored).
        reduction: "none", "mean" or "sum".

    Returns:
        The loss ([N], or 0-dim for a 1-D input, for "none").
    """
    code = _reduction(reduction, size_average, reduce)
    if input.dim() > 2 or (input.dim() >= 1 and input.numel() == 0 and input.shape[-1] == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s"
                           % (list(input.shape),))
    vector = input.dim() <= 1
    x = input.reshape(1, -1) if vector else input
    if tuple(target.shape) != tuple(input.shape) and not (vector and target.numel() == x.shape[1]):
        raise RuntimeError("inconsistent target size: %s for input of size: %s"
                           % (list(target.shape), list(input.shape)))
    n, c = x.shape
    t = target.reshape(n, c)
    from .._sort_reduce import cumprod
    # A target row lists classes up to its first -1: later entries do not count.
    valid = cumprod((t != -1).long(), 1) != 0
    idx = where(valid, t, 0)
    _check_class_range(idx, c, "argument #2 'target' is out of range")
    hits = valid.to(x.dtype)
    is_target = hits.new_zeros(n, c).scatter_add(1, idx, hits) > 0  # [N, class]: listed as a target
    xj = x.gather(1, idx)  # [N, C]: the score of each listed target
    hinge = (1 - xj.reshape(n, c, 1) + x.reshape(n, 1, c)).clamp_min(0)  # [N, target pos, class]
    pair = valid.reshape(n, c, 1).logical_and(is_target.logical_not().reshape(n, 1, c))
    loss = where(pair, hinge, 0.0).sum((1, 2)) / c
    if vector and code == D.TC_REDUCTION_NONE:
        return loss.reshape(())
    return _apply_reduction(loss, code)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Optional[Tensor] = None,
                                size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """The one-vs-all logistic loss: the mean over classes of
    -(y log sigmoid(x) + (1 - y) log sigmoid(-x)) (times weight).

    Args:
        input: scores [N, C] (or [C]).
        target: 0 or 1, of input's shape.
        weight: optional, broadcast to input.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss ([N] for "none").
    """
    if size_average is not None or reduce is not None:
        reduction = {0: "none", 1: "mean", 2: "sum"}[_reduction(reduction, size_average, reduce)]
    loss = -(target * input.logsigmoid() + (1 - target) * (-input).logsigmoid())
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d the
    p-norm pairwise distance (eps added to the difference).

    Args:
        anchor, positive, negative: [N, D] (or [D]).
        margin: the margin.
        p: the norm's degree.
        eps: added to the differences.
        swap: use min(d(a, n), d(p, n)) as the negative distance.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction, size_average, reduce)
    a, pd, nd = anchor.dim(), positive.dim(), negative.dim()
    if not (a == pd == nd):
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           "dimensions, but got: anchor %dD, positive %dD, and negative %dD inputs" % (a, pd, nd))
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((dist_pos - dist_neg + margin).clamp_min(0), code)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function: Optional[Callable[[Tensor, Tensor], Tensor]] = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin) with any
    distance function d (pairwise_distance by default).

    Args:
        anchor, positive, negative: the embeddings.
        distance_function: (x, y) -> distances; pairwise_distance when None.
        margin: the margin.
        swap: use min(d(a, n), d(p, n)) as the negative distance.
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    code = _reduction(reduction)
    d = distance_function if distance_function is not None else pairwise_distance
    dist_pos = d(anchor, positive)
    dist_neg = d(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(d(positive, negative))
    return _apply_reduction((dist_pos - dist_neg + margin).clamp_min(0.0), code)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) when full).

    Args:
        input: the expectations.
        target: the samples.
        var: positive variances, of input's shape, or of it without (or with
            size 1 in) the last dim (homoscedastic).
        full: add the constant term.
        eps: var is clamped to at least eps (the gradient passes as if unclamped, as torch's).
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape)[:-1] == tuple(var.shape)[:-1] and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if (var < 0).any().item():
        raise ValueError("var has negative entry/entries")
    # torch clamps a clone in place under no_grad: the value is clamped, the
    # gradient flows to var unchanged. Adding the detached difference does that.
    with no_grad():
        lift = var.clamp_min(eps) - var
    var = var + lift
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """The Poisson negative log-likelihood: exp(input) - target * input
    (log_input), else input - target * log(input + eps); full adds
    Stirling's approximation of log(target!) where target > 1.

    Args:
        input: log-rates (log_input) or rates.
        target: the counts.
        log_input: whether input holds log-rates.
        full: add the Stirling term.
        eps: added to the rate in the log (log_input False).
        reduction: "none", "mean" or "sum".

    Returns:
        The loss.
    """
    if size_average is not None or reduce is not None:
        reduction = {0: "none", 1: "mean", 2: "sum"}[_reduction(reduction, size_average, reduce)]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + where(target > 1, stirling, 0.0)
    return _apply_reduction(loss, _reduction(reduction))
